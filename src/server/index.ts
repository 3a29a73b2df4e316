// The provider runtime both protocols share: the registry's lookups and names, configuration, sessions,
// private state, the operation frame and the order journal's settling, the process's signals and end.
// Nothing here speaks a protocol (no Terraform or Pulumi shapes) or names a resource; it imports core/
// (and the API client's OperationFrame as a type), never the API client itself, a front end or emulator/.
export {
  abandonDeliveries,
  currentOperation,
  registerSavedState,
  registerSettlement,
  settleAccount,
  settleDeliveries,
  type Warn,
  withOperation,
} from './operation.js'
export { parsePrivate, serializePrivate } from './private-state.js'
export { type GuardOptions, guardProcess, stopSignal, terminating } from './process-guard.js'
export { NotConfiguredError, ProviderServer, type ServerOptions } from './provider-server.js'
export { type Naming, type Registry, TypeIndex, UnknownTypeError } from './registry.js'
export type {
  Applied,
  ApplyRequest,
  Change,
  ChangeRequest,
  DeleteRule,
  OpenSession,
  PlannedChange,
  PlanRequest,
} from './requests.js'

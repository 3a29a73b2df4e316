// The typed REST client of the service: the one place that does HTTP (auth, envelopes, errors,
// retries, idempotency keys, waiting for Active, redaction), one file per API family.
// Nothing here imports from the rest of the project, and nothing outside does HTTP itself.
export { type Client, type ClientOptions, createClient } from './client.js'
// Every API family's types (its calls, requests and accounts), from the families' one registry.
export type * from './families.js'
export {
  ApiError,
  DecodeError,
  type FieldError,
  formatDuration,
  TransportError,
  type TransportFailure,
  WaitError,
  type WaitFailure,
} from './errors.js'
export { wireOf, withoutLeadingZeros } from './decode.js'
export type { KeypairApi } from './keypairs.js'
export {
  type Account,
  type AccountStatus,
  CYCLE_LABELS,
  type BillingOption,
  type Id,
  type Invoice,
  type InvoiceStatus,
  type Keypair,
  type Order,
  type OrderPayment,
  type PaidOrder,
  type Plan,
  type PlanOptions,
  type PriceComponent,
  type PriceStep,
  statusIs,
} from './models.js'
export { REDACTED, type RedactOptions, redact, redactedJson } from './redact.js'
export {
  describeDatabase,
  isPostgresUrl,
  JOURNAL_REUSE_MS,
  JOURNAL_TABLE,
  type JournalEntry,
  knownAccountsDirectory,
  newJournalSession,
  OrderJournal,
  type OrderOptions,
  PostgresJournalStore,
  postgresUrlProblem,
  type Reconcile,
} from './orders/index.js'
export { JournalUnreadableError, OrderNotPlacedError, OrderUnresolvedError, UnrecordedMatchError } from './errors.js'
export type { ListOptions } from './family.js'
export type { OperationFrame, Rehearsed } from './operation.js'
export type { CallOptions, FetchFunction, Logger, LogLevel, Sleep } from './transport.js'
export type { WaitOptions, WaitResult } from './wait.js'

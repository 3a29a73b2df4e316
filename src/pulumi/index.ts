// The Pulumi front end: the ResourceProvider gRPC service, the property-value codec (secrets,
// unknowns, camelCase names) and the package schema, all derived from core definitions. Nothing here
// may import api/, emulator/, resources/ or terraform/, and nothing here may name a resource: a new
// definition in the registry must work with no change to this folder.
export { Code, codeOf, PulumiError, propertyPath } from './errors.js'
export { EngineLogger, resourceProviderService } from './grpc-server.js'
export {
  type CheckFailure,
  type DiffResult,
  type EngineLog,
  functionToken,
  methodName,
  methodToken,
  PACKAGE,
  type PulumiService,
  pulumiService,
  type Registry,
  resourceToken,
  type Severity,
  typeOfUrn,
} from './provider.js'
export { packageSchema, schemaText } from './schema.js'
export { engineAddressOf, type PluginParts, type RunningPlugin, servePlugin } from './serve.js'
export * from './wire.js'

// The tfplugin6.Provider service: the binding of each RPC to its handler (handlers/<rpc>.ts), each
// decoding Terraform's messages, making one call into the provider server (src/server) and encoding
// its answer, over one TerraformServer per connection (a provider instance, configured on its own),
// and where the process reads the state Terraform saved. Planning and apply semantics live in core
// and the runtime in the server; nothing here defines or configures.
import { create, toBinary } from '@bufbuild/protobuf'
import type { CallContext } from '../grpc/index.js'
import { type Registry, registerSavedState, TypeIndex } from '../server/index.js'
import { GetProviderSchema_ResponseSchema, GetResourceIdentitySchemas_ResponseSchema, Provider } from './gen/tfplugin6.10_pb.js'
import { applyResourceChange } from './handlers/apply-resource-change.js'
import { closeEphemeralResource } from './handlers/close-ephemeral-resource.js'
import { configureProvider } from './handlers/configure-provider.js'
import { getMetadata } from './handlers/get-metadata.js'
import { getProviderSchema } from './handlers/get-provider-schema.js'
import { getResourceIdentitySchemas } from './handlers/get-resource-identity-schemas.js'
import { importResourceState } from './handlers/import-resource-state.js'
import { invokeAction } from './handlers/invoke-action.js'
import { listResource } from './handlers/list-resource.js'
import { moveResourceState } from './handlers/move-resource-state.js'
import { openEphemeralResource } from './handlers/open-ephemeral-resource.js'
import { planAction } from './handlers/plan-action.js'
import { planResourceChange } from './handlers/plan-resource-change.js'
import { readDataSource } from './handlers/read-data-source.js'
import { readResource } from './handlers/read-resource.js'
import { renewEphemeralResource } from './handlers/renew-ephemeral-resource.js'
import { stopProvider } from './handlers/stop-provider.js'
import { upgradeResourceIdentity } from './handlers/upgrade-resource-identity.js'
import { upgradeResourceState } from './handlers/upgrade-resource-state.js'
import { validateActionConfig } from './handlers/validate-action-config.js'
import { validateDataResourceConfig } from './handlers/validate-data-resource-config.js'
import { validateEphemeralResourceConfig } from './handlers/validate-ephemeral-resource-config.js'
import { validateListResourceConfig } from './handlers/validate-list-resource-config.js'
import { validateProviderConfig } from './handlers/validate-provider-config.js'
import { validateResourceConfig } from './handlers/validate-resource-config.js'
import { bindService, type ServiceBinding } from './handshake.js'
import type { Logger } from './log.js'
import { TerraformServer } from './server.js'
import { savedStateIds } from './state-scope.js'
import { identitySchemasResponse, schemaResponse, TERRAFORM_NAMING, viewsOf } from './views.js'

export type { Registry } from '../server/index.js'

export interface ProviderServiceOptions {
  readonly log: Logger
  /** e.g. `provider-terraform/0.1.0`; Terraform's version is appended at configure time. */
  readonly userAgent: string
}

/**
 * GetProviderSchema's response as bytes, exactly what the service answers. The release bundle carries
 * them (scripts/build.mjs), so a launch that only fetches the schema — the first of every Terraform
 * command — answers without loading the definitions (see src/bin/terraform-provider.ts).
 */
export function providerSchemaResponse(registry: Registry): Uint8Array {
  const views = viewsOf(new TypeIndex(registry, TERRAFORM_NAMING), registry.provider)
  return toBinary(GetProviderSchema_ResponseSchema, create(GetProviderSchema_ResponseSchema, schemaResponse(views)))
}

/** GetResourceIdentitySchemas' response as bytes: Terraform 1.12+ asks for it right after the schema, in the same launch. */
export function providerIdentitySchemasResponse(registry: Registry): Uint8Array {
  const views = viewsOf(new TypeIndex(registry, TERRAFORM_NAMING), registry.provider)
  return toBinary(
    GetResourceIdentitySchemas_ResponseSchema,
    create(GetResourceIdentitySchemas_ResponseSchema, identitySchemasResponse(views)),
  )
}

export function providerService(registry: Registry, options: ProviderServiceOptions): ServiceBinding {
  const servers = new WeakMap<object, TerraformServer>()
  let command: { open: number; readonly run: object } | undefined
  // One server per connection, so per provider instance: a process Terraform reattaches to (the serve
  // mode) is connected to once per `provider` block, each configured with its own settings (an alias
  // with another API key), and once per walk; a launched process serves one connection.
  // The connections of one command are one run (their orders are this run's, whichever block placed
  // them): Terraform keeps each open until it exits, so a connection that calls while another that
  // called is open serves the same command, and one that calls after all have closed a new one (the
  // next command, or a re-run of one that was killed). Two commands at once (a command left open at its
  // prompt beside the next) overlap into one such run; what each connection placed stops counting as
  // the run's once that connection has closed (its command is over), which keeps them apart.
  const tfOf = (call: CallContext): TerraformServer => {
    let tf = servers.get(call.connection)
    if (tf === undefined) {
      if (command === undefined || command.open === 0) command = { open: 0, run: {} }
      const served = command
      served.open++
      call.onConnectionClosed(() => {
        served.open--
      })
      tf = new TerraformServer(registry, options.log, options.userAgent, served.run, (callback) => call.onConnectionClosed(callback))
      servers.set(call.connection, tf)
    }
    return tf
  }
  // The local backend has saved every object by the time Terraform closes the provider: what was
  // handed over and is in it is kept, even when a later run reads only part of the state (-target).
  const types = new Set(new TypeIndex(registry, TERRAFORM_NAMING).resourceTypes())
  registerSavedState(() => savedStateIds(types))
  return bindService(Provider, {
    getMetadata: (_, call) => getMetadata(tfOf(call)),
    getProviderSchema: (_, call) => getProviderSchema(tfOf(call)),
    getResourceIdentitySchemas: (_, call) => getResourceIdentitySchemas(tfOf(call)),
    upgradeResourceIdentity: (request, call) => upgradeResourceIdentity(tfOf(call), request),
    validateListResourceConfig: (request, call) => validateListResourceConfig(tfOf(call), request),
    listResource: (request, send, call) => listResource(tfOf(call), request, send, call),
    validateProviderConfig: (request, call) => validateProviderConfig(tfOf(call), request),
    configureProvider: (request, call) => configureProvider(tfOf(call), request),
    validateResourceConfig: (request, call) => validateResourceConfig(tfOf(call), request),
    validateDataResourceConfig: (request, call) => validateDataResourceConfig(tfOf(call), request),
    upgradeResourceState: (request, call) => upgradeResourceState(tfOf(call), request),
    readResource: (request, call) => readResource(tfOf(call), request),
    planResourceChange: (request, call) => planResourceChange(tfOf(call), request),
    applyResourceChange: (request, call) => applyResourceChange(tfOf(call), request, call.signal),
    importResourceState: (request, call) => importResourceState(tfOf(call), request),
    moveResourceState: (request, call) => moveResourceState(tfOf(call), request),
    readDataSource: (request, call) => readDataSource(tfOf(call), request),
    validateEphemeralResourceConfig: (request, call) => validateEphemeralResourceConfig(tfOf(call), request),
    openEphemeralResource: (request, call) => openEphemeralResource(tfOf(call), request),
    renewEphemeralResource: (request, call) => renewEphemeralResource(tfOf(call), request),
    closeEphemeralResource: (request, call) => closeEphemeralResource(tfOf(call), request),
    validateActionConfig: (request, call) => validateActionConfig(tfOf(call), request),
    planAction: (request, call) => planAction(tfOf(call), request, call),
    invokeAction: (request, send, call) => invokeAction(tfOf(call), request, send, call),
    stopProvider: (_, call) => stopProvider(tfOf(call)),
  })
}

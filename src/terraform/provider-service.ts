// The tfplugin6.Provider service: the binding of each RPC to its handler (handlers/<rpc>.ts), each
// decoding Terraform's messages, making one call into the provider server (src/server) and encoding
// its answer, over one TerraformServer per process. Planning and apply semantics live in core and
// the runtime in the server; nothing here registers or configures.
import { create, toBinary } from '@bufbuild/protobuf'
import { type Registry, TypeIndex } from '../server/index.js'
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
  const tf = new TerraformServer(registry, options.log, options.userAgent)
  return bindService(Provider, {
    getMetadata: () => getMetadata(tf),
    getProviderSchema: () => getProviderSchema(tf),
    getResourceIdentitySchemas: () => getResourceIdentitySchemas(tf),
    upgradeResourceIdentity: (request) => upgradeResourceIdentity(tf, request),
    validateListResourceConfig: (request) => validateListResourceConfig(tf, request),
    listResource: (request, send, call) => listResource(tf, request, send, call),
    validateProviderConfig: (request) => validateProviderConfig(tf, request),
    configureProvider: (request) => configureProvider(tf, request),
    validateResourceConfig: (request) => validateResourceConfig(tf, request),
    validateDataResourceConfig: (request) => validateDataResourceConfig(tf, request),
    upgradeResourceState: (request) => upgradeResourceState(tf, request),
    readResource: (request) => readResource(tf, request),
    planResourceChange: (request) => planResourceChange(tf, request),
    applyResourceChange: (request, call) => applyResourceChange(tf, request, call.signal),
    importResourceState: (request) => importResourceState(tf, request),
    moveResourceState: (request) => moveResourceState(tf, request),
    readDataSource: (request) => readDataSource(tf, request),
    validateEphemeralResourceConfig: (request) => validateEphemeralResourceConfig(tf, request),
    openEphemeralResource: (request) => openEphemeralResource(tf, request),
    renewEphemeralResource: (request) => renewEphemeralResource(tf, request),
    closeEphemeralResource: (request) => closeEphemeralResource(tf, request),
    validateActionConfig: (request) => validateActionConfig(tf, request),
    planAction: (request, call) => planAction(tf, request, call),
    invokeAction: (request, send, call) => invokeAction(tf, request, send, call),
    stopProvider: () => stopProvider(tf),
  })
}

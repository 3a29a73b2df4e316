// The tfplugin6.Provider service: one handler per RPC (in the file named after it), each decoding
// Terraform's messages, calling the provider server (src/server) and encoding its answer. Planning and
// apply semantics live in core and the runtime in the server; nothing here registers or configures.
import { create, type MessageInitShape, toBinary } from '@bufbuild/protobuf'
import { TypeIndex, type Registry } from '../server/index.js'
import { invokeAction, planAction, validateActionConfig } from './actions.js'
import { applyResourceChange } from './apply-resource-change.js'
import { closeEphemeralResource, renewEphemeralResource } from './close-ephemeral-resource.js'
import { configureProvider } from './configure-provider.js'
import { TERRAFORM_NAMING, TfContext, type Views, viewsOf } from './context.js'
import { GetProviderSchema_ResponseSchema, GetResourceIdentitySchemas_ResponseSchema, Provider } from './gen/tfplugin6.10_pb.js'
import { bindService, type ServiceBinding } from './handshake.js'
import { importResourceState } from './import-resource-state.js'
import type { Logger } from './log.js'
import { listResource, validateListResourceConfig } from './list-resource.js'
import { moveResourceState } from './move-resource-state.js'
import { openEphemeralResource } from './open-ephemeral-resource.js'
import { planResourceChange } from './plan-resource-change.js'
import { readDataSource } from './read-data-source.js'
import { readResource } from './read-resource.js'
import { upgradeResourceIdentity } from './upgrade-resource-identity.js'
import { upgradeResourceState } from './upgrade-resource-state.js'
import {
  validateDataResourceConfig,
  validateEphemeralResourceConfig,
  validateProviderConfig,
  validateResourceConfig,
} from './validate-config.js'

export type { Registry } from '../server/index.js'

export interface ProviderServiceOptions {
  readonly log: Logger
  /** e.g. `provider-terraform/0.1.0`; Terraform's version is appended at configure time. */
  readonly userAgent: string
}

/** `moved` blocks between resource types need MoveResourceState, which Terraform calls only when advertised. */
// planDestroy: Terraform asks before a delete it plans (destroy, removal from the configuration), so a
// delete that would be refused (see refusedDelete) fails at plan time, before anything is applied.
const CAPABILITIES = { getProviderSchemaOptional: true, planDestroy: true, moveResourceState: true } as const

function schemaResponse(views: Views): MessageInitShape<typeof GetProviderSchema_ResponseSchema> {
  return {
    provider: views.provider.schema,
    resourceSchemas: Object.fromEntries([...views.resources].map(([name, view]) => [name, view.schema])),
    dataSourceSchemas: Object.fromEntries([...views.dataSources].map(([name, view]) => [name, view.schema])),
    listResourceSchemas: Object.fromEntries([...views.lists].map(([name, view]) => [name, view.schema])),
    ephemeralResourceSchemas: Object.fromEntries([...views.ephemerals].map(([name, view]) => [name, view.schema])),
    actionSchemas: Object.fromEntries([...views.actions].map(([name, action]) => [name, { schema: action.view.schema }])),
    serverCapabilities: CAPABILITIES,
  }
}

function identitySchemasResponse(views: Views): MessageInitShape<typeof GetResourceIdentitySchemas_ResponseSchema> {
  return { identitySchemas: Object.fromEntries([...views.identities].map(([name, identity]) => [name, identity.schema])) }
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
  const ctx = new TfContext(registry, options.log, options.userAgent)
  return bindService(Provider, {
    getMetadata: () => ({
      serverCapabilities: CAPABILITIES,
      resources: ctx.server.types.resourceTypes().map((typeName) => ({ typeName })),
      dataSources: ctx.server.types.dataSourceTypes().map((typeName) => ({ typeName })),
      listResources: ctx.server.types.listResourceTypes().map((typeName) => ({ typeName })),
      ephemeralResources: ctx.server.types.ephemeralTypes().map((typeName) => ({ typeName })),
      actions: [...ctx.views.actions.keys()].map((typeName) => ({ typeName })),
    }),
    getProviderSchema: () => schemaResponse(ctx.views),
    getResourceIdentitySchemas: () => identitySchemasResponse(ctx.views),
    upgradeResourceIdentity: (request) => upgradeResourceIdentity(ctx, request),
    validateListResourceConfig: (request) => validateListResourceConfig(ctx, request),
    listResource: (request, send, call) => listResource(ctx, request, send, call),
    validateProviderConfig: (request) => validateProviderConfig(ctx, request),
    configureProvider: (request) => configureProvider(ctx, request),
    validateResourceConfig: (request) => validateResourceConfig(ctx, request),
    validateDataResourceConfig: (request) => validateDataResourceConfig(ctx, request),
    upgradeResourceState: (request) => upgradeResourceState(ctx, request),
    readResource: (request) => readResource(ctx, request),
    planResourceChange: (request) => planResourceChange(ctx, request),
    applyResourceChange: (request) => applyResourceChange(ctx, request),
    importResourceState: (request) => importResourceState(ctx, request),
    moveResourceState: (request) => moveResourceState(ctx, request),
    readDataSource: (request) => readDataSource(ctx, request),
    validateEphemeralResourceConfig: (request) => validateEphemeralResourceConfig(ctx, request),
    openEphemeralResource: (request) => openEphemeralResource(ctx, request),
    renewEphemeralResource: (request) => renewEphemeralResource(ctx, request),
    closeEphemeralResource: (request) => closeEphemeralResource(ctx, request),
    validateActionConfig: (request) => validateActionConfig(ctx, request),
    planAction: (request, call) => planAction(ctx, request, call),
    invokeAction: (request, send, call) => invokeAction(ctx, request, send, call),
    stopProvider: () => {
      options.log.info('stop requested: cancelling in-flight operations at their next step boundary')
      ctx.server.interrupt(new Error('Terraform asked the provider to stop (interrupted)'))
      return { Error: '' }
    },
  })
}

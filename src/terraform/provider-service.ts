// The tfplugin6.Provider service: one thin handler per RPC, decode -> core -> encode. Planning and
// apply semantics live in core; this file only speaks Terraform's shapes and contract.
import { create, type MessageInitShape, toBinary } from '@bufbuild/protobuf'
import {
  type AnyDataSource,
  type AnyProvider,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  checkPlanOnline,
  type Diagnostic,
  error,

  hasErrors,
  importResource,
  InputError,
  moveResource,
  messageOf,
  type PrivateState,
  planResource,
  readDataSource,
  readResource,
  renderNames,
  type Session,
  toDiagnostics,
  unfinishedIsError,
  validateConfig,
  type ValueMap,
  stopSignal,
} from '../core/index.js'
import type { CtyValue } from './cty.js'
import {
  type DynamicValue,
  DynamicValueSchema,
  GetProviderSchema_ResponseSchema,
  type Diagnostic as TfDiagnostic,
  Provider,
} from './gen/tfplugin6.8_pb.js'
import { bindService, PROVIDER_ADDRESS, type ServiceBinding } from './handshake.js'
import { decodeJsonState } from './json-state.js'
import type { Logger } from './log.js'
import { decodeMsgpack, encodeMsgpack } from './msgpack.js'
import {
  attributePath,
  dataSourceView,
  fromCty,
  providerView,
  resourceView,
  type TfView,
  terraformNames,
  toCty,
  toTfDiagnostic,
} from './schema.js'

export interface Registry {
  readonly provider: AnyProvider
  readonly resources: readonly AnyResource[]
  readonly dataSources: readonly AnyDataSource[]
}

export interface ProviderServiceOptions {
  readonly log: Logger
  /** e.g. `provider-terraform/0.1.0`; Terraform's version is appended at configure time. */
  readonly userAgent: string
}

const EMPTY = new Uint8Array()
/** `moved` blocks between resource types need MoveResourceState, which Terraform calls only when advertised. */
const CAPABILITIES = { getProviderSchemaOptional: true, planDestroy: false, moveResourceState: true } as const

function decode(view: TfView, value: DynamicValue | undefined): ValueMap | null {
  if (!value) return null
  if (value.msgpack.length > 0) return fromCty(view, decodeMsgpack(value.msgpack, view.type))
  if (value.json.length > 0) return fromCty(view, decodeJsonState(value.json, view.type))
  return null
}

function encode(view: TfView, value: ValueMap | null): DynamicValue {
  return create(DynamicValueSchema, { msgpack: encodeMsgpack(toCty(view, value) as CtyValue, view.type) })
}

function readPrivate(bytes: Uint8Array): PrivateState {
  if (bytes.length === 0) return {}
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes))
    return parsed !== null && typeof parsed === 'object' ? (parsed as PrivateState) : {}
  } catch {
    return {}
  }
}

function writePrivate(state: PrivateState): Uint8Array {
  return Object.keys(state).length === 0 ? EMPTY : new TextEncoder().encode(JSON.stringify(state))
}


/**
 * A create that placed its order but did not finish is reported with warnings, not errors: an error
 * makes Terraform taint the object, and a tainted object is replaced, which is a second paid order.
 */
function untainting(list: readonly Diagnostic[]): Diagnostic[] {
  return list.map((d) => (d.severity === 'error' ? { ...d, severity: 'warning' as const } : d))
}

function untaintAdvice(): Diagnostic {
  return {
    severity: 'error',
    summary: 'Untaint this resource before the next apply',
    detail:
      'Terraform marks a resource created with an error as tainted and would replace it, which places a second paid order. ' +
      'Run `terraform untaint <address>` on it; the next apply then resumes the order that was kept.',
  }
}

function views(registry: Registry) {
  return {
    providerSchema: providerView(registry.provider),
    resources: new Map(registry.resources.map((r) => [`provider_${r.name}`, { definition: r, view: resourceView(r) }])),
    dataSources: new Map(registry.dataSources.map((d) => [`provider_${d.name}`, { definition: d, view: dataSourceView(d) }])),
  }
}

function schemaResponse({ providerSchema, resources, dataSources }: ReturnType<typeof views>): MessageInitShape<typeof GetProviderSchema_ResponseSchema> {
  return {
    provider: providerSchema.schema,
    resourceSchemas: Object.fromEntries([...resources].map(([name, r]) => [name, r.view.schema])),
    dataSourceSchemas: Object.fromEntries([...dataSources].map(([name, d]) => [name, d.view.schema])),
    serverCapabilities: CAPABILITIES,
  }
}

/**
 * GetProviderSchema's response as bytes, exactly what the service answers. The release bundle carries
 * them (scripts/build.mjs), so a launch that only fetches the schema — the first of every Terraform
 * command — answers without loading the definitions (see src/bin/terraform-provider.ts).
 */
export function providerSchemaResponse(registry: Registry): Uint8Array {
  return toBinary(GetProviderSchema_ResponseSchema, create(GetProviderSchema_ResponseSchema, schemaResponse(views(registry))))
}

export function providerService(registry: Registry, options: ProviderServiceOptions): ServiceBinding {
  const { log } = options
  const registryViews = views(registry)
  const { providerSchema, resources, dataSources } = registryViews
  let client: unknown
  let advise: ((thrown: unknown) => string | null) | undefined
  let strict: string | undefined
  let stop = new AbortController()
  const names = terraformNames([
    { name: '', attributes: registry.provider.attributes },
    ...registry.resources,
    ...registry.dataSources,
  ])
  /** Diagnostics in Terraform's names (provider_lite_vm, power_state), as users write them. */
  const diagnostics = (list: readonly Diagnostic[]): TfDiagnostic[] => list.map((d) => toTfDiagnostic(renderNames(d, names)))

  function resource(typeName: string) {
    const found = resources.get(typeName)
    if (!found) throw new InputError([], `This provider has no resource type ${typeName}.`)
    return found
  }
  function dataSource(typeName: string) {
    const found = dataSources.get(typeName)
    if (!found) throw new InputError([], `This provider has no data source ${typeName}.`)
    return found
  }
  function session(): Session<unknown> {
    if (client === undefined) throw new InputError([], 'The provider is not configured: Terraform did not call ConfigureProvider.')
    return { client, log, signal: stopSignal(stop.signal), ...(advise ? { advise } : {}), ...(strict ? { unfinishedIsError: strict } : {}) }
  }
  /** The one catch of each RPC: whatever escaped core is translated, never thrown at Terraform. */
  function failed(rpc: string, thrown: unknown): TfDiagnostic[] {
    log.error(`${rpc} failed`, { error: messageOf(thrown) })
    return diagnostics(toDiagnostics(thrown, `${rpc} failed`, []))
  }

  return bindService(Provider, {
    getMetadata: () => ({
      serverCapabilities: CAPABILITIES,
      resources: [...resources.keys()].map((typeName) => ({ typeName })),
      dataSources: [...dataSources.keys()].map((typeName) => ({ typeName })),
    }),

    getProviderSchema: () => schemaResponse(registryViews),

    validateProviderConfig: (request) => {
      try {
        const config = decode(providerSchema, request.config) ?? {}
        return { diagnostics: diagnostics(validateConfig(registry.provider.attributes, config, { requireInputs: false })) }
      } catch (thrown) {
        return { diagnostics: failed('ValidateProviderConfig', thrown) }
      }
    },

    configureProvider: (request) => {
      try {
        const config = decode(providerSchema, request.config) ?? {}
        const issues = validateConfig(registry.provider.attributes, config, { requireInputs: false })
        if (hasErrors(issues)) return { diagnostics: diagnostics(issues) }
        const userAgent = `${options.userAgent} terraform/${request.terraformVersion || 'unknown'}`
        client = registry.provider.configure(config, { userAgent, log })
        advise = (thrown) => registry.provider.advise?.(thrown, config) ?? null
        strict = unfinishedIsError(registry.provider, config)
        return { diagnostics: [] }
      } catch (thrown) {
        return { diagnostics: failed('ConfigureProvider', thrown) }
      }
    },

    validateResourceConfig: (request) => {
      try {
        const { definition, view } = resource(request.typeName)
        const config = decode(view, request.config) ?? {}
        const hasTimeouts = Object.keys(definition.timeouts).length > 0
        const issues = validateConfig(definition.attributes, config, {
          requireInputs: false, // Terraform reports missing required arguments itself
          ...(hasTimeouts ? { timeouts: definition.timeouts } : {}),
        })
        return { diagnostics: diagnostics(issues) }
      } catch (thrown) {
        return { diagnostics: failed('ValidateResourceConfig', thrown) }
      }
    },

    validateDataResourceConfig: (request) => {
      try {
        const { definition, view } = dataSource(request.typeName)
        const config = decode(view, request.config) ?? {}
        return { diagnostics: diagnostics(validateConfig(definition.attributes, config, { requireInputs: false })) }
      } catch (thrown) {
        return { diagnostics: failed('ValidateDataResourceConfig', thrown) }
      }
    },

    upgradeResourceState: (request) => {
      try {
        const { view } = resource(request.typeName)
        const json = request.rawState?.json ?? EMPTY
        const state = json.length > 0 ? fromCty(view, decodeJsonState(json, view.type)) : null
        return { upgradedState: encode(view, state), diagnostics: [] }
      } catch (thrown) {
        return { diagnostics: failed('UpgradeResourceState', thrown) }
      }
    },

    readResource: async (request) => {
      try {
        const { definition, view } = resource(request.typeName)
        const current = decode(view, request.currentState)
        if (current === null) return { newState: encode(view, null), private: request.private }
        const outcome = await readResource(definition, current, String(current.id), readPrivate(request.private), session())
        return { newState: encode(view, outcome.state), private: writePrivate(outcome.private), diagnostics: diagnostics(outcome.diagnostics) }
      } catch (thrown) {
        return { newState: request.currentState, private: request.private, diagnostics: failed('ReadResource', thrown) }
      }
    },

    planResourceChange: async (request) => {
      try {
        const { definition, view } = resource(request.typeName)
        const config = decode(view, request.config)
        const proposed = decode(view, request.proposedNewState)
        if (config === null || proposed === null) {
          return { plannedState: encode(view, null), plannedPrivate: request.priorPrivate, diagnostics: [] }
        }
        const prior = decode(view, request.priorState)
        const plan = planResource(definition, prior, config, readPrivate(request.priorPrivate))
        const issues = [...plan.diagnostics]
        if (client !== undefined && !hasErrors(issues)) issues.push(...(await checkPlanOnline(definition, prior, plan, session())))
        return {
          plannedState: encode(view, hasErrors(issues) ? proposed : plan.planned),
          requiresReplace: plan.replace.map((name) => attributePath([name])),
          plannedPrivate: writePrivate(plan.private),
          diagnostics: diagnostics(issues),
        }
      } catch (thrown) {
        return { diagnostics: failed('PlanResourceChange', thrown) }
      }
    },

    applyResourceChange: async (request) => {
      try {
        const { definition, view } = resource(request.typeName)
        const prior = decode(view, request.priorState)
        const planned = decode(view, request.plannedState)
        const priorPrivate = readPrivate(request.plannedPrivate)
        const s = session()
        if (planned === null) {
          if (prior === null) return { newState: encode(view, null) }
          const outcome = await applyDelete(definition, prior, s)
          return { newState: encode(view, outcome.state), diagnostics: diagnostics(outcome.diagnostics) }
        }
        const outcome =
          prior === null ? await applyCreate(definition, planned, s) : await applyUpdate(definition, prior, planned, priorPrivate, s)
        // Asked for (fail_on_unfinished), the error stays an error: Terraform then taints the object, which the message says.
        const shown = prior === null && outcome.incomplete ? (strict ? [...outcome.diagnostics, untaintAdvice()] : untainting(outcome.diagnostics)) : outcome.diagnostics
        if (outcome.state === null && prior !== null) {
          return { newState: encode(view, prior), private: request.plannedPrivate, diagnostics: diagnostics(shown) }
        }
        return { newState: encode(view, outcome.state), private: writePrivate(outcome.private), diagnostics: diagnostics(shown) }
      } catch (thrown) {
        return { newState: request.priorState, diagnostics: failed('ApplyResourceChange', thrown) }
      }
    },

    importResourceState: async (request) => {
      try {
        const { definition, view } = resource(request.typeName)
        const outcome = await importResource(definition, request.id, session())
        if (outcome.state === null) return { diagnostics: diagnostics(outcome.diagnostics) }
        return {
          importedResources: [{ typeName: request.typeName, state: encode(view, outcome.state), private: writePrivate(outcome.private) }],
          diagnostics: diagnostics(outcome.diagnostics),
        }
      } catch (thrown) {
        return { diagnostics: failed('ImportResourceState', thrown) }
      }
    },

    moveResourceState: async (request) => {
      try {
        const { definition, view } = resource(request.targetTypeName)
        const from = resources.get(request.sourceTypeName)
        const ours = request.sourceProviderAddress === '' || request.sourceProviderAddress.endsWith(PROVIDER_ADDRESS)
        if (!from || !ours) {
          const detail = `${request.sourceTypeName} of ${request.sourceProviderAddress || 'another provider'} is not a resource type of this provider.`
          return { diagnostics: diagnostics([error(`Cannot move ${request.sourceTypeName} to ${definition.name}`, detail)]) }
        }
        const json = request.sourceState?.json ?? EMPTY
        const source = json.length > 0 ? fromCty(from.view, decodeJsonState(json, from.view.type)) : null
        if (source === null) return { diagnostics: diagnostics([error('Cannot move an empty state', `${request.sourceTypeName} has no state to move.`)]) }
        const outcome = await moveResource(definition, from.definition.name, source, readPrivate(request.sourcePrivate), client === undefined ? null : session())
        if (outcome.state === null) return { diagnostics: diagnostics(outcome.diagnostics) }
        return { targetState: encode(view, outcome.state), targetPrivate: writePrivate(outcome.private), diagnostics: diagnostics(outcome.diagnostics) }
      } catch (thrown) {
        return { diagnostics: failed('MoveResourceState', thrown) }
      }
    },

    readDataSource: async (request) => {
      try {
        const { definition, view } = dataSource(request.typeName)
        const config = decode(view, request.config) ?? {}
        const outcome = await readDataSource(definition, config, session())
        if (outcome.state === null) return { diagnostics: diagnostics(outcome.diagnostics) }
        return { state: encode(view, outcome.state), diagnostics: diagnostics(outcome.diagnostics) }
      } catch (thrown) {
        return { diagnostics: failed('ReadDataSource', thrown) }
      }
    },

    stopProvider: () => {
      log.info('stop requested: cancelling in-flight operations at their next step boundary')
      stop.abort(new Error('Terraform asked the provider to stop (interrupted)'))
      stop = new AbortController()
      return { Error: '' }
    },
  })
}


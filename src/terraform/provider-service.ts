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
  settleAccount,
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
import { workspaceScope } from './workspace.js'
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
// planDestroy: Terraform asks before a delete it plans (destroy, removal from the configuration), so a
// delete that would be refused (see refusedDelete) fails at plan time, before anything is applied.
const CAPABILITIES = { getProviderSchemaOptional: true, planDestroy: true, moveResourceState: true } as const

function decode(view: TfView, value: DynamicValue | undefined): ValueMap | null {
  if (!value) return null
  if (value.msgpack.length > 0) return fromCty(view, decodeMsgpack(value.msgpack, view.type))
  if (value.json.length > 0) return fromCty(view, decodeJsonState(value.json, view.type))
  return null
}

function encode(view: TfView, value: ValueMap | null): DynamicValue {
  return create(DynamicValueSchema, { msgpack: encodeMsgpack(toCty(view, value) as CtyValue, view.type) })
}

/**
 * Core's private state plus this front end's marks, which guard a paid object left unfinished under
 * the unfinished setting against the replacement Terraform plans for a tainted object (refusedDelete).
 */
interface TfPrivate extends PrivateState {
  /**
   * The create placed its order and ended with an error because the order was left unfinished (the
   * setting asked for one), so Terraform tainted the object. Kept in state until an update runs
   * (Terraform updates only objects that are not tainted); a delete is refused while the setting is on.
   */
  readonly failedUnfinished?: true
  /**
   * The create placed its order, then the service refused a later step, so the apply ended with an
   * error and Terraform tainted the object. Kept until an update runs; the replacement Terraform
   * plans for it is refused whatever the setting (see refusedDelete).
   */
  readonly failedStep?: true
  /** A plan's own marks, never stored: planned with the object's prior state, or without one. */
  readonly planned?: 'withPrior' | 'withoutPrior'
  /**
   * A plan's own mark, never stored: the ids of objects marked `failedStep` that this process's
   * refresh saw. Terraform plans the replacement of a tainted object without its private state, and
   * the delete half of that replacement receives this plan's private state: an id listed here is the
   * tainted object of a create that failed after its order.
   */
  readonly guarded?: readonly string[]
}

function readPrivate(bytes: Uint8Array): TfPrivate {
  if (bytes.length === 0) return {}
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes))
    return parsed !== null && typeof parsed === 'object' ? (parsed as TfPrivate) : {}
  } catch {
    return {}
  }
}

/** What a plan passes on to its apply: the private state with how it was planned (see refusedDelete). */
function plannedPrivate(state: TfPrivate, planned: 'withPrior' | 'withoutPrior'): Uint8Array {
  return writePrivate({ ...state, planned })
}

/** What an apply stores: the private state without the plan's marks. */
function storedPrivate(state: TfPrivate): Uint8Array {
  const { planned: _planned, guarded: _guarded, ...kept } = state
  return writePrivate(kept)
}

function writePrivate(state: TfPrivate): Uint8Array {
  return Object.keys(state).length === 0 ? EMPTY : new TextEncoder().encode(JSON.stringify(state))
}


/**
 * A create that placed its order but did not finish is reported with warnings, not errors: an error
 * makes Terraform taint the object, and a tainted object is replaced, which is a second paid order.
 */
function untainting(list: readonly Diagnostic[]): Diagnostic[] {
  return list.map((d) => (d.severity === 'error' ? { ...d, severity: 'warning' as const } : d))
}

/** The error a create that failed after its paid order ends with, on top of core's account of it. */
function failedStepAdvice(): Diagnostic {
  return {
    severity: 'error',
    summary: 'Untaint this resource before the next apply',
    detail:
      'Terraform marks a resource whose create ends with an error as tainted and plans to replace it, which would delete ' +
      'this paid object and place a second order. Run `terraform untaint <address>` (the address shown with this error), ' +
      'fix what failed, and apply again: that apply changes only what the server does not have yet and orders nothing ' +
      'again. An apply without the untaint stops before deleting or ordering anything (unless it runs with -refresh=false, ' +
      'which skips the check that finds this resource).',
  }
}

function untaintAdvice(setting: string): Diagnostic {
  return {
    severity: 'error',
    summary: 'Untaint this resource before the next apply',
    detail:
      'Terraform marks a resource created with an error as tainted and would replace it, which places a second paid order. ' +
      'Run `terraform untaint <address>` on it; the next apply then resumes the order that was kept. Without it, the next ' +
      `apply stops before deleting it (while ${setting} is set) and orders nothing.`,
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

/**
 * A delete that would cancel a paid order left unfinished, refused while the unfinished setting is on.
 * With the setting, a create whose order is not finished ends with an error, so Terraform taints the
 * object and the next apply replaces it: delete it, then order a new one (a second paid order).
 * Terraform plans that replacement as a create, without the object's state or private state, and
 * the delete of the old object receives the private state of that plan: marked `withoutPrior`, it is
 * the delete of a tainted object. A delete Terraform plans with the object's state (destroy, removal
 * from the configuration, a replacement) carries the object's private state: `failedUnfinished` says
 * its order was left unfinished and not resumed since. The error says how to resume it and how to
 * really delete it.
 */
function refusedDelete(typeName: string, prior: ValueMap, priorPrivate: TfPrivate, setting: string | undefined): Diagnostic | null {
  const id = String(prior.id)
  const tainted = priorPrivate.planned === 'withoutPrior'
  if (tainted && priorPrivate.guarded?.includes(id) === true) {
    return error(
      `Not replacing ${typeName} ${id}: its create failed after the paid order`,
      `Terraform plans to replace ${typeName} ${id} because it is tainted: the apply that created it placed and paid its ` +
        'order, then a later step failed, and Terraform taints a resource whose create ends with an error. Replacing it ' +
        'would delete a paid object and place a second order, so nothing was deleted or ordered. To keep it and finish ' +
        `the failed step: run \`terraform untaint ${typeName}.<name>\` (the address shown with this error), fix what ` +
        'failed, and apply again. To replace it on purpose: untaint it, then run `terraform apply -replace=<address>`.',
    )
  }
  if (setting === undefined) return null
  if (!tainted && priorPrivate.failedUnfinished !== true) return null
  return error(
    `Not deleting ${typeName} ${id} while ${setting} is true`,
    (tainted
      ? `Terraform plans to replace ${typeName} ${id} because it is tainted, which happens when an apply that created it ` +
        `ended with an error, as ${setting} makes it do when the order is not finished (unpaid, or still being provisioned).`
      : `${typeName} ${id} was ordered by an apply that ended with an error because the order was not finished (${setting}), ` +
        'and it has not been applied since.') +
      ' Deleting it would cancel a paid order, and a replacement would place a second one, so nothing was deleted or ordered. ' +
      `To keep it and finish the order: run \`terraform untaint ${typeName}.<name>\` (the address shown with this error), pay ` +
      'its invoice if it waits for payment, and apply again; no second order is placed. To really delete or replace it: set ' +
      `${setting} = false (or remove it) for that apply or destroy, or untaint it, let the order finish, and delete it then. ` +
      'To replace a resource on purpose, use `terraform apply -replace=<address>` rather than `terraform taint`.',
  )
}

export function providerService(registry: Registry, options: ProviderServiceOptions): ServiceBinding {
  const { log } = options
  const registryViews = views(registry)
  const { providerSchema, resources, dataSources } = registryViews
  let client: unknown
  let advise: ((thrown: unknown) => string | null) | undefined
  let strict: string | undefined
  let stop = new AbortController()
  /** Objects marked `failedStep` that this process refreshed (see TfPrivate.guarded). */
  const failedSteps = new Set<string>()
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
  const workspace = workspaceScope()
  function session(): Session<unknown> {
    if (client === undefined) throw new InputError([], 'The provider is not configured: Terraform did not call ConfigureProvider.')
    return {
      client,
      log,
      signal: stopSignal(stop.signal),
      ...(advise ? { advise } : {}),
      ...(strict ? { unfinishedIsError: strict } : {}),
      ...(workspace === undefined ? {} : { scope: workspace }),
    }
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
        const stored = readPrivate(request.private)
        if (stored.failedStep === true) failedSteps.add(String(current.id))
        const outcome = await readResource(definition, current, String(current.id), stored, session())
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
        const prior = decode(view, request.priorState)
        const priorPrivate = readPrivate(request.priorPrivate)
        if (prior !== null) await settleAccount(prior.id)
        if (config === null || proposed === null) {
          // A delete (plan_destroy): refused here already when its apply would refuse it.
          const refused = prior === null ? null : refusedDelete(request.typeName, prior, priorPrivate, strict)
          return { plannedState: encode(view, null), plannedPrivate: request.priorPrivate, diagnostics: refused ? diagnostics([refused]) : [] }
        }
        const plan = planResource(definition, prior, config, priorPrivate)
        const issues = [...plan.diagnostics]
        // A replacement deletes the object: refused at plan time when its delete would be.
        const refused = prior !== null && plan.replace.length > 0 ? refusedDelete(request.typeName, prior, priorPrivate, strict) : null
        if (refused) issues.push(refused)
        if (client !== undefined && !hasErrors(issues)) issues.push(...(await checkPlanOnline(definition, prior, plan, session())))
        // Planned without a prior state: a create, or the replacement of a tainted object (Terraform then
        // sends no prior private state), unless this is the second plan of a replacement planned just before.
        const how = prior !== null || priorPrivate.planned === 'withPrior' ? 'withPrior' : 'withoutPrior'
        const guarded = how === 'withoutPrior' && failedSteps.size > 0 ? { guarded: [...failedSteps] } : {}
        return {
          plannedState: encode(view, hasErrors(issues) ? proposed : plan.planned),
          requiresReplace: plan.replace.map((name) => attributePath([name])),
          plannedPrivate: plannedPrivate(prior === null ? { ...priorPrivate, ...guarded } : plan.private, how),
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
          // Refused: no object with an error makes Terraform keep the object as it was, private state included.
          const refused = refusedDelete(request.typeName, prior, priorPrivate, strict)
          if (refused) return { newState: encode(view, null), diagnostics: diagnostics([refused]) }
          const outcome = await applyDelete(definition, prior, s)
          return { newState: encode(view, outcome.state), private: storedPrivate(priorPrivate), diagnostics: diagnostics(outcome.diagnostics) }
        }
        const outcome =
          prior === null ? await applyCreate(definition, planned, s) : await applyUpdate(definition, prior, planned, priorPrivate, s)
        // A create that placed its order and stopped before it finished reports warnings, so Terraform keeps the object
        // untainted and the next apply resumes it. It stays an error when a later step failed, or when asked for
        // (fail_on_unfinished): Terraform then taints the object, which the message says and refusedDelete guards.
        const created = prior === null && outcome.incomplete
        const failedStep = created && outcome.failedAfterOrder === true
        const advice = strict ? untaintAdvice(strict) : failedStep ? failedStepAdvice() : null
        const shown = created ? (advice ? [...outcome.diagnostics, advice] : untainting(outcome.diagnostics)) : outcome.diagnostics
        if (outcome.state === null && prior !== null) {
          return { newState: encode(view, prior), private: storedPrivate(priorPrivate), diagnostics: diagnostics(shown) }
        }
        // Terraform taints a created object that comes with an error: marked, its delete is refused (see
        // refusedDelete). Terraform updates only objects that are not tainted, so an update drops the mark.
        const { failedUnfinished: _unfinished, failedStep: _step, ...rest } = outcome.private as TfPrivate
        const marks = { ...(created && strict !== undefined ? { failedUnfinished: true as const } : {}), ...(failedStep ? { failedStep: true as const } : {}) }
        return { newState: encode(view, outcome.state), private: storedPrivate({ ...rest, ...marks }), diagnostics: diagnostics(shown) }
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
        // The host is the client's default registry (registry.terraform.io, OpenTofu's registry.opentofu.org) or a mirror's.
        const ours = request.sourceProviderAddress === '' || sameSource(request.sourceProviderAddress, PROVIDER_ADDRESS)
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

/** Whether two provider addresses name the same namespace and type, whatever registry host each names. */
function sameSource(address: string, ours: string): boolean {
  const tail = (a: string) => a.split('/').slice(-2).join('/').toLowerCase()
  return tail(address) === tail(ours)
}

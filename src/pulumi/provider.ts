/**
 * The ResourceProvider semantics over wire property maps, with no transport: one method per RPC,
 * decode -> core -> encode. The gRPC adapter (grpc-server.ts) only converts protobuf messages.
 */
import {
  type AnyDataSource,
  type AnyProvider,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  attributeNames,
  type Attributes,
  type Diagnostic,
  hasErrors,
  importResource,
  InputError,
  isInput,
  type Logger,
  messageOf,
  type PrivateState,
  checkPlanOnline,
  planResource,
  readDataSource,
  readResource,
  renderNames,
  type Session,
  settleAccount,
  shrinks,
  type TimeoutName,
  toPascal,
  toCamel,
  unfinishedIsError,
  type Value,
  type ValueMap,
  validateConfig,
  valuesEqual,
  stopSignal,
} from '../core/index.js'
import { Code, codeOf, describeDiagnostics, PulumiError, propertyPath } from './errors.js'
import {
  decodeMap,
  encodeMap,
  META_KEY,
  plain,
  secret,
  secretAttributes,
  secretStrings,
  type Wire,
  type WireMap,
  wireName,
} from './wire.js'

export const PACKAGE = 'provider'

export interface Registry {
  readonly provider: AnyProvider
  readonly resources: readonly AnyResource[]
  readonly dataSources: readonly AnyDataSource[]
}

export type Severity = 'debug' | 'info' | 'warning' | 'error'

/** Where logs go: the engine's Log service (the adapter falls back to stderr). */
export type EngineLog = (severity: Severity, message: string, urn?: string) => void

export interface ProviderOptions {
  readonly version: string
  readonly log: EngineLog
}

export const resourceToken = (definition: { name: string }) => `${PACKAGE}:index:${toPascal(definition.name)}`
export const functionToken = (definition: { name: string }) => `${PACKAGE}:index:${toCamel(definition.name)}`

export interface CheckFailure {
  readonly property: string
  readonly reason: string
}
export interface CheckResult {
  readonly inputs: WireMap
  readonly failures: readonly CheckFailure[]
}
export type DiffKind = 'ADD' | 'ADD_REPLACE' | 'DELETE' | 'DELETE_REPLACE' | 'UPDATE' | 'UPDATE_REPLACE'
export interface DiffResult {
  readonly changes: 'none' | 'some'
  readonly replaces: readonly string[]
  readonly diffs: readonly string[]
  readonly detailedDiff: Readonly<Record<string, { kind: DiffKind; inputDiff: boolean }>>
  readonly deleteBeforeReplace: boolean
}
export interface ConfigureResult {
  readonly acceptSecrets: boolean
  readonly supportsPreview: boolean
  readonly acceptResources: boolean
  readonly acceptOutputs: boolean
}

interface ResourceRequest {
  readonly urn: string
  /** The type token; taken from the URN when empty. */
  readonly type?: string
}

/** `urn:pulumi:stack::project::parent$provider:index:LiteVm::name` → `provider:index:LiteVm`. */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split('::')[2] ?? ''
  return qualified.split('$').pop() ?? ''
}

function isEmptyMap(map: WireMap): boolean {
  return Object.keys(map).filter((k) => k !== META_KEY).length === 0
}

function privateOf(outputs: WireMap): PrivateState {
  const raw = plain(outputs[META_KEY] ?? null)
  if (typeof raw !== 'string') return {}
  try {
    const parsed: unknown = JSON.parse(raw)
    return parsed !== null && typeof parsed === 'object' ? (parsed as PrivateState) : {}
  } catch {
    return {}
  }
}

function timeoutsOf(name: TimeoutName, seconds: number | undefined): Value {
  return seconds !== undefined && seconds > 0 ? { [name]: `${Math.ceil(seconds)}s` } : null
}

/** Every canonical name of the registry, as Pulumi spells it. */
function pulumiNames(registry: Registry): Map<string, string> {
  const names = new Map<string, string>()
  const camel = (attributes: Attributes) => {
    for (const name of attributeNames(attributes)) names.set(name, toCamel(name))
  }
  // Provider settings are written as configuration keys: `pulumi config set provider:apiKey`.
  for (const name of attributeNames(registry.provider.attributes)) names.set(name, `${PACKAGE}:${toCamel(name)}`)
  for (const r of registry.resources) {
    names.set(r.name, toPascal(r.name))
    camel(r.attributes)
  }
  for (const d of registry.dataSources) {
    names.set(d.name, toCamel(d.name))
    camel(d.attributes)
  }
  return names
}

function failuresOf(list: readonly Diagnostic[]): CheckFailure[] {
  return list
    .filter((d) => d.severity === 'error')
    .map((d) => ({ property: d.path ? propertyPath(d.path) : '', reason: `${d.summary}: ${d.detail}` }))
}

function inputAttributes(definition: AnyResource) {
  return Object.fromEntries(Object.entries(definition.attributes).filter(([, a]) => isInput(a)))
}

export class PulumiProvider {
  private readonly resources: Map<string, AnyResource>
  private readonly functions: Map<string, AnyDataSource>
  private readonly names: Map<string, string>
  private client: unknown
  private advise: ((thrown: unknown) => string | null) | undefined
  private strict: string | undefined
  private configuredSecrets = new Set<string>()
  private stop = new AbortController()

  constructor(
    private readonly registry: Registry,
    private readonly options: ProviderOptions,
  ) {
    this.resources = new Map(registry.resources.map((r) => [resourceToken(r), r]))
    this.functions = new Map(registry.dataSources.map((d) => [functionToken(d), d]))
    this.names = pulumiNames(registry)
  }

  /** Diagnostics in Pulumi's names (LiteVm, powerState), as users write them. */
  private describe(list: readonly Diagnostic[]): string[] {
    return describeDiagnostics(list.map((d) => renderNames(d, this.names)))
  }

  private failuresOf(list: readonly Diagnostic[]): CheckFailure[] {
    return failuresOf(list.map((d) => renderNames(d, this.names)))
  }

  get version(): string {
    return this.options.version
  }

  // ---- provider configuration ------------------------------------------------------------

  checkConfig(request: { news: WireMap }): CheckResult {
    const { attributes } = this.registry.provider
    const config = this.decodeConfig(request.news)
    const failures = this.failuresOf(validateConfig(attributes, config, { requireInputs: false }))
    const inputs: WireMap = { ...request.news }
    for (const [name, attribute] of Object.entries(attributes)) {
      const key = wireName(name)
      if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
    }
    return { inputs, failures }
  }

  /** A provider is never replaced: that would replace every resource it manages. */
  diffConfig(request: { olds: WireMap; oldInputs: WireMap; news: WireMap }): DiffResult {
    const before = this.decodeConfig(isEmptyMap(request.oldInputs) ? request.olds : request.oldInputs)
    const after = this.decodeConfig(request.news)
    const diffs = Object.keys(this.registry.provider.attributes)
      .filter((name) => !valuesEqual(before[name] ?? null, after[name] ?? null))
      .map(wireName)
    return {
      changes: diffs.length > 0 ? 'some' : 'none',
      replaces: [],
      diffs,
      detailedDiff: Object.fromEntries(diffs.map((key) => [key, { kind: 'UPDATE' as const, inputDiff: true }])),
      deleteBeforeReplace: false,
    }
  }

  configure(request: { args: WireMap | null; variables: Record<string, string> }): ConfigureResult {
    const { provider } = this.registry
    const given: WireMap = request.args ?? {}
    if (request.args === null) {
      for (const [key, text] of Object.entries(request.variables)) {
        if (key.startsWith(`${PACKAGE}:config:`)) given[key.slice(`${PACKAGE}:config:`.length)] = text
      }
    }
    const config = this.decodeConfig(given)
    const issues = validateConfig(provider.attributes, config, { requireInputs: false })
    if (hasErrors(issues)) throw new PulumiError(Code.INVALID_ARGUMENT, this.configMessage(this.describe(issues)))
    const full = Object.fromEntries(Object.keys(provider.attributes).map((name) => [name, config[name] ?? null]))
    try {
      this.client = provider.configure(full, { userAgent: `provider-pulumi/${this.version}`, log: this.logger(undefined, new Set()) })
      this.advise = (thrown) => provider.advise?.(thrown, full) ?? null
      this.strict = unfinishedIsError(provider, full)
    } catch (thrown) {
      const where = thrown instanceof InputError && thrown.path.length > 0 ? `${PACKAGE}:${propertyPath(thrown.path)}: ` : ''
      const text = renderNames({ severity: 'error', summary: '', detail: messageOf(thrown) }, this.names).detail
      throw new PulumiError(Code.INVALID_ARGUMENT, this.configMessage([`${where}${text}`]))
    }
    this.configuredSecrets = secretStrings(Object.fromEntries(Object.entries(given).map(([k, v]) => [k, this.isSensitiveConfig(k) ? secret(v) : v])))
    return { acceptSecrets: true, supportsPreview: true, acceptResources: false, acceptOutputs: false }
  }

  // ---- resources --------------------------------------------------------------------------

  /** Check: every value rule, and against the old inputs the grow-only rule (Diff never rejects: a refresh diffs in reverse). */
  check(request: ResourceRequest & { news: WireMap; olds?: WireMap }): CheckResult {
    const definition = this.resource(request)
    const { values, unknownKeys } = decodeMap(definition.attributes, request.news, { ignore: (k) => k.startsWith('__') })
    const failures: CheckFailure[] = unknownKeys.map((key) => ({
      property: key,
      reason: `${key} is not an input of ${resourceToken(definition)}`,
    }))
    const config: Record<string, Value> = { ...values }
    const inputs: WireMap = { ...request.news }
    for (const [name, attribute] of Object.entries(definition.attributes)) {
      const key = wireName(name)
      if (isInput(attribute) && attribute.default !== undefined && (config[name] ?? null) === null) {
        config[name] = attribute.default
        inputs[key] = attribute.default
      }
      if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
    }
    failures.push(...this.failuresOf(validateConfig(definition.attributes, config)))
    if (request.olds && !isEmptyMap(request.olds)) {
      failures.push(...this.failuresOf(shrinks(definition, decodeMap(definition.attributes, request.olds).values, config)))
    }
    return { inputs, failures }
  }

  async diff(request: ResourceRequest & { id?: string; olds: WireMap; oldInputs: WireMap; news: WireMap; ignoreChanges?: readonly string[] }): Promise<DiffResult> {
    const definition = this.resource(request)
    const prior = this.priorOf(definition, request.olds, request.oldInputs)
    // The engine's state names this id: the order that made it is kept (see settleAccount).
    await settleAccount(request.id)
    // No value rule fails a Diff: `pulumi refresh` diffs with old and new swapped, so a size grown
    // outside Pulumi reads as a shrink there. Check and Update (preview included) refuse bad values.
    const plan = this.plan(definition, prior, request.news, request.ignoreChanges, privateOf(request.olds), false)
    // Work an earlier apply left unfinished (an unpaid or timed-out order) needs an Update to run:
    // with "none" the engine records a Same step and never calls the plugin again.
    const unfinished = plan.private.resume === true && plan.replace.length === 0
    this.warn(plan.diagnostics, request.urn)
    const detailedDiff: Record<string, { kind: DiffKind; inputDiff: boolean }> = {}
    for (const name of plan.changed) {
      const before = prior[name] ?? null
      const after = plan.planned[name] ?? null
      const base = before === null ? 'ADD' : after === null ? 'DELETE' : 'UPDATE'
      detailedDiff[wireName(name)] = { kind: plan.replace.includes(name) ? `${base}_REPLACE` : base, inputDiff: true }
    }
    return {
      changes: plan.changed.length > 0 || unfinished ? 'some' : 'none',
      replaces: plan.replace.map(wireName),
      diffs: plan.changed.map(wireName),
      detailedDiff,
      deleteBeforeReplace: plan.replace.length > 0 && definition.deleteBeforeReplace === true && (await this.replacementCanBeCreated(definition, request)),
    }
  }

  /**
   * Whether the new object of a delete-before-replace replacement passes the catalog checks. When it
   * does not, Diff still refuses nothing (see above) but asks the engine to create first: the create
   * then fails on the same checks and the live object is never deleted for a replacement that
   * cannot exist, even under `pulumi up --skip-preview`.
   */
  private async replacementCanBeCreated(definition: AnyResource, request: ResourceRequest & { news: WireMap }): Promise<boolean> {
    if (this.client === undefined) return true
    const online = await checkPlanOnline(definition, null, this.plan(definition, null, request.news), this.session(request.urn, request.news))
    if (!hasErrors(online)) return true
    this.warn(
      online.map((d) => (d.severity === 'error' ? { ...d, severity: 'warning' as const, detail: `${d.detail} The object is not deleted before its replacement is created.` } : d)),
      request.urn,
    )
    return false
  }

  async create(request: ResourceRequest & { properties: WireMap; timeout?: number; preview: boolean }): Promise<{ id: string; properties: WireMap }> {
    const definition = this.resource(request)
    const plan = this.plan(definition, null, request.properties)
    const planned: ValueMap = { ...plan.planned, timeouts: timeoutsOf('create', request.timeout) }
    const secrets = secretAttributes(definition.attributes, request.properties)
    if (this.client !== undefined) {
      // The catalog checks of a new object, before the preview answers and before any order.
      const online = await checkPlanOnline(definition, null, plan, this.session(request.urn, request.properties))
      this.warn(online, request.urn)
      if (hasErrors(online)) throw new PulumiError(Code.INVALID_ARGUMENT, this.describe(online.filter((d) => d.severity === 'error')).join('\n'))
    }
    if (request.preview) return { id: '', properties: this.outputs(definition, planned, secrets, {}) }
    const outcome = await applyCreate(definition, planned, this.session(request.urn, request.properties))
    this.warn(outcome.diagnostics, request.urn)
    const { state } = outcome
    if (state !== null && outcome.incomplete) {
      throw this.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
    }
    if (state === null || hasErrors(outcome.diagnostics)) throw this.failure(outcome.diagnostics, outcome.cause)
    return { id: String(state.id), properties: this.outputs(definition, state, secrets, outcome.private) }
  }

  async read(request: ResourceRequest & { id: string; properties: WireMap; inputs: WireMap }): Promise<{ id: string; properties: WireMap; inputs: WireMap }> {
    const definition = this.resource(request)
    const importing = isEmptyMap(request.properties)
    const session = this.session(request.urn, request.properties, request.inputs)
    const outcome = importing
      ? await importResource(definition, request.id, session)
      : await readResource(definition, this.priorOf(definition, request.properties, {}), request.id, privateOf(request.properties), session)
    this.warn(outcome.diagnostics, request.urn)
    if (hasErrors(outcome.diagnostics)) {
      throw this.failure(outcome.diagnostics, outcome.cause, importing && outcome.state === null ? Code.NOT_FOUND : Code.UNKNOWN)
    }
    if (outcome.state === null) return { id: '', properties: {}, inputs: {} }
    const secrets = secretAttributes(definition.attributes, request.properties, request.inputs)
    return {
      id: String(outcome.state.id ?? request.id),
      properties: this.outputs(definition, outcome.state, secrets, outcome.private),
      inputs: encodeMap(inputAttributes(definition), outcome.state, { secret: secrets }),
    }
  }

  async update(
    request: ResourceRequest & {
      id: string
      olds: WireMap
      oldInputs: WireMap
      news: WireMap
      timeout?: number
      ignoreChanges?: readonly string[]
      preview: boolean
    },
  ): Promise<{ properties: WireMap }> {
    const definition = this.resource(request)
    const prior: ValueMap = { ...this.priorOf(definition, request.olds, request.oldInputs), id: request.id }
    const priorPrivate = privateOf(request.olds)
    const plan = this.plan(definition, prior, request.news, request.ignoreChanges, priorPrivate)
    // The service's own lists (OS names, migration targets) are asked here, at preview too, never in Diff.
    const online = this.client === undefined ? [] : await checkPlanOnline(definition, prior, plan, this.session(request.urn, request.news, request.olds))
    this.warn(online, request.urn)
    if (hasErrors(online)) throw new PulumiError(Code.INVALID_ARGUMENT, this.describe(online.filter((d) => d.severity === 'error')).join('\n'))
    const planned: ValueMap = { ...plan.planned, timeouts: timeoutsOf('update', request.timeout) }
    const secrets = secretAttributes(definition.attributes, request.news, request.olds)
    if (request.preview) return { properties: this.outputs(definition, planned, secrets, priorPrivate) }
    const outcome = await applyUpdate(definition, prior, planned, priorPrivate, this.session(request.urn, request.news, request.olds))
    this.warn(outcome.diagnostics, request.urn)
    const state: ValueMap = outcome.state ?? prior
    if (hasErrors(outcome.diagnostics)) {
      const moved = Object.keys(inputAttributes(definition)).some((name) => !valuesEqual(state[name] ?? null, prior[name] ?? null))
      if (outcome.incomplete || moved) throw this.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
      throw this.failure(outcome.diagnostics, outcome.cause)
    }
    return { properties: this.outputs(definition, state, secrets, outcome.private) }
  }

  async delete(request: ResourceRequest & { id: string; properties: WireMap; timeout?: number }): Promise<void> {
    const definition = this.resource(request)
    const prior: ValueMap = { ...this.priorOf(definition, request.properties, {}), id: request.id, timeouts: timeoutsOf('delete', request.timeout) }
    const outcome = await applyDelete(definition, prior, this.session(request.urn, request.properties))
    this.warn(outcome.diagnostics, request.urn)
    if (hasErrors(outcome.diagnostics)) throw this.failure(outcome.diagnostics, outcome.cause)
  }

  // ---- functions --------------------------------------------------------------------------

  async invoke(request: { tok: string; args: WireMap }): Promise<{ return: WireMap; failures: readonly CheckFailure[] }> {
    const definition = this.functions.get(request.tok)
    if (!definition) throw new PulumiError(Code.INVALID_ARGUMENT, `This provider has no function ${request.tok}.`)
    const { values, unknownKeys } = decodeMap(definition.attributes, request.args)
    if (unknownKeys.length > 0) {
      return { return: {}, failures: unknownKeys.map((key) => ({ property: key, reason: `${key} is not an argument of ${request.tok}` })) }
    }
    const outcome = await readDataSource(definition, values, this.session(undefined, request.args))
    if (outcome.state === null || hasErrors(outcome.diagnostics)) return { return: {}, failures: this.failuresOf(outcome.diagnostics) }
    const secrets = secretAttributes(definition.attributes, request.args)
    return { return: encodeMap(definition.attributes, outcome.state, { secret: secrets, keepNull: true }), failures: [] }
  }

  /**
   * Cancel: in-flight operations stop at their next step boundary; later calls start afresh. The
   * engine calls it at the end of every command too, so it is no news to the user (debug).
   */
  cancel(): void {
    this.options.log('debug', 'cancel requested: stopping in-flight operations at their next step boundary')
    this.stop.abort(new Error('Pulumi cancelled the operation'))
    this.stop = new AbortController()
  }

  // ---- helpers ----------------------------------------------------------------------------

  private resource(request: ResourceRequest): AnyResource {
    const token = request.type || typeOfUrn(request.urn)
    const found = this.resources.get(token)
    if (!found) throw new PulumiError(Code.INVALID_ARGUMENT, `This provider has no resource type ${token}.`)
    return found
  }

  /**
   * The prior state core plans against: the old outputs, which record every input as far as it took
   * effect; the old inputs only fill what the outputs lack. After a partially failed update the
   * engine saves the OLD inputs with the NEW outputs: planning from the inputs would send again the
   * steps that were done (a second paid order).
   */
  private priorOf(definition: AnyResource, outputs: WireMap, inputs: WireMap): Record<string, Value> {
    const state: Record<string, Value> = { ...decodeMap(definition.attributes, outputs).values }
    const given = decodeMap(definition.attributes, inputs).values
    for (const [name, attribute] of Object.entries(definition.attributes)) {
      if (isInput(attribute) && name in given && !(wireName(name) in outputs)) state[name] = given[name] ?? null
    }
    return state
  }

  private plan(definition: AnyResource, prior: ValueMap | null, news: WireMap, ignore: readonly string[] = [], priorPrivate: PrivateState = {}, strict = true) {
    const config: Record<string, Value> = { ...decodeMap(definition.attributes, news).values }
    for (const key of ignore) {
      const name = Object.keys(definition.attributes).find((n) => wireName(n) === key)
      if (name && prior) config[name] = prior[name] ?? null
    }
    const plan = planResource(definition, prior, config, priorPrivate)
    if (strict && hasErrors(plan.diagnostics)) {
      throw new PulumiError(Code.INVALID_ARGUMENT, this.describe(plan.diagnostics.filter((d) => d.severity === 'error')).join('\n'))
    }
    return plan
  }

  private outputs(definition: AnyResource, state: ValueMap, secrets: ReadonlySet<string>, priv: PrivateState): WireMap {
    const out = encodeMap(definition.attributes, state, { secret: secrets, keepNull: true })
    if (Object.keys(priv).length > 0) out[META_KEY] = JSON.stringify(priv)
    return out
  }

  private partial(definition: AnyResource, state: ValueMap, priv: PrivateState, secrets: ReadonlySet<string>, diagnostics: readonly Diagnostic[]) {
    const reasons = this.describe(diagnostics.filter((d) => d.severity === 'error'))
    return new PulumiError(Code.UNKNOWN, reasons.join('\n'), {
      id: String(state.id),
      properties: this.outputs(definition, state, secrets, priv),
      inputs: encodeMap(inputAttributes(definition), state, { secret: secrets }),
      reasons,
    })
  }

  private failure(diagnostics: readonly Diagnostic[], cause: unknown, fallback: (typeof Code)[keyof typeof Code] = Code.UNKNOWN) {
    const lines = this.describe(diagnostics.filter((d) => d.severity === 'error'))
    return new PulumiError(cause === undefined ? fallback : codeOf(cause), lines.join('\n'))
  }

  private warn(diagnostics: readonly Diagnostic[], urn: string | undefined): void {
    for (const line of this.describe(diagnostics.filter((d) => d.severity === 'warning'))) this.options.log('warning', line, urn)
  }

  private session(urn: string | undefined, ...maps: WireMap[]): Session<unknown> {
    if (this.client === undefined) {
      throw new PulumiError(Code.FAILED_PRECONDITION, 'The provider is not configured: the engine did not call Configure.')
    }
    const secrets = new Set(this.configuredSecrets)
    for (const map of maps) secretStrings(map, secrets)
    return {
      client: this.client,
      log: this.logger(urn, secrets),
      signal: stopSignal(this.stop.signal),
      scope: urn,
      ...(this.advise ? { advise: this.advise } : {}),
      ...(this.strict ? { unfinishedIsError: this.strict } : {}),
    }
  }

  /** Core's logger onto Engine.Log; any known secret value is scrubbed from the text. */
  private logger(urn: string | undefined, secrets: ReadonlySet<string>): Logger {
    const send = (severity: Severity) => (message: string, fields?: Record<string, unknown>) => {
      let text = fields && Object.keys(fields).length > 0 ? `${message} ${safeJson(fields)}` : message
      for (const value of secrets) text = text.split(value).join('[secret]')
      this.options.log(severity, text, urn)
    }
    return { trace: send('debug'), debug: send('debug'), info: send('info'), warn: send('warning'), error: send('error') }
  }

  private decodeConfig(map: WireMap): ValueMap {
    const { attributes } = this.registry.provider
    const coerced: WireMap = {}
    for (const [key, value] of Object.entries(map)) {
      const attribute = Object.entries(attributes).find(([name]) => wireName(name) === key)?.[1]
      const v = plain(value)
      // Older engines JSON-encode non-string config values.
      coerced[key] = attribute && attribute.type.kind !== 'string' && typeof v === 'string' ? parseJson(v) : v
    }
    return decodeMap(attributes, coerced, { ignore: () => true }).values
  }

  private isSensitiveConfig(key: string): boolean {
    return Object.entries(this.registry.provider.attributes).some(([name, a]) => wireName(name) === key && a.sensitive === true)
  }

  private configMessage(lines: readonly string[]): string {
    const { attributes, environment } = this.registry.provider
    const secretKeys = Object.entries(attributes)
      .filter(([, a]) => a.sensitive)
      .map(([name]) => `${PACKAGE}:${wireName(name)}`)
    const variables = Object.values(environment).filter((v): v is string => typeof v === 'string')
    return [
      'The provider configuration is invalid:',
      ...lines,
      `Set values with \`pulumi config set ${PACKAGE}:<key> <value>\`` +
        (secretKeys.length > 0 ? ` (with --secret for ${secretKeys.join(', ')})` : '') +
        (variables.length > 0 ? `, or the environment variables ${variables.join(', ')}.` : '.'),
    ].join('\n')
  }
}

function parseJson(text: string): Wire {
  try {
    return JSON.parse(text) as Wire
  } catch {
    return text
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}

/**
 * The provider runtime both protocols drive: configuration, the sessions operations run in, the
 * stop of in-flight operations, and every request a front end hands on, by canonical names: the plan
 * of a change (with the service's checks and its price, the one plan every front end's plan calls),
 * its apply, refresh, import, move, listing, lookups, methods and validation. Each runs core in its
 * operation frame, with the order journal told which ids the engine's state names. No protocol
 * shapes here: the front ends decode their requests into these calls and encode the answers.
 */
import {
  type AnyDataSource,
  type AnyMethod,
  type AnyProvider,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  checkMethodId,
  checkMethodOnline,
  checkMethodTarget,
  checkPlanOnline,
  containsUnknown,
  type DataOutcome,
  type Diagnostic,
  error,
  hasErrors,
  type IdentityValues,
  importResource,
  keptShrinks,
  InputError,
  type ListEvent,
  listFilterAttributes,
  listResources,
  type Logger,
  moveResource,
  ordersAccounts,
  parseDuration,
  type Outcome,
  type Plan,
  planResource,
  type PrivateState,
  type ReadOutcome,
  readDataSource,
  readResource,
  resourceIdentity,
  runMethod,
  type Session,
  timeoutIssues,
  timeoutMs,
  type ValueMap,
  unfinishedIsError,
  validateConfig,
  valuesEqual,
  warning,
  withDefaults,
  withoutWriteOnlyValues,
  withWriteOnlyValues,
} from '../core/index.js'
import type { Applied, ApplyRequest, Change, ChangeRequest, OpenSession, PlannedChange, PlanRequest } from './requests.js'
import { currentOperation, perProcess, perRun, registerSettlement, settleAccount, settlementNotices, withOperation } from './operation.js'
import { type OrderLimit, PlanLedger } from './pricing.js'
import { stopSignal } from './process-guard.js'
import { type Naming, type Registry, TypeIndex } from './registry.js'
import { TakeOvers } from './take-overs.js'

/** A call that needs the API client came before the engine configured the provider. */
export class NotConfiguredError extends InputError {}

export interface ServerOptions {
  readonly naming: Naming
  /** What such a call is told: which call of the protocol did not come. */
  readonly notConfigured: string
}

/** What a configure is given besides the configuration. */
export interface ConfigureOptions {
  readonly userAgent: string
  readonly log: Logger
  /**
   * The engine's run this configure belongs to (see ConfigureMeta.perRun), the same object for every
   * configure of that run; each configure is a run of its own without it.
   */
  readonly run?: object
  /** Runs a callback once this configure's connection has closed (see ConfigureMeta.onLeft); never without it. */
  readonly onLeft?: (callback: () => void) => void
}

interface Configured {
  readonly client: unknown
  readonly advise: (thrown: unknown) => string | null
  /** The unfinished setting's name while it is on (Session.unfinishedIsError). */
  readonly strict: string | undefined
  /** The order limit setting's name and value while it is set. */
  readonly limit: OrderLimit | undefined
}

export class ProviderServer {
  readonly types: TypeIndex
  readonly provider: AnyProvider
  private configured: Configured | undefined
  private stop = new AbortController()
  /** The priced orders of the plan this process serves since it was configured (Terraform's one plan, Pulumi's one preview and update). */
  private readonly ledger = new PlanLedger()
  /**
   * The existing objects this run's creates took over, and its deletes (see TakeOvers). One run: it starts
   * afresh at each configure, as the ledger does, since a process Terraform reattaches to serves one
   * command after another, and an object an earlier command took over is a resource of the state like any other.
   */
  private takeOvers = new TakeOvers()

  constructor(
    registry: Registry,
    private readonly options: ServerOptions,
  ) {
    this.types = new TypeIndex(registry, options.naming)
    this.provider = registry.provider
  }

  // ---- configuration ----------------------------------------------------------------------

  /** The provider's configuration checked as written; unset required settings may come from the environment. */
  validateConfig(config: ValueMap): Diagnostic[] {
    return validateConfig(this.provider.attributes, config, { requireInputs: false })
  }

  /**
   * Builds the API client from the configuration. Answers the configuration's problems (nothing is
   * configured then) and, as they come, the warnings a configured provider gives (see notices); throws
   * what the provider's configure threw (an InputError names the setting).
   */
  configure(config: ValueMap, meta: ConfigureOptions): { readonly issues: Diagnostic[]; readonly notices: Promise<Diagnostic[]> } {
    const issues = this.validateConfig(config)
    this.ledger.clear()
    this.takeOvers = new TakeOvers()
    if (!hasErrors(issues)) this.configureClient(config, meta)
    return { issues: hasErrors(issues) ? issues : [], notices: this.notices() }
  }

  private configureClient(config: ValueMap, { run = {}, onLeft = () => undefined, ...meta }: ConfigureOptions): void {
    const full = Object.fromEntries(Object.keys(this.provider.attributes).map((name) => [name, config[name] ?? null]))
    const client = this.provider.configure(full, {
      ...meta,
      operation: currentOperation,
      registerSettlement,
      perProcess,
      perRun: (key, create) => perRun(run, key, create),
      onLeft,
    })
    this.configured = {
      client,
      advise: (thrown) => this.provider.advise?.(thrown, full) ?? null,
      strict: unfinishedIsError(this.provider, full),
      limit: orderLimit(this.provider, full),
    }
  }

  /**
   * Warnings every run of a configured provider gives until they are settled, whatever its
   * configuration: accounts a stopped run ordered that no state holds (see Settlement.notices).
   */
  async notices(): Promise<Diagnostic[]> {
    if (this.configured === undefined) return []
    return (await settlementNotices()).map((n) => warning(n.summary, n.detail))
  }

  get isConfigured(): boolean {
    return this.configured !== undefined
  }

  /** The unfinished setting's name while it is on (see AnyProvider.unfinishedSetting). */
  get unfinishedSetting(): string | undefined {
    return this.configured?.strict
  }

  /**
   * What an operation runs with; `scope` identifies the resource beyond its inputs when the protocol knows
   * it, `scopeIsResource` when it names the resource itself rather than only its state, and then
   * `stateScope` the state's (see Session.stateScope).
   */
  session(scope: string | undefined, log: Logger, scopeIsResource = false, stateScope?: string): Session<unknown> {
    const configured = this.configured
    if (configured === undefined) throw new NotConfiguredError([], this.options.notConfigured)
    return {
      client: configured.client,
      log,
      signal: stopSignal(this.stop.signal),
      advise: configured.advise,
      ...(configured.strict ? { unfinishedIsError: configured.strict } : {}),
      ...(scope === undefined ? {} : { scope, scopeIsResource }),
      ...(stateScope === undefined ? {} : { stateScope }),
      changingFrom: (change) => {
        const frame = currentOperation()
        if (frame !== undefined) frame.from = change
      },
    }
  }

  /** Operations in flight stop at their next step boundary; later calls start afresh. */
  interrupt(reason: Error): void {
    this.stop.abort(reason)
    this.stop = new AbortController()
  }

  // ---- operations -------------------------------------------------------------------------

  /** An operation whose outcome also carries what the API client told of it on the way (OperationFrame.warn). */
  private async operate(session: Session<unknown>, timeout: number | undefined, fn: () => Promise<Outcome>): Promise<Outcome> {
    const notices: Diagnostic[] = []
    const outcome = await withOperation(session, timeout, fn, (summary, detail) => notices.push(warning(summary, detail)))
    return notices.length === 0 ? outcome : { ...outcome, diagnostics: [...notices, ...outcome.diagnostics] }
  }

  async create(definition: AnyResource, planned: ValueMap, session: Session<unknown>): Promise<Outcome> {
    const takeOver = (id: string) => this.takeOvers.takeOver(definition.name, id, session.scope)
    return this.operate(session, timeoutMs(definition.timeouts, planned.timeouts ?? null, 'create'), () =>
      applyCreate(definition, planned, { ...session, takeOver }),
    )
  }

  async update(
    definition: AnyResource,
    prior: ValueMap,
    planned: ValueMap,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<Outcome> {
    await this.settle(definition, prior.id)
    const timeout = timeoutMs(definition.timeouts, planned.timeouts ?? null, 'update')
    return this.operate(session, timeout, () => applyUpdate(definition, prior, planned, priorPrivate, session))
  }

  async delete(definition: AnyResource, prior: ValueMap, priorPrivate: PrivateState, session: Session<unknown>): Promise<Outcome> {
    const id = String(prior.id)
    const taken = this.takeOvers.holderOf(definition.name, id)
    if (taken !== undefined) return keptFor(definition, id, taken.holder)
    // Its requests (a DELETE the service rate-limits) keep trying until the delete timeout, not a fallback.
    const timeout = timeoutMs(definition.timeouts, prior.timeouts ?? null, 'delete')
    return this.takeOvers.delete(definition.name, id, async () => {
      await this.settle(definition, prior.id)
      return withOperation(session, timeout, () => applyDelete(definition, prior, priorPrivate, session))
    })
  }

  /**
   * A one-shot method of a resource on the object `id` (a Terraform action, a Pulumi method call), in
   * an operation frame bounded by the method's timeout. Nothing is ordered, so no order is journalled.
   * `again`: how the front end's user runs it again, which a refusal the definition can explain ends with.
   */
  async runMethod(
    definition: AnyResource,
    method: AnyMethod,
    id: string,
    input: ValueMap,
    session: Session<unknown>,
    progress: (message: string) => void,
    again?: string,
  ): Promise<{ readonly diagnostics: readonly Diagnostic[]; readonly cause?: unknown }> {
    return withOperation(session, parseDuration(method.timeout) ?? undefined, () =>
      runMethod(definition, method, id, input, session, progress, again),
    )
  }

  /**
   * Core's price of one resource's plan (its pricePlan) told as the plan this process serves counts
   * it: with the running total and the order limit setting (see PlanLedger.price, `key` included).
   */
  async priceWithTotal(
    definition: AnyResource,
    prior: ValueMap | null,
    plan: Plan,
    session: Session<unknown>,
    key?: string,
  ): Promise<Diagnostic[]> {
    const configured = this.configured
    if (configured === undefined) return []
    return this.ledger.price(definition, prior, plan, session, configured.limit, key)
  }

  // ---- plan and apply ---------------------------------------------------------------------

  /**
   * The plan of one resource's change, as every front end's plan asks for it: core's plan, the front
   * end's refusal of the delete it implies, then, on a configured provider and while nothing is an
   * error, the service's checks of the change and the price of its orders (see PlanRequest).
   */
  async plan(request: PlanRequest): Promise<PlannedChange> {
    const { definition, prior, config } = request
    // The engine's state names this id: the account is in state, so its order is never taken over again.
    await this.settle(definition, request.stateNames)
    if (config === null) {
      // A delete: refused here already when its apply would refuse it.
      const refused = prior === null ? null : (request.refuseDelete?.(prior) ?? null)
      return { plan: null, refused, online: [], price: [], diagnostics: refused ? [refused] : [] }
    }
    const found = planResource(definition, prior, config, request.priorPrivate)
    // The engine's timeouts follow the rule of a `timeouts` block; no input holds them, so no path names one.
    const timing = timeoutIssues(request.timeouts).map(({ path: _path, ...issue }) => issue)
    const plan = timing.length === 0 ? found : { ...found, diagnostics: [...found.diagnostics, ...timing] }
    const issues = [...plan.diagnostics]
    // A replacement deletes the object: refused at plan time when its delete would be.
    const refused = prior !== null && plan.replace.length > 0 ? (request.refuseDelete?.(prior) ?? null) : null
    if (refused) issues.push(refused)
    const asks = request.online && this.isConfigured
    const online = asks && !hasErrors(issues) ? await checkPlanOnline(definition, prior, plan, request.session(), request.replacing) : []
    issues.push(...online)
    const { price: pricing } = request
    const price =
      asks && pricing !== false && !hasErrors(issues)
        ? await this.priceWithTotal(definition, prior, plan, request.session(), pricing.key)
        : []
    issues.push(...price)
    const handBack =
      hasErrors(issues) && request.proposed !== undefined ? withoutWriteOnlyValues(definition, request.proposed) : plan.planned
    const planned = { plan, refused, online, price, diagnostics: issues, handBack }
    if (request.replacement === undefined) return planned
    const replaced = prior === null ? undefined : String(prior.id)
    return { ...planned, deleteBeforeReplace: await this.deleteFirst(definition, plan, request.replacement, request.session, replaced) }
  }

  /**
   * Whether a replacement deletes the object before it creates the new one: when the definition asks
   * for it and the new object passes the service's checks. When it does not, the failed checks come
   * back as warnings and the engine creates first: the create then fails on the same checks, and the
   * live object is never deleted for a replacement that cannot exist. Nothing is refused here: errors
   * in the new object's plan come back as `invalid`, for the front end to refuse.
   */
  private async deleteFirst(
    definition: AnyResource,
    plan: Plan,
    config: ValueMap,
    session: OpenSession,
    replacing: string | undefined,
  ): Promise<NonNullable<PlannedChange['deleteBeforeReplace']>> {
    if (plan.replace.length === 0 || definition.deleteBeforeReplace !== true) return { ok: false, invalid: [], warnings: [] }
    if (!this.isConfigured) return { ok: true, invalid: [], warnings: [] }
    const created = planResource(definition, null, config)
    if (hasErrors(created.diagnostics)) return { ok: false, invalid: created.diagnostics, warnings: [] }
    const online = await checkPlanOnline(definition, null, created, session(), replacing)
    if (!hasErrors(online)) return { ok: true, invalid: [], warnings: [] }
    const warnings = online.map((d) =>
      d.severity === 'error'
        ? { ...d, severity: 'warning' as const, detail: `${d.detail} The object is not deleted before its replacement is created.` }
        : d,
    )
    return { ok: false, invalid: [], warnings }
  }

  /**
   * A plan that goes on to apply what it planned (Pulumi's Create and Update): the front end hears
   * the plan first (`checked`, which throws to stop), then, unless it is a preview, the create or the
   * update runs with the planned values.
   */
  async change(request: ChangeRequest): Promise<Change> {
    const planned = await this.plan(request)
    request.checked(planned)
    const plan = planned.plan as Plan
    const values: ValueMap = request.timeouts === undefined ? plan.planned : { ...plan.planned, timeouts: request.timeouts }
    if (!request.apply) return { planned, values }
    const { definition, prior } = request
    const outcome =
      prior === null
        ? await this.create(definition, values, request.session())
        : await this.update(definition, prior, values, request.priorPrivate, request.session())
    return { planned, values, outcome }
  }

  /** The apply of a plan: a create, an update, or a delete (refused when the front end's rule refuses it). */
  async apply(request: ApplyRequest): Promise<Applied> {
    const { definition, prior } = request
    const planned = withWriteOnlyValues(definition.attributes, request.planned, request.config)
    const session = request.session()
    if (planned === null) {
      if (prior === null) return { action: 'none' }
      const refused = request.refuseDelete?.(prior) ?? null
      if (refused) return { action: 'refused', refused }
      return { action: 'delete', outcome: await this.delete(definition, prior, request.priorPrivate, session) }
    }
    if (prior === null) return { action: 'create', outcome: await this.create(definition, planned, session) }
    return { action: 'update', outcome: await this.update(definition, prior, planned, request.priorPrivate, session) }
  }

  /**
   * The engine's state names this id of the type (a refresh, a plan, an update or delete, an import):
   * when it is an account, the order that made it is kept and never taken over again (see settleAccount).
   */
  private async settle(definition: AnyResource, id: unknown): Promise<void> {
    if (ordersAccounts(definition)) await settleAccount(id)
  }

  /** A refresh; the engine's state names the id. */
  async read(
    definition: AnyResource,
    prior: ValueMap,
    id: string,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<ReadOutcome> {
    await this.settle(definition, id)
    return readResource(definition, prior, id, priorPrivate, session)
  }

  /**
   * A refresh where the engine keeps an identity beside the state (Terraform 1.12+): the identity it
   * kept must be the one the object's id names, so a hand-edited state that pairs an id with another
   * object's identity is refused (`conflict` says how) before anything is read.
   */
  async refresh(
    definition: AnyResource,
    prior: ValueMap,
    priorPrivate: PrivateState,
    kept: ValueMap | null,
    conflict: (named: IdentityValues, kept: ValueMap) => Diagnostic,
    session: OpenSession,
  ): Promise<ReadOutcome | { readonly conflict: Diagnostic }> {
    const named = this.identity(definition, prior.id)
    if (kept !== null && named !== null && !valuesEqual(kept, named)) return { conflict: conflict(named, kept) }
    return this.read(definition, prior, String(prior.id), priorPrivate, session())
  }

  /** An import names the id it imports: from now on the engine's state does. */
  async importById(definition: AnyResource, text: string, session: Session<unknown>): Promise<ReadOutcome> {
    const parsed = definition.importId.parse(text.trim())
    if ('id' in parsed) await this.settle(definition, parsed.id)
    return importResource(definition, text, session)
  }

  // ---- validation, lookups, methods, identities --------------------------------------------

  /** A resource's configuration as written, before any plan (with its timeouts when it has any). */
  validateResource(definition: AnyResource, config: ValueMap, options: { readonly writeOnlyAllowed?: boolean } = {}): Diagnostic[] {
    const hasTimeouts = Object.keys(definition.timeouts).length > 0
    return validateConfig(definition.attributes, config, {
      requireInputs: false, // the engine reports missing required arguments itself
      ...options,
      ...(hasTimeouts ? { timeouts: definition.timeouts } : {}),
    })
  }

  /**
   * Pulumi's Check of a resource's inputs: the configuration they mean (each input left out given its
   * default, which the engine then records), every value rule (required inputs included), and against
   * the old inputs, when there are any, the grow-only rule as a plan applies it (not to a replacement,
   * nor to an input that breaks a value rule already). With the private state saved beside them, a
   * grow-only value an import read from the service (PrivateState.floors) takes a smaller one as its
   * floor, as a plan does.
   */
  checkInputs(
    definition: AnyResource,
    values: ValueMap,
    olds: ValueMap | null,
    priorPrivate: PrivateState = {},
  ): { config: ValueMap; issues: Diagnostic[] } {
    const config = withDefaults(definition, values)
    const issues = validateConfig(definition.attributes, config)
    if (olds === null) return { config, issues }
    // An old input left out had its default, as this Check fills it into the new ones.
    const prior = withDefaults(definition, olds)
    const { planned, replace } = planResource(definition, prior, config)
    const floors = new Set(priorPrivate.floors ?? [])
    return { config, issues: [...issues, ...keptShrinks(definition, prior, planned, replace, issues, floors)] }
  }

  /** A lookup's configuration as written. */
  validateLookup(definition: AnyDataSource, config: ValueMap): Diagnostic[] {
    return validateConfig(definition.attributes, config, { requireInputs: false })
  }

  /** A lookup read with the configured client. */
  async readLookup(definition: AnyDataSource, config: ValueMap, session: OpenSession): Promise<DataOutcome> {
    return readDataSource(definition, config, session())
  }

  /**
   * A lookup opened as an ephemeral resource: only a configuration known whole is opened (an unknown
   * value here is a client's mistake), then it is read as readLookup does.
   */
  async openLookup(definition: AnyDataSource, config: ValueMap, session: OpenSession): Promise<DataOutcome> {
    const unknown = Object.keys(config).filter((name) => containsUnknown(config[name]))
    if (unknown.length > 0) {
      const detail = `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known yet; it is opened once every value is known.`
      return { state: null, diagnostics: [error(`Cannot open ${definition.name} with unknown values`, detail, [unknown[0] as string])] }
    }
    return this.readLookup(definition, config, session)
  }

  /**
   * The arguments of a method known so far, and the id of the object it acts on (an unknown one is
   * checked when it runs): with a session on a configured provider, against the service too, with
   * read-only calls, once the id is known. `requireInputs` off where the engine reports missing ones.
   * `target`: that the object exists too (one read), where the id is written by hand (a Terraform
   * action's); a Pulumi method's is its resource's own. `planned`: the check is of a run to come (a
   * Terraform action's plan, a Pulumi preview), which warns, by the name the engine shows, that a
   * destructive method cannot be undone.
   */
  async checkMethod(
    definition: AnyResource,
    method: AnyMethod,
    id: unknown,
    input: ValueMap,
    options: { readonly requireInputs: boolean; readonly session?: OpenSession; readonly target?: boolean; readonly planned?: string },
  ): Promise<Diagnostic[]> {
    const issues = validateConfig(method.inputs, input, { requireInputs: options.requireInputs })
    if (options.planned !== undefined && method.destructive === true) {
      issues.push(warning(`${options.planned} is destructive`, `${method.description} Invoking it cannot be undone.`))
    }
    if (typeof id !== 'string') return issues
    issues.push(...checkMethodId(definition, id))
    if (options.session !== undefined && this.isConfigured && !hasErrors(issues)) {
      const session = options.session()
      if (options.target === true) issues.push(...(await checkMethodTarget(definition, id, session)))
      if (!hasErrors(issues)) issues.push(...(await checkMethodOnline(method, id, input, session)))
    }
    return issues
  }

  /** The filters of a listing as written (see core's listFilterAttributes). */
  validateListFilters(definition: AnyResource, filters: ValueMap): Diagnostic[] {
    return validateConfig(listFilterAttributes(definition), filters, { requireInputs: false })
  }

  /**
   * The objects of a type the key can see that the filters (canonical names) keep, each as its import
   * finds it (see core's listResources); a tool adopts them from there. Filters that are not valid
   * are the one event; a stopped session (the call cancelled, the provider stopped) ends the listing.
   */
  async *list(definition: AnyResource, filters: ValueMap, session: OpenSession, limit?: number): AsyncGenerator<ListEvent> {
    const issues = this.validateListFilters(definition, filters)
    if (hasErrors(issues)) {
      yield { diagnostics: issues }
      return
    }
    const opened = session()
    for await (const event of listResources(definition, filters, opened, limit)) {
      if (opened.signal.aborted) return
      yield event
    }
  }

  /**
   * The state of an object of another type (`sourceName`) moved to `definition` (Terraform `moved`),
   * with the configured client when there is one.
   */
  async move(
    definition: AnyResource,
    sourceName: string,
    source: ValueMap,
    sourcePrivate: PrivateState,
    session: OpenSession,
  ): Promise<ReadOutcome> {
    return moveResource(definition, sourceName, source, sourcePrivate, this.isConfigured ? session() : null)
  }

  /** An identity stored under another identity version than the definition's: refused (every type is still at its first). */
  identityVersion(definition: AnyResource, version: bigint): Diagnostic[] {
    const known = resourceIdentity(definition).version
    if (version === BigInt(known)) return []
    const detail = `This provider knows identity version ${known} of ${definition.name}, not version ${version}: was the state written by another version of the provider?`
    return [error('Unknown resource identity version', detail)]
  }

  /**
   * The provider settings whose values differ between two configurations (canonical names): a
   * provider is never replaced, that would replace every resource it manages.
   */
  changedSettings(before: ValueMap, after: ValueMap): string[] {
    return Object.keys(this.provider.attributes).filter((name) => !valuesEqual(before[name] ?? null, after[name] ?? null))
  }

  /**
   * The identity of the object with this id, by canonical part names: what the engine keeps beside
   * the state (see core's resourceIdentity). Null when the id is not one the import id describes.
   */
  identity(definition: AnyResource, id: unknown): IdentityValues | null {
    return typeof id === 'string' ? resourceIdentity(definition).of(id) : null
  }

  /** An import by identity instead of an id: the id it names, imported as importById does. */
  async importByIdentity(definition: AnyResource, identity: ValueMap, session: Session<unknown>): Promise<ReadOutcome> {
    const named = resourceIdentity(definition).idOf(identity)
    if ('error' in named) {
      const parts = resourceIdentity(definition).parts.map((p) => p.name)
      const detail = `The identity of ${definition.name} is ${parts.join(' and ')} (the parts of its import id ${definition.importId.format}): ${named.error}.`
      return { state: null, private: {}, diagnostics: [error('Invalid import identity', detail)] }
    }
    return this.importById(definition, named.id, session)
  }
}

/** The order limit of a provider configuration, when its setting is set. */
function orderLimit(provider: AnyProvider, config: Readonly<Record<string, unknown>>): Configured['limit'] {
  const setting = provider.orderLimitSetting
  const total = setting === undefined ? null : config[setting]
  return setting !== undefined && typeof total === 'number' ? { setting, total } : undefined
}

/**
 * The delete of an object that a create of this same run took over (see TakeOvers): the old half of a
 * resource renamed without an alias or a `moved` block, or of a replacement that creates first.
 * Deleting it would take it from the resource that now holds it, so nothing is deleted in the
 * service; only this resource leaves the state.
 */
function keptFor(definition: AnyResource, id: string, holder: string | undefined): Outcome {
  const whose = holder ?? 'another resource of this run'
  const detail =
    `A create in this same run took this very ${definition.name} ${id} over for ${whose}: an existing object that matches ` +
    "what that resource asks for, as the new half of a renamed or replaced resource finds the old half's object. Deleting " +
    'it would take it from that resource, so it stays in the service and only this resource is removed from the state. ' +
    'To rename a resource without this, give it an alias (Pulumi) or a moved block (Terraform).'
  return {
    state: null,
    private: {},
    diagnostics: [warning(`${definition.name} ${id} is not deleted: ${whose} holds it`, detail)],
    incomplete: false,
  }
}

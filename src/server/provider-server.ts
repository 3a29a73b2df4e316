/**
 * The provider runtime both protocols drive: configuration, the sessions operations run in, the
 * stop of in-flight operations, and each operation of core run in its frame, with the order journal
 * told which ids the engine's state names. Canonical names and values only: no protocol shapes here.
 */
import {
  type AnyMethod,
  type AnyProvider,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  type Diagnostic,
  hasErrors,
  type IdentityValues,
  importResource,
  InputError,
  type ListEvent,
  listResources,
  type Logger,
  parseDuration,
  type Outcome,
  type Plan,
  type PlanPrice,
  type PricedOrder,
  pricePlan,
  type PrivateState,
  type ReadOutcome,
  readResource,
  rehearseCreate,
  resourceIdentity,
  runMethod,
  type Session,
  timeoutMs,
  type ValueMap,
  unfinishedIsError,
  validateConfig,
  error,
  warning,
} from '../core/index.js'
import type { Rehearsed } from '../api/index.js'
import { currentOperation, perProcess, registerSettlement, settleAccount, settlementNotices, withOperation } from './operation.js'
import { stopSignal } from './process-guard.js'
import { type Naming, type Registry, TypeIndex } from './registry.js'

/** A call that needs the API client came before the engine configured the provider. */
export class NotConfiguredError extends InputError {}

export interface ServerOptions {
  readonly naming: Naming
  /** What such a call is told: which call of the protocol did not come. */
  readonly notConfigured: string
}

interface Configured {
  readonly client: unknown
  readonly advise: (thrown: unknown) => string | null
  /** The unfinished setting's name while it is on (Session.unfinishedIsError). */
  readonly strict: string | undefined
  /** The order limit setting's name and value while it is set. */
  readonly limit: { readonly setting: string; readonly total: number } | undefined
}

export class ProviderServer {
  readonly types: TypeIndex
  readonly provider: AnyProvider
  private configured: Configured | undefined
  private stop = new AbortController()
  /**
   * The priced orders of the plan this process serves, by resource: Terraform plans each resource
   * in its own call and names none (each gets a fresh key), Pulumi names each by its URN (a preview
   * and the update of the same resource count once). Lives as long as the process: one plan.
   */
  private readonly ledger = new Map<string, { readonly orders: readonly PricedOrder[]; readonly unpriced: readonly string[] }>()
  private planned = 0

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
   * Builds the API client from the configuration. Returns the configuration's problems (nothing is
   * configured then); throws what the provider's configure threw (an InputError names the setting).
   */
  configure(config: ValueMap, meta: { readonly userAgent: string; readonly log: Logger }): Diagnostic[] {
    const issues = this.validateConfig(config)
    if (hasErrors(issues)) return issues
    const full = Object.fromEntries(Object.keys(this.provider.attributes).map((name) => [name, config[name] ?? null]))
    const client = this.provider.configure(full, { ...meta, operation: currentOperation, registerSettlement, perProcess })
    this.configured = {
      client,
      advise: (thrown) => this.provider.advise?.(thrown, full) ?? null,
      strict: unfinishedIsError(this.provider, full),
      limit: orderLimit(this.provider, full),
    }
    return []
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

  /** What an operation runs with; `scope` identifies the resource beyond its inputs when the protocol knows it. */
  session(scope: string | undefined, log: Logger): Session<unknown> {
    const configured = this.configured
    if (configured === undefined) throw new NotConfiguredError([], this.options.notConfigured)
    return {
      client: configured.client,
      log,
      signal: stopSignal(this.stop.signal),
      advise: configured.advise,
      ...(configured.strict ? { unfinishedIsError: configured.strict } : {}),
      ...(scope === undefined ? {} : { scope }),
    }
  }

  /** Operations in flight stop at their next step boundary; later calls start afresh. */
  interrupt(reason: Error): void {
    this.stop.abort(reason)
    this.stop = new AbortController()
  }

  // ---- operations -------------------------------------------------------------------------

  /**
   * A prior or current state the engine sent names this id (a plan or diff of it): the account is
   * in state, so its order is never taken over again.
   */
  async stateNames(id: unknown): Promise<void> {
    await settleAccount(id)
  }

  async create(definition: AnyResource, planned: ValueMap, session: Session<unknown>): Promise<Outcome> {
    const notices: Diagnostic[] = []
    const outcome = await withOperation(
      session,
      timeoutMs(definition.timeouts, planned.timeouts ?? null, 'create'),
      () => applyCreate(definition, planned, session),
      (summary, detail) => notices.push(warning(summary, detail)),
    )
    return notices.length === 0 ? outcome : { ...outcome, diagnostics: [...notices, ...outcome.diagnostics] }
  }

  async update(
    definition: AnyResource,
    prior: ValueMap,
    planned: ValueMap,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<Outcome> {
    await settleAccount(prior.id)
    const timeout = timeoutMs(definition.timeouts, planned.timeouts ?? null, 'update')
    return withOperation(session, timeout, () => applyUpdate(definition, prior, planned, priorPrivate, session))
  }

  async delete(definition: AnyResource, prior: ValueMap, session: Session<unknown>): Promise<Outcome> {
    await settleAccount(prior.id)
    return applyDelete(definition, prior, session)
  }

  /**
   * A one-shot method of a resource on the object `id` (a Terraform action, a Pulumi method call), in
   * an operation frame bounded by the method's timeout. Nothing is ordered, so no order is journalled.
   */
  async runMethod(
    definition: AnyResource,
    method: AnyMethod,
    id: string,
    input: ValueMap,
    session: Session<unknown>,
    progress: (message: string) => void,
  ): Promise<{ readonly diagnostics: readonly Diagnostic[]; readonly cause?: unknown }> {
    return withOperation(session, parseDuration(method.timeout) ?? undefined, () =>
      runMethod(definition, method, id, input, session, progress),
    )
  }

  /**
   * The price of what a plan of one resource orders, as one warning (nothing when it orders
   * nothing), with the running total of the plan so far in this process; and an error when that
   * total exceeds the order limit setting, naming every order counted. `key` names the resource
   * when the protocol does (a replan of it replaces its entry); without it every call adds one.
   * Pricing never fails the plan: what could not be priced is said in the same warning.
   */
  async pricePlan(
    definition: AnyResource,
    prior: ValueMap | null,
    plan: Plan,
    session: Session<unknown>,
    key?: string,
  ): Promise<Diagnostic[]> {
    const configured = this.configured
    if (configured === undefined) return []
    const quoted = await pricePlan(definition, prior, plan, session)
    const { priced, adopted, taken } = await this.withoutAdopted(definition, prior, plan, session, quoted)
    if (priced.orders.length === 0 && priced.unpriced.length === 0) {
      if (key !== undefined) this.ledger.delete(key)
      return adopted === undefined
        ? []
        : [warning(`This plan adopts an order placed by an earlier run: ${adopted.summary}`, adopted.detail)]
    }
    this.ledger.set(key ?? `#${++this.planned}`, priced)
    const all = [...this.ledger.values()]
    const orders = all.flatMap((entry) => entry.orders)
    const unpriced = all.flatMap((entry) => entry.unpriced)
    const own = sum(priced.orders)
    const total = sum(orders)
    const lines = [
      ...(adopted === undefined ? [] : [adopted.detail]),
      ...(taken === undefined ? [] : [taken]),
      ...priced.orders.map(line),
      ...priced.unpriced.map((what) => `${what}: price unknown`),
      `These orders: ${own}${priced.unpriced.length > 0 ? ' plus what could not be priced' : ''}. ` +
        `All orders of this plan so far: ${total} for ${orders.length} priced order${orders.length === 1 ? '' : 's'}` +
        `${unpriced.length > 0 ? ` and ${unpriced.length} unpriced` : ''}.`,
      PRICE_NOTE,
    ]
    // The running total makes each resource's summary differ, so Terraform never folds one into another as "similar".
    const more = priced.unpriced.length > 0 ? ' and more' : ''
    const summary = `This plan places paid orders: ${own}${more} (all orders of the plan so far: ${total})`
    const diagnostics = [warning(summary, lines.join('\n'))]
    const limit = configured.limit
    if (limit !== undefined && total > limit.total) {
      diagnostics.push(
        error(
          `The plan's orders exceed ${limit.setting}`,
          [
            `The orders of this plan so far cost ${total}, more than ${limit.setting} = ${limit.total}; nothing is ordered. The orders:`,
            ...orders.map(line),
            `Raise ${limit.setting} or change the configuration to order less.`,
          ].join('\n'),
        ),
      )
    }
    return diagnostics
  }

  /**
   * A create's own order (its first quote) that the apply will not place, because the order journal
   * holds the same order of an earlier run whose account the apply takes over: the plan rehearses the
   * create (core's rehearseCreate, in a rehearsal operation) to learn what the apply will do with its
   * order. Taken over, the order is not priced, and the plan says which account it adopts; an earlier
   * order that had no answer is taken over too (sent again with its key, or waited for where the
   * service ignores keys), and since it may still have placed nothing it stays priced, with a line
   * saying so.
   */
  private async withoutAdopted(
    definition: AnyResource,
    prior: ValueMap | null,
    plan: Plan,
    session: Session<unknown>,
    quoted: PlanPrice,
  ): Promise<{ priced: PlanPrice; adopted?: { summary: string; detail: string }; taken?: string }> {
    const creating = prior === null || plan.replace.length > 0
    if (!creating || quoted.orders.length === 0) return { priced: quoted }
    let rehearsed: Rehearsed | undefined
    // Cancelled from the start: a client that could not see the rehearsal still sends nothing.
    const stopped = new AbortController()
    stopped.abort(new Error("a plan's rehearsal of a create"))
    await withOperation(
      session,
      undefined,
      () => rehearseCreate(definition, plan.planned, { ...session, signal: stopped.signal }),
      undefined,
      (outcome) => {
        rehearsed ??= outcome
      },
    )
    const [own, ...rest] = quoted.orders
    const sent = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z')
    if (rehearsed?.kind === 'adopt' && own !== undefined) {
      const summary = `account ${rehearsed.accountId} (${definition.name}), not ordered again`
      const detail =
        `${definition.name}: adopts account ${rehearsed.accountId}, the order placed by an earlier run (Idempotency-Key ` +
        `${rehearsed.key}, sent ${sent(rehearsed.sentAt)}) instead of placing it again: ${own.what} (${own.amount} per ${own.cycle} ` +
        'cycle) is not ordered.'
      return { priced: { ...quoted, orders: rest }, adopted: { summary, detail } }
    }
    if (rehearsed?.kind === 'repeat') {
      const taken =
        `${definition.name}: takes over the order an earlier run sent ${sent(rehearsed.sentAt)} without an answer ` +
        `(Idempotency-Key ${rehearsed.key}): it is sent again with that key to a service that honours keys, or else waited ` +
        'for and its account adopted; if that order was placed, nothing is ordered again.'
      return { priced: quoted, taken }
    }
    return { priced: quoted }
  }

  /** A refresh; the engine's state names the id. */
  async read(
    definition: AnyResource,
    prior: ValueMap,
    id: string,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<ReadOutcome> {
    await settleAccount(id)
    return readResource(definition, prior, id, priorPrivate, session)
  }

  /** An import names the id it imports: from now on the engine's state does. */
  async importById(definition: AnyResource, text: string, session: Session<unknown>): Promise<ReadOutcome> {
    const parsed = definition.importId.parse(text.trim())
    if ('id' in parsed) await settleAccount(parsed.id)
    return importResource(definition, text, session)
  }

  /**
   * The identity of the object with this id, by canonical part names: what the engine keeps beside
   * the state (see core's resourceIdentity). Null when the id is not one the import id describes.
   */
  identity(definition: AnyResource, id: unknown): IdentityValues | null {
    return typeof id === 'string' ? resourceIdentity(definition).of(id) : null
  }

  /**
   * The objects of a type the key can see that the filters (canonical names) keep, each as its import
   * finds it (see core's listResources); a tool adopts them from there.
   */
  list(definition: AnyResource, filters: ValueMap, session: Session<unknown>, limit?: number): AsyncGenerator<ListEvent> {
    return listResources(definition, filters, session, limit)
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

const PRICE_NOTE =
  "Prices are the catalog's, per cycle of each object, in its money unit, before any promocode; an upgrade is " +
  'billed the difference for the current cycle.'

function sum(orders: readonly PricedOrder[]): number {
  return orders.reduce((total, order) => total + order.amount, 0)
}

function line(order: PricedOrder): string {
  return `${order.resource}: ${order.what}: ${order.amount} per ${order.cycle} cycle`
}

/** The order limit of a provider configuration, when its setting is set. */
function orderLimit(provider: AnyProvider, config: Readonly<Record<string, unknown>>): Configured['limit'] {
  const setting = provider.orderLimitSetting
  const total = setting === undefined ? null : config[setting]
  return setting !== undefined && typeof total === 'number' ? { setting, total } : undefined
}

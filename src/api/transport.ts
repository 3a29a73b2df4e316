// The one place that does HTTP: headers, envelopes, error decoding, retries (§1.5, §1.6, §1.10).
import { ShapeError } from './decode.js'
import { ApiError, DecodeError, type FieldError, OrderUnresolvedError, type RequestContext, TransportError, UnrecordedMatchError } from './errors.js'
import { fingerprint, JOURNAL_REUSE_MS, type JournalEntry, type OrderJournal, serviceOf } from './journal.js'
import { type Account, decodeOrder, type Order, statusIs } from './models.js'
import { REDACTED, redact } from './redact.js'

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'
export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void
export type FetchFunction = (request: Request) => Promise<Response>
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface TransportOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly userAgent: string
  readonly fetch: FetchFunction
  readonly requestTimeoutMs: number
  readonly maxAttempts: number
  readonly sleep: Sleep
  readonly now: () => number
  readonly random: () => number
  readonly log: Logger
  readonly idempotencyKey: () => string
  /** Where orders are recorded before they are sent; without one a key lives only as long as its call. */
  readonly journal?: OrderJournal | undefined
  /** The operation the current call belongs to (asked per order, so concurrent operations stay apart). */
  readonly operation?: (() => OperationFrame | undefined) | undefined
  /**
   * Order even when a recent account that matches the order is unknown to the journal and to every
   * state this directory's runs have seen (see `unrecordedMatches`). Default false.
   */
  readonly allowUnrecordedMatch?: boolean | undefined
}

/** What the caller's operation tells an order: who asks, until when, and when it has handed the outcome over. */
export interface OperationFrame {
  /** Identifies the resource beyond its inputs when the front end knows it (a Pulumi URN). */
  readonly scope?: string | undefined
  /** How long the operation may take: an order is retried with its key until then. */
  readonly timeoutMs?: number | undefined
  /** Set at the client's first call of the operation, on the client's clock. */
  startedAt?: number
  /** Runs once the operation's outcome went back to the engine. */
  onFinish(callback: () => void | Promise<void>): void
  /** Shows the user a warning with the operation's outcome (besides the log). */
  warn?(summary: string, detail: string): void
}

/**
 * How to find out whether an ambiguous create was processed, against a service that does not confirm
 * Idempotency-Keys: list the accounts of that kind and keep those the order would have made.
 */
export interface Reconcile {
  list(): Promise<readonly Account<unknown>[]>
  matches(account: Account<unknown>): boolean
}

export interface RequestSpec<T> {
  readonly method: HttpMethod
  /** Canonical path under the base URL, starting with `/` (§1.1). */
  readonly path: string
  readonly query?: Readonly<Record<string, string | readonly string[] | undefined>>
  /** `undefined` sends no body and no Content-Type. */
  readonly body?: unknown
  /** Set on order-placing calls: the key that makes their retries safe, kept across them. */
  readonly idempotencyKey?: string
  readonly accountId?: string
  readonly signal?: AbortSignal | undefined
  readonly decode: (payload: unknown) => T
}

export interface CallOptions {
  /** Cancels the call (and its retries), e.g. on Ctrl-C. */
  readonly signal?: AbortSignal
}

export interface OrderOptions extends CallOptions {
  /**
   * The Idempotency-Key to send; default a fresh one per call. Pass one only to repeat the same
   * intent (e.g. a key saved before a crash), never to place a second order.
   */
  readonly idempotencyKey?: string
  /** Creates: how to recognise the account this order makes (see Reconcile). */
  readonly reconcile?: Reconcile
}

/** A Reconcile that matches the product and the given `extra_details` fields (compared as text). */
export function reconcileBy(
  list: () => Promise<readonly Account<unknown>[]>,
  productId: number | undefined,
  extra: Readonly<Record<string, unknown>>,
): Reconcile {
  return {
    list,
    matches: (account) => {
      if (productId !== undefined && account.product_id !== productId) return false
      const details = (account.extra_details ?? {}) as Record<string, unknown>
      return Object.entries(extra).every(([name, value]) => value === undefined || String(details[name]) === String(value))
    },
  }
}

export interface ListOptions extends CallOptions {
  /** Statuses to list (case-insensitive); default every status but Terminated. */
  readonly status?: readonly string[]
}

/** Retry-After is capped so that a confused server cannot park an apply for hours. */
const RETRY_AFTER_CAP_MS = 60_000
const RETRY_AFTER_DEFAULT_MS = 1_000
const BACKOFF_BASE_MS = 500
const RETRYABLE_5XX = new Set([500, 502, 503, 504])
/** An order's replays and reconciling lists back off up to this. */
const ORDER_BACKOFF_CAP_MS = 10_000
/** `date_created` has whole seconds and the service's clock is not ours. */
const CREATED_SLACK_MS = 2_000
/**
 * A matching account no journal or state names counts as a killed run's order only while it is being
 * provisioned or this recent: a re-run after a kill comes within minutes, a twin configuration's
 * account is usually older (see unrecordedMatches).
 */
const KILLED_RUN_EVIDENCE_MS = 3_600_000
/** How many times a listing is taken again while this process's own orders of the same call keep starting. */
const OWN_ORDER_ROUNDS = 10
/** After this long without an answer a request says so (a warning in the log the user sees). */
const SLOW_ANSWER_MS = 5_000
/**
 * How long an order waits for the same order held by another running process (its operation's own
 * timeout when it has one: the holder may be an identical resource of another provider alias, whose
 * create takes as long as this one's), and how often it looks.
 */
const HELD_WAIT_MS = 120_000
const HELD_POLL_MS = 500
const HELD_REPORT_MS = 10_000
/** Without an operation deadline, an order keeps trying this many request timeouts. */
const ORDER_DEFAULT_TIMEOUTS = 4

export class Transport {
  constructor(readonly options: TransportOptions) {}

  now(): number {
    return this.options.now()
  }

  /** GET with its payload decoded; `accountId` is named in errors. */
  get<T>(path: string, decode: (payload: unknown) => T, options?: CallOptions, accountId?: string): Promise<T> {
    return this.request({ method: 'GET', path, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) })
  }

  /** A mutation that is not an order: no Idempotency-Key, so 5xx and network failures are not retried. */
  send<T>(
    method: HttpMethod,
    path: string,
    body: unknown,
    decode: (payload: unknown) => T,
    options?: CallOptions,
    accountId?: string,
  ): Promise<T> {
    return this.request({ method, path, body, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) }).then(async (result) => {
      if (method === 'DELETE' && accountId !== undefined) await this.options.journal?.settle(accountId).catch(() => undefined)
      return result
    })
  }

  /**
   * Places an order (§1.11), or a one-shot destructive action, exactly once per intent: recorded in
   * the journal before it is sent, replayed with the same key (or taken over by the next run) until
   * it answers, never re-sent blindly to a service that does not confirm keys.
   */
  order(method: HttpMethod, path: string, body: unknown, options?: OrderOptions, accountId?: string): Promise<Order> {
    return this.once(method, path, body, decodeOrderPayload, options, accountId)
  }

  /** A one-shot destructive action (rebuild, reset, restore) under the same exactly-once rules as an order. */
  action(method: HttpMethod, path: string, body: unknown, options?: CallOptions, accountId?: string): Promise<void> {
    return this.once(method, path, body, () => undefined, options, accountId)
  }

  async once<T>(
    method: HttpMethod,
    path: string,
    body: unknown,
    decode: (payload: unknown) => T,
    options?: OrderOptions,
    accountId?: string,
  ): Promise<T> {
    const context: RequestContext = { method, path, accountId }
    const frame = this.options.operation?.()
    const journal = this.options.journal
    let entry: JournalEntry | undefined
    if (options?.idempotencyKey === undefined && journal !== undefined) {
      const { baseUrl, apiKey } = this.options
      const intent = fingerprint({ baseUrl, apiKey, method, path, body, scope: frame?.scope })
      // An order that makes a new account (it can be recognised by listing) may also take over a
      // delivered one whose state the engine may have lost (see JournalState).
      const claimOptions = { adoptDelivered: options?.reconcile !== undefined }
      let resumed: { value: unknown } | 'gone' | undefined
      for (;;) {
        entry = (await journal.claim(intent, claimOptions)) ?? (await this.awaitHeldElsewhere(intent, claimOptions, context, frame, options?.signal))
        if (entry === undefined) break
        try {
          resumed = await this.resume(entry, context, options)
        } catch (error) {
          journal.drop(entry)
          throw error
        }
        if (resumed !== 'gone') break
        // Its account was deleted since: that entry is settled now; try the next one, or order anew.
        journal.drop(entry)
      }
      // A new order that no entry accounts for: a killed run may have placed it (see unrecordedMatches).
      if (entry === undefined && options?.reconcile !== undefined) await this.unrecordedMatches(intent, context, options.reconcile, options.signal)
      const held = entry ?? (await journal.open(intent, serviceOf(baseUrl), this.options.idempotencyKey(), method, path))
      // Without an operation, the call itself is what hands the outcome over.
      if (frame) frame.onFinish(() => journal.release(held))
      if (entry !== undefined && resumed !== undefined && resumed !== 'gone') {
        if (!frame) await journal.release(entry)
        return resumed.value as T
      }
      entry = held
    }
    const key = entry?.key ?? options?.idempotencyKey ?? this.options.idempotencyKey()
    const spec: RequestSpec<T> = { method, path, body, idempotencyKey: key, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) }
    const call = `${method} ${path}`
    const placing = this.placeOnce(spec, context, entry, frame, options?.reconcile)
    this.ordersStarted.set(call, (this.ordersStarted.get(call) ?? 0) + 1)
    const running = this.inFlight.get(call) ?? new Set<Promise<unknown>>()
    this.inFlight.set(call, running)
    running.add(placing)
    try {
      return await placing
    } finally {
      running.delete(placing)
      if (entry && !frame) await journal?.release(entry)
    }
  }

  /** This process's orders of each call (`METHOD path`) whose answer is not in yet, and how many were ever started. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>()
  private readonly ordersStarted = new Map<string, number>()

  /**
   * The accounts of a kind as the listing shows them once this process's own orders of the same call
   * have answered (and are in the journal): an account one of them made while the listing ran would
   * otherwise look like nobody's (three identical IPs in one apply). Bounded: a call ordered without
   * pause keeps at most a few rounds.
   */
  private async listAfterOwnOrders(call: string, reconcile: Reconcile): Promise<readonly Account<unknown>[]> {
    for (let round = 0; ; round++) {
      await Promise.allSettled([...(this.inFlight.get(call) ?? [])])
      const started = this.ordersStarted.get(call) ?? 0
      const accounts = await reconcile.list()
      const quiet = (this.ordersStarted.get(call) ?? 0) === started && (this.inFlight.get(call)?.size ?? 0) === 0
      if (quiet || round >= OWN_ORDER_ROUNDS) return accounts
    }
  }

  /**
   * The same order held by another process that still runs (see OrderJournal.heldElsewhere): it is
   * waited for, with a message every few seconds, until its owner hands it to its engine (then this
   * one orders anew: another workspace's resource), exits (then this one takes the entry over) or the
   * wait runs out, which stops this order rather than risk a second one beside it.
   */
  private async awaitHeldElsewhere(
    intent: string,
    claimOptions: { adoptDelivered: boolean },
    context: RequestContext,
    frame: OperationFrame | undefined,
    signal: AbortSignal | undefined,
  ): Promise<JournalEntry | undefined> {
    const journal = this.options.journal
    if (journal === undefined) return undefined
    let held = await journal.heldElsewhere(intent)
    const started = this.options.now()
    const limit = frame?.timeoutMs ?? HELD_WAIT_MS
    // Bounded by the clock and, should the clock stand still, by the number of looks.
    for (let round = 0; held.length > 0; round++) {
      const first = held[0] as JournalEntry
      const pid = first.owner?.pid
      const waited = this.options.now() - started
      if (waited >= limit || round > limit / HELD_POLL_MS) {
        throw new OrderUnresolvedError(
          `Not ordering ${context.method} ${context.path}: the same order (Idempotency-Key ${first.key}, sent ` +
            `${new Date(first.sentAt).toISOString()}) is held by provider process ${pid}, which still runs after ` +
            `${Math.round(waited / 1000)} s of waiting. Ordering beside it could be a second order. Let that run finish (or stop ` +
            `process ${pid}), then apply again: its order is then taken over, not placed twice.`,
          { context, idempotencyKey: first.key },
        )
      }
      if (round % (HELD_REPORT_MS / HELD_POLL_MS) === 0) {
        this.options.log(
          'warn',
          `${context.method} ${context.path}: the same order is in flight in provider process ${pid} (Idempotency-Key ${first.key}); ` +
            `waiting for it before deciding whether to order (${Math.round(waited / 1000)} s of at most ${Math.round(limit / 1000)} s)`,
          { idempotency_key: first.key, pid },
        )
      }
      await this.options.sleep(HELD_POLL_MS, signal)
      const entry = await journal.claim(intent, claimOptions)
      if (entry !== undefined) return entry
      held = await journal.heldElsewhere(intent)
    }
    return undefined
  }

  /**
   * A journal entry a killed run left: its answer, an adopted account, undefined to send it again,
   * or 'gone' when it names an account that no longer exists (the entry is then settled).
   */
  private async resume(entry: JournalEntry, context: RequestContext, options?: OrderOptions): Promise<{ value: unknown } | 'gone' | undefined> {
    const { log } = this.options
    const answer = () => ({ value: entry.accountId === undefined ? undefined : ({ account_id: entry.accountId, order_id: entry.orderId ?? '' } as Order) })
    if (entry.state === 'delivered' && entry.accountId !== undefined && options?.reconcile !== undefined) {
      // Handed to an engine that was killed before any state named it: the account may be lost from state.
      const accountId = entry.accountId
      const exists = (await options.reconcile.list()).some((a) => a.account_id === accountId)
      if (!exists) {
        log('warn', `${entry.method} ${entry.path} of an earlier run made account ${accountId}, which no longer exists; ordering anew`, {
          account_id: accountId,
        })
        await this.options.journal?.settle(accountId)
        entry.state = 'settled'
        return 'gone'
      }
      log('warn', `${entry.method} ${entry.path} made account ${accountId} in an earlier run that was killed before any state named it; taken over, not ordered again`, {
        account_id: accountId,
        order_id: entry.orderId,
        idempotency_key: entry.key,
      })
      return answer()
    }
    if (entry.state === 'answered') {
      log('warn', `${entry.method} ${entry.path} was answered in an earlier run${entry.accountId ? `: account ${entry.accountId}` : ''}; not sent again`, {
        account_id: entry.accountId,
        order_id: entry.orderId,
        idempotency_key: entry.key,
      })
      return answer()
    }
    // A killed run may have had no answer to learn from: ask once, as a new order does (placeOnce).
    if (!(await this.honoured())) await this.probe({ method: 'GET', path: entry.path, signal: options?.signal, decode: () => undefined }, context)
    if (await this.honoured()) {
      log('warn', `${entry.method} ${entry.path} had no answer in an earlier run; sending it again with the same Idempotency-Key`, {
        idempotency_key: entry.key,
      })
      return undefined
    }
    // The service never confirmed that it recognises keys: find out before ordering again.
    if (options?.reconcile === undefined) {
      throw new OrderUnresolvedError(
        `An earlier run sent ${entry.method} ${entry.path} with Idempotency-Key ${entry.key} and got no answer, and this service ` +
          'has not confirmed that it recognises Idempotency-Keys, so it is not sent again. Check the account in the portal; ' +
          `once you know it was not done, ${this.options.journal?.removal(entry) ?? 'remove its journal entry'} and apply again.`,
        { context, idempotencyKey: entry.key },
      )
    }
    const adopted = await this.reconcileOnce(entry, entry.sentAt, entry.key, context, options.reconcile)
    if (adopted !== undefined) return { value: adopted }
    log('warn', `${entry.method} ${entry.path} of an earlier run made no account; ordering with the same Idempotency-Key`, {
      idempotency_key: entry.key,
    })
    return undefined
  }

  /**
   * Asks the service whether it implements the extension: one that does echoes the key of every
   * request (§1.11), a GET included, and a GET changes nothing. Any answer, or none, is fine.
   */
  private probe(spec: RequestSpec<unknown>, context: RequestContext): Promise<void> {
    // One answer settles it for this process; concurrent orders share the question in flight.
    if (this.echoed || this.notEchoed) return Promise.resolve()
    this.asking ??= this.ask(spec, context).finally(() => {
      this.asking = undefined
    })
    return this.asking
  }

  private async ask(spec: RequestSpec<unknown>, context: RequestContext): Promise<void> {
    const outcome = await this.attempt(
      { method: 'GET', path: spec.path, idempotencyKey: this.options.idempotencyKey(), signal: spec.signal, decode: () => undefined },
      context,
      1,
    )
    if (outcome.kind === 'transport') return
    if (outcome.echoed) this.echoed = true
    else this.notEchoed = true
  }

  /** A probe was answered without the key: this service does not echo it (asked once per process). */
  private notEchoed = false
  private asking: Promise<void> | undefined

  /**
   * Before a new order that the journal has no record of, when nothing else can recognise a killed
   * run's order: the service has not shown that it recognises Idempotency-Keys, or this directory
   * has no record of any order to this service (another machine, a fresh CI workspace, a lost
   * journal: the key of a killed run's order is gone with its journal). An account that matches the
   * order, was created within the keys' window and is named neither by this directory's journal nor
   * by any state its runs have seen (see OrderJournal.named), is such an order or another
   * configuration's: nothing is ordered, and the error names it and the import command. So is an
   * account an order of this very intent made and handed over before the engine closed the provider,
   * while no state has named it since (OrderJournal.unconfirmed): Terraform saves its state after
   * that close. `allowUnrecordedMatch` orders anyway.
   */
  private async unrecordedMatches(intent: string, context: RequestContext, reconcile: Reconcile, signal: AbortSignal | undefined): Promise<void> {
    const { journal } = this.options
    if (this.options.allowUnrecordedMatch === true || journal === undefined) return
    // Asked once per process, before this run's own orders are recorded.
    this.freshDirectory ??= !(await journal.hasOrders(serviceOf(this.options.baseUrl)))
    const unconfirmed = await journal.unconfirmed(intent)
    let check = this.freshDirectory
    if (!check) {
      if (!(await this.honoured())) await this.probe({ method: 'GET', path: context.path, signal, decode: () => undefined }, context)
      check = !(await this.honoured())
    }
    if (!check && unconfirmed.length === 0) return
    const accounts = await this.listAfterOwnOrders(`${context.method} ${context.path}`, reconcile)
    const live = new Set(accounts.filter((a) => !statusIs(a.status, 'Terminated')).map((a) => a.account_id))
    for (const id of unconfirmed) if (!live.has(id)) await journal.settle(id)
    const lost = unconfirmed.filter((id) => live.has(id))
    if (lost.length > 0) {
      const one = lost.length === 1
      throw new UnrecordedMatchError(
        `Not ordering ${context.method} ${context.path}: ${one ? 'account' : 'accounts'} ${lost.join(', ')} ${one ? 'was' : 'were'} ` +
          `ordered from ${journal.scope} for this same configuration and handed to the engine, which then closed the ` +
          "provider, and no state has named it since. Terraform saves its state after closing the provider: a run killed in " +
          'between (with a remote backend) loses it, and ordering again would be a second order. If that happened, import it by ' +
          'its id (terraform import <address> <id>, or pulumi import). If you removed it from the state on purpose, apply again ' +
          'with PROVIDER_ALLOW_UNRECORDED_MATCH=1 in the environment to order a new one.',
        { context, idempotencyKey: '', candidates: lost },
      )
    }
    if (!check) return
    const known = await journal.knownAccounts()
    const since = this.options.now() - JOURNAL_REUSE_MS
    const matching = accounts.filter(
      (a) => !statusIs(a.status, 'Terminated') && createdSince(a.date_created, since) && !known.has(a.account_id) && reconcile.matches(a),
    )
    // Evidence of a killed run: a match still being provisioned, or ordered within the last hour.
    // An Active one ordered earlier is far more often another configuration's (a twin directory, a
    // default name, a nameless IP): it is named in a warning and the order goes ahead.
    const recent = this.options.now() - KILLED_RUN_EVIDENCE_MS
    const evidence = (a: Account<unknown>) => statusIs(a.status, 'Pending') || createdSince(a.date_created, recent)
    const older = matching.filter((a) => !evidence(a)).map((a) => a.account_id)
    if (older.length > 0) {
      const detail =
        `${older.length === 1 ? 'Account' : 'Accounts'} ${older.join(', ')} ${older.length === 1 ? 'matches' : 'match'} this order and no ` +
        `state or order journal of ${journal.scope} names it: provisioned and more than an hour old, it is taken for another ` +
        "configuration's and a new one is ordered. If it was ordered by a killed run of this configuration, import it " +
        '(terraform import <address> <id>, or pulumi import) and remove the new one.'
      this.options.log('warn', `${context.method} ${context.path}: ${detail}`, { candidates: older })
      this.options.operation?.()?.warn?.(`Ordered beside ${older.length === 1 ? 'account' : 'accounts'} ${older.join(', ')}, which no state names`, detail)
    }
    const ids = matching.filter(evidence).map((a) => a.account_id)
    if (ids.length === 0) return
    const one = ids.length === 1
    const why = this.freshDirectory
      ? `The order journal of ${journal.scope} has no record of orders to this service (another machine, a fresh CI workspace, or a lost ` +
        `order journal: ${journal.where}), so the provider cannot tell an order placed by an earlier run that was killed ` +
        "from another configuration's account"
      : 'This service does not confirm Idempotency-Keys, so the provider cannot tell an order placed by an earlier run that was ' +
        "killed (on another machine, in a fresh CI workspace, or with its journal lost) from another configuration's account"
    throw new UnrecordedMatchError(
      `Not ordering ${context.method} ${context.path}: ${one ? 'account' : 'accounts'} ${ids.join(', ')} ${one ? 'matches' : 'match'} ` +
        `this order, ${one ? 'is' : 'are'} still being provisioned or ${one ? 'was' : 'were'} created within the last hour, and no state or order journal of ${journal.scope} ` +
        `names ${one ? 'it' : 'them'}. ${why}, and orders nothing rather than twice. If it belongs to this resource, ` +
        'import it by its id (terraform import <address> <id>, or pulumi import). If it belongs to something else, apply again ' +
        'with PROVIDER_ALLOW_UNRECORDED_MATCH=1 in the environment to order anyway.',
      { context, idempotencyKey: '', candidates: ids },
    )
  }

  /** Whether this directory's journal had no order to this service when the first new order was checked. */
  private freshDirectory: boolean | undefined

  private async honoured(): Promise<boolean> {
    return this.echoed || (await this.options.journal?.honoured(serviceOf(this.options.baseUrl))) === true
  }

  private echoed = false

  /** Lists the accounts of the kind and adopts the single one this order made; throws on ambiguity. */
  private async reconcileOnce(
    entry: JournalEntry | undefined,
    sentAt: number,
    key: string,
    context: RequestContext,
    reconcile: Reconcile,
  ): Promise<Order | undefined> {
    const known = (await this.options.journal?.knownAccounts()) ?? new Set<string>()
    const accounts = await reconcile.list()
    const candidates = accounts.filter((a) => createdSince(a.date_created, sentAt) && !known.has(a.account_id) && reconcile.matches(a))
    // Another order of the same call may have made the one match (its answer not in yet): adopting it
    // here would give two resources one account. Ambiguous, so nothing is adopted.
    const rivals = candidates.length === 1 ? ((await this.options.journal?.unresolvedBeside(entry, context.method, context.path)) ?? 0) : 0
    if (candidates.length === 1 && rivals === 0) {
      const account = candidates[0] as Account<unknown>
      await this.answered(entry, { account_id: account.account_id, order_id: account.order_id } as Order, context, 'adopted')
      return { account_id: account.account_id, order_id: account.order_id } as Order
    }
    if (candidates.length > 0) {
      const ids = candidates.map((a) => a.account_id)
      const why = rivals > 0 ? `${ids.length} account matches it while ${rivals} other such order of this directory is unanswered` : `${ids.length} accounts match it`
      throw new OrderUnresolvedError(
        `${context.method} ${context.path} (Idempotency-Key ${key}) had no clear answer, and ${why}: ` +
          `${ids.join(', ')}. None is adopted and nothing is ordered again; import the one that belongs to this resource by its id ` +
          `(terraform import <address> <id>, or pulumi import), and cancel any other in the portal.`,
        { context, idempotencyKey: key, candidates: ids },
      )
    }
    return undefined
  }

  private async answered(entry: JournalEntry | undefined, order: Order, context: RequestContext, how: 'answered' | 'adopted'): Promise<void> {
    // Every answer leaves a trail (info: Terraform's log, a line in Pulumi's diagnostics) so that even a
    // lost state can be recovered; one adopted after an unclear answer is worth a warning.
    this.options.log(how === 'adopted' ? 'warn' : 'info', `${context.method} ${context.path} ${how}: account ${order.account_id}`, {
      account_id: order.account_id,
      order_id: order.order_id,
      ...(entry ? { idempotency_key: entry.key } : {}),
    })
    if (entry === undefined) return
    entry.state = 'answered'
    entry.accountId = order.account_id
    if (order.order_id) entry.orderId = order.order_id
    await this.record(entry)
  }

  /**
   * Stores what an answer taught about an entry. The request is done by then: a journal that cannot
   * be written (a full disk, a database gone) must not turn a placed order into an error that loses
   * its id, so the failure is logged, and the outcome still reaches the engine.
   */
  private async record(entry: JournalEntry): Promise<void> {
    try {
      await this.options.journal?.write(entry)
    } catch (error) {
      this.options.log('warn', `could not record ${entry.method} ${entry.path} (${entry.state}) in the order journal at ${this.options.journal?.where}: ${error instanceof Error ? error.message : String(error)}`, {
        idempotency_key: entry.key,
        account_id: entry.accountId,
      })
    }
  }

  private async placeOnce<T>(
    spec: RequestSpec<T>,
    context: RequestContext,
    entry: JournalEntry | undefined,
    frame: OperationFrame | undefined,
    reconcile: Reconcile | undefined,
  ): Promise<T> {
    const { options } = this
    const key = spec.idempotencyKey as string
    const deadline = this.deadline(frame)
    const unresolved = (why: string, cause?: unknown, candidates?: readonly string[]) =>
      new OrderUnresolvedError(
        `${why} The order may have been placed. Its Idempotency-Key is ${key}; ` +
          (entry
            ? `the next apply from ${options.journal?.scope ?? 'this working directory'} checks it before ordering again and does not place a second order.`
            : 'repeat it only with that key.'),
        { context, idempotencyKey: key, ...(candidates ? { candidates } : {}) },
        cause === undefined ? undefined : { cause },
      )
    let failures = 0
    for (;;) {
      const outcome = await this.attempt(spec, context, failures + 1)
      if (outcome.kind !== 'transport' && outcome.echoed) {
        this.echoed = true
        if (entry && entry.honoured !== true) {
          entry.honoured = true
          await this.record(entry)
        }
      }
      if (outcome.kind === 'ok') {
        const value = this.decode(spec, outcome.payload, outcome.requestId)
        if (spec.decode === decodeOrderPayload) await this.answered(entry, value as Order, context, 'answered')
        else if (entry) {
          entry.state = 'answered'
          await this.record(entry)
        }
        return value
      }
      let delayMs: number
      if (outcome.kind === 'http' && (outcome.error.status === 429 || (outcome.error.status === 409 && outcome.retryAfterMs !== undefined))) {
        // Nothing was processed (or the first attempt is still being processed): not a failed attempt.
        delayMs = this.jittered(outcome.retryAfterMs ?? RETRY_AFTER_DEFAULT_MS)
      } else if (outcome.kind === 'http' && !RETRYABLE_5XX.has(outcome.error.status)) {
        if (entry) {
          entry.state = 'failed'
          await this.record(entry)
        }
        throw outcome.error
      } else {
        const error = outcome.kind === 'http' ? outcome.error : outcome.error
        if (outcome.kind === 'transport' && outcome.error.reason === 'cancelled') {
          throw unresolved('It was cancelled before the service answered.', error)
        }
        failures++
        if (!(await this.honoured())) await this.probe(spec, context)
        if (!(await this.honoured())) {
          // A service that does not confirm keys may have processed it: never send it again blindly.
          if (reconcile === undefined) {
            throw unresolved(`${sentence(error.message)} This service has not confirmed that it recognises Idempotency-Keys, so it is not sent again.`, error)
          }
          const sentAt = entry?.sentAt ?? options.now() - options.requestTimeoutMs * failures
          const adopted = await this.reconcileUntil(entry, sentAt, key, context, reconcile, deadline, spec.signal, unresolved, error)
          return adopted as T
        }
        delayMs = Math.min(this.backoff(failures), ORDER_BACKOFF_CAP_MS)
        if (frame?.timeoutMs === undefined && failures >= options.maxAttempts) throw unresolved(sentence(error.message), error)
      }
      if (options.now() + delayMs >= deadline) {
        throw unresolved(`No answer to ${spec.method} ${spec.path} before the operation's deadline.`, outcome.error)
      }
      options.log('warn', `retrying ${spec.method} ${spec.path} in ${delayMs}ms with the same Idempotency-Key`, {
        method: spec.method,
        path: spec.path,
        cause: outcome.kind === 'transport' ? outcome.error.reason : outcome.error.status,
        delay_ms: delayMs,
        idempotency_key: key,
      })
      await this.pause(delayMs, spec.signal, context)
    }
  }

  /** After an ambiguous failure: list until the order's account shows up, or the deadline passes. */
  private async reconcileUntil(
    entry: JournalEntry | undefined,
    sentAt: number,
    key: string,
    context: RequestContext,
    reconcile: Reconcile,
    deadline: number,
    signal: AbortSignal | undefined,
    unresolved: (why: string, cause?: unknown) => OrderUnresolvedError,
    cause: Error,
  ): Promise<Order> {
    for (let round = 1; ; round++) {
      let adopted: Order | undefined
      try {
        adopted = await this.reconcileOnce(entry, sentAt, key, context, reconcile)
      } catch (error) {
        if (error instanceof OrderUnresolvedError) throw error
        // The order's outcome stays the news: the listing's failure is only why it is still unknown.
        throw unresolved(`${sentence(cause.message)} Listing the accounts to find out whether it was processed failed too: ${sentence(messageOf(error))}`, cause)
      }
      if (adopted !== undefined) return adopted
      const delayMs = Math.min(this.backoff(round), ORDER_BACKOFF_CAP_MS)
      if (this.options.now() + delayMs >= deadline) {
        throw unresolved(`${sentence(cause.message)} No new matching account appeared before the operation's deadline.`, cause)
      }
      await this.pause(delayMs, signal, context)
    }
  }

  /**
   * Server text as it may be shown: whatever the server echoes, the API key, the request's secret
   * values (by key pattern, as in `raw`) and any URL userinfo are replaced.
   */
  private scrub(text: string, spec: RequestSpec<unknown>): string {
    const secrets = [this.options.apiKey, ...secretValues(spec.body)].filter((s) => s.length >= 4)
    let out = text
    // Longest first, so that a secret containing another is replaced whole.
    for (const secret of secrets.sort((a, b) => b.length - a.length)) {
      out = out.split(secret).join(REDACTED)
      const escaped = JSON.stringify(secret).slice(1, -1)
      if (escaped !== secret) out = out.split(escaped).join(REDACTED)
    }
    return out.replace(/(\/\/)[^/\s@"']*@/g, `$1${REDACTED}@`)
  }

  /** When the operation gives up, on the client's clock; without one, a few request timeouts from now. */
  private deadline(frame: OperationFrame | undefined): number {
    const now = this.options.now()
    if (frame?.timeoutMs === undefined) return now + ORDER_DEFAULT_TIMEOUTS * this.options.requestTimeoutMs
    frame.startedAt ??= now
    return frame.startedAt + frame.timeoutMs
  }

  /** Full jitter on top of a server's delay, so parallel workers do not retry in step. */
  private jittered(ms: number): number {
    return Math.min(Math.round(ms * (1 + 0.25 * this.options.random())), RETRY_AFTER_CAP_MS)
  }

  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const { options } = this
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId }
    // Retrying a mutation is only safe when nothing was processed (429, the in-progress 409) or when
    // the server can recognise the repeat by its Idempotency-Key.
    const mayRetryFailure = spec.method === 'GET' || spec.idempotencyKey !== undefined
    // A 429 (nothing processed) does not use up an attempt while the operation has time left.
    const deadline = this.deadline(options.operation?.())
    for (let attempt = 1, failures = 0; ; attempt++) {
      const outcome = await this.attempt(spec, context, attempt)
      if (outcome.kind === 'ok') return this.decode(spec, outcome.payload, outcome.requestId)
      let delayMs: number
      if (outcome.kind === 'transport') {
        failures++
        if (outcome.error.reason === 'cancelled' || !mayRetryFailure || failures >= options.maxAttempts) throw outcome.error
        // No answer at all for a whole request_timeout: asking again would multiply the silence (an
        // order keeps its own deadline and is not sent through here without its key).
        if (outcome.error.reason === 'timeout' && spec.idempotencyKey === undefined) throw outcome.error
        delayMs = this.backoff(failures)
      } else {
        const { error, retryAfterMs } = outcome
        if (error.status === 429 || (error.status === 409 && retryAfterMs !== undefined)) {
          delayMs = this.jittered(retryAfterMs ?? RETRY_AFTER_DEFAULT_MS)
          if (options.now() + delayMs >= deadline) throw error
        } else if (RETRYABLE_5XX.has(error.status) && mayRetryFailure && failures + 1 < options.maxAttempts) {
          failures++
          delayMs = this.backoff(failures)
        } else {
          throw error
        }
      }
      const cause = outcome.kind === 'transport' ? outcome.error.reason : outcome.error.status
      options.log('warn', `retrying ${spec.method} ${spec.path} in ${delayMs}ms`, {
        method: spec.method,
        path: spec.path,
        attempt,
        cause,
        delay_ms: delayMs,
      })
      await this.pause(delayMs, spec.signal, context)
    }
  }

  /** 0.5 s, 1 s, 2 s ... with ±25% jitter so that many clients do not retry in step. */
  private backoff(attempt: number): number {
    const base = BACKOFF_BASE_MS * 2 ** (attempt - 1)
    return Math.round(base * (0.75 + 0.5 * this.options.random()))
  }

  private async pause(ms: number, signal: AbortSignal | undefined, context: RequestContext): Promise<void> {
    if (signal?.aborted) throw cancelled(context, signal)
    try {
      await this.options.sleep(ms, signal)
    } catch (error) {
      if (signal?.aborted) throw cancelled(context, signal)
      throw error
    }
    if (signal?.aborted) throw cancelled(context, signal)
  }

  private url(spec: RequestSpec<unknown>): string {
    let url = this.options.baseUrl + spec.path
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value === undefined) continue
      for (const item of typeof value === 'string' ? [value] : value) params.append(key, item)
    }
    const query = params.toString()
    if (query !== '') url += `?${query}`
    return url
  }

  private async attempt(spec: RequestSpec<unknown>, context: RequestContext, attempt: number): Promise<Outcome> {
    const { options } = this
    if (spec.signal?.aborted) return { kind: 'transport', error: cancelled(context, spec.signal) }
    const headers = new Headers({ 'x-token': options.apiKey, 'user-agent': options.userAgent, accept: 'application/json' })
    if (spec.body !== undefined) headers.set('content-type', 'application/json')
    if (spec.idempotencyKey !== undefined) headers.set('idempotency-key', spec.idempotencyKey)

    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('request timed out'))
    }, options.requestTimeoutMs)
    // A service that accepted the connection and says nothing: tell the user soon, not only at the timeout.
    const waiting =
      options.requestTimeoutMs > SLOW_ANSWER_MS
        ? setTimeout(() => {
            options.log(
              'warn',
              `no answer yet to ${spec.method} ${spec.path} after ${SLOW_ANSWER_MS / 1000} s; giving up after ${Math.round(options.requestTimeoutMs / 1000)} s (request_timeout)`,
              { method: spec.method, path: spec.path, attempt },
            )
          }, SLOW_ANSWER_MS)
        : undefined
    const onAbort = () => controller.abort(spec.signal?.reason)
    spec.signal?.addEventListener('abort', onAbort, { once: true })
    // A fetch that ignores its signal (an in-process handler may) must still give up on time.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
    })
    aborted.catch(() => undefined)

    const started = options.now()
    const fields: Record<string, unknown> = { method: spec.method, path: spec.path, attempt }
    if (spec.idempotencyKey !== undefined) fields.idempotency_key = spec.idempotencyKey
    try {
      const request = new Request(this.url(spec), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? null : JSON.stringify(spec.body),
        signal: controller.signal,
        // A redirect would carry x-token (and on 307/308 the body) to wherever it points.
        redirect: 'manual',
      })
      const response = await Promise.race([options.fetch(request), aborted])
      const text = await Promise.race([response.text(), aborted])
      const requestId = response.headers.get('x-request-id') ?? undefined
      context.requestId = requestId
      fields.status = response.status
      fields.request_id = requestId
      fields.duration_ms = options.now() - started
      if (response.headers.get('idempotency-replayed') === 'true') fields.replayed = true
      options.log(response.ok ? 'debug' : 'info', `${spec.method} ${spec.path} → ${response.status}`, fields)
      const echoed = spec.idempotencyKey !== undefined && response.headers.get('idempotency-key') === spec.idempotencyKey
      if (response.ok) return { kind: 'ok', payload: text, requestId, echoed }
      if (response.status >= 300 && response.status < 400) {
        const message =
          `the API answered ${response.status} with a redirect to ${originOf(response.headers.get('location'), request.url)}; ` +
          'redirects are refused so that the API key and request bodies never go to another address. ' +
          'Set base_url to the address the API answers at'
        return { kind: 'http', echoed, error: new ApiError(response.status, message, [], { ...context }), retryAfterMs: undefined }
      }
      return {
        kind: 'http',
        echoed,
        error: decodeError(response.status, response.statusText, this.scrub(text, spec), { ...context }),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now()),
      }
    } catch (error) {
      fields.duration_ms = options.now() - started
      let failure: TransportError
      if (spec.signal?.aborted) failure = cancelled(context, spec.signal)
      else if (timedOut) {
        failure = new TransportError('timeout', `no answer within ${options.requestTimeoutMs}ms`, { ...context }, { cause: error })
      } else {
        failure = new TransportError('network', this.scrub(describeCause(error), spec), { ...context }, { cause: error })
      }
      fields.error = failure.reason
      options.log('info', `${spec.method} ${spec.path} failed: ${failure.reason}`, fields)
      return { kind: 'transport', error: failure }
    } finally {
      clearTimeout(timer)
      clearTimeout(waiting)
      spec.signal?.removeEventListener('abort', onAbort)
    }
  }

  private decode<T>(spec: RequestSpec<T>, text: string, requestId: string | undefined): T {
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId, requestId }
    let payload: unknown
    try {
      payload = unwrap(text)
    } catch {
      throw new DecodeError(`the body is not JSON: ${JSON.stringify(this.scrub(text, spec).slice(0, 200))}`, context)
    }
    try {
      return spec.decode(payload)
    } catch (error) {
      if (error instanceof ShapeError) throw new DecodeError(error.message, context)
      throw error
    }
  }
}

const decodeOrderPayload = (payload: unknown): Order => decodeOrder(payload)

type Outcome =
  | { kind: 'ok'; payload: string; requestId: string | undefined; echoed: boolean }
  | { kind: 'http'; error: ApiError; retryAfterMs: number | undefined; echoed: boolean }
  | { kind: 'transport'; error: TransportError }

function cancelled(context: RequestContext, signal: AbortSignal): TransportError {
  return new TransportError('cancelled', 'cancelled by the caller', { ...context }, { cause: signal.reason })
}

/**
 * Whether an account was created after `sentAt` as far as its `date_created` tells: a date and time
 * (UTC) within a little slack, or a bare date (§2.3) on the same day or later. Unreadable: yes, so
 * that such an account counts as a candidate and never lets another be adopted on its own.
 */
export function createdSince(dateCreated: string, sentAt: number): boolean {
  const text = dateCreated.trim()
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text >= new Date(sentAt).toISOString().slice(0, 10)
  const created = Date.parse(`${text.replace(' ', 'T')}Z`)
  return Number.isNaN(created) || created >= sentAt - CREATED_SLACK_MS
}

/** The values under secret-looking keys of a request body. */
function secretValues(body: unknown): string[] {
  const redacted = redact(body)
  const out: string[] = []
  const walk = (value: unknown, shown: unknown) => {
    if (shown === REDACTED && value !== REDACTED) {
      if (typeof value === 'string') out.push(value)
      else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walk(item, REDACTED)
      return
    }
    if (value === null || typeof value !== 'object' || shown === null || typeof shown !== 'object') return
    for (const [key, item] of Object.entries(value)) walk(item, (shown as Record<string, unknown>)[key])
  }
  walk(body, redacted)
  return out
}

/** Where a redirect points, as an origin only: never the path, query or userinfo it may carry. */
function originOf(location: string | null, base: string): string {
  if (location === null) return 'an unnamed address'
  try {
    return new URL(location, base).origin
  } catch {
    return 'an unparseable address'
  }
}

/** A message as a sentence: one full stop at its end. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function describeCause(error: unknown): string {
  if (error instanceof Error && error.cause instanceof Error && error.cause.message === 'bad port') {
    return 'fetch refuses this port (one that browsers block, such as 6000 or 10080), so nothing was sent; serve the API on another port'
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}

/** §1.5: `{success: bool, data}` gives `data`; any other JSON is the payload itself; empty is null. */
export function unwrap(text: string): unknown {
  if (text.trim() === '') return null
  const body: unknown = JSON.parse(text)
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    if ('data' in record && typeof record.success === 'boolean') return record.data
  }
  return body
}

/** Integer seconds per the contract; an HTTP date is accepted too, as other servers send it. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const value = header.trim()
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const RAW_TEXT_LIMIT = 500

/** §1.6: the message and the per-field errors of a non-2xx answer. */
export function decodeError(status: number, statusText: string, text: string, context: RequestContext): ApiError {
  let body: unknown
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  const fields: FieldError[] = []
  let message: string | undefined
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    const detail = record.detail
    if (typeof detail === 'string') message = detail
    else if (Array.isArray(detail)) {
      for (const item of detail) fields.push(fieldError(item))
      message = fields.map((f) => (f.field === '' ? f.message : `${f.field}: ${f.message}`)).join('; ')
    } else if (typeof record.message === 'string') message = record.message
    else if (typeof record.error === 'string') message = record.error
  }
  if (message === undefined || message === '') {
    const raw = text.trim().slice(0, RAW_TEXT_LIMIT)
    message = raw !== '' ? raw : statusText !== '' ? statusText : `HTTP ${status}`
  }
  return new ApiError(status, message, fields, context)
}

function fieldError(item: unknown): FieldError {
  if (item === null || typeof item !== 'object') return { field: '', message: String(item) }
  const record = item as Record<string, unknown>
  const loc = Array.isArray(record.loc) ? record.loc.slice(1).map(String) : []
  const message = typeof record.msg === 'string' ? record.msg : JSON.stringify(item)
  return { field: loc.join('.'), message }
}

/** Drops `undefined` members so the body only says what the caller said. */
export function compact(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value
  return out
}

/** Turns a synchronous throw (a malformed id) into a rejected promise, as callers of async calls expect. */
export function rejectingSync<T extends object>(api: T): T {
  const target = api as Record<string, unknown>
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function') continue
    const call = value as (...args: unknown[]) => unknown
    target[key] = (...args: unknown[]) => {
      try {
        return call(...args)
      } catch (error) {
        return Promise.reject(error)
      }
    }
  }
  return api
}

/** §1.8: the repeatable `status` filter of account lists. */
export function statusQuery(options?: ListOptions) {
  return options?.status === undefined ? undefined : { status: options.status }
}

// Exactly-once orders: the class the API families call for every order-placing call and one-shot
// destructive action (see index.ts for the guarantee and its limits). It sits above the HTTP
// transport, which never calls back into it.
import { createHash } from 'node:crypto'
import {
  cancelled,
  formatDuration,
  messageOf,
  OrderNotPlacedError,
  OrderUnresolvedError,
  type RequestContext,
  sentence,
  TransportError,
  UnrecordedMatchError,
} from '../errors.js'
import { type Account, CYCLE_LABELS, decodeAccount, decodeList, decodeOrder, type Invoice, type Order, statusIs } from '../models.js'
import { type OperationFrame, operationDeadline, RehearsalEnded } from '../operation.js'
import type { CallOptions, HttpMethod, RequestSpec, Transport, TransportOptions } from '../transport.js'
import { Attempts, REFUSED_GIVE_UP_MS, unreached } from './attempts.js'
import {
  entryIntent,
  type IntentKeys,
  intentOf,
  JOURNAL_REUSE_MS,
  newPlacing,
  type OrderJournal,
  type Placing,
  serviceOf,
} from './journal.js'
import type { InFlightOrder } from './known-accounts.js'
import type { JournalEntry } from './journal-store.js'

/**
 * How to find out whether an ambiguous create was processed, against a service that does not confirm
 * Idempotency-Keys: list the accounts of that kind and keep those the order would have made.
 */
export interface Reconcile {
  list(): Promise<readonly Account<unknown>[]>
  /**
   * The GET path `list` reads, kept in the order's journal entry: a later run lists it to name the
   * account an order left unanswered by a stopped run may have made (see Orders.unmanaged).
   */
  readonly listPath?: string
  matches(account: Account<unknown>): boolean
  /** A hash of what `matches` compares: orders whose hashes differ never match the same account. */
  readonly shows?: string
  /**
   * The names of what `shows` hashes (JournalEntry.showsFields), kept in the journal entry beside it: with them a
   * later run computes an account's hash as `shows` would be for it (accountShows), to tell the account
   * an unanswered order may have made from every other of its kind.
   */
  readonly showsFields?: readonly string[]
}

/**
 * How to find out whether an order on an existing account (an upgrade, a change of package) was
 * placed, against a service that does not confirm Idempotency-Keys: the account's last invoice is
 * the order's own once it is placed (see placementInvoice).
 */
export interface PlacedOn {
  /** Reads the account the order is on. */
  read(signal?: AbortSignal): Promise<Account<unknown>>
  /** The `invoice_type` of the invoice the order makes: `upgrade`, `change_package` or `migrate`. */
  readonly invoiceType: string
}

/** What tells an unclear order's outcome: a create's listing, or an order on an account's invoice and the one before it. */
interface Evidence {
  readonly reconcile: Reconcile | undefined
  readonly placedOn: PlacedOn | undefined
  readonly invoiceBefore: number | null | undefined
}

export interface OrderOptions extends CallOptions {
  /**
   * The Idempotency-Key to send; default a fresh one per call. Pass one only to repeat the same
   * intent (e.g. a key saved before a crash), never to place a second order.
   */
  readonly idempotencyKey?: string
  /** Creates: how to recognise the account this order makes (see Reconcile). */
  readonly reconcile?: Reconcile
  /** Orders on an existing account: how to tell that it was placed (see PlacedOn). */
  readonly placedOn?: PlacedOn
  /**
   * The account as the caller read it to work the order out (an increment starts from its size): a
   * stopped run's change of the same call counts as included only when this read shows it in effect
   * (see awaitStoppedChanges). Unset for an absolute target, which the service refuses at or below
   * the current value.
   */
  readonly basis?: Account<unknown>
}

/** What an order asks for, as the account it makes reports it; an undefined field is not compared. */
export interface Expected {
  readonly product_id?: number | undefined
  /** The order's cycle code, compared with the account's `billingcycle` label. */
  readonly cycle?: string | undefined
  /** The account's description: `""` for an order that gives none (the API's account object). */
  readonly description?: string | undefined
  /** Fields of the account's `extra_details`, compared as text. */
  readonly extra_details?: Readonly<Record<string, unknown>>
}

/**
 * A Reconcile that matches every input the account shows: product, cycle, description and the kind's
 * `extra_details`. An account that differs in any of them is another order's, never this one's.
 */
export function reconcileBy(listPath: string, list: (path: string) => Promise<readonly Account<unknown>[]>, expected: Expected): Reconcile {
  const details = Object.entries(expected.extra_details ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, String(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
  const compared = {
    product_id: expected.product_id,
    cycle: expected.cycle === undefined ? undefined : (CYCLE_LABELS[expected.cycle] ?? expected.cycle).toLowerCase(),
    description: expected.description,
    details,
  }
  const showsFields = [
    ...(['product_id', 'cycle', 'description'] as const).filter((name) => expected[name] !== undefined),
    ...details.map(([name]) => `extra_details.${name}`),
  ]
  return {
    list: () => list(listPath),
    listPath,
    shows: showsHash(compared),
    showsFields,
    matches: (account) => {
      if (expected.product_id !== undefined && account.product_id !== expected.product_id) return false
      if (expected.cycle !== undefined) {
        const label = CYCLE_LABELS[expected.cycle] ?? expected.cycle
        if (String(account.billingcycle).toLowerCase() !== label.toLowerCase()) return false
      }
      if (expected.description !== undefined && (account.description ?? '') !== expected.description) return false
      const details = (account.extra_details ?? {}) as Record<string, unknown>
      return Object.entries(expected.extra_details ?? {}).every(
        ([name, value]) => value === undefined || String(details[name]) === String(value),
      )
    },
  }
}

function showsHash(compared: {
  readonly product_id: unknown
  readonly cycle: string | undefined
  readonly description: string | undefined
  readonly details: readonly (readonly [string, string])[]
}): string {
  return createHash('sha256').update(JSON.stringify(compared)).digest('hex').slice(0, 32)
}

/**
 * What `shows` (Reconcile.shows) would be for an order that `account` matches, over the fields an
 * entry's order compared (Reconcile.showsFields): equal to an entry's `shows` exactly when the account
 * shows every input that order gave, so an account of another order of the kind is told apart.
 */
export function accountShows(account: Account<unknown>, fields: readonly string[]): string {
  const details = (account.extra_details ?? {}) as Record<string, unknown>
  return showsHash({
    product_id: fields.includes('product_id') ? account.product_id : undefined,
    cycle: fields.includes('cycle') ? String(account.billingcycle).toLowerCase() : undefined,
    description: fields.includes('description') ? (account.description ?? '') : undefined,
    details: fields
      .filter((f) => f.startsWith('extra_details.'))
      .map((f) => f.slice('extra_details.'.length))
      .sort((a, b) => (a < b ? -1 : 1))
      .map((name) => [name, String(details[name])] as const),
  })
}

/** An order's replays and reconciling lists back off up to this. */
const ORDER_BACKOFF_CAP_MS = 10_000
/**
 * The most attempts one order makes within its operation's deadline (about 2.8 hours of the capped
 * backoff): the loop ends by count too, should the clock stand still.
 */
const MAX_ORDER_ATTEMPTS = 1_000
/** `date_created` has whole seconds and the service's clock is not ours: what an account adopted as an order's may be off by. */
const CREATED_SLACK_MS = 2_000
/**
 * How far the service's clock may be behind ours when an account is taken as evidence of a killed run's
 * order (see unrecordedMatches): there a match counted once too often is a stop, one missed a second order.
 */
const EVIDENCE_SLACK_MS = 600_000
/**
 * A matching account no journal or state names counts as a killed run's order only while it is being
 * provisioned or this recent: a re-run after a kill comes within minutes, a twin configuration's
 * account is usually older (see unrecordedMatches).
 */
const KILLED_RUN_EVIDENCE_MS = 3_600_000
/** How many times a listing is taken again while this process's own orders of the same call keep starting. */
const OWN_ORDER_ROUNDS = 10
/**
 * How long an order waits for the same order held by another running process (its operation's own
 * timeout when it has one: the holder may be an identical resource of another provider alias, whose
 * create takes as long as this one's), and how often it looks.
 */
const HELD_WAIT_MS = 120_000
const HELD_POLL_MS = 500
const HELD_REPORT_MS = 10_000
/**
 * Who takes a stopped run's order over: an identical create from the same journal, in Pulumi of the same stack and resource
 * (in Terraform with a PostgreSQL journal, of any state: see OrderJournal.takeable).
 */
const takenOverBy = (scope: string) =>
  `An apply of a resource with the same configuration, from ${scope}, takes it over without ordering again (in Pulumi, ` +
  'the same resource of the same stack: another stack of the same program does not).'
/** What awaitEarlierOutcome answers for an order that made no account of its own (see OrderJournal.accountedFor). */
const ACCOUNTED_FOR = Symbol('accounted for')
/** Twins' orders have made fewer accounts than there are twins, and one may still make one (see Orders.twinShare). */
const TWINS_PENDING = Symbol('twins pending')
/** How many times the unrecorded-match check takes its listing again after other processes' creates in flight landed. */
const IN_FLIGHT_ROUNDS = 3
/**
 * How long a service may go on processing an order after the request's own deadline passed (a
 * client that gave up, or was killed, does not stop the service): an earlier run's unanswered order
 * to a service that ignores keys is waited for this much longer before the run stops.
 */
const SERVICE_PROCESSING_MS = 60_000
/** How many times one decision asks whether the service echoes keys when it gets no clear answer (see honouredNow). */
const PROBE_ASKS = 4
const OUTCOME_POLL_CAP_MS = 5_000
const OUTCOME_REPORT_MS = 10_000
const MAX_OUTCOME_LOOKS = 1_000
const decodeOrderPayload = (payload: unknown): Order => decodeOrder(payload)

/**
 * Whether an order's answer says that it was not placed, for good: a 4xx, or a server that cannot take
 * the request at all (501, 505). Any other 5xx, even one the client does not retry elsewhere (a proxy's
 * 520 to 527 after the service processed the order), leaves its outcome unknown.
 */
function nothingPlaced(status: number): boolean {
  return status < 500 || status === 501 || status === 505
}

export interface OrdersOptions {
  /** Where orders are recorded before they are sent; without one a key lives only as long as its call. */
  readonly journal?: OrderJournal | undefined
  /** The operation the current call belongs to (asked per order, so concurrent operations stay apart). */
  readonly operation?: (() => OperationFrame | undefined) | undefined
  /** A fresh Idempotency-Key (the client's default is `crypto.randomUUID`). */
  readonly idempotencyKey: () => string
  /**
   * Order even when a recent account that matches the order is unknown to the journal and to every
   * state this journal's runs have seen (see `unrecordedMatches`). Default false.
   */
  readonly allowUnrecordedMatch?: boolean | undefined
}

/**
 * The refusals a probe expects (the order's path seldom serves a GET: a 404 or 405): an answer like a
 * success, which Pulumi would otherwise show among the stack's diagnostics as a failed request. A 5xx or
 * 429 is no answer and stays shown.
 */
const PROBE_ANSWERS: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i).filter((status) => status !== 429)

export class Orders {
  private readonly options: TransportOptions & OrdersOptions
  private readonly journal: OrderJournal | undefined

  constructor(
    private readonly http: Transport,
    options: OrdersOptions,
  ) {
    this.options = { ...http.options, ...options }
    this.journal = options.journal
  }

  /**
   * Accounts that creates of a run that was stopped ordered and never handed to an engine, as warnings
   * for every run of this journal: a re-run of the same configuration takes each over, but one whose
   * configuration changed meanwhile would leave it paid for and managed by nothing, and named nowhere.
   */
  async unmanaged(): Promise<{ readonly summary: string; readonly detail: string }[]> {
    const journal = this.journal
    if (journal === undefined) return []
    const answered = (await journal.orphans()).map((entry) => ({
      summary: `Account ${entry.accountId} was ordered by a run that was stopped, and no state holds it`,
      detail:
        `${entry.method} ${entry.path} was answered with account ${entry.accountId} (order ${entry.orderId ?? 'unknown'}, ` +
        `Idempotency-Key ${entry.key}, sent ${new Date(entry.sentAt).toISOString()}) by a run from ${journal.scope} that was ` +
        `stopped before the account reached its state. ${takenOverBy(journal.scope)} If the configuration has changed since, the account is ` +
        'paid for and managed by nothing: import it ' +
        `(terraform import <address> ${entry.accountId}, or pulumi import), which also ends this warning, or cancel it in the ` +
        `portal and then ${journal.removal(entry)}.`,
    }))
    return [...answered, ...(await this.unansweredOrphans(journal)), ...(await this.unansweredChanges(journal))]
  }

  /**
   * The changes of existing objects that a stopped run sent and never saw answered, while the service
   * may still process them (see OrderJournal.unansweredChanges), as warnings: a run whose configuration
   * no longer asks for one (the change undone after the kill) plans nothing, and the service may apply
   * and bill it all the same; the next refresh shows it, and changing it back is another paid order.
   */
  private async unansweredChanges(journal: OrderJournal): Promise<{ readonly summary: string; readonly detail: string }[]> {
    const out: { readonly summary: string; readonly detail: string }[] = []
    for (const entry of await journal.unansweredChanges(serviceOf(this.options.baseUrl))) {
      const until = this.outcomeDeadline(entry)
      if (this.options.now() >= until) continue
      out.push({
        summary: `A change a run that was stopped sent may still take effect: ${entry.method} ${entry.path}`,
        detail:
          `${entry.method} ${entry.path} was sent (Idempotency-Key ${entry.key}, at ${new Date(entry.sentAt).toISOString()}) by a ` +
          `run from ${journal.scope} that was stopped before it was answered. The service may still process it, and bill it, ` +
          `until about ${new Date(until).toISOString()}, whatever the configuration asks for now. An apply of the same change ` +
          'from here takes it over without ordering it again. If the configuration no longer asks for it, refresh after that ' +
          'time (the plan then shows the object as it is) before changing it again: changing it back is another paid order.',
      })
    }
    return out
  }

  /**
   * The accounts that creates a stopped run sent and never saw answered may have made (see
   * OrderJournal.unansweredOrphans), as warnings: each entry's kind is listed once per run, and an
   * account of it made since its order that no state, journal or other directory names is named,
   * every run, until a state names it or the entry is taken over or removed. A listing that fails
   * names nothing this run (the next run lists again).
   */
  private async unansweredOrphans(journal: OrderJournal): Promise<{ readonly summary: string; readonly detail: string }[]> {
    const service = serviceOf(this.options.baseUrl)
    const entries = await journal.unansweredOrphans(service)
    if (entries.length === 0) return []
    const known = await journal.knownAccounts()
    const elsewhere = await journal.handedOverOnThisMachine(service)
    const listings = new Map<string, Promise<readonly Account<unknown>[]>>()
    const out: { readonly summary: string; readonly detail: string }[] = []
    for (const entry of entries) {
      const path = entry.lists as string
      const listing = listings.get(path) ?? this.http.request({ method: 'GET', path, decode: decodeList(plainAccount) })
      listings.set(path, listing)
      const accounts = await listing.catch(() => undefined)
      const listed = accounts !== undefined
      const before = new Set(entry.existing ?? [])
      // Only an account that shows every input the order gave can be its (an entry of an older version
      // keeps no fields: any account of the kind made since).
      const fields = entry.showsFields
      const couldBeIts = (a: Account<unknown>) =>
        entry.shows === undefined || fields === undefined || accountShows(a, fields) === entry.shows
      const since = (accounts ?? [])
        .filter((a) => !statusIs(a.status, 'Terminated') && createdSince(a, entry.sentAt, EVIDENCE_SLACK_MS) && couldBeIts(a))
        .map((a) => a.account_id)
        .filter((id) => !before.has(id))
      const ids = since.filter((id) => !known.has(id) && !elsewhere.has(id))
      if (ids.length === 0) {
        // No account shows it yet, but the service may still be processing it: a run that names
        // nothing now (a `terraform destroy` straight after the kill) would leave the account it makes
        // later paid for and named by no run. A listing that failed names nothing, as above.
        const until = this.outcomeDeadline(entry)
        if (since.length === 0 && listed && this.options.now() < until)
          out.push({
            summary: `An order a run that was stopped sent may still make an account that no state holds: ${entry.method} ${entry.path}`,
            detail:
              `${entry.method} ${entry.path} was sent (Idempotency-Key ${entry.key}, at ${new Date(entry.sentAt).toISOString()}) by a ` +
              `run from ${journal.scope} that was stopped before it was answered. No account of that kind shows it yet, but the ` +
              `service may still process it until about ${new Date(until).toISOString()}. ${takenOverBy(journal.scope)} Otherwise (a destroy ` +
              'removes only what a state holds) run a plan again after that time: an account the order made is then named ' +
              `here, to import (terraform import <address> <id>, or pulumi import) or cancel in the portal; if none is, ` +
              `${journal.removal(entry)}.`,
          })
        continue
      }
      const one = ids.length === 1
      out.push({
        summary: `${one ? 'Account' : 'Accounts'} ${ids.join(', ')} may have been ordered by a run that was stopped, and no state holds ${one ? 'it' : 'them'}`,
        detail:
          `${entry.method} ${entry.path} was sent (Idempotency-Key ${entry.key}, at ${new Date(entry.sentAt).toISOString()}) by a run ` +
          `from ${journal.scope} that was stopped before it was answered, and no run of the same configuration has taken it over. ` +
          `${one ? 'Account' : 'Accounts'} ${ids.join(', ')} of that kind ${one ? 'was' : 'were'} made since, and no state or order ` +
          `journal names ${one ? 'it' : 'them'}: the order may have made ${one ? 'it' : 'one of them'}, paid for and managed by nothing. ` +
          `${takenOverBy(journal.scope)} If the configuration has changed since, import ` +
          `it (terraform import <address> <id>, or pulumi import), which also ends this warning, or cancel it in the portal and then ${journal.removal(entry)}.`,
      })
    }
    return out
  }

  /** A DELETE of an account: once it answers, no order that made the account is ever taken over again. */
  async remove(path: string, options?: CallOptions, accountId?: string): Promise<void> {
    await this.http.send('DELETE', path, undefined, () => undefined, options, accountId)
    if (accountId !== undefined) await this.journal?.accountGone(accountId).catch(() => undefined)
  }

  /**
   * Places an order (the service's Idempotency-Key extension), or a one-shot destructive action, exactly once per intent: recorded in
   * the journal before it is sent, replayed with the same key (or taken over by the next run) until
   * it answers, never re-sent blindly to a service that does not confirm keys.
   */
  async order(method: HttpMethod, path: string, body: unknown, options?: OrderOptions, accountId?: string): Promise<Order> {
    await this.rehearse(method, path, body, options)
    return this.once(method, path, body, decodeOrderPayload, options, accountId)
  }

  /** A one-shot destructive action (rebuild, reset, restore) under the same exactly-once rules as an order. */
  async action(method: HttpMethod, path: string, body: unknown, options?: CallOptions, accountId?: string): Promise<void> {
    await this.rehearse(method, path, body, options)
    return this.once(method, path, body, () => undefined, options, accountId)
  }

  /**
   * In a plan's rehearsal of a create (OperationFrame.rehearsal), reports what the apply would do with
   * this order, as the journal shows it now (the entry `once` would take over: see OrderJournal.peek),
   * and ends the rehearsal; nothing is written or sent. Outside one, nothing.
   */
  private async rehearse(method: HttpMethod, path: string, body: unknown, options?: OrderOptions): Promise<void> {
    const frame = this.options.operation?.()
    const report = frame?.rehearsal
    if (report === undefined) {
      // A call cancelled before it starts (a rehearsal whose frame this client cannot see included)
      // opens no journal entry and sends nothing.
      if (options?.signal?.aborted) throw cancelled({ method, path }, options.signal)
      return
    }
    const journal = this.journal
    if (journal !== undefined && options?.idempotencyKey === undefined) {
      const { baseUrl, apiKey } = this.options
      const parts = { baseUrl, apiKey, method, path, body, scope: frame?.scope, stateScope: frame?.stateScope, from: frame?.from }
      const entry = await journal.peek(intentOf(parts, frame?.scopeIsResource !== true))
      if (entry?.accountId !== undefined && entry.state !== 'sent') {
        report({ kind: 'adopt', accountId: entry.accountId, key: entry.key, sentAt: entry.sentAt })
      } else if (entry !== undefined && this.options.now() >= this.outcomeDeadline(entry) && (await journal.candidatesNamed(entry))) {
        // The apply settles it and orders anew (see awaitEarlierOutcome).
        report({ kind: 'order' })
      } else if (entry !== undefined) {
        report({ kind: 'repeat', key: entry.key, sentAt: entry.sentAt })
      } else {
        report({ kind: 'order' })
      }
    } else {
      report({ kind: 'order' })
    }
    throw new RehearsalEnded(method, path)
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
    const journal = this.journal
    let entry: JournalEntry | undefined
    // Whether the request about to go out is its key's first (no earlier run's may be under way).
    let firstSend = options?.idempotencyKey === undefined
    let invoiceBefore: number | null | undefined
    if (options?.idempotencyKey === undefined && journal !== undefined) {
      const { baseUrl, apiKey } = this.options
      // A Terraform state's create also finds what a killed run left under another identity of the same request (see intentOf).
      const intent = intentOf(
        { baseUrl, apiKey, method, path, body, scope: frame?.scope, stateScope: frame?.stateScope, from: frame?.from },
        frame?.scopeIsResource !== true,
      )
      entry = (await journal.claim(intent)) ?? (await this.awaitHeldElsewhere(intent, context, frame, options?.signal))
      if (entry !== undefined && journal.takenFromElsewhere(entry)) this.tellTakenFromElsewhere(entry, context)
      let resumed: { value: unknown } | undefined
      if (entry !== undefined) {
        let outcome: { value: unknown } | typeof ACCOUNTED_FOR | undefined
        try {
          // Counted as this process's order of the call until it has its outcome: a create of the same
          // call in this run lists only after it (see listAfterOwnOrders), so that the account this takeover
          // adopts is not taken for a killed run's that no journal names (identical resources, count = 3
          // after a run of count = 2 was killed).
          outcome = await this.whilePlacing(method, path, this.resume(entry, context, options))
        } catch (error) {
          journal.letGo(entry)
          throw error
        }
        // A stopped run's unanswered create that made nothing of its own (see awaitEarlierOutcome): this
        // create is placed as new.
        if (outcome === ACCOUNTED_FOR) entry = undefined
        else resumed = outcome
      }
      firstSend = entry === undefined
      // A change of an account, while another change of it that a stopped run sent may still take effect.
      const seen =
        entry === undefined && options?.reconcile === undefined
          ? await this.awaitStoppedChanges(intent, frame?.from, context, options)
          : undefined
      // A new order that no entry accounts for: a killed run may have placed it (see unrecordedMatches).
      const existing =
        entry === undefined && options?.reconcile !== undefined
          ? await this.unrecordedMatches(intent, context, options.reconcile, options.signal)
          : undefined
      // An order on an account: its last invoice just before, which tells this order's apart (see awaitPlacement);
      // the account read by that check already, when it read it.
      if (entry === undefined && options?.placedOn !== undefined)
        invoiceBefore = seen !== undefined ? (seen.last_invoice?.id ?? null) : await this.lastInvoice(options.placedOn, options.signal)
      // Cancelled meanwhile (Ctrl-C during the listing): nothing is sent, so nothing is recorded.
      if (entry === undefined && options?.signal?.aborted) throw cancelled(context, options.signal)
      const held =
        entry ??
        (await journal.open(intent.fingerprints[0] as string, serviceOf(baseUrl), this.options.idempotencyKey(), method, path, {
          request: intent.request,
          twin: intent.twin,
          creates: options?.reconcile !== undefined,
          existing,
          shows: options?.reconcile?.shows,
          showsFields: options?.reconcile?.showsFields,
          lists: options?.reconcile?.listPath,
          requestTimeoutMs: this.options.requestTimeoutMs,
          invoiceBefore,
          change: frame?.from,
        }))
      // Without an operation, the call itself is what hands the outcome over.
      // An outcome that reaches no engine leaves the entry as it is, for the next run to take over.
      if (frame) frame.onFinish((handedOver) => (handedOver ? journal.deliver(held) : journal.letGo(held)))
      if (resumed !== undefined) {
        if (!frame) await journal.deliver(held)
        return resumed.value as T
      }
      entry = held
    }
    if (journal === undefined && firstSend && options?.placedOn !== undefined)
      invoiceBefore = await this.lastInvoice(options.placedOn, options.signal)
    const key = entry?.key ?? options?.idempotencyKey ?? this.options.idempotencyKey()
    const spec: RequestSpec<T> = {
      method,
      path,
      body,
      idempotencyKey: key,
      decode,
      signal: options?.signal,
      ...(accountId ? { accountId } : {}),
    }
    if (entry !== undefined) journal?.sending(entry)
    const evidence = {
      reconcile: options?.reconcile,
      placedOn: options?.placedOn,
      invoiceBefore: entry !== undefined ? entry.invoiceBefore : invoiceBefore,
    }
    try {
      const value = await this.whilePlacing(method, path, this.placeOnce(spec, context, entry, frame, evidence, firstSend))
      // Answered: what earlier runs left open of this call on the account is past (a journal that
      // cannot be written leaves it open, as before).
      if (entry !== undefined && entry.creates !== true) await journal?.supersede(entry).catch(() => undefined)
      return value
    } finally {
      if (entry !== undefined) journal?.landed(entry)
      if (entry && !frame) await journal?.deliver(entry)
    }
  }

  /**
   * Tells the user that this create takes over an order a stopped run sent with the same request under
   * another identity (OrderJournal.claim): the account, if it was answered, lands in this state.
   */
  private tellTakenFromElsewhere(entry: JournalEntry, context: RequestContext): void {
    const sent = new Date(entry.sentAt).toISOString()
    const what = entry.accountId === undefined ? 'its order' : `account ${entry.accountId}`
    const detail =
      `A run that was stopped sent this same request (${context.method} ${context.path}) at ${sent} with Idempotency-Key ` +
      `${entry.key}${entry.accountId === undefined ? ' and saw no answer' : `, was answered with account ${entry.accountId}`}, ` +
      `and never handed it to a state. It ran under another identity in the order journal of ${this.journal?.scope ?? 'this working directory'}: ` +
      'this configuration in another workspace or backend, or this same state configured another way (backend settings ' +
      'given with -backend-config on one machine and taken from the environment on another). Ordering again could pay for a ' +
      `second account, so this resource takes ${what} over. If it was meant for the other one, that one orders its own next time.`
    this.options.log('warn', `${context.method} ${context.path}: ${detail}`, { account_id: entry.accountId, idempotency_key: entry.key })
    this.options.operation?.()?.warn?.(`Took over ${what}, sent by a stopped run under another identity`, detail)
  }

  /** This process's orders whose answer is not in yet (the journal's owner's, of every client: see Placing), or this client's without a journal. */
  private get placing(): Placing {
    return this.journal?.placing ?? this.ownPlacing
  }
  private readonly ownPlacing = newPlacing()

  /** Awaits `work`, an order of the call or the takeover of one, counted in `placing` until it settles. */
  private async whilePlacing<T>(method: string, path: string, work: Promise<T>): Promise<T> {
    const call = this.placingKey(method, path)
    const { inFlight, started } = this.placing
    started.set(call, (started.get(call) ?? 0) + 1)
    const running = inFlight.get(call) ?? new Set<Promise<unknown>>()
    inFlight.set(call, running)
    running.add(work)
    try {
      return await work
    } finally {
      running.delete(work)
    }
  }

  /** What `placing` keys an order by: its service and call. */
  private placingKey(method: string, path: string): string {
    return `${serviceOf(this.options.baseUrl)} ${method} ${path}`
  }

  /**
   * The accounts of a kind as the listing shows them once this process's own orders of the same call
   * have answered (and are in the journal): an account one of them made while the listing ran would
   * otherwise look like nobody's (three identical IPs in one apply). Bounded: a call ordered without
   * pause keeps at most a few rounds.
   */
  private async listAfterOwnOrders(method: string, path: string, reconcile: Reconcile): Promise<readonly Account<unknown>[]> {
    const call = this.placingKey(method, path)
    const { inFlight, started: ever } = this.placing
    for (let round = 0; ; round++) {
      await Promise.allSettled([...(inFlight.get(call) ?? [])])
      const started = ever.get(call) ?? 0
      const accounts = await reconcile.list()
      const quiet = (ever.get(call) ?? 0) === started && (inFlight.get(call)?.size ?? 0) === 0
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
    intent: IntentKeys,
    context: RequestContext,
    frame: OperationFrame | undefined,
    signal: AbortSignal | undefined,
  ): Promise<JournalEntry | undefined> {
    const journal = this.journal
    if (journal === undefined) return undefined
    let held = await journal.heldElsewhere(intent)
    // A scope that names the resource (a Pulumi URN): the same resource of the same stack, in flight in
    // another process, is another `up` of this stack whose lock `pulumi cancel` removed. This one stops
    // at once: stopped later (once that one hands its account over), its update would end as the other
    // saves, and its save, made from a state that lacks that create, could drop the account from the stack.
    if (frame?.scopeIsResource === true && held.length > 0) {
      const first = held[0] as JournalEntry
      throw new OrderUnresolvedError(
        `Not ordering ${context.method} ${context.path}: the same order of this resource (Idempotency-Key ${first.key}, sent ` +
          `${new Date(first.sentAt).toISOString()}) is in flight in provider process ${first.owner?.pid}, which still runs: ` +
          'another update of this stack, interrupted or cancelled with pulumi cancel, is still creating it. Ordering beside ' +
          'it could be a second order. Let that update end, then run pulumi refresh and pulumi up: its account is then in ' +
          'the stack, or its order taken over, not placed twice.',
        { context, idempotencyKey: first.key },
      )
    }
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
      const entry = await journal.claim(intent)
      if (entry !== undefined) return entry
      held = await journal.heldElsewhere(intent)
    }
    return undefined
  }

  /**
   * A journal entry a killed run left, never handed to an engine: its answer, the account its order
   * made (adopted), or undefined to send it again with the same key, which only a service that
   * honours keys is ever asked to do.
   */
  private async resume(
    entry: JournalEntry,
    context: RequestContext,
    options?: OrderOptions,
  ): Promise<{ value: unknown } | typeof ACCOUNTED_FOR | undefined> {
    const { log } = this.options
    if (entry.state === 'answered') {
      log(
        'warn',
        `${entry.method} ${entry.path} was answered in an earlier run${entry.accountId ? `: account ${entry.accountId}` : ''}; not sent again`,
        {
          account_id: entry.accountId,
          order_id: entry.orderId,
          idempotency_key: entry.key,
        },
      )
      return {
        value: entry.accountId === undefined ? undefined : ({ account_id: entry.accountId, order_id: entry.orderId ?? '' } as Order),
      }
    }
    // Sent again only if the service says now that it honours keys, as after a 5xx (placeOnce).
    if (await this.honouredNow({ method: 'GET', path: entry.path, signal: options?.signal, decode: () => undefined }, context)) {
      log('warn', `${entry.method} ${entry.path} had no answer in an earlier run; sending it again with the same Idempotency-Key`, {
        idempotency_key: entry.key,
      })
      return undefined
    }
    // The service never confirmed that it recognises keys: the earlier order may still be processed
    // (a slow service finishes what a killed client sent), so it is waited for, never sent again.
    if (options?.reconcile === undefined && options?.placedOn !== undefined) {
      const until = this.outcomeDeadline(entry)
      const order = await this.awaitPlacement(
        entry,
        entry.invoiceBefore,
        context,
        options.placedOn,
        { until, notAfter: until },
        options.signal,
        (detail, seenUntilEnd) =>
          new OrderUnresolvedError(
            `Not ordering ${entry.method} ${entry.path}: an earlier run that was stopped sent it at ${new Date(entry.sentAt).toISOString()} ` +
              `with Idempotency-Key ${entry.key} and got no answer, and this service does not confirm Idempotency-Keys, so sending it ` +
              `again could place a second order. ${sentence(detail.charAt(0).toUpperCase() + detail.slice(1))} ` +
              (seenUntilEnd ? 'A slow service may still place it later. ' : '') +
              'Check the account and its invoices in the portal, now and again a while later: only once you are sure that it ' +
              `was not placed, ${this.journal?.removal(entry) ?? 'remove its journal entry'} and apply again.`,
            { context, idempotencyKey: entry.key },
          ),
      )
      return { value: order }
    }
    if (options?.reconcile === undefined) {
      throw new OrderUnresolvedError(
        `An earlier run sent ${entry.method} ${entry.path} at ${new Date(entry.sentAt).toISOString()} with Idempotency-Key ${entry.key} ` +
          'and got no answer, and this service has not confirmed that it recognises Idempotency-Keys, so it is not sent again. ' +
          `Check the account in the portal; once you know it was not done, ${this.journal?.removal(entry) ?? 'remove its journal entry'} and apply again. ` +
          'If it was done, first apply a configuration that no longer asks for it (an empty value of the input that fired it ' +
          'fires nothing; an action or method is simply not run again), and only then remove the entry: removed while the ' +
          'configuration still asks for it, the next apply sends it again.',
        { context, idempotencyKey: entry.key },
      )
    }
    const outcome = await this.awaitEarlierOutcome(entry, context, options.reconcile, options.signal)
    return outcome === ACCOUNTED_FOR ? outcome : { value: outcome }
  }

  /**
   * The outcome of a create a killed run sent to a service that ignores keys, and that no answer
   * told: its account can still appear until the request's own deadline (the request timeout after
   * its last attempt) plus the time the service may take to process what it received. Until then
   * the accounts are listed, and the single match is adopted; after it, with no match, the run
   * stops naming the key, when it was sent and what to check, and sends nothing.
   */
  private async awaitEarlierOutcome(
    entry: JournalEntry,
    context: RequestContext,
    reconcile: Reconcile,
    signal: AbortSignal | undefined,
  ): Promise<Order | typeof ACCOUNTED_FOR> {
    const { log, now } = this.options
    const sent = new Date(entry.sentAt).toISOString()
    const until = this.outcomeDeadline(entry)
    const started = now()
    let reported = -Infinity
    // A stopped run's request: no answer to it reaches anybody (see twinShare), which its entry tells other processes.
    if (this.journal !== undefined) {
      this.journal.settlesByListing(entry)
      await this.record(entry)
    }
    // Bounded by the clock and, should the clock stand still, by the number of looks.
    for (let round = 1; ; round++) {
      const adopted = await this.reconcileOnce(entry, entry.sentAt, entry.key, context, reconcile)
      if (adopted !== undefined) return adopted
      const left = until - now()
      if (left <= 0 || round > MAX_OUTCOME_LOOKS) {
        // A run stopped on this order's candidates, and a state names every one of them now (imported
        // as its error said): its window passed with no other account, so it made none of its own.
        if (await this.journal?.accountedFor(entry)) return ACCOUNTED_FOR
        throw new OrderUnresolvedError(
          `Not ordering ${context.method} ${context.path}: an earlier run that was stopped sent this order at ${sent} with ` +
            `Idempotency-Key ${entry.key} and got no answer. This service does not confirm Idempotency-Keys, so sending it again ` +
            `could place a second order. No matching account appeared by ${new Date(until).toISOString()}, but a slow service may ` +
            'still make one. Check the accounts and orders of this kind in the portal, now and again a while later: if one was made ' +
            'for this order, import it by its id (terraform import <address> <id>, or pulumi import); only once you are sure that ' +
            `none was, ${this.journal?.removal(entry) ?? 'remove its journal entry'} and apply again.`,
          { context, idempotencyKey: entry.key },
        )
      }
      if (now() - reported >= OUTCOME_REPORT_MS) {
        reported = now()
        log(
          'warn',
          `${context.method} ${context.path}: waiting for the outcome of the order an earlier run sent at ${sent} (Idempotency-Key ` +
            `${entry.key}); this service does not confirm keys, so it is not sent again (${Math.round((now() - started) / 1000)} s, ` +
            `at most ${Math.max(0, Math.round((until - started) / 1000))} s)`,
          { idempotency_key: entry.key },
        )
      }
      await this.http.pause(Math.min(this.http.backoff(round), OUTCOME_POLL_CAP_MS, left), signal, context)
    }
  }

  /**
   * Before a change of an account (an upgrade, a change of package, a rebuild) is sent: another change
   * of the same call that a stopped run sent and never saw answered (a resource edited after a killed
   * apply) may still take effect, and this change was planned from a state that does not show it, so
   * sending it could pay for both (+10 GB held, then +20 GB for 80: 90 GB). Nothing is sent, and the
   * error says when to apply again: while that order may still be processed (its outcome deadline), or
   * while the account shows it placed (its invoice) and not yet in effect (Pending). Shown placed and in
   * effect, it is closed and this change goes ahead: an absolute target is refused by the service at or
   * below the current value. An increment (worked out from OrderOptions.basis) is not sent while that
   * read showed the account Pending, or another status or last invoice than the account shows now:
   * the stopped change may have taken effect in between, whether or not its invoice tells it apart.
   * Past its deadline, while the account shows nothing placed since it was sent, nothing is sent either,
   * as a re-run of the stopped change itself would not against a service that does not confirm keys
   * (resume): the error says what to check and which entry to remove once sure. With another invoice
   * since, or for an action (which places no order), it goes ahead.
   * Answers the account it read, if it read one (the order's invoice before).
   */
  private async awaitStoppedChanges(
    intent: IntentKeys,
    change: string | undefined,
    context: RequestContext,
    options: OrderOptions | undefined,
  ): Promise<Account<unknown> | undefined> {
    const journal = this.journal
    if (journal === undefined) return undefined
    const stopped = await journal.unansweredChangesOfCall(intent, change, serviceOf(this.options.baseUrl), context.method, context.path)
    if (stopped.length === 0) return undefined
    const last = stopped.reduce((a, b) => (b.sentAt > a.sentAt ? b : a))
    const call = `${context.method} ${context.path}`
    const lead =
      `Not sending ${call}: a run that was stopped sent another change of it at ${new Date(last.sentAt).toISOString()} ` +
      `(Idempotency-Key ${last.key}) and never saw its answer, and this change was planned from a state that does not show ` +
      `that one: sending it now could ${options?.placedOn === undefined ? 'do both' : 'pay for both'}.`
    const stop = (detail: string) => new OrderUnresolvedError(`${lead} ${detail}`, { context, idempotencyKey: last.key })
    const placedOn = options?.placedOn
    let seen: Account<unknown> | undefined
    if (placedOn !== undefined) {
      let account: Account<unknown>
      try {
        account = await placedOn.read(options?.signal)
      } catch (error) {
        throw stop(`Reading the account to find out whether it was placed failed: ${messageOf(error).replace(/\.+$/, '')}. Apply again.`)
      }
      seen = account
      const placed = stopped.filter((e) => placementInvoice(account, placedOn.invoiceType, e.invoiceBefore, this.outcomeDeadline(e)))
      const invoice = account.last_invoice
      // An order worked out from an earlier read (an increment from its size) is stale when the account was
      // Pending then (a change on its way), or has moved since: the stopped change may have taken effect in
      // between, whether or not its invoice tells it apart.
      const basis = options?.basis
      const moved =
        basis !== undefined &&
        (statusIs(basis.status, 'Pending') || basis.status !== account.status || (basis.last_invoice?.id ?? null) !== (invoice?.id ?? null))
      const unpaid = invoice !== null && statusIs(invoice.status, 'Unpaid') ? ' (pay its invoice)' : ''
      if (placed.length > 0 && invoice !== null) {
        const shows = `Account ${account.account_id} shows it placed (invoice ${invoice.id}, ${invoice.invoice_type}, ${invoice.status})`
        if (statusIs(account.status, 'Pending')) {
          throw stop(
            `${shows} and is Pending until it takes effect${unpaid}. ` +
              'Once the account is Active, apply again: the plan then starts from what it shows and orders only what is still missing.',
          )
        }
        await journal.closeChanges(placed)
        if (moved) {
          throw stop(
            `${shows}, in effect only since this change was worked out from what the account showed a moment before. ` +
              'Apply again: it then starts from what the account shows now and orders only what is still missing.',
          )
        }
        this.options.log('info', `${call}: ${shows}, in effect now: the stopped run's change is done, and this one is sent`, {
          idempotency_key: last.key,
        })
        return seen
      }
      if (moved) {
        throw stop(
          `Account ${account.account_id} was ${shown(basis)} when this change was worked out, and is ${shown(account)} now: ` +
            `that change may be on its way or have taken effect meanwhile. Once the account is Active${unpaid}, apply again: ` +
            'the plan then starts from what it shows and orders only what is still missing.',
        )
      }
    }
    const until = Math.max(...stopped.map((e) => this.outcomeDeadline(e)))
    if (this.options.now() < until) {
      throw stop(
        `The service may still process it until about ${new Date(until).toISOString()} (the request's timeout, and time to process ` +
          'what it received). Apply again after that: the plan then starts from what the account shows.',
      )
    }
    // Past its deadline, a paid change whose account shows nothing placed since the stopped one was sent (its
    // last invoice still the one before it) is no proof that it never will be: a slow service may still
    // process it, and this one on top would pay for both; a re-run of that change itself, against a service
    // that does not confirm keys, stops here too (resume). Once placed, it shows (every order has an invoice),
    // and the plan of a refreshed state starts from it. An account with another invoice since is past this
    // check, as above; so is one whose invoice before the stopped change is not known (that run's read
    // failed): nothing tells it then. An action (a rebuild, a reset: no order, nothing the account shows of
    // it) goes ahead past its deadline.
    const unseen =
      placedOn === undefined
        ? []
        : stopped.filter((e) => e.invoiceBefore !== undefined && e.invoiceBefore === (seen?.last_invoice?.id ?? null))
    if (unseen.length === 0) return seen
    const removals = unseen.map((e) => journal.removal(e)).join(', then ')
    // The service keeps a key for 24 h: the stopped change is sent again with its key only well inside that.
    const keyKept = Math.min(...unseen.map((e) => e.sentAt)) + JOURNAL_REUSE_MS
    const settle = this.options.now() < keyKept && (await this.honoured()) ? settleByResending(unseen, keyKept) : ''
    throw stop(
      `No sign of it showed by ${new Date(until).toISOString()} (the account has no invoice since), but a slow service may still ` +
        `process it. ${settle}Check the account and its invoices in the portal, now and again a while later. If it was placed, apply ` +
        'again with a refresh (terraform apply, pulumi up --refresh) once the account shows it: the plan then starts from there. Only ' +
        `once you are sure that it was not, ${removals} and apply again.`,
    )
  }

  /**
   * Until when an order sent without an answer may still make an account: its last attempt's deadline
   * (the request timeout that attempt was sent with, not this run's), plus the service's processing time.
   */
  private outcomeDeadline(entry: JournalEntry): number {
    const timeout = entry.requestTimeoutMs ?? this.options.requestTimeoutMs
    return (entry.lastAttemptAt ?? entry.sentAt) + timeout + SERVICE_PROCESSING_MS
  }

  /**
   * Asks the service whether it implements the extension: one that does echoes the key of every
   * request (the service's Idempotency-Key extension), a GET included, and a GET changes nothing. Any
   * answer, or none, is fine: `true` echoed, `false` answered without the key, `undefined` no clear answer.
   * `since`: a question already in flight is shared only if it was asked at or after that time, so that a
   * decision never rests on an answer older than its own need (see honouredNow).
   */
  private probe(spec: RequestSpec<unknown>, context: RequestContext, since: number): Promise<boolean | undefined> {
    const asking = this.asking
    if (asking !== undefined && asking.at >= since) return asking.answer
    const answer: Promise<boolean | undefined> = this.ask(spec, context).finally(() => {
      if (this.asking?.answer === answer) this.asking = undefined
    })
    this.asking = { at: this.options.now(), answer }
    return answer
  }

  private async ask(spec: RequestSpec<unknown>, context: RequestContext): Promise<boolean | undefined> {
    const outcome = await this.http.attempt(
      {
        method: 'GET',
        path: spec.path,
        idempotencyKey: this.options.idempotencyKey(),
        signal: spec.signal,
        decode: () => undefined,
        handles: PROBE_ANSWERS,
      },
      context,
      1,
    )
    if (outcome.kind === 'transport') return undefined
    if (outcome.echoed) {
      this.echoed = true
      return true
    }
    // A 5xx or 429 may come from a gateway in front of the service: it says nothing about keys, and
    // the question is asked again at the next decision.
    if (outcome.kind === 'ok' || (outcome.error.status < 500 && outcome.error.status !== 429)) {
      this.notEchoed = true
      return false
    }
    return undefined
  }

  /**
   * Whether an order may be sent again with its key: only on fresh evidence that the service echoes
   * keys: an answer to an attempt of this very order that echoed it (`echoedHere`), or the answer of a
   * probe asked now. An echo seen earlier does not count, whether an earlier run saw it or this process
   * on an earlier order: a service redeployed, failed over or mixing nodes behind one URL may ignore
   * keys now (one apply can run for an hour), and a resend would be a second order. Once this process
   * has seen the service answer without the key, nothing is sent again. A probe with no clear answer
   * (no connection, a gateway's 5xx or 429) is asked again after a pause, a few times within the
   * deadline, so that a brief outage over an order and its probe does not decide it; with no clear
   * answer still, the order is not sent again.
   */
  private async honouredNow(
    spec: RequestSpec<unknown>,
    context: RequestContext,
    deadline = Infinity,
    echoedHere = false,
  ): Promise<boolean> {
    if (echoedHere) return true
    if (this.notEchoed) return false
    const since = this.options.now()
    for (let ask = 1; ask <= PROBE_ASKS; ask++) {
      if (ask > 1) {
        const delayMs = Math.min(this.http.backoff(ask - 1), ORDER_BACKOFF_CAP_MS)
        if (this.options.now() + delayMs >= deadline) break
        await this.http.pause(delayMs, spec.signal, context)
      }
      const answer = await this.probe(spec, context, since)
      if (answer !== undefined) return answer
    }
    return false
  }

  /** A probe was answered without the key: this service does not echo it (asked once per process). */
  private notEchoed = false
  private asking: { at: number; answer: Promise<boolean | undefined> } | undefined

  /**
   * Before a new order that the journal has no record of, when nothing else can recognise a killed
   * run's order: the service has not shown that it recognises Idempotency-Keys, or this directory
   * has no record of any order to this service (another machine, a fresh CI workspace, a lost
   * journal: the key of a killed run's order is gone with its journal). An account that matches the
   * order, was created within the keys' window and is named neither by this directory's journal, nor
   * by any state its runs have seen (see OrderJournal.accountInState), nor by another directory of
   * this machine (OrderJournal.handedOverOnThisMachine), is such an order or another configuration's:
   * nothing is ordered, and the error names it and the import command. So is an account an order of
   * this very intent made and handed to the engine of another run, while no state has named it since
   * (OrderJournal.lostHandovers): that state may have been lost before it was saved. And so is one
   * created after a stopped run sent an order of the same call and never saw its answer, where this run
   * cannot ask with its key (OrderJournal.unansweredByStoppedRuns): once none is found, such an order of
   * this intent is closed as not placed.
   * `allowUnrecordedMatch` orders anyway.
   *
   * Resolves to the accounts that match the order in the listing it took (undefined when it took none):
   * they exist before the order is sent, so none of them is ever taken for its account (reconcileOnce).
   */
  private async unrecordedMatches(
    intent: IntentKeys,
    context: RequestContext,
    reconcile: Reconcile,
    signal: AbortSignal | undefined,
    round = 0,
    looks = 0,
  ): Promise<string[] | undefined> {
    const journal = this.journal
    if (this.options.allowUnrecordedMatch === true || journal === undefined) return undefined
    // Asked once per process, before this run's own orders are recorded.
    this.freshDirectory ??= !(await journal.hasOrders(serviceOf(this.options.baseUrl)))
    const handedOver = await journal.lostHandovers(intent, this.options.operation?.()?.scopeIsResource === true)
    const stoppedOrders = await journal.unansweredByStoppedRuns(intent, context.method, context.path)
    let check = this.freshDirectory || stoppedOrders.length > 0
    if (!check) {
      if (!(await this.honoured()) && !this.notEchoed)
        await this.probe({ method: 'GET', path: context.path, signal, decode: () => undefined }, context, Number.NEGATIVE_INFINITY)
      check = !(await this.honoured())
    }
    if (!check && handedOver.length === 0) return undefined
    const accounts = await this.listAfterOwnOrders(context.method, context.path, reconcile)
    const alive = accounts.filter((a) => !statusIs(a.status, 'Terminated'))
    const matches = alive.filter((a) => reconcile.matches(a))
    const existing = matches.map((a) => a.account_id)
    const live = new Set(alive.map((a) => a.account_id))
    for (const id of handedOver) if (!live.has(id)) await journal.accountGone(id)
    const lost = handedOver.filter((id) => live.has(id))
    if (lost.length > 0) {
      const one = lost.length === 1
      throw new UnrecordedMatchError(
        `Not ordering ${context.method} ${context.path}: ${one ? 'account' : 'accounts'} ${lost.join(', ')} ${one ? 'was' : 'were'} ` +
          `ordered from ${journal.scope} for this same configuration and handed to the engine of an earlier run, and no state ` +
          'has named it since. That state may have been lost before it was saved (a remote backend saves the state after ' +
          'Terraform closes the provider, and only now and then before, so a run killed meanwhile loses it), and ordering again ' +
          'would be a second order; taking it over could put one account in two states. If the state holds it (terraform state ' +
          'list) and only a run with -target or -exclude followed, which reads no other resource, run terraform plan once ' +
          'without them: it reads the state, and the next apply orders. In Pulumi, an update of this stack that was ' +
          'interrupted (or cancelled with pulumi cancel) may still be running and save it: let it end, then run pulumi ' +
          'refresh. If the state lost it, import it by its id (terraform import <address> <id>, or pulumi import). If you ' +
          'removed it from the state on purpose, apply again with PROVIDER_ALLOW_UNRECORDED_MATCH=1 in the environment to ' +
          'order a new one.',
        { context, idempotencyKey: '', candidates: lost },
      )
    }
    if (!check) return existing
    // Read before the index: a twin's create that lands in between is then either still in flight here
    // or known there (see awaitOrdersElsewhere).
    const flyingBefore = await journal.ordersInFlightElsewhere(
      serviceOf(this.options.baseUrl),
      `${context.method} ${context.path}`,
      reconcile.shows,
    )
    const known = await journal.knownAccounts()
    for (const id of await journal.handedOverOnThisMachine(serviceOf(this.options.baseUrl))) known.add(id)
    const sentBefore = stoppedOrders.map((e) => e.sentAt)
    const since = Math.min(this.options.now() - JOURNAL_REUSE_MS, ...sentBefore)
    const matching = matches.filter((a) => createdSince(a, since, EVIDENCE_SLACK_MS) && !known.has(a.account_id))
    // Evidence of a killed run: a match still being provisioned (Pending, unless it waits for the payment of
    // an invoice of an earlier day), ordered within the last hour, or made after a stopped run sent this very
    // order. One ordered earlier is far more often another configuration's (a twin directory, a default name,
    // a nameless IP): it is named in a warning and the order goes ahead.
    const recent = this.options.now() - KILLED_RUN_EVIDENCE_MS
    const evidence = (a: Account<unknown>) =>
      (statusIs(a.status, 'Pending') && !awaitsPaymentFromBefore(a, recent - EVIDENCE_SLACK_MS)) ||
      createdSince(a, recent) ||
      sentBefore.some((at) => createdSince(a, at, EVIDENCE_SLACK_MS))
    // A create another process on this machine has in flight (a twin directory's run, applied at the
    // same time) may be about to be answered with a match: waited for, the listing is taken again once
    // it has landed, when its account is known as that run's (a few rounds at most).
    const evidenced = matching.filter(evidence)
    if (
      evidenced.length > 0 &&
      round < IN_FLIGHT_ROUNDS &&
      (await this.awaitOrdersElsewhere(context, reconcile.shows, evidenced, flyingBefore, signal))
    ) {
      return this.unrecordedMatches(intent, context, reconcile, signal, round + 1, looks)
    }
    // An order of the same call that a stopped run sent, which this run cannot take over (the resource
    // was edited since, in an input its account may not show: a promocode, the payment flag), may still
    // be processed by a service that does not confirm keys: the listing shows nothing of it yet. Until it
    // would have been processed, the listing is taken again, so that the account it makes stops this
    // create instead of being ordered beside it. One that a matching account made since may be (a state
    // names it) is not waited for.
    const landing =
      evidenced.length === 0 && !(await this.honoured())
        ? this.stillLanding(stoppedOrders, reconcile).filter((e) => !matches.some((a) => createdSince(a, e.sentAt, EVIDENCE_SLACK_MS)))
        : []
    if (landing.length > 0 && looks < MAX_OUTCOME_LOOKS) {
      const first = landing[0] as JournalEntry
      const until = Math.max(...landing.map((e) => this.outcomeDeadline(e)))
      if (looks % 5 === 0)
        this.options.log(
          'warn',
          `${context.method} ${context.path}: waiting for the outcome of an order of the same kind that a stopped run sent at ` +
            `${new Date(first.sentAt).toISOString()} (Idempotency-Key ${first.key}) and never saw answered: it may still make an ` +
            `account this order would duplicate (until ${new Date(until).toISOString()})`,
          { idempotency_key: first.key },
        )
      const left = Math.max(0, until - this.options.now())
      await this.http.pause(Math.min(this.http.backoff(looks + 1), OUTCOME_POLL_CAP_MS, left), signal, context)
      return this.unrecordedMatches(intent, context, reconcile, signal, round, looks + 1)
    }
    const older = matching.filter((a) => !evidence(a)).map((a) => a.account_id)
    if (older.length > 0) {
      const detail =
        `${older.length === 1 ? 'Account' : 'Accounts'} ${older.join(', ')} ${older.length === 1 ? 'matches' : 'match'} this order and no ` +
        `state or order journal of ${journal.scope} names it: provisioned and more than an hour old, it is taken for another ` +
        "configuration's and a new one is ordered. If it was ordered by a killed run of this configuration, import it " +
        '(terraform import <address> <id>, or pulumi import) and remove the new one.'
      this.options.log('warn', `${context.method} ${context.path}: ${detail}`, { candidates: older })
      this.options
        .operation?.()
        ?.warn?.(`Ordered beside ${older.length === 1 ? 'account' : 'accounts'} ${older.join(', ')}, which no state names`, detail)
    }
    this.nameOthersOrders(intent, stoppedOrders, alive, matches, known, context)
    const ids = evidenced.map((a) => a.account_id)
    if (ids.length === 0) {
      await journal.closeExpired(intent, stoppedOrders)
      return existing
    }
    const one = ids.length === 1
    const stopped = stoppedOrders[0]
    const same = stopped !== undefined && intent.fingerprints.includes(entryIntent(stopped))
    const why = stopped
      ? `A run that was stopped sent ${same ? 'this same order' : 'an order of the same kind'} at ` +
        `${new Date(stopped.sentAt).toISOString()} with Idempotency-Key ${stopped.key} and never saw its answer, and ` +
        (same
          ? 'the service keeps a key for 24 hours only, so it can no longer be asked whether that order was placed'
          : `only a run of that order asks the service about its key (if that resource was changed since and its order was not placed, ${journal.removal(stopped)})`) +
        ": the provider cannot tell that order's account from another configuration's"
      : this.freshDirectory
        ? `The order journal of ${journal.scope} has no record of orders to this service (another machine, a fresh CI workspace, or a lost ` +
          `order journal: ${journal.where}), so the provider cannot tell an order placed by an earlier run that was killed ` +
          "from another configuration's account"
        : 'This service does not confirm Idempotency-Keys, so the provider cannot tell an order placed by an earlier run that was ' +
          "killed (on another machine, in a fresh CI workspace, or with its journal lost) from another configuration's account"
    throw new UnrecordedMatchError(
      `Not ordering ${context.method} ${context.path}: ${one ? 'account' : 'accounts'} ${ids.join(', ')} ${one ? 'matches' : 'match'} ` +
        `this order, ${one ? 'is' : 'are'} still being provisioned (or waiting for payment) or ${one ? 'was' : 'were'} created within the last hour${stopped ? ' or since that run sent its order' : ''}, and no state or order journal of ${journal.scope} ` +
        `names ${one ? 'it' : 'them'}. ${why}, and orders nothing rather than twice. If it belongs to this resource, ` +
        'import it by its id (terraform import <address> <id>, or pulumi import). If it belongs to something else, apply again ' +
        'with PROVIDER_ALLOW_UNRECORDED_MATCH=1 in the environment to order anyway.',
      { context, idempotencyKey: '', candidates: ids },
    )
  }

  /**
   * Of the unanswered creates of stopped runs (OrderJournal.unansweredByStoppedRuns), those sent to this
   * service (a journal may hold orders to several) that it may still be processing (before their outcome
   * deadline) and whose account could match `reconcile` (the same `shows`, or one of them unknown).
   */
  private stillLanding(stopped: readonly JournalEntry[], reconcile: Reconcile): JournalEntry[] {
    const now = this.options.now()
    const service = serviceOf(this.options.baseUrl)
    return stopped.filter(
      (e) =>
        e.service === service &&
        now < this.outcomeDeadline(e) &&
        (e.shows === undefined || reconcile.shows === undefined || e.shows === reconcile.shows),
    )
  }

  /**
   * Waits while creates of this call that other processes on this machine have in flight (see
   * OrderJournal.ordersInFlightElsewhere), sent before one of `accounts` was made, have no answer:
   * true once they all landed (the accounts they were answered with are then known as theirs), also
   * when such a create of `before` (read before the index was) has landed since; false when there was
   * none, or they still had none after HELD_WAIT_MS.
   */
  private async awaitOrdersElsewhere(
    context: RequestContext,
    shows: string | undefined,
    accounts: readonly Account<unknown>[],
    before: readonly InFlightOrder[],
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const journal = this.journal
    if (journal === undefined) return false
    const service = serviceOf(this.options.baseUrl)
    const call = `${context.method} ${context.path}`
    const couldHaveMade = (orders: readonly InFlightOrder[]) =>
      orders.filter((o) => accounts.some((a) => createdSince(a, o.sentAt, EVIDENCE_SLACK_MS)))
    const flying = async () => couldHaveMade(await journal.ordersInFlightElsewhere(service, call, shows))
    let pending = await flying()
    if (pending.length === 0) return couldHaveMade(before).length > 0
    const started = this.options.now()
    // Bounded by the clock and, should the clock stand still, by the number of looks.
    for (let look = 0; pending.length > 0; look++) {
      const waited = this.options.now() - started
      if (waited >= HELD_WAIT_MS || look > HELD_WAIT_MS / HELD_POLL_MS) return false
      if (look % (HELD_REPORT_MS / HELD_POLL_MS) === 0) {
        const pids = [...new Set(pending.map((o) => o.owner.pid))].join(', ')
        this.options.log(
          'info',
          `${call}: provider process ${pids} on this machine has an order of this call in flight; waiting for its answer before ` +
            `deciding whether account ${accounts.map((a) => a.account_id).join(', ')} is its order's (${Math.round(waited / 1000)} s of at most ${Math.round(HELD_WAIT_MS / 1000)} s)`,
          { pids },
        )
      }
      await this.options.sleep(HELD_POLL_MS, signal)
      pending = await flying()
    }
    return true
  }

  /** Whether this directory's journal had no order to this service when the first new order was checked. */
  private freshDirectory: boolean | undefined

  /** Whether a new order may skip the unrecorded-match check: an echo seen, by this process or an earlier run, and no answer without one in this process. */
  private async honoured(): Promise<boolean> {
    // An answer without the key outweighs any echo before it: the service may have been redeployed or
    // failed over since (see honouredNow), and then only the listing can recognise a stopped run's order.
    if (this.notEchoed) return false
    if (this.echoed) return true
    return (await this.journal?.honoured(serviceOf(this.options.baseUrl))) === true
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
    let recorded = (await this.journal?.knownAccounts()) ?? new Set<string>()
    // The matches of the listing taken just before the order was sent existed before it, whatever their
    // times say: with them known, the service's clock may be off by minutes (see EVIDENCE_SLACK_MS).
    const known = new Set([...recorded, ...(entry?.existing ?? [])])
    const slack = entry?.existing === undefined ? CREATED_SLACK_MS : EVIDENCE_SLACK_MS
    const accounts = await reconcile.list()
    // Nor an account another run on this machine got as its answer since this order was sent (the
    // per-user index, read after the listing so that it covers every account the listing shows): a twin
    // directory's order of the same call, answered while this one's outcome is unclear; adopted here,
    // one account would be in two states and this order's own in none. Records from before the order
    // are not taken: such an account existed before it and is told apart by its creation time and the
    // listing before the order, and the index knows ids only, which an emulator reset gives out again.
    for (const id of this.journal?.recordedSince(serviceOf(this.options.baseUrl), sentAt) ?? []) known.add(id)
    let candidates = accounts.filter((a) => createdSince(a, sentAt, slack) && !known.has(a.account_id) && reconcile.matches(a))
    // Another order of the same call may have made the one match (its answer not in yet): adopting it
    // here would give two resources one account. Ambiguous, so nothing is adopted, unless every such
    // order is a twin of this one (see twinShare).
    const beside =
      candidates.length > 0
        ? ((await this.journal?.unresolvedBeside(entry, serviceOf(this.options.baseUrl), context.method, context.path, reconcile.shows)) ??
          [])
        : []
    // One answered since the listing (so no longer beside) has its account recorded now: not a match of this order.
    if (candidates.length > 0 && this.journal !== undefined) {
      recorded = new Set([...recorded, ...(await this.journal.knownAccounts())])
      candidates = candidates.filter((a) => !recorded.has(a.account_id))
    }
    const rivals = beside.length
    const share =
      candidates.length === 1 && rivals === 0
        ? candidates[0]
        : candidates.length > 0 && entry !== undefined
          ? await this.twinShare(entry, beside, accounts, recorded, reconcile)
          : undefined
    if (share === TWINS_PENDING) return undefined
    if (share !== undefined) {
      await this.answered(entry, { account_id: share.account_id, order_id: share.order_id } as Order, context, 'adopted')
      return { account_id: share.account_id, order_id: share.order_id } as Order
    }
    if (candidates.length > 0) {
      const ids = candidates.map((a) => a.account_id)
      // Kept with the entry: once a state names every one of them (imported as the error says), the
      // entry is past and the next create of this intent orders anew (OrderJournal.accountedFor).
      if (entry !== undefined) {
        entry.candidates = ids
        await this.record(entry)
      }
      const why =
        rivals > 0
          ? `${ids.length} ${ids.length === 1 ? 'account matches' : 'accounts match'} it while ${rivals} other such ` +
            `${rivals === 1 ? 'order of this directory is' : 'orders of this directory are'} unanswered`
          : `${ids.length} accounts match it`
      throw new OrderUnresolvedError(
        `${context.method} ${context.path} (Idempotency-Key ${key}) had no clear answer, and ${why}: ` +
          `${ids.join(', ')}. None is adopted and nothing is ordered again; import the one that belongs to this resource by its id ` +
          '(terraform import <address> <id>, or pulumi import). Where other resources of this configuration ordered the same ' +
          '(count, for_each, identical blocks), the others may be theirs: import each into one of them, and cancel in the portal ' +
          'only an account none of them was ordered for. Once a state names every one of these accounts, the next apply orders ' +
          'anew where one is still missing.',
        { context, idempotencyKey: key, candidates: ids },
      )
    }
    return undefined
  }

  /**
   * The account of `entry` when every other unanswered order that may have made its matches (`beside`)
   * is its twin (JournalEntry.twin: the same request of the same state, as `count` or identical
   * resources make) and, like this one, can be settled only by a listing now (OrderJournal.settledBy):
   * the twins' orders make interchangeable accounts, so once the new matches are exactly as many as the
   * twins, the twins sorted by when they were sent take them sorted by when they were made, each one
   * created after its order was sent and not seen before it. Every twin's run works this out alike from
   * the same journal and listing, so no account goes to two of them; one that looks after another twin
   * has adopted its account finds it recorded and one twin fewer. TWINS_PENDING (the listing is taken
   * again), while the twins' orders may still make an account: when the matches are fewer than the
   * twins, and while a twin's request may still be answered, in this process or in another live one
   * (that answer names its account, which a share could give to this one too). Otherwise, beside an
   * order that is no twin, undefined: ambiguous.
   */
  private async twinShare(
    entry: JournalEntry,
    beside: readonly JournalEntry[],
    accounts: readonly Account<unknown>[],
    recorded: ReadonlySet<string>,
    reconcile: Reconcile,
  ): Promise<Account<unknown> | typeof TWINS_PENDING | undefined> {
    const journal = this.journal
    // An entry another identity took over (JournalEntry.claimedAs) is that identity's now, its twin key not.
    const isTwin = (e: JournalEntry) =>
      e.creates === true && e.claimedAs === undefined && e.twin !== undefined && e.twin === entry.twin && e.shows === entry.shows
    if (journal === undefined || !isTwin(entry) || !beside.every(isTwin)) return undefined
    const twins = [entry, ...beside].sort((a, b) => a.sentAt - b.sentAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    // Until this order's own outcome deadline: past it, the look that ends its wait names the matches.
    const mayStillMake = () => this.options.now() < this.outcomeDeadline(entry)
    // A twin another live process holds may not have marked its entry yet (it is about to settle it by a
    // listing too), or may still be answered (that process records the account): waited for, as one here.
    let answered = false
    for (const e of beside) if ((await journal.settledBy(e)) !== 'listing') answered = true
    if (answered) return mayStillMake() ? TWINS_PENDING : undefined
    const first = twins[0] as JournalEntry
    const slack = (e: JournalEntry) => (e.existing === undefined ? CREATED_SLACK_MS : EVIDENCE_SLACK_MS)
    const known = new Set([...recorded, ...(first.existing ?? [])])
    for (const id of journal.recordedSince(serviceOf(this.options.baseUrl), first.sentAt)) known.add(id)
    const made = accounts
      .filter((a) => !known.has(a.account_id) && reconcile.matches(a) && createdSince(a, first.sentAt, slack(first)))
      .sort((a, b) => createdAt(a) - createdAt(b) || Number(a.account_id) - Number(b.account_id) || (a.account_id < b.account_id ? -1 : 1))
    if (made.length > twins.length) return undefined
    if (made.length < twins.length) return mayStillMake() ? TWINS_PENDING : undefined
    const fits = twins.every((e, i) => {
      const account = made[i] as Account<unknown>
      return createdSince(account, e.sentAt, slack(e)) && !(e.existing ?? []).includes(account.account_id)
    })
    return fits ? made[twins.indexOf(entry)] : undefined
  }

  /**
   * Accounts no state or journal names that were made after a stopped run sent an order of the same
   * call for another intent (a resource edited since): that order may have made one, billed and in no
   * state. It is no match for this order, so this order goes ahead, but the account is named in a
   * warning rather than left for the user to find on an invoice.
   */
  private nameOthersOrders(
    intent: IntentKeys,
    stoppedOrders: readonly JournalEntry[],
    alive: readonly Account<unknown>[],
    matches: readonly Account<unknown>[],
    known: ReadonlySet<string>,
    context: RequestContext,
  ): void {
    const own = new Set(intent.fingerprints)
    const others = stoppedOrders.filter((e) => !own.has(entryIntent(e)))
    if (others.length === 0) return
    const since = Math.min(...others.map((e) => e.sentAt))
    const matched = new Set(matches.map((a) => a.account_id))
    const ids = alive
      .filter((a) => !matched.has(a.account_id) && !known.has(a.account_id) && createdSince(a, since, EVIDENCE_SLACK_MS))
      .map((a) => a.account_id)
    if (ids.length === 0) return
    const one = ids.length === 1
    const first = others[0] as JournalEntry
    const detail =
      `${one ? 'Account' : 'Accounts'} ${ids.join(', ')} ${one ? 'was' : 'were'} made after a run that was stopped sent an order of ` +
      `${context.method} ${context.path} for a resource that has changed since (at ${new Date(first.sentAt).toISOString()}, ` +
      `Idempotency-Key ${first.key}), and no state or order journal names ${one ? 'it' : 'them'}: that order may have made ` +
      `${one ? 'it' : 'one of them'}, billed and unmanaged. If so, import it (terraform import <address> <id>, or pulumi import) or ` +
      `cancel it in the portal, then ${this.journal?.removal(first) ?? 'remove its journal entry'}.`
    this.options.log('warn', `${context.method} ${context.path}: ${detail}`, { candidates: ids, idempotency_key: first.key })
    this.options.operation?.()?.warn?.(`${one ? 'Account' : 'Accounts'} ${ids.join(', ')} may be a stopped run's order`, detail)
  }

  private async answered(
    entry: JournalEntry | undefined,
    order: Order,
    context: RequestContext,
    how: 'answered' | 'adopted',
  ): Promise<void> {
    // Every answer leaves a trail (info: Terraform's log, a line in Pulumi's diagnostics) so that even a
    // lost state can be recovered; one adopted after an unclear answer is worth a warning.
    this.options.log(how === 'adopted' ? 'warn' : 'info', `${context.method} ${context.path} ${how}: account ${order.account_id}`, {
      account_id: order.account_id,
      order_id: order.order_id,
      ...(entry ? { idempotency_key: entry.key } : {}),
    })
    if (entry === undefined) return
    entry.state = 'answered'
    delete entry.candidates
    entry.accountId = order.account_id
    if (order.order_id) entry.orderId = order.order_id
    await this.recordAnswer(entry, context)
  }

  /**
   * Stores the answer to an order this run holds, before its account is handed over. Where an owner
   * can lose its entries while it runs (a shared database: see JournalStore.ownershipLapses), the
   * entry must still be this run's: if another runner took it over while this one was cut off, that
   * runner hands the account over, and two states managing one account would each destroy it for the
   * other; if the journal cannot be reached, this run cannot tell. Either way it stops without handing
   * the account over, and the entry (with its Idempotency-Key) lets the holder or the next run hand
   * it over once, without ordering again. A directory's owner keeps its entries while it runs, so there
   * a write that fails is only logged, as `record` does.
   */
  private async recordAnswer(entry: JournalEntry, context: RequestContext): Promise<void> {
    const journal = this.journal
    if (journal === undefined) return
    let kept: boolean
    try {
      kept = await journal.writeOwned(entry)
    } catch (error) {
      if (!journal.ownershipLapses) {
        this.options.log(
          'warn',
          `could not record ${entry.method} ${entry.path} (answered) in the order journal at ${journal.where}: ${error instanceof Error ? error.message : String(error)}`,
          { idempotency_key: entry.key, account_id: entry.accountId },
        )
        return
      }
      journal.withhold(entry)
      throw new OrderUnresolvedError(
        `${context.method} ${context.path} was answered with account ${entry.accountId}, but the order journal at ${journal.where} ` +
          `could not be reached to confirm that this run still holds the order (${error instanceof Error ? error.message : String(error)}): ` +
          'another runner may have taken it over while this one was cut off, so this run does not hand the account over. The next ' +
          `apply from ${journal.scope} takes the order over with its Idempotency-Key ${entry.key} and hands account ${entry.accountId} ` +
          'over once, without ordering again.',
        { context, idempotencyKey: entry.key },
        { cause: error },
      )
    }
    if (!kept) {
      journal.withhold(entry)
      throw new OrderUnresolvedError(
        `${context.method} ${context.path} was answered with account ${entry.accountId}, but another runner took this order over ` +
          `in the order journal at ${journal.where} while this run was cut off from it: that runner hands account ${entry.accountId} ` +
          'over, so this one does not (one account in two states would be destroyed by either). If that run did not finish, the next ' +
          `apply from ${journal.scope} takes the order over with its Idempotency-Key ${entry.key} and hands the account over once, ` +
          'without ordering again.',
        { context, idempotencyKey: entry.key },
      )
    }
  }

  /**
   * Stores what an answer taught about an entry this run holds, unless another runner has taken it
   * over since (its record is then left as that runner wrote it). The request is done by then: a
   * journal that cannot be written (a full disk, a database gone) must not turn a placed order into
   * an error that loses its id, so the failure is logged, and the outcome still reaches the engine
   * (an order's answer is stored by recordAnswer, which is stricter where owners can lose entries).
   */
  private async record(entry: JournalEntry): Promise<void> {
    try {
      if (this.journal !== undefined && !(await this.journal.writeOwned(entry))) {
        this.options.log(
          'warn',
          `${entry.method} ${entry.path} was taken over by another runner; its journal entry is left to that runner`,
          {
            idempotency_key: entry.key,
          },
        )
      }
    } catch (error) {
      this.options.log(
        'warn',
        `could not record ${entry.method} ${entry.path} (${entry.state}) in the order journal at ${this.journal?.where}: ${error instanceof Error ? error.message : String(error)}`,
        {
          idempotency_key: entry.key,
          account_id: entry.accountId,
        },
      )
    }
  }

  /**
   * Sends an order with its key until it is answered, adopting its account after an ambiguous
   * failure where keys are not confirmed. Each retry is a warning naming the attempt and its answer;
   * an order that gets no clear answer ends with one error naming how many attempts, over how long,
   * and the last status and text (Attempts). Every answer a 429: it was not placed, and its entry is
   * closed (`firstSend`: this call's attempts include the key's first, so no earlier one may be under
   * way). While every answer says nothing was processed, it gives up after REFUSED_GIVE_UP_MS.
   */
  private async placeOnce<T>(
    spec: RequestSpec<T>,
    context: RequestContext,
    entry: JournalEntry | undefined,
    frame: OperationFrame | undefined,
    evidence: Evidence,
    firstSend = true,
  ): Promise<T> {
    const { options } = this
    const key = spec.idempotencyKey as string
    const deadline = operationDeadline(frame, options.now(), options.requestTimeoutMs)
    const call = `${spec.method} ${spec.path}`
    const nextApply = `the next apply from ${this.journal?.scope ?? 'this working directory'}`
    // With nothing to look for (a rebuild, a reset: no account or invoice shows it), a service that does
    // not confirm keys cannot be asked: the next run stops on it (resume) rather than check it.
    const checked =
      evidence.reconcile !== undefined || evidence.placedOn !== undefined
        ? `${nextApply} checks it before ordering again and does not place a second order.`
        : `${nextApply} sends it again only with that key, to a service that confirms keys (which answers a repeat once); ` +
          'to one that does not, it sends nothing and stops, naming this key, until you have checked in the portal whether it was done.'
    const unresolved = (why: string, cause?: unknown, candidates?: readonly string[]) =>
      new OrderUnresolvedError(
        `${why} The order may have been placed. Its Idempotency-Key is ${key}; ` + (entry ? checked : 'repeat it only with that key.'),
        { context, idempotencyKey: key, ...(candidates ? { candidates } : {}) },
        cause === undefined ? undefined : { cause },
      )
    const attempts = new Attempts(options.now)
    // The order stops trying without a clear answer: the error says what every attempt was answered.
    const stop = async (when: string, cause: Error): Promise<Error> => {
      if (attempts.nothingProcessed && firstSend) {
        await this.closeUnplaced(entry)
        return new OrderNotPlacedError(
          `${call} was not placed: ${when}, ${attempts.summary()}. Each of these means that nothing was processed (a 429 ` +
            'says so; a request cancelled before it was sent, or whose connection was never opened, never reached the ' +
            'service), so nothing was ordered and nothing is left to take over: apply again once the service accepts orders again.',
          { context, idempotencyKey: key, status: attempts.lastStatus ?? 0 },
          { cause },
        )
      }
      if (attempts.nothingProcessed) {
        return new OrderUnresolvedError(
          `${call}: ${when}, ${attempts.summary()}; none of them was processed. An earlier run sent ` +
            `it with the same Idempotency-Key ${key}${entry ? ` at ${new Date(entry.sentAt).toISOString()}` : ''} and got no ` +
            `clear answer: whether that request was processed is not known. ${entry ? nextApply : 'A repeat'} asks again with ` +
            'that key and does not place a second order.',
          { context, idempotencyKey: key },
          { cause },
        )
      }
      if (attempts.onlyRefused && attempts.inProgress) {
        return unresolved(
          `${call}: ${when}, ${attempts.summary()}; none of them was processed, but a 409 "in progress" says that an ` +
            'earlier request with the same Idempotency-Key is still being processed, and it may place the order.',
          cause,
        )
      }
      const repeatable = attempts.onlyRefused
        ? ' This service recognises Idempotency-Keys, so a repeat with the same key never places a second order; ' +
          'whether the last attempt was processed is not known.'
        : ''
      return unresolved(`${call}: ${when}, ${attempts.summary()}.${repeatable}`, cause)
    }
    let failures = 0
    // Whether an answer to an attempt of this order echoed its key: the only echo a resend may rest on without asking (honouredNow).
    let echoedHere = false
    // Whether the request going out may be a repeat of one the service processed: sent again after an
    // unclear answer (this run's, or a stopped run's order taken over).
    let repeat = !firstSend
    for (let attempt = 1; ; attempt++) {
      if (entry && (attempt > 1 || !firstSend)) {
        // A retry, or an earlier run's order sent again, moves the time by which its outcome is known (see awaitEarlierOutcome).
        entry.lastAttemptAt = options.now()
        entry.requestTimeoutMs = options.requestTimeoutMs
        await this.record(entry)
      }
      const outcome = await this.http.attempt(sendUnstopped(spec), context, failures + 1, deadline)
      if (outcome.kind !== 'transport' && outcome.echoed) {
        this.echoed = true
        echoedHere = true
        if (entry && entry.honoured !== true) {
          entry.honoured = true
          await this.record(entry)
        }
      }
      if (outcome.kind === 'ok') {
        const value = this.http.decode(spec, outcome.payload, outcome.requestId)
        // A replay (Idempotency-Replayed) is the service saying it recognised the key, echoed or not.
        if (repeat && !outcome.echoed && !outcome.replayed)
          this.tellUnrecognisedRepeat(call, key, entry, value, context, evidence, spec.decode !== decodeOrderPayload)
        if (spec.decode === decodeOrderPayload) await this.answered(entry, value as Order, context, 'answered')
        else if (entry) {
          entry.state = 'answered'
          await this.record(entry)
        }
        return value
      }
      let delayMs: number
      const asked = this.http.askedToWait(outcome, attempts.refusals + 1)
      if (asked !== undefined) {
        // Nothing was processed (or the first attempt is still being processed): not a failed attempt.
        attempts.add(outcome, true, this.echoed)
        delayMs = asked
      } else if (unreached(outcome)) {
        // This attempt never reached the service, so it placed nothing: tried again a few times, never left open.
        attempts.add(outcome, true, this.echoed)
        if (outcome.kind === 'transport' && outcome.unsent === true) throw await stop('cancelled before it was sent', outcome.error)
        failures++
        delayMs = Math.min(this.http.backoff(failures), ORDER_BACKOFF_CAP_MS)
        if (failures >= options.maxAttempts) throw await stop(`no connection after ${failures} attempts`, outcome.error)
      } else if (outcome.kind === 'http' && nothingPlaced(outcome.error.status)) {
        await this.closeUnplaced(entry)
        throw outcome.error
      } else {
        const error = outcome.error
        failures++
        const honoured = await this.honouredNow(spec, context, deadline, echoedHere)
        repeat = true
        attempts.add(outcome, false, honoured)
        if (!honoured) {
          // A service that does not confirm keys may have processed it: never send it again blindly.
          const sentAt = entry?.sentAt ?? options.now() - options.requestTimeoutMs * failures
          return (await this.findOutcome(entry, sentAt, key, context, evidence, deadline, spec.signal, unresolved, error)) as T
        }
        delayMs = Math.min(this.http.backoff(failures), ORDER_BACKOFF_CAP_MS)
        if (frame?.timeoutMs === undefined && failures >= options.maxAttempts) {
          throw await stop(`no clear answer after ${failures} failed attempts`, error)
        }
      }
      if (options.now() + delayMs >= deadline) {
        const timeout = frame?.timeoutMs === undefined ? '' : ` (${formatDuration(frame.timeoutMs)})`
        throw await stop(`no clear answer before the operation's deadline${timeout}`, outcome.error)
      }
      if (attempt >= MAX_ORDER_ATTEMPTS) throw await stop(`no clear answer after ${attempt} attempts`, outcome.error)
      if (attempts.givesUpBy(options.now() + delayMs)) {
        throw await stop(`given up after ${formatDuration(REFUSED_GIVE_UP_MS)}`, outcome.error)
      }
      options.log(attempts.progressLevel(), attempts.progress(spec.method, spec.path, delayMs, deadline), {
        method: spec.method,
        path: spec.path,
        attempt: attempts.attempts,
        cause: outcome.kind === 'transport' ? outcome.error.reason : outcome.error.status,
        delay_ms: delayMs,
        idempotency_key: key,
      })
      await this.pauseBeforeRetry(delayMs, spec.signal, context, attempts.nothingProcessed && firstSend ? entry : undefined)
    }
  }

  /**
   * A repeat of an order (its key, after an unclear answer) was answered without the key echoed and not
   * as a replay: the service that answered it did not recognise the key (redeployed, failed over, or a
   * node behind the same URL without the extension), so the repeat may have been processed as a new
   * request beside the first. Nothing can undo it here; the warning says what may have happened twice,
   * as it differs: a create may have made a second account, an order on an account may have been
   * placed on it twice (two invoices), and a one-shot action (rebuild, reset, restore) may have run twice.
   */
  private tellUnrecognisedRepeat(
    call: string,
    key: string,
    entry: JournalEntry | undefined,
    value: unknown,
    context: RequestContext,
    { placedOn }: Evidence,
    action: boolean,
  ) {
    const accountId = (value as Partial<Order> | undefined)?.account_id ?? context.accountId
    const since = entry === undefined ? '' : ` since ${new Date(entry.sentAt).toISOString()}`
    const account = accountId === undefined ? 'the account' : `account ${accountId}`
    // An upgrade, a change of package or a migration answers with the account it was placed on.
    const onAccount = !action && context.accountId !== undefined && accountId === context.accountId
    const unrecognised =
      `${call} got no clear answer and was sent again with its Idempotency-Key ${key}, but the answer to that repeat neither ` +
      'echoes the key nor says it is a replay: the service did not recognise it, so the first request may have been processed too. '
    const detail = action
      ? `${unrecognised}This one-shot action may have run twice on ${account}. Check ${account} in the portal.`
      : onAccount
        ? `${unrecognised}The order may have been placed twice on ${account}. Check the ${placedOn?.invoiceType ?? ''}${placedOn ? ' ' : ''}` +
          `invoices of ${account}${since} in the portal, and cancel the second one if there are two.`
        : `${unrecognised}This run keeps what the repeat answered${accountId === undefined ? '' : ` (account ${accountId})`}. ` +
          `Check the orders and invoices of this kind${since} in the portal, and cancel the one no state names if there are two.`
    this.options.log('warn', detail, { idempotency_key: key, account_id: accountId })
    this.options.operation?.()?.warn?.(`${call} may have been ${action ? 'run' : 'ordered'} twice`, detail)
  }

  /**
   * The wait before an order's next attempt. A stop during it ends the order with the cancellation;
   * `unplaced`, the entry of an order none of whose attempts was processed (429s, no connection), is
   * then closed as placeOnce's `stop` closes it: otherwise the next apply would take over an order that
   * never was (on a service that ignores keys, waiting for an account that never comes).
   */
  private async pauseBeforeRetry(
    delayMs: number,
    signal: AbortSignal | undefined,
    context: RequestContext,
    unplaced: JournalEntry | undefined,
  ): Promise<void> {
    try {
      await this.http.pause(delayMs, signal, context)
    } catch (error) {
      await this.closeUnplaced(unplaced)
      throw error
    }
  }

  /** The entry of an order that was not placed, closed as failed: no later run takes it over. */
  private async closeUnplaced(entry: JournalEntry | undefined): Promise<void> {
    if (entry === undefined) return
    entry.state = 'failed'
    await this.record(entry)
  }

  /**
   * After an ambiguous failure against a service that has not confirmed keys, the order is never sent
   * again: a create lists the accounts for the one it made (reconcileUntil), an order on an account
   * reads it for the order's invoice (awaitPlacement), and any other order stops, its outcome unknown.
   */
  private async findOutcome(
    entry: JournalEntry | undefined,
    sentAt: number,
    key: string,
    context: RequestContext,
    { reconcile, placedOn, invoiceBefore }: Evidence,
    deadline: number,
    signal: AbortSignal | undefined,
    unresolved: (why: string, cause?: unknown) => OrderUnresolvedError,
    error: Error,
  ): Promise<Order> {
    const why = `${sentence(error.message)} This service has not confirmed that it recognises Idempotency-Keys, so it is not sent again`
    if (reconcile !== undefined) return this.reconcileUntil(entry, sentAt, key, context, reconcile, deadline, signal, unresolved, error)
    if (placedOn === undefined) throw unresolved(`${why}.`, error)
    return this.awaitPlacement(entry, invoiceBefore, context, placedOn, { until: deadline }, signal, (detail) =>
      unresolved(`${why}, and ${detail}.`, error),
    )
  }

  /**
   * After an ambiguous failure: list until the order's account shows up, or the operation's deadline
   * passes. Not less: when a service may take to make the account after a gateway gave up on it is
   * not known, and a run that stopped earlier would be re-run, perhaps from a fresh workspace whose
   * listing does not show the account yet: a second order. A progress message every 10 s says what it
   * waits for and until when.
   */
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
    // Its request got no clear answer and is not sent again (see twinShare), which its entry tells other processes.
    if (entry !== undefined && this.journal !== undefined) {
      this.journal.settlesByListing(entry)
      await this.record(entry)
    }
    return this.lookUntil(
      deadline,
      signal,
      context,
      async () => {
        try {
          return await this.reconcileOnce(entry, sentAt, key, context, reconcile)
        } catch (error) {
          if (error instanceof OrderUnresolvedError) throw error
          // The order's outcome stays the news: the listing's failure is only why it is still unknown.
          throw unresolved(
            `${sentence(cause.message)} Listing the accounts to find out whether it was processed failed too: ${sentence(messageOf(error))}`,
            cause,
          )
        }
      },
      () => unresolved(`${sentence(cause.message)} No new matching account appeared before the operation's deadline.`, cause),
      (seconds) => ({
        message:
          `${context.method} ${context.path}: no clear answer, and this service does not confirm Idempotency-Keys, so it is not ` +
          `sent again; listing the accounts for the one it made (${seconds} s, until ${new Date(deadline).toISOString()}, the ` +
          "operation's deadline)",
        fields: { idempotency_key: key },
      }),
      this.stoppedLooking(
        entry,
        key,
        'it listed the accounts for the one this order made',
        'it looks for the account that order made and adopts it, and orders nothing while that order may still make one',
      ),
    )
  }

  /**
   * Looks (`look`) until it finds what it looks for, or until `until` (the last look is at `until`) or,
   * should the clock stand still, `MAX_OUTCOME_LOOKS` looks: then `end` says why not. Between looks it
   * backs off up to ORDER_BACKOFF_CAP_MS, and says every 10 s what it waits for (`progress`, given the
   * seconds so far). A stop (Ctrl-C, SIGTERM, Pulumi's cancel) while it waits ends it with a cancellation
   * that says what `stopped` says: an order whose outcome is unknown was not sent again, and what the
   * next run does with it (a bare "was cancelled" reads as "nothing was ordered").
   */
  private async lookUntil<T>(
    until: number,
    signal: AbortSignal | undefined,
    context: RequestContext,
    look: () => Promise<T | undefined>,
    end: () => Error,
    progress: (seconds: number) => { readonly message: string; readonly fields: Record<string, unknown> },
    stopped: string,
  ): Promise<T> {
    const { log, now } = this.options
    const started = now()
    let reported = -Infinity
    for (let round = 1; ; round++) {
      const found = await look()
      if (found !== undefined) return found
      const left = until - now()
      if (left <= 0 || round >= MAX_OUTCOME_LOOKS) throw end()
      if (now() - reported >= OUTCOME_REPORT_MS) {
        reported = now()
        const { message, fields } = progress(Math.round((now() - started) / 1000))
        log('warn', message, fields)
      }
      try {
        await this.http.pause(Math.min(this.http.backoff(round), ORDER_BACKOFF_CAP_MS, left), signal, context)
      } catch (error) {
        if (error instanceof TransportError && error.reason === 'cancelled')
          throw new TransportError('cancelled', stopped, context, { cause: error })
        throw error
      }
    }
  }

  /** What a run stopped while it looks for the outcome of an order with no clear answer says (lookUntil's `stopped`). */
  private stoppedLooking(entry: JournalEntry | undefined, key: string | undefined, looking: string, nextRun: string): string {
    const sent = entry === undefined ? '' : `, sent at ${new Date(entry.sentAt).toISOString()}`
    const next =
      entry === undefined
        ? 'Check the account and its invoices in the portal before ordering again.'
        : `The next apply from ${this.journal?.scope ?? 'this working directory'} (terraform apply, pulumi up) takes it over: ${nextRun}.`
    return (
      `stopped while ${looking}. The order got no clear answer (Idempotency-Key ${key ?? 'unknown'}${sent}) and this service ` +
      `does not confirm Idempotency-Keys, so it may have been placed, and it was not sent again. ${next}`
    )
  }

  /** The id of an account's last invoice (null: none), or undefined when it cannot be read: then no invoice tells (awaitPlacement). */
  private async lastInvoice(placedOn: PlacedOn, signal: AbortSignal | undefined): Promise<number | null | undefined> {
    try {
      return (await placedOn.read(signal)).last_invoice?.id ?? null
    } catch {
      return undefined
    }
  }

  /**
   * After an ambiguous failure of an order on an existing account, or in the run that takes over a
   * stopped run's such order, against a service that does not confirm keys: reads the account until it
   * shows the order placed (placementInvoice: another invoice of its type than `before`, the one read
   * just before it was sent), which is then taken as this order's answer and waited for like one, or
   * until `until`. Then `none` says what the account shows instead. Nothing is ever sent again here. A
   * progress message every 10 s.
   */
  private async awaitPlacement(
    entry: JournalEntry | undefined,
    before: number | null | undefined,
    context: RequestContext,
    placedOn: PlacedOn,
    { until, notAfter }: { readonly until: number; readonly notAfter?: number },
    signal: AbortSignal | undefined,
    none: (detail: string, seenUntilEnd: boolean) => Error,
  ): Promise<Order> {
    // With no invoice to tell by (not read before the order was sent), there is nothing to wait for: one look.
    const lookedUntil = before === undefined ? this.options.now() : until
    let account: Account<unknown> | undefined
    return this.lookUntil(
      lookedUntil,
      signal,
      context,
      async () => {
        try {
          account = await placedOn.read(signal)
        } catch (error) {
          throw none(`reading the account to find out whether it was placed failed: ${messageOf(error).replace(/\.+$/, '')}`, false)
        }
        const invoice = placementInvoice(account, placedOn.invoiceType, before, notAfter)
        if (invoice === undefined) return undefined
        const detail =
          `No clear answer came to ${context.method} ${context.path}, and this service does not confirm Idempotency-Keys, so it ` +
          `was not sent again; account ${account.account_id} shows it placed (invoice ${invoice.id}, ${invoice.invoice_type}, ` +
          `${invoice.status}), so that is taken as its answer.`
        this.options.log('warn', detail, { account_id: account.account_id, invoice_id: invoice.id })
        this.options.operation?.()?.warn?.(`The order on account ${account.account_id} was placed; its answer was lost`, detail)
        const order = { account_id: account.account_id, order_id: '' } as Order
        await this.answered(entry, order, context, 'adopted')
        return order
      },
      () => {
        // The look that ended it read the account (a failed read throws from the look itself).
        const seen = account as Account<unknown>
        const last = seen.last_invoice
        const shows = last === null ? 'no invoice' : `invoice ${last.id} (${last.invoice_type}, ${last.status}, ${last.date})`
        if (before === undefined) {
          return none(
            `the invoice account ${seen.account_id} had just before the order was sent is not known (it could not be read then, ` +
              `or an older version sent the order), so its invoices cannot tell whether it was placed (its last is ${shows}; its ` +
              `status ${seen.status})`,
            false,
          )
        }
        return none(
          `account ${seen.account_id} shows no ${placedOn.invoiceType} order since it was sent, by ${new Date(until).toISOString()} ` +
            `(its last is ${shows}; its status ${seen.status})`,
          true,
        )
      },
      (seconds) => ({
        message:
          `${context.method} ${context.path}: no clear answer, and this service does not confirm Idempotency-Keys, so it is not ` +
          `sent again; reading account ${account?.account_id} for the order's invoice (${seconds} s, until ${new Date(until).toISOString()})`,
        fields: { account_id: account?.account_id },
      }),
      this.stoppedLooking(
        entry,
        entry?.key,
        `it read the account for this order's invoice`,
        "it reads the account for that order's invoice, and sends nothing while that order may still take effect",
      ),
    )
  }
}

/** An account's status and last invoice, as a message shows them. */
function shown(account: Pick<Account<unknown>, 'status' | 'last_invoice'>): string {
  const last = account.last_invoice
  return `${account.status} (its last invoice ${last === null ? 'none' : `${last.id}, ${last.invoice_type}, ${last.status}`})`
}

/**
 * Whether an account was created after `at`, as precisely as the account object tells. Its
 * `date_created` is a bare date (the API's account object): on the same day or later. When its last
 * invoice is paid, the time it was paid must be after `at` too: the account existed then, whether that
 * invoice is the order's own (`new`, paid with the order or later by hand) or a later change's (an
 * upgrade, a change of package), so an account of the same day that was ordered or changed and paid
 * before `at` is not one made since. Either may be `slackMs` early (the service's clock
 * is not ours). Unreadable: yes, so that such an account counts as a candidate and never lets another be
 * adopted on its own.
 */
export function createdSince(
  account: Pick<Account<unknown>, 'date_created' | 'last_invoice'>,
  at: number,
  slackMs = CREATED_SLACK_MS,
): boolean {
  if (!timeSince(account.date_created, at - slackMs)) return false
  const invoice = account.last_invoice
  return invoice === null || invoice.datepaid === null || timeSince(invoice.datepaid, at - slackMs)
}

/**
 * Whether an account's last invoice waits for payment and was issued on a day before `at`'s (its `date`,
 * a bare date): a Pending account that shows it was ordered before `at`, however long it has waited since.
 */
function awaitsPaymentFromBefore(account: Pick<Account<unknown>, 'last_invoice'>, at: number): boolean {
  const invoice = account.last_invoice
  return invoice !== null && statusIs(invoice.status, 'Unpaid') && !timeSince(invoice.date, at)
}

/**
 * The invoice by which an account shows an order of `invoiceType` placed on it, the account's last
 * invoice having been `before` just before the order was sent: its last invoice is now another one, of
 * that type, paid, or unpaid on an account that is Pending (as only a placed order leaves it). For a
 * stopped run's order, also issued by `notAfter`, when that order would have been processed: a later
 * order's invoice (one placed in the portal since) is not its; `EVIDENCE_SLACK_MS` allows for the
 * service's clock. `before` unknown (not read, an entry of an older version): no evidence.
 */
export function placementInvoice(
  account: Account<unknown>,
  invoiceType: string,
  before: number | null | undefined,
  notAfter?: number,
): Invoice | undefined {
  const invoice = account.last_invoice
  if (before === undefined || invoice === null || invoice.id === before || invoice.invoice_type !== invoiceType) return undefined
  const placed = statusIs(invoice.status, 'Paid') || (statusIs(invoice.status, 'Unpaid') && statusIs(account.status, 'Pending'))
  if (!placed) return undefined
  return notAfter === undefined || issuedBy(invoice, notAfter + EVIDENCE_SLACK_MS) ? invoice : undefined
}

/** Whether an invoice was issued by `at`: paid, by the time it was paid; else by its date (`YYYY-MM-DD`). Unreadable: no. */
function issuedBy(invoice: Invoice, at: number): boolean {
  if (invoice.datepaid !== null) {
    const paid = Date.parse(`${invoice.datepaid.trim().replace(' ', 'T')}Z`)
    return !Number.isNaN(paid) && paid <= at
  }
  const date = invoice.date.trim()
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && date <= new Date(at).toISOString().slice(0, 10)
}

/** When an account was made, as `timeSince` reads `date_created` (a bare date at its midnight); unreadable: 0. */
function createdAt(account: Pick<Account<unknown>, 'date_created'>): number {
  const text = account.date_created.trim()
  const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : `${text.replace(' ', 'T')}Z`)
  return Number.isNaN(time) ? 0 : time
}

/** Whether a UTC date (`YYYY-MM-DD`: that day or later) or date and time is at or after `at`; unreadable: yes. */
function timeSince(value: string, at: number): boolean {
  const text = value.trim()
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text >= new Date(at).toISOString().slice(0, 10)
  const time = Date.parse(`${text.replace(' ', 'T')}Z`)
  return Number.isNaN(time) || time >= at
}

/** An account of any kind, its kind's details as they come: what naming an order's account needs (see accountShows). */
function plainAccount(value: unknown, at: string): Account<unknown> {
  return decodeAccount(value, (details) => ({ ...details }), at)
}

/**
 * An order's attempt as it goes out: a stop (Ctrl-C, Pulumi's Cancel, SIGTERM) that came before it
 * keeps it from being sent (the attempt says so: nothing was placed), but one that comes while it is
 * in flight does not cut it off. Its answer is awaited, within the request timeout and the operation's
 * deadline, so that the run hands back the account it ordered: a request abandoned on the way may or
 * may not have been placed, and on a service that ignores Idempotency-Keys the next run could then
 * only wait for an account that may never come. The stop takes effect at the next safe point, the
 * wait that follows the answer.
 */
function sendUnstopped<T>(spec: RequestSpec<T>): RequestSpec<T> {
  if (spec.signal === undefined || spec.signal.aborted) return spec
  const { signal: _stop, ...unstopped } = spec
  return unstopped
}

/**
 * The way out of a stopped change against a service that confirms Idempotency-Keys: an apply that
 * plans the stopped change itself again sends it with its key, which the service processes at most
 * once (placing it now if it never was), and the edited change follows from what the account then
 * shows. Named from the entries' `change` (each input's value before and the one it was sent for);
 * empty when an entry does not say it.
 */
function settleByResending(entries: readonly JournalEntry[], keyKept: number): string {
  const targets: string[] = []
  for (const entry of entries) {
    let moves: unknown
    try {
      moves = JSON.parse(entry.change ?? '')
    } catch {
      return ''
    }
    if (!Array.isArray(moves)) return ''
    for (const move of moves) {
      if (!Array.isArray(move) || typeof move[0] !== 'string' || move[2] === '(set)') return ''
      targets.push(`${move[0]} = ${JSON.stringify(move[2])}`)
    }
  }
  if (targets.length === 0) return ''
  return (
    'This service confirms Idempotency-Keys, so it can be settled now: apply once with the value the stopped run asked for ' +
    `(${targets.join(', ')}) before ${new Date(keyKept).toISOString()}, which sends that change again with its key, placed at ` +
    'most once, then apply your change. '
  )
}

// The order journal: a record of every paid order and one-shot destructive action, written before
// the request is sent and updated when it answers, so that a run killed at any point lets the next
// run reuse the same Idempotency-Key (or the answer itself). The rules are here; where the entries
// live is a JournalStore: a directory of the working directory by default (journal-file.ts), or a
// PostgreSQL table that runners sharing no disk share (journal-postgres.ts).
import { createHash, createHmac, randomUUID } from 'node:crypto'
import { JournalUnreadableError, OrderUnresolvedError } from '../errors.js'
import { redact } from '../redact.js'
import { FileJournalStore, ownerAliveHere } from './journal-file.js'
import type { InFlightOrder, KnownAccounts } from './known-accounts.js'
import {
  type Completeness,
  type JournalEntry,
  type JournalFilter,
  type JournalOwner,
  type JournalStore,
  newOwner,
  processAlive,
} from './journal-store.js'

/**
 * The service keeps a key for 24 h (the service's Idempotency-Key extension); an unanswered entry is
 * sent again with its key only well inside that window. An answered one needs no key: its answer is
 * handed over for as long as the entry is kept (see takeable).
 */
export const JOURNAL_REUSE_MS = 23 * 3_600_000

/**
 * Whether an entry's order may still be taken over or waited for: answered and never handed to an
 * engine, or sent within the keys' window (an older unanswered one: see unansweredByStoppedRuns).
 */
function stillOpen(entry: JournalEntry, now: number): boolean {
  return entry.state === 'answered' || (entry.state === 'sent' && now - entry.sentAt < JOURNAL_REUSE_MS)
}

/**
 * Whether two changes (OperationFrame.from: `[name, from, to]` each) start from the same values of the
 * inputs both change; unknown or unreadable: yes.
 */
function sameStart(a: string | undefined, b: string | undefined): boolean {
  const starts = (change: string): Map<unknown, string> | undefined => {
    try {
      const parsed: unknown = JSON.parse(change)
      if (!Array.isArray(parsed)) return undefined
      return new Map(parsed.filter(Array.isArray).map((step: unknown[]) => [step[0], JSON.stringify(step[1] ?? null)]))
    } catch {
      return undefined
    }
  }
  const first = a === undefined ? undefined : starts(a)
  const second = b === undefined ? undefined : starts(b)
  if (first === undefined || second === undefined) return true
  for (const [name, value] of first) if (second.has(name) && second.get(name) !== value) return false
  return true
}

export interface IntentParts {
  readonly baseUrl: string
  readonly apiKey: string
  readonly method: string
  readonly path: string
  readonly body: unknown
  /** What the front end knows identifies the resource (a Pulumi URN); undefined for Terraform. */
  readonly scope: string | undefined
  /** When the scope names the resource (a Pulumi URN), the scope of the state it is in (see OperationFrame.stateScope). */
  readonly stateScope?: string | undefined
  /**
   * The change an update makes, from the values the engine's state holds to the planned ones
   * (OperationFrame.from); undefined for a create. Two identical requests of two changes are two
   * orders: a second +10 GB once the first shows in state (another start), or planned from a state
   * that does not show it yet (another target).
   */
  readonly from?: string | undefined
}

/** Stable JSON: object keys sorted, so the same intent always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Which service an entry was sent to, as a hash of its base URL. */
export function serviceOf(baseUrl: string): string {
  return sha256(baseUrl)
}

/**
 * The API key enters only as a hash. A secret of the body (a console password) does not enter at all:
 * it does not say which order this is, and a write-only one may be new at every run (an ephemeral
 * value), so a re-run after a kill would otherwise be a new intent and order a second time.
 */
export function fingerprint(parts: IntentParts): string {
  return fingerprintOf(parts, redact(parts.body ?? null))
}

/**
 * The fingerprints an entry of this intent may carry: today's, then those earlier versions wrote, so
 * that a run killed before an upgrade of the provider is still taken over by the re-run after it:
 * without the change's starting point (`from`), and, when the body holds a secret, with the secret in it.
 */
export function fingerprints(parts: IntentParts): readonly string[] {
  const earlier = { ...parts, from: undefined }
  const all = [fingerprint(parts), fingerprint(earlier), fingerprintOf(earlier, parts.body ?? null)]
  return [...new Set(all)]
}

function fingerprintOf(parts: IntentParts, body: unknown): string {
  const { baseUrl, apiKey, method, path, scope, from } = parts
  // A create has no starting point, and its fingerprint is what it always was.
  const start = from === undefined ? [] : [from]
  return sha256(canonical([baseUrl, sha256(apiKey), method.toUpperCase(), path, body, scope ?? null, ...start]))
}

/**
 * The request without its scope: what the same order has in common under every identity (another
 * workspace, backend setting or stack, or one Terraform state configured one way on a laptop and
 * another in CI), so that a re-run under another identity finds what a stopped run left (see claim).
 * Unlike the fingerprint, it holds the body's secrets (a console password): another state's order of
 * another password is another order, whose account this state must not take. They enter only through
 * an HMAC keyed by the API key, so that the journal cannot be used to test guesses of a password
 * without the key.
 */
export function requestOf(parts: IntentParts): string {
  const { baseUrl, apiKey, method, path, body, from } = parts
  const start = from === undefined ? [] : [from]
  const text = canonical([baseUrl, method.toUpperCase(), path, body ?? null, ...start])
  return createHmac('sha256', `request\0${apiKey}`).update(text).digest('hex')
}

/**
 * What identical orders of one state have in common, whichever resource each is for (see
 * JournalEntry.twin): the request with its secrets (orders of two console passwords make accounts
 * that are not interchangeable), and the state's scope (Terraform's scope; a Pulumi URN's stack).
 * Like the request, an HMAC keyed by the API key.
 */
export function twinOf(parts: IntentParts): string {
  const { baseUrl, apiKey, method, path, body, from } = parts
  const start = from === undefined ? [] : [from]
  const text = canonical([baseUrl, method.toUpperCase(), path, body ?? null, parts.stateScope ?? parts.scope ?? null, ...start])
  return createHmac('sha256', `twin\0${apiKey}`).update(text).digest('hex')
}

/** An intent's fingerprints (see fingerprints), its request (see requestOf), if it is looked up by it, and its twin key (see twinOf). */
export interface IntentKeys {
  readonly fingerprints: readonly string[]
  readonly request?: string | undefined
  readonly twin?: string | undefined
}

/**
 * The keys an order's entries are looked up by; with `byRequest`, also its request. A Terraform state's
 * scope can differ for one state (configured two ways), a Pulumi URN cannot; and an `up` cancelled
 * with SIGTERM still answers a create to its engine, which keeps it, without the journal marking it
 * handed over (the engine may be going down): another stack's resource of the same request must not
 * take that account over. So only the former is looked up by its request.
 */
export function intentOf(parts: IntentParts, byRequest: boolean): IntentKeys {
  return { fingerprints: fingerprints(parts), request: byRequest ? requestOf(parts) : undefined, twin: twinOf(parts) }
}

/**
 * An intent as the journal looks it up: its fingerprint, or every fingerprint its entries may carry
 * (see fingerprints), with or without its request.
 */
export type Intent = string | readonly string[] | IntentKeys

/** The fingerprints of an intent. */
function fingerprintsOf(intent: Intent): readonly string[] {
  return typeof intent === 'string' ? [intent] : 'fingerprints' in intent ? intent.fingerprints : (intent as readonly string[])
}

/** The request of an intent, if it is looked up by it. */
function requestOfIntent(intent: Intent): string | undefined {
  return typeof intent === 'string' || !('fingerprints' in intent) ? undefined : intent.request
}

/** The fingerprint of the intent an entry counts for: the one that took it over (JournalEntry.claimedAs), or the one that opened it. */
export function entryIntent(entry: JournalEntry): string {
  return entry.claimedAs ?? entry.fingerprint
}

/**
 * One owner's memory, shared by every journal (every API client) that owns entries as it: the entries
 * its operations hold (two identical intents never share one), those it handed to its engine (what
 * its graceful shutdown settles), and those whose outcome only a listing can tell now (see
 * OrderJournal.settledBy). The provider runtime keeps one for the process and hands it to each
 * client it configures; a journal made without one has a session of its own.
 */
export interface JournalSession {
  readonly owner: JournalOwner
  readonly held: Set<string>
  readonly handedOver: Set<string>
  readonly listed: Set<string>
  /** The owner's orders whose answer is not in yet, of every API client it configured (see Placing). */
  readonly placing: Placing
}

/**
 * Orders of one owner whose answer is not in yet, by service and call (`<service> METHOD path`), and how
 * many were ever started: what a create's listing waits for, so that an account one of them makes while
 * it lists is not taken for nobody's (see Orders.listAfterOwnOrders). Kept for the owner, not per API
 * client: the serve mode configures a client per provider block, each ordering beside the others.
 */
export interface Placing {
  readonly inFlight: Map<string, Set<Promise<unknown>>>
  readonly started: Map<string, number>
}

export function newPlacing(): Placing {
  return { inFlight: new Map(), started: new Map() }
}

export function newJournalSession(owner: JournalOwner = newOwner()): JournalSession {
  return { owner, held: new Set(), handedOver: new Set(), listed: new Set(), placing: newPlacing() }
}

export interface JournalOptions {
  /** Default: a session of its own (see JournalSession). */
  readonly session?: JournalSession
  /** The owner of a session of its own. Default: a new owner in this process. */
  readonly owner?: JournalOwner
  /** How a file journal tells a pid alive. Default: processAlive. */
  readonly alive?: (pid: number, started?: string) => boolean
  /** This user's accounts handed to an engine from any directory of this machine (known-accounts.ts). */
  readonly index?: KnownAccounts | undefined
  /**
   * The entries of this very run (see OrderJournal.ownRun), shared by every journal the engine's run
   * configures. Default: the journal's own, a run of its own.
   */
  readonly run?: RunEntries
}

/** The ids of a run's entries (see JournalOptions.run): what a journal opened or took over is added. */
export interface RunEntries {
  add(id: string): void
  has(id: string): boolean
}

/**
 * The journal's rules over a store. Every entry names its owner process; another process takes an
 * entry over only once that owner is gone, and only one of several that try at once succeeds.
 * A string is a directory (a FileJournalStore).
 */
export class OrderJournal {
  readonly owner: JournalOwner
  readonly store: JournalStore
  /** Entries this owner's operations hold: two identical intents never share one. */
  private readonly held: Set<string>
  /** See settledBy. */
  private readonly listed: Set<string>
  /** Its owner's orders whose answer is not in yet (see Placing). */
  readonly placing: Placing
  /** Entries whose outcome this owner handed to its engine: what its graceful shutdown settles. */
  private readonly handedOver: Set<string>
  /** Answers this owner could not confirm as still its own, and so did not hand over (see withhold). */
  private readonly withheld = new Set<string>()
  /**
   * Entries this journal opened or took over: the orders of this very run. The owner (the session) is
   * the process's, and a process can serve one run after another (Terraform's serve mode reattaches
   * every command to one process, which configures a new client, so a new journal, for each): an entry
   * of this owner that another journal of the process opened is an earlier run's, whose engine may have
   * been killed before it saved what it was handed, or that still has it in flight. The journals of one
   * run (a command's `provider` blocks, each configured on a connection of its own) share it (see
   * JournalOptions.run).
   */
  private readonly ownRun: RunEntries
  private readonly index: KnownAccounts | undefined

  constructor(
    store: JournalStore | string,
    private readonly now: () => number,
    options: JournalOptions = {},
  ) {
    const session = options.session ?? newJournalSession(options.owner)
    this.owner = session.owner
    this.store = typeof store === 'string' ? new FileJournalStore(store, this.owner, options.alive ?? processAlive) : store
    this.held = session.held
    this.handedOver = session.handedOver
    this.listed = session.listed
    this.placing = session.placing
    this.ownRun = options.run ?? new Set()
    this.index = options.index
    const pidAlive = options.alive ?? processAlive
    this.aliveHere = (owner) => owner.token === this.owner.token || ownerAliveHere(this.owner, owner, pidAlive)
    const { enginePid, engineStarted } = this.owner
    this.engineGone = () => enginePid !== undefined && enginePid > 1 && !pidAlive(enginePid, engineStarted)
  }

  /** Whether the engine this process was started by (its parent when it started) has exited since. */
  private readonly engineGone: () => boolean

  /**
   * Whether a process of this machine runs, whatever journal it uses: what the per-user index's
   * records (known-accounts.ts) are judged by, a store's own liveness being about its own owners (a
   * shared database knows only its sessions).
   */
  private readonly aliveHere: (owner: JournalOwner) => boolean

  /** Where the entries are, for messages. */
  get where(): string {
    return this.store.where
  }

  /** Whose runs the journal records, for messages (see JournalStore.scope). */
  get scope(): string {
    return this.store.scope
  }

  /** How a user removes one entry by hand. */
  removal(entry: JournalEntry): string {
    return this.store.removal(entry)
  }

  /** Whether the process that owns an entry is gone (an entry of an older version names none). */
  private async ownerGone(owner: JournalOwner | undefined): Promise<boolean> {
    if (owner === undefined) return true
    if (owner.token === this.owner.token) return false
    return !(await this.store.alive(owner))
  }

  private entries(filter?: JournalFilter, completeness: Completeness = 'complete'): Promise<JournalEntry[]> {
    return this.store.list(this.now(), filter, completeness)
  }

  /**
   * An entry of this intent to take over instead of ordering again, inside the key's window and held
   * by no operation of this owner: one never handed to an engine (`sent`, `answered`) that is this
   * owner's, or whose owner is gone. An entry handed to an engine belongs to that engine's state and
   * is never taken over: a second state holding its account would destroy it for the first (see
   * lostHandovers for what a create of the same intent does instead). Identical resources
   * (Terraform `count`) each take their own entry, oldest first.
   */
  async claim(intent: Intent): Promise<JournalEntry | undefined> {
    const fingerprints = fingerprintsOf(intent)
    for (const entry of await this.takeable(intent)) {
      // Another identity's create of the same request counts for this intent once taken (see takeable).
      const former = entry.claimedAs
      if (!fingerprints.includes(entryIntent(entry))) entry.claimedAs = fingerprints[0]
      if (await this.take(entry)) {
        this.held.add(entry.id)
        this.ownRun.add(entry.id)
        return entry
      }
      entry.claimedAs = former
    }
    return undefined
  }

  /**
   * Whether `entry`, which this intent claimed, was opened under another identity of the same request
   * (see takeable): what the user is told of.
   */
  takenFromElsewhere(entry: JournalEntry): boolean {
    return entry.claimedAs !== undefined && entry.claimedAs !== entry.fingerprint
  }

  /**
   * The entry `claim` would take over now, without taking it: what a plan says its apply will do with
   * an order (see OperationFrame.rehearsal).
   */
  async peek(intent: Intent): Promise<JournalEntry | undefined> {
    return (await this.takeable(intent))[0]
  }

  /**
   * The entries of an intent (see Intent), oldest first: by today's fingerprint (the first), less those
   * another identity took over, with those it took over from another identity (found by its request);
   * by the earlier ones only those an earlier version wrote (an action this version sends without a
   * change, which has no `from`, is another intent than a change's of the same request).
   */
  private async ofIntent(intent: Intent): Promise<JournalEntry[]> {
    return (await this.ofIntentAndRequest(intent)).own
  }

  /** The entries of an intent (`own`: see ofIntent) and, apart, those of its request that count for other identities (`others`), in one look. */
  private async ofIntentAndRequest(intent: Intent): Promise<{ own: JournalEntry[]; others: JournalEntry[] }> {
    const [current, ...earlier] = fingerprintsOf(intent)
    // Only a store where every hand-over shows has entries taken across identities (see takeable).
    const request = this.marksEveryHandOver ? requestOfIntent(intent) : undefined
    const own: JournalEntry[] = []
    const others: JournalEntry[] = []
    if (current !== undefined) {
      for (const e of await this.entries(request === undefined ? { fingerprint: current } : { fingerprint: current, request })) {
        if (entryIntent(e) === current) own.push(e)
        else others.push(e)
      }
    }
    for (const value of earlier) own.push(...(await this.entries({ fingerprint: value })).filter((e) => e.scheme === undefined))
    return { own: own.sort((a, b) => a.sentAt - b.sentAt), others }
  }

  /**
   * The entries claim may take over, oldest first (see claim): this intent's, then creates of the same
   * request that a run under another identity left, never handed to an engine, whose owner is gone. Such
   * an account is in no state, and whatever the other identity is (this very state configured another
   * way on another runner, or another state of the same configuration), ordering again would pay for a
   * second account with the same request: this one takes it over, and the other, should it want one,
   * orders its own next time. An entry handed to an engine is never taken over (see above). Another
   * identity's only where an entry shows every hand-over (see marksEveryHandOver), and only while this
   * intent has no order of its own whose outcome is unknown: one held by a process that runs is this
   * run's to wait for, one unanswered past its key's window this run's to look for (its account would
   * otherwise be paid for and named by nobody).
   */
  private async takeable(intent: Intent): Promise<JournalEntry[]> {
    const now = this.now()
    const out: JournalEntry[] = []
    const { own, others } = await this.ofIntentAndRequest(intent)
    // An own order whose outcome is not known yet (held by a process that runs, or unanswered past its
    // key's window: see unansweredByStoppedRuns) is this intent's to wait for or to look for first.
    let ownPending = false
    for (const e of own) {
      if (this.held.has(e.id)) continue
      if (!stillOpen(e, now)) {
        if (e.state === 'sent' && e.creates === true) ownPending = true
        continue
      }
      if (e.owner?.token === this.owner.token || (await this.ownerGone(e.owner))) out.push(e)
      else ownPending = true
    }
    if (out.length > 0 || ownPending || !this.marksEveryHandOver) return out
    for (const e of others.sort((a, b) => a.sentAt - b.sentAt)) {
      if (e.creates !== true || !stillOpen(e, now) || this.held.has(e.id) || e.owner?.token === this.owner.token) continue
      if (await this.ownerGone(e.owner)) out.push(e)
    }
    return out
  }

  /**
   * Creates of the same call (`method` and `path`) that a run that is gone sent and never saw answered,
   * and that no order of this intent may take over: those of this intent older than the keys' window
   * (the service no longer knows their key, so none is sent again), and those of another intent within
   * it, which only that intent's own run resumes (a resource edited since its order got no answer).
   * Whether they were processed is not known, so a create of the same call looks for the account they
   * may have made first (see Orders.unrecordedMatches), and `closeExpired` ends those of its intent once
   * it has found none. Another intent's stops counting once its key's window is over, so that an entry
   * nobody resumes (the resource was edited for good) does not stop creates for longer.
   */
  async unansweredByStoppedRuns(intent: Intent, method: string, path: string): Promise<JournalEntry[]> {
    const now = this.now()
    const own = new Set(fingerprintsOf(intent))
    const out: JournalEntry[] = []
    for (const e of await this.entries()) {
      if (e.state !== 'sent' || e.creates !== true || e.method !== method || e.path !== path || this.held.has(e.id)) continue
      // This intent's only once its key has expired (claim takes it before); another's only while its key is good.
      if (own.has(entryIntent(e)) === now - e.sentAt < JOURNAL_REUSE_MS) continue
      if (e.owner?.token === this.owner.token || (await this.ownerGone(e.owner))) out.push(e)
    }
    return out
  }

  /**
   * Unanswered orders of this intent past the keys' window whose account a listing did not find: nothing
   * was ordered (state `failed`). Another intent's are left to its own run.
   */
  async closeExpired(intent: Intent, entries: readonly JournalEntry[]): Promise<void> {
    const own = new Set(fingerprintsOf(intent))
    for (const entry of entries) {
      if (!own.has(entryIntent(entry))) continue
      entry.state = 'failed'
      await this.store.write(entry)
    }
  }

  /**
   * Entries of this intent that another process holds while it still runs, never handed to an engine
   * (`sent`, `answered`): the same order in flight elsewhere (a run whose Terraform was killed while
   * its provider still waits, a concurrent run of another workspace of this directory, another
   * runner sharing the journal's database), or in an earlier run this process still serves (see
   * ownRun: the serve mode's command whose terraform was killed while its create waits). Ordering anew
   * beside one could be a second order; the caller waits for it or stops.
   */
  async heldElsewhere(intent: Intent): Promise<JournalEntry[]> {
    const now = this.now()
    const out: JournalEntry[] = []
    for (const e of await this.ofIntent(intent)) {
      if (!stillOpen(e, now) || e.owner === undefined || this.ownRun.has(e.id)) continue
      if (e.owner.token === this.owner.token ? !this.held.has(e.id) : await this.ownerGone(e.owner)) continue
      out.push(e)
    }
    return out
  }

  /** Makes this owner the entry's owner, atomically against other processes trying the same (see JournalStore.take). */
  private async take(entry: JournalEntry): Promise<boolean> {
    if (entry.owner?.token === this.owner.token) return true
    return this.store.take(entry, this.owner, (owner) => this.ownerGone(owner))
  }

  /**
   * A new entry, stored before the request leaves: `creates` for an order that makes a new account,
   * `existing` the accounts that matched it in a listing taken just before (see JournalEntry.existing).
   */
  async open(
    fingerprintValue: string,
    service: string,
    key: string,
    method: string,
    path: string,
    {
      creates = false,
      existing,
      shows,
      showsFields,
      lists,
      requestTimeoutMs,
      invoiceBefore,
      change,
      request,
      twin,
    }: {
      readonly creates?: boolean
      readonly existing?: readonly string[] | undefined
      readonly shows?: string | undefined
      readonly showsFields?: readonly string[] | undefined
      readonly lists?: string | undefined
      readonly requestTimeoutMs?: number | undefined
      readonly invoiceBefore?: number | null | undefined
      readonly change?: string | undefined
      /** The intent's request (see requestOf). */
      readonly request?: string | undefined
      /** The intent's twin key (see twinOf), kept for a create. */
      readonly twin?: string | undefined
    } = {},
  ): Promise<JournalEntry> {
    this.refuseBesideUnreadable(method, path)
    const entry: JournalEntry = {
      v: 1,
      id: randomUUID(),
      fingerprint: fingerprintValue,
      service,
      key,
      method,
      path,
      sentAt: this.now(),
      state: 'sent',
      owner: this.owner,
      scheme: 2,
      ...(creates ? { creates: true as const } : {}),
      ...(existing !== undefined ? { existing: [...existing] } : {}),
      ...(shows !== undefined ? { shows } : {}),
      ...(showsFields !== undefined ? { showsFields: [...showsFields] } : {}),
      ...(lists !== undefined ? { lists } : {}),
      ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
      ...(invoiceBefore !== undefined ? { invoiceBefore } : {}),
      ...(change !== undefined ? { change } : {}),
      ...(request !== undefined ? { request } : {}),
      ...(creates && twin !== undefined ? { twin } : {}),
    }
    this.held.add(entry.id)
    this.ownRun.add(entry.id)
    // On disk before the request leaves: a power loss must not lose what may become a paid order.
    await this.store.write(entry, { durable: true })
    return entry
  }

  write(entry: JournalEntry): Promise<void> {
    return this.store.write(entry)
  }

  /**
   * No new order while the journal holds an entry it cannot read (JournalStore.unreadable): that entry
   * may be an order sent by a run that stopped, whose outcome nobody can look up. Reads, deletes and
   * the orders that entries it can read account for go on.
   */
  private refuseBesideUnreadable(method: string, path: string): void {
    const unreadable = this.store.unreadable()
    if (unreadable.length === 0) return
    const one = unreadable.length === 1
    const list = unreadable.map((u) => `${u.where} (written ${new Date(u.writtenAt).toISOString()})`).join(', ')
    throw new JournalUnreadableError(
      `Not ordering ${method} ${path}: the order journal of ${this.store.scope} holds ${one ? 'an entry' : 'entries'} it cannot ` +
        `read: ${list}. A disk fault or a power loss cut ${one ? 'it' : 'them'} short, or ${one ? 'it was' : 'they were'} ` +
        `edited by hand. ${one ? 'It' : 'Each'} may record an order sent by a run that stopped, whose outcome is not known, so ` +
        'ordering now could place a second one. Look in the service for an order placed around that time that no state ' +
        `holds (import it: terraform import <address> <id>, or pulumi import), then delete the ${one ? 'file' : 'files'} and apply again.`,
    )
  }

  /**
   * Whether an entry that shows no hand-over (`sent`, `answered`) truly reached no engine. Where owners
   * can lose their entries while they run (a database), an answer goes to no engine unless its mark was
   * written (deliver, Orders.recordAnswer); a directory's owner hands it over even when that write
   * fails (a full disk must not cost the id), so there such an entry may be in a state, and only a
   * create of its own intent (whose state then holds it and asks for nothing) takes it over.
   */
  private get marksEveryHandOver(): boolean {
    return this.store.ownershipLapses
  }

  /** Whether this owner can lose its entries while it runs (see JournalStore.ownershipLapses). */
  get ownershipLapses(): boolean {
    return this.store.ownershipLapses
  }

  /** Writes an entry this owner holds; false when another process has taken it over since (see JournalStore.writeOwned). */
  async writeOwned(entry: JournalEntry): Promise<boolean> {
    const kept = await this.store.writeOwned(entry)
    // A create answered: the other directories of this machine know its account as this process's from
    // now (it may wait minutes for Active before it hands the account over), and as nobody's if it dies.
    if (kept && entry.state === 'answered' && entry.creates === true && entry.accountId !== undefined) {
      this.index?.handedOver(entry.service, entry.accountId, this.owner)
    }
    return kept
  }

  /**
   * This owner could not confirm that an answered entry is still its own, so its operation hands the
   * answer to no engine: the entry is never marked delivered by this owner, and whoever holds it (the
   * runner that took it over, or the next run once this one is gone) hands the account over.
   */
  withhold(entry: JournalEntry): void {
    this.held.delete(entry.id)
    this.withheld.add(entry.id)
  }

  /**
   * The engine gets the outcome (called just before it does): the entry is not taken over while this
   * process lives, and its account counts as managed. It stays unsettled until `engineClosed` or
   * `accountInState` says it is kept. Throws, and the outcome must not go out, when an answered
   * entry turns out to be another runner's now.
   */
  async deliver(entry: JournalEntry): Promise<void> {
    this.held.delete(entry.id)
    if (this.withheld.has(entry.id)) return
    // The engine this process serves is gone (killed while the operation waited): the outcome reaches no
    // state, so the answer stays for the next run to take over rather than counting as handed over.
    if (entry.state === 'answered' && this.engineGone()) return
    if (entry.state === 'answered' || entry.state === 'failed') {
      const answered = entry.state === 'answered' && entry.accountId !== undefined
      entry.state = entry.state === 'failed' ? 'settled' : 'delivered'
      let kept: boolean
      try {
        kept = await this.store.writeOwned(entry)
      } catch (error) {
        // A directory's owner keeps its entries: a failed write only loses the mark. Where owners can
        // lose entries while they run, this one cannot tell whether another runner has it now.
        if (!answered || !this.store.ownershipLapses) return
        entry.state = 'answered'
        throw this.notHandedOver(
          entry,
          `could not be reached to confirm that this run still holds the order (${error instanceof Error ? error.message : String(error)})`,
          error,
        )
      }
      if (!kept) {
        entry.state = 'answered'
        // Another runner took the entry over while this one waited (a database session that ended
        // made this run look gone): the account is that runner's to hand over, never both.
        if (answered) throw this.notHandedOver(entry, 'shows that another runner took this order over while this run waited for it')
        return
      }
    }
    if (entry.state === 'delivered') {
      this.handedOver.add(entry.id)
      if (entry.accountId !== undefined) this.index?.handedOver(entry.service, entry.accountId, this.owner)
    }
  }

  /** The error of an operation whose answered order may no longer be handed to its engine (see deliver). */
  private notHandedOver(entry: JournalEntry, why: string, cause?: unknown): OrderUnresolvedError {
    return new OrderUnresolvedError(
      `${entry.method} ${entry.path} was answered with account ${entry.accountId}, but the order journal at ${this.where} ${why}: ` +
        'this run does not hand the account over, since one account in two states would be destroyed by either. If no other ' +
        `run finished it, the next apply from ${this.scope} takes the order over with its Idempotency-Key ${entry.key} and hands ` +
        `account ${entry.accountId} over once, without ordering again.`,
      { context: { method: entry.method, path: entry.path, accountId: entry.accountId }, idempotencyKey: entry.key },
      cause === undefined ? undefined : { cause },
    )
  }

  /**
   * A create a stopped run left unanswered, whose window for an account of its own has passed with
   * none (Orders.awaitEarlierOutcome), and whose candidates (JournalEntry.candidates, the accounts its
   * stop named) a state has all named since: imported as the stop said, they are accounted for, and
   * so is the order. It is settled, and the operation that took it over orders anew. Never an entry
   * with an answer: that one's account is its own.
   */
  async accountedFor(entry: JournalEntry): Promise<boolean> {
    if (!(await this.candidatesNamed(entry))) return false
    entry.state = 'settled'
    // Still this owner's (a shared database may have handed it to another runner, which may have
    // adopted its account meanwhile): otherwise it is left as that runner has it, and nothing is ordered.
    if (!(await this.store.writeOwned(entry))) {
      entry.state = 'sent'
      return false
    }
    this.held.delete(entry.id)
    return true
  }

  /** Whether `entry` is an unanswered create whose candidates (JournalEntry.candidates) a state has all named (see accountedFor). */
  async candidatesNamed(entry: JournalEntry): Promise<boolean> {
    const candidates = entry.candidates ?? []
    if (candidates.length === 0 || entry.state !== 'sent' || entry.accountId !== undefined) return false
    const known = await this.knownAccounts()
    return candidates.every((id) => known.has(id))
  }

  /** An operation lets go of an entry without handing its outcome over (taking it over failed). */
  letGo(entry: JournalEntry): void {
    this.held.delete(entry.id)
  }

  /**
   * The account was deleted (or found gone): no entry that names it is ever taken over again, an
   * unanswered order on it included.
   */
  async accountGone(accountId: string): Promise<void> {
    // An order on it that another run sent since this one looked at every entry stays open: it is
    // another run's own, and the next run settles it (see Completeness).
    for (const entry of await this.entries({ accountId }, 'known')) {
      if (entry.state === 'settled' && entry.unconfirmed !== true) continue
      entry.state = 'settled'
      delete entry.unconfirmed
      await this.store.write(entry)
    }
  }

  /**
   * A state names this account (a refresh, a plan or update of it, an import): the order that made
   * it, once handed over, is kept, and is never taken over again; so is a create's answer that a
   * killed run never handed over, now imported. An order on it that was never handed over (a package
   * change or migration cut short) stays open for the run that resumes it. An account no entry names
   * (a fresh workspace, an import) is recorded, so that this journal's later runs know it as managed
   * (knownAccounts).
   */
  async accountInState(accountId: string): Promise<void> {
    // Every read of a resource asks, so this is answered from the entries this process knows, each as
    // stored now: one another run wrote since this one looked at them all stays unsettled until the
    // next run's read (see Completeness), which changes nothing that is ordered.
    const entries = await this.entries({ accountId }, 'known')
    for (const entry of entries) {
      const imported = entry.state === 'answered' && entry.creates === true && (await this.ownerGone(entry.owner))
      if (entry.state !== 'delivered' && entry.unconfirmed !== true && !imported) continue
      entry.state = 'settled'
      delete entry.unconfirmed
      await this.store.write(entry)
    }
    const service = entries.find((e) => e.service !== '')?.service
    if (service !== undefined) this.index?.add(service, accountId)
    if (entries.length === 0) {
      await this.store.write({
        v: 1,
        id: randomUUID(),
        fingerprint: '',
        service: '',
        key: '',
        method: '',
        path: '',
        sentAt: this.now(),
        state: 'settled',
        accountId,
      })
    }
  }

  /**
   * The engine closed this process gracefully after its run: every outcome it was handed is kept. One
   * that `saved` (the accounts a state the engine already saved names, read only when there is one to
   * settle) lists is confirmed; the others stay unconfirmed until a state names them (lostHandovers).
   */
  async engineClosed(saved?: () => ReadonlySet<string>): Promise<void> {
    let named: ReadonlySet<string> | undefined
    for (const entry of await this.entries()) {
      if (entry.state !== 'delivered' || entry.owner?.token !== this.owner.token || !this.handedOver.has(entry.id)) continue
      entry.state = 'settled'
      named ??= saved?.() ?? new Set()
      if (entry.accountId === undefined || !named.has(entry.accountId)) entry.unconfirmed = true
      await this.store.write(entry)
      if (entry.accountId !== undefined) this.index?.add(entry.service, entry.accountId)
    }
  }

  /**
   * Marks an order this process holds whose outcome only a listing can tell from now on: its request
   * got no clear answer and is not sent again, or a stopped run sent it (see settledBy).
   */
  settlesByListing(entry: JournalEntry): void {
    this.listed.add(entry.id)
    // Kept with the entry (the caller writes it): another process's twin reads it (see settledBy).
    entry.listedBy = this.owner.token
  }

  /**
   * How an unanswered order's outcome can still be told: `listing` when no answer to its request can
   * reach anybody any more (marked so by this process or by the live process that holds it,
   * settlesByListing, or sent by a process that is gone and held by none since); `answer here` when
   * this process holds it otherwise (its request may still be answered, naming its account); `answer
   * elsewhere` when another live process holds it unmarked.
   */
  async settledBy(entry: JournalEntry): Promise<'listing' | 'answer here' | 'answer elsewhere'> {
    if (this.listed.has(entry.id)) return 'listing'
    if (entry.owner?.token === this.owner.token) return 'answer here'
    // Another process holds it and settles it by listing (two Pulumi providers of one configuration are two processes).
    if (entry.listedBy !== undefined && entry.listedBy === entry.owner?.token) return 'listing'
    return (await this.ownerGone(entry.owner)) ? 'listing' : 'answer elsewhere'
  }

  /**
   * Other orders of the same call still without an answer (a concurrent operation's, or a killed
   * run's, within the key's window) that may have made the same account: while one exists, a new
   * account that matches an order cannot be told to be this order's rather than that one's. One whose
   * account would show other values (`shows`: another name, product or OS) cannot have made it, nor can
   * an order to another service (the journal of a directory may hold orders to several).
   */
  async unresolvedBeside(
    entry: JournalEntry | undefined,
    service: string,
    method: string,
    path: string,
    shows?: string,
  ): Promise<JournalEntry[]> {
    const now = this.now()
    return (await this.entries()).filter(
      (e) =>
        e.id !== entry?.id &&
        e.service === service &&
        e.state === 'sent' &&
        e.method === method &&
        e.path === path &&
        now - e.sentAt < JOURNAL_REUSE_MS &&
        (shows === undefined || e.shows === undefined || e.shows === shows),
    )
  }

  /**
   * Changes of this very call (the same method and path: the same account) of another intent that
   * stopped runs sent and never saw answered, within their keys' window: such an order may still be
   * processed, or may have been placed after the state a new change was planned from showed it. Only
   * those that start from the values `change` starts from (either unknown: yes): a change planned from
   * other values was planned from a state that moved since, as it does once that order shows in it.
   */
  async unansweredChangesOfCall(
    intent: Intent,
    change: string | undefined,
    service: string,
    method: string,
    path: string,
  ): Promise<JournalEntry[]> {
    const now = this.now()
    const [current, ...earlier] = fingerprintsOf(intent)
    // What claim would take over (see ofIntent): an earlier fingerprint only on an entry of an earlier version.
    const ownEntry = (e: JournalEntry) => entryIntent(e) === current || (e.scheme === undefined && earlier.includes(e.fingerprint))
    const out: JournalEntry[] = []
    for (const e of await this.entries()) {
      if (e.service !== service || e.method !== method || e.path !== path || e.creates === true || ownEntry(e)) continue
      if (e.state !== 'sent' || !stillOpen(e, now) || this.ownRun.has(e.id) || !sameStart(e.change, change)) continue
      // This process's own, of an earlier run it served (see ownRun), held or not: that run stopped before it saw the answer.
      if (e.owner?.token === this.owner.token || (await this.ownerGone(e.owner))) out.push(e)
    }
    return out
  }

  /** Closes stopped runs' changes whose outcome is known to be in effect now (see unansweredChangesOfCall). */
  async closeChanges(entries: readonly JournalEntry[]): Promise<void> {
    for (const e of entries) {
      e.state = 'settled'
      await this.store.write(e)
    }
  }

  /**
   * A change or action on an account (`entry`, not a create) was answered: earlier entries of the same
   * call (method and path) that runs now gone left open are past. The change was planned from a state
   * that already shows whatever they did, or they never took effect; either way none is the one a later
   * request of the same call resumes. Left open, the next identical request (a package changed back
   * and then forth again) would be answered from one of them and never sent.
   */
  async supersede(entry: JournalEntry): Promise<void> {
    const now = this.now()
    for (const e of await this.entries()) {
      // The same call on the same service: another service (staging beside production) may use the same ids.
      if (e.id === entry.id || e.service !== entry.service || e.method !== entry.method || e.path !== entry.path) continue
      if (e.creates === true || e.sentAt > entry.sentAt) continue
      if (!stillOpen(e, now) || this.held.has(e.id)) continue
      if (e.owner?.token !== this.owner.token && !(await this.ownerGone(e.owner))) continue
      e.state = 'settled'
      await this.store.write(e)
    }
  }

  /** Accounts some run of this journal ordered (answered, delivered or settled): never adopted as "new". */
  async knownAccounts(): Promise<Set<string>> {
    const ids = new Set<string>()
    for (const e of await this.entries()) if (e.accountId !== undefined) ids.add(e.accountId)
    return ids
  }

  /**
   * Accounts that orders of this intent made and handed to the engine of another run, and that no
   * state has named since: the engine closed the provider after it (Terraform saves its state after
   * that close), or the provider died before any state named it (Terraform persists a remote state
   * only now and then). The state that held them may have been lost before it was saved, or they were
   * removed from it on purpose; neither is a reason to order the same again, and neither lets this
   * run take the account (it may be in that state). Orders of this very run are left out: this journal's
   * own (see ownRun), and those another provider process of the same engine (two aliases of one
   * provider) handed to this run. An earlier run this same process served (the serve mode) is not this run.
   * With `scoped` (the intent holds the resource's own identity: a Pulumi URN, which names its stack), so
   * is an account handed to another engine that still runs: the same resource of a run of the same stack
   * (one `pulumi cancel` left running), whose state may yet be overwritten by this one's.
   */
  async lostHandovers(intent: Intent, scoped = false): Promise<string[]> {
    const out: string[] = []
    for (const e of await this.ofIntent(intent)) {
      if (e.accountId === undefined || this.ownRun.has(e.id)) continue
      // An earlier run this process served (see ownRun) is another run, whatever engine it shares with this one.
      const earlierHere = e.owner?.token === this.owner.token
      if (!earlierHere && e.owner?.engine !== undefined && e.owner.engine === this.owner.engine) continue
      const handedOver =
        (e.state === 'settled' && e.unconfirmed === true) ||
        (e.state === 'delivered' && (scoped || earlierHere || (await this.ownerGone(e.owner))))
      if (handedOver) out.push(e.accountId)
    }
    return out
  }

  /**
   * Accounts a create of a run that is gone made and never handed to an engine (answered, then
   * killed): no state holds them, and unless a run of the same intent takes the entry over they are
   * paid for and managed by nothing. Every run names them until a state names them or they are gone.
   */
  async orphans(): Promise<JournalEntry[]> {
    const out: JournalEntry[] = []
    for (const e of await this.entries()) {
      if (e.state !== 'answered' || e.creates !== true || e.accountId === undefined || this.held.has(e.id)) continue
      if (!(await this.ofStoppedRun(e))) continue
      out.push(e)
    }
    return out
  }

  /**
   * Creates a run that is gone sent to `service` and never saw answered, within the keys' window, that
   * no run of the same intent has taken over: a re-run of an edited configuration orders anew, and the
   * service may still have made an account for the first order (a slow answer cut off by a kill),
   * billed and in no state. Orders.unmanaged lists their kind (`lists`) to name such an account; a
   * re-run of the same intent takes the entry over as before.
   */
  async unansweredOrphans(service: string): Promise<JournalEntry[]> {
    return this.unansweredOfStoppedRuns(service, (e) => e.creates === true && e.lists !== undefined)
  }

  /**
   * Changes of existing objects (OperationFrame.from: a package, a size) that a stopped run sent and
   * never saw answered, within their key's window, that no operation of this process holds: the service
   * may still apply and bill each, whatever the configuration asks for now (see Orders.unmanaged).
   */
  async unansweredChanges(service: string): Promise<JournalEntry[]> {
    return this.unansweredOfStoppedRuns(service, (e) => e.creates !== true && e.change !== undefined)
  }

  /** The entries of `kind` that a stopped run sent to `service` and never saw answered, within the keys' window, held by no operation here. */
  private async unansweredOfStoppedRuns(service: string, kind: (e: JournalEntry) => boolean): Promise<JournalEntry[]> {
    const now = this.now()
    const out: JournalEntry[] = []
    for (const e of await this.entries()) {
      if (e.state !== 'sent' || e.service !== service || this.held.has(e.id) || !kind(e)) continue
      if (now - e.sentAt >= JOURNAL_REUSE_MS || !(await this.ofStoppedRun(e))) continue
      out.push(e)
    }
    return out
  }

  /**
   * Whether an entry that no operation of this process holds is a stopped run's: its owner is gone, or it is
   * this process's own from an earlier run it served (see ownRun), whose engine's call was gone before the
   * outcome could reach it (Session.receiver).
   */
  private async ofStoppedRun(e: JournalEntry): Promise<boolean> {
    if (e.owner?.token === this.owner.token) return !this.ownRun.has(e.id) && !this.held.has(e.id)
    return this.ownerGone(e.owner)
  }

  /**
   * Accounts of `service` that runs of this user on this machine handed to an engine from other
   * working directories (see known-accounts.ts), and that a state named since, or whose run still goes
   * on or ended gracefully: another configuration's, not a killed run's. One whose run is gone without
   * either may have been lost with a state that was never saved, and is left out.
   */
  async handedOverOnThisMachine(service: string): Promise<ReadonlySet<string>> {
    const out = new Set<string>()
    for (const [id, { handedOverBy }] of this.index?.recorded(service) ?? []) {
      if (handedOverBy === undefined || (handedOverBy !== null && this.aliveHere(handedOverBy))) out.add(id)
    }
    return out
  }

  /**
   * Accounts of `service` that runs on this machine got as answers, or handed over, or that states
   * named, at or after `since` (the per-user index, whatever directory): when `since` is when an order
   * was sent, each is another order's account made meanwhile, never that order's (see
   * Orders.reconcileOnce). Older records are left out: an emulator reset gives their ids out again.
   */
  recordedSince(service: string, since: number): string[] {
    return [...(this.index?.recorded(service) ?? [])].filter(([, { at }]) => at >= since).map(([id]) => id)
  }

  /** This process sends a create of `entry` (again): runs in other directories of this machine see it in flight until it lands. */
  sending(entry: JournalEntry): void {
    if (entry.creates !== true) return
    const order = { owner: this.owner, call: `${entry.method} ${entry.path}`, sentAt: entry.sentAt }
    this.index?.sending(entry.service, entry.id, entry.shows === undefined ? order : { ...order, shows: entry.shows })
  }

  /** The create of `entry` has its outcome in this process, whatever it is (see sending). */
  landed(entry: JournalEntry): void {
    if (entry.creates === true) this.index?.landed(entry.service, entry.id)
  }

  /**
   * Creates of `call` to `service` that runs of other processes on this machine, from any directory,
   * have sent and have no answer to yet, and that may make an account showing `shows` (one with
   * another hash cannot): an account such an order is about to be answered with is no killed run's
   * (see Orders.unrecordedMatches). One whose process is gone is left out: its run may have been killed.
   */
  async ordersInFlightElsewhere(service: string, call: string, shows: string | undefined): Promise<InFlightOrder[]> {
    const out: InFlightOrder[] = []
    for (const order of this.index?.inFlight(service) ?? []) {
      if (order.call !== call || order.owner.token === this.owner.token) continue
      if (shows !== undefined && order.shows !== undefined && order.shows !== shows) continue
      if (this.aliveHere(order.owner)) out.push(order)
    }
    return out
  }

  /** Whether any order or action to this service (a serviceOf hash) is recorded, in whatever state. */
  async hasOrders(service: string): Promise<boolean> {
    return (await this.entries()).some((e) => e.service === service)
  }

  /** Whether this service (a serviceOf hash) was ever seen to echo the Idempotency-Key, per the journal. */
  async honoured(service: string): Promise<boolean> {
    return (await this.entries()).some((e) => e.service === service && e.honoured === true)
  }

  /** Lets go of the store's connections. */
  close(): Promise<void> {
    return this.store.close()
  }
}

// What an order journal is made of, whatever keeps it: its entries, their owners, and the few storage
// operations the journal's rules (journal.ts) need. A directory of files (journal-file.ts) is the
// default; a PostgreSQL table (journal-postgres.ts) serves runners that share no disk.
import { createHash, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/** Entries are kept a little longer than the keys' window, so that an account they name is known as "already managed". */
export const JOURNAL_KEEP_MS = 48 * 3_600_000

/**
 * A create that no state has named yet (`sent`, `answered`, `delivered`, or settled only by a graceful
 * close) is kept this long instead: a run killed on a Friday evening and applied again after the weekend
 * still takes its answer over, or finds out what its unanswered order did, and an answer taken over that
 * late is still known as handed over until a state names it, rather than ordered a second time.
 */
export const UNRESOLVED_KEEP_MS = 14 * 24 * 3_600_000

/** Whether a create is still unresolved: no state has named its account yet (see UNRESOLVED_KEEP_MS). */
export function unresolvedCreate(entry: JournalEntry): boolean {
  if (entry.creates !== true) return false
  return entry.state === 'sent' || entry.state === 'answered' || entry.state === 'delivered' || entry.unconfirmed === true
}

/** Whether an entry is still kept at `now` (JOURNAL_KEEP_MS, or UNRESOLVED_KEEP_MS for an unresolved create). */
export function kept(entry: JournalEntry, now: number): boolean {
  return now - entry.sentAt <= (unresolvedCreate(entry) ? UNRESOLVED_KEEP_MS : JOURNAL_KEEP_MS)
}

/**
 * - `sent`: written before the request; the order may or may not exist.
 * - `answered`: the service answered with the account id; not yet handed to the engine.
 * - `failed`: the service refused it for good (a 4xx); nothing was ordered.
 * - `delivered`: the operation that placed it returned its outcome to the engine, which may still
 *   lose it (Terraform persists state to a remote backend only now and then): not yet settled.
 * - `settled`: the outcome is known to be kept (the engine closed the provider gracefully after its
 *   run, or a later state names the account), or the account was deleted: never taken over again.
 */
export type JournalState = 'sent' | 'answered' | 'failed' | 'delivered' | 'settled'

/** Which process holds an entry: its pid, and a token drawn at its start (a pid can be reused). */
export interface JournalOwner {
  readonly pid: number
  readonly token: string
  /** When the process started, where the system says (Linux): tells a reused pid from its owner. */
  readonly started?: string
  /**
   * The run this process serves: a hash of the host, the parent process (the engine: `terraform`, the
   * Pulumi CLI) and the parent's start time. Two provider processes of one run (two aliases of one
   * provider) share it; a re-run, on this machine or another, does not (see OrderJournal.lostHandovers).
   */
  readonly engine?: string
  /**
   * The engine's pid and start time, where the system says (Linux): a provider whose engine is gone
   * (terraform killed) hands nothing over any more and exits within a second, so on this machine its
   * entries are another run's to take over and name at once (see FileJournalStore.alive).
   */
  readonly enginePid?: number
  readonly engineStarted?: string
}

export interface JournalEntry {
  readonly v: 1
  readonly id: string
  /** Hash of base URL, API key, method, path, body and scope: what identifies the intent. */
  readonly fingerprint: string
  /**
   * The request without the scope, secrets included, as an HMAC keyed by the API key (requestOf): the
   * same request sent under another identity (another workspace or backend setting, or one state
   * configured two ways on two runners). Set when a Terraform create's entry is opened; absent in
   * Pulumi's and in entries of older versions.
   */
  readonly request?: string
  /**
   * A create's twin key (twinOf): the same for identical creates of one state (`count`, identical
   * resources), whichever resource each is for. Twins' unanswered orders make interchangeable accounts,
   * so each may be given any one of them (see Orders.twinShare). Absent in entries of older versions,
   * which are nobody's twins.
   */
  readonly twin?: string
  /**
   * The fingerprint of the intent that took this create over from the identity that opened it (a
   * re-run of the same request under another identity: OrderJournal.claim): the entry counts for that
   * intent from then on, not for the one that opened it (see entryIntent).
   */
  claimedAs?: string
  /** Hash of the base URL: what a service's answers (`honoured`) say something about. */
  readonly service: string
  readonly key: string
  readonly method: string
  readonly path: string
  readonly sentAt: number
  /** When the request was last sent again (a retry), when it was: its outcome may appear until that attempt's deadline. */
  lastAttemptAt?: number
  /**
   * The request timeout its last attempt was sent with: that attempt's deadline, after which (and the
   * service's processing time) no account of its own can appear (Orders.outcomeDeadline). Absent in
   * entries of older versions, where the reading run's own is taken.
   */
  requestTimeoutMs?: number
  /**
   * An order on an existing account: the id of the account's last invoice just before it was sent
   * (null when it had none). An invoice of the order's type with another id is what the account shows
   * once the order is placed (Orders.awaitPlacement). Absent when it could not be read, and in entries
   * of older versions: then nothing tells, and an unanswered order stops.
   */
  invoiceBefore?: number | null
  /**
   * A change of an existing object: what its step changes, each input from the value the engine's state
   * held to the planned one (OperationFrame.from). Another change of the same call that starts from the
   * same values was planned from a state that did not show this one (Orders.awaitStoppedChanges).
   * Absent for creates, actions and entries of older versions.
   */
  change?: string
  state: JournalState
  accountId?: string
  orderId?: string
  /** The service echoed the Idempotency-Key on an answer to this entry's request. */
  honoured?: boolean
  /**
   * Settled because the engine closed the provider after it was handed over, and no state has named
   * the account since: Terraform saves its state after closing the provider, so a kill in between
   * loses it (see OrderJournal.lostHandovers).
   */
  unconfirmed?: true
  /** The process that opened the entry or last took it over; absent in entries of older versions. */
  owner?: JournalOwner
  /**
   * The order makes a new account (a create, a restore), as opposed to an order on an existing one
   * (an upgrade): once answered, its account is in no state until the engine gets it.
   */
  creates?: true
  /**
   * A create's accounts that matched it in the listing taken just before it was sent (see
   * Orders.unrecordedMatches): they existed before the order, so none of them is ever taken for its
   * account, whatever the service's clock says of them.
   */
  existing?: readonly string[]
  /**
   * How the fingerprint was made: 2 once an update's carries the change it makes (IntentParts.from).
   * Such an entry is found by today's fingerprint only; an entry without it (of an earlier version)
   * also by the fingerprints earlier versions wrote (see fingerprints).
   */
  scheme?: 2
  /**
   * A create's hash of what the account it makes shows (Reconcile.shows): two orders with different
   * hashes cannot have made the same account, so one's unanswered order never clouds the other's
   * match (see OrderJournal.unresolvedBeside). Absent in entries of older versions.
   */
  shows?: string
  /**
   * The names of the fields `shows` hashes (Reconcile.showsFields: `product_id`, `cycle`, `description`,
   * `extra_details.<name>`), never their values: what a later run needs to tell which listed account
   * an unanswered create may have made (Orders.unmanaged). Absent in entries of older versions.
   */
  showsFields?: readonly string[]
  /**
   * A create's GET path that lists the accounts of its kind (Reconcile.listPath): what a later run
   * lists to name the account this order may have made if it is never answered (Orders.unmanaged).
   */
  lists?: string
  /**
   * The accounts a run found matching this unanswered create, made after it, when it stopped for the
   * user to import the one that is this order's (Orders.reconcileOnce). Once every one of them is
   * named by a state, the order is accounted for, and the next create of the same intent orders anew
   * instead of waiting for an account of its own (Orders.resume).
   */
  candidates?: readonly string[]
  /**
   * The token of the owner that settles this unanswered order only by a listing (its request got no
   * clear answer, or a stopped run sent it, and it is not sent again): while that owner still holds it,
   * no answer to it can reach anybody, which another process's twin needs to know (see
   * OrderJournal.settledBy). Absent in entries of older versions.
   */
  listedBy?: string
}

/**
 * Narrows a listing: a store may use it to read less; every entry it returns must match it.
 * `fingerprint` and `request` together match an entry that has either (an intent's own entries and
 * those of the same request under other identities, in one look); each alone, an entry with it.
 */
export interface JournalFilter {
  readonly fingerprint?: string
  readonly request?: string
  readonly accountId?: string
}

/**
 * How complete a list must be. `complete`: every entry stored now. `known`: each entry as stored now, but
 * an entry that another process created since this one last looked at them all may be left out. Only for
 * a look that is safe without such an entry: settling the orders of an account a state names, or of one
 * deleted, where what one run leaves unsettled the next settles, and an unsettled order is never ordered
 * again. A store that answers by key (a database) always answers completely.
 */
export type Completeness = 'complete' | 'known'

/**
 * Where a journal's entries live. Every operation may be called by several processes at once (of
 * one machine for a directory, of many for a database); `take` is the one that must be atomic.
 */
export interface JournalStore {
  /** Where the entries are, for messages: a directory, or a database without its password. */
  readonly where: string
  /** Whose runs the journal records, as messages say it: "this working directory", or the runners sharing a database. */
  readonly scope: string
  /** How a user removes one entry by hand, as an instruction: `delete <file>`, or the SQL statement to run. */
  removal(entry: JournalEntry): string
  /** The entries still kept at `now` (see kept; the others may be deleted meanwhile), oldest first. */
  list(now: number, filter?: JournalFilter, completeness?: Completeness): Promise<JournalEntry[]>
  /**
   * The stored entries the last complete `list` could not read (a file cut short by a disk fault or a
   * power loss, or edited by hand), each as a user finds it: what records an order nobody can tell.
   */
  unreadable(): readonly UnreadableEntry[]
  /**
   * Whether an owner that still runs can lose its entries to another process: a database session can
   * end (a network partition) while its process goes on working, and another runner then sees it gone
   * and takes its entries over. A process always sees its own directory, so a directory's cannot.
   */
  readonly ownershipLapses: boolean
  /**
   * Creates or replaces the entry. `durable`: stored so that it outlives a power loss before the promise
   * resolves (the entry written before an order's request leaves); others outlive a killed process only.
   */
  write(entry: JournalEntry, options?: { readonly durable?: boolean }): Promise<void>
  /**
   * Creates or replaces an entry its owner holds, unless another process has taken the stored entry
   * over since: then nothing is written and the answer is false.
   */
  writeOwned(entry: JournalEntry): Promise<boolean>
  /**
   * Makes `to` the entry's owner, if the stored entry still names the owner and state that `entry`
   * names, atomically against other processes trying the same: only one of them gets true.
   * `gone` says whether a process that holds a takeover half done has gone (file stores leave markers).
   */
  take(entry: JournalEntry, to: JournalOwner, gone: (owner: JournalOwner) => Promise<boolean>): Promise<boolean>
  /** Whether the process that owns entries as `owner` still runs (as this store can tell: a pid, a database session). */
  alive(owner: JournalOwner): Promise<boolean>
  /** Lets go of connections; the store is not used afterwards. */
  close(): Promise<void>
}

/** A stored entry that cannot be read (see JournalStore.unreadable). */
export interface UnreadableEntry {
  /** Where it is, for messages: a file's path. */
  readonly where: string
  /** When it was last written (ms), as its storage says. */
  readonly writtenAt: number
}

/** A process's state letter and start time (clock ticks since boot) from Linux /proc; undefined elsewhere or when it is gone. */
function statOf(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may hold spaces: state is field 3, starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', started: fields[19] ?? '' }
  } catch {
    return undefined
  }
}

/** A new owner in this process: its pid and start time, the run it serves, and a token of its own. */
export function newOwner(): JournalOwner {
  const started = statOf(process.pid)?.started
  const engineStarted = statOf(process.ppid)?.started
  return {
    pid: process.pid,
    token: randomUUID(),
    ...(started === undefined ? {} : { started }),
    engine: engineOf(process.ppid),
    enginePid: process.ppid,
    ...(engineStarted === undefined ? {} : { engineStarted }),
  }
}

/** The identity of the run a process with this parent serves (see JournalOwner.engine). */
export function engineOf(parent: number): string {
  const identity = `${hostname()}\0${parent}\0${statOf(parent)?.started ?? ''}`
  return createHash('sha256').update(identity).digest('hex').slice(0, 32)
}

/**
 * Whether a process runs: `kill(pid, 0)` fails with ESRCH when none has that pid (EPERM: it runs as
 * another user). A process that has exited but that its parent has not reaped yet (a zombie, state
 * `Z`, or `X` while it is being reaped) still answers `kill(pid, 0)`: it is gone. A killed Terraform's
 * provider stays a zombie until PID 1 reaps it, forever in a container whose PID 1 reaps nothing.
 * With its start time known, a process that started at another time has reused the pid.
 */
export function processAlive(pid: number, started?: string): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const now = statOf(pid)
  if (now === undefined) return true
  if (now.state === 'Z' || now.state === 'X' || now.state === 'x') return false
  return started === undefined || now.started === started
}

/** Whether an entry matches a filter. */
export function matches(entry: JournalEntry, filter: JournalFilter | undefined): boolean {
  return sameIntent(entry, filter) && (filter?.accountId === undefined || entry.accountId === filter.accountId)
}

/** Whether an entry has the filter's fingerprint or request (see JournalFilter); both are set once, when it is opened. */
export function sameIntent(entry: JournalEntry, filter: JournalFilter | undefined): boolean {
  const { fingerprint, request } = filter ?? {}
  if (fingerprint === undefined && request === undefined) return true
  return (fingerprint !== undefined && entry.fingerprint === fingerprint) || (request !== undefined && entry.request === request)
}

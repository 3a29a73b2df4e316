// The order journal: a local record of every paid order and one-shot destructive action, written
// before the request is sent and updated when it answers, so that a run killed at any point lets the
// next run from the same directory reuse the same Idempotency-Key (or the answer itself).
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The service keeps a key for 24 h (§1.11); an entry is reused only well inside that window. */
export const JOURNAL_REUSE_MS = 23 * 3_600_000
/** Entries are kept a little longer, so that an account they name is known as "already managed". */
const JOURNAL_KEEP_MS = 48 * 3_600_000

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
}

export interface JournalEntry {
  readonly v: 1
  readonly id: string
  /** Hash of base URL, API key, method, path, body and scope: what identifies the intent. */
  readonly fingerprint: string
  /** Hash of the base URL: what a service's answers (`honoured`) say something about. */
  readonly service: string
  readonly key: string
  readonly method: string
  readonly path: string
  readonly sentAt: number
  state: JournalState
  accountId?: string
  orderId?: string
  /** The service echoed the Idempotency-Key on an answer to this entry's request. */
  honoured?: boolean
  /**
   * Settled because the engine closed the provider after it was handed over, and no state has named
   * the account since: Terraform saves its state after closing the provider, so a kill in between
   * loses it (see unconfirmed).
   */
  unconfirmed?: true
  /** The process that opened the entry or last took it over; absent in entries of older versions. */
  owner?: JournalOwner
}

export interface IntentParts {
  readonly baseUrl: string
  readonly apiKey: string
  readonly method: string
  readonly path: string
  readonly body: unknown
  /** What the front end knows identifies the resource (a Pulumi URN); undefined for Terraform. */
  readonly scope: string | undefined
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

/** Secrets (the API key, a console password in the body) enter only as a hash. */
export function fingerprint(parts: IntentParts): string {
  return sha256(
    canonical([parts.baseUrl, sha256(parts.apiKey), parts.method.toUpperCase(), parts.path, parts.body ?? null, parts.scope ?? null]),
  )
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

/** This process, as journal entries name their owner. */
const PROCESS_OWNER: JournalOwner = (() => {
  const started = statOf(process.pid)?.started
  return { pid: process.pid, token: randomUUID(), ...(started === undefined ? {} : { started }) }
})()

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

/** Per owner, shared by every journal object of it: entries its operations hold, and those it handed over. */
const ownerMemory = new Map<string, { held: Set<string>; handedOver: Set<string> }>()

export interface JournalOptions {
  /** Default: this process. */
  readonly owner?: JournalOwner
  /** Default: processAlive. */
  readonly alive?: (pid: number, started?: string) => boolean
}

export interface ClaimOptions {
  /**
   * Also take over a delivered entry that no state has settled, when its owner is gone: for orders
   * that make a new account, whose id the engine may have lost with its unsaved state.
   */
  readonly adoptDelivered?: boolean
}

const TEMPORARY = /^(.+\.json)\.(\d+)\.tmp$/
const TAKE = /^(.+)\.take-(.*)$/

/**
 * One directory, one small JSON file per entry, each replaced atomically (write then rename), so a
 * kill never leaves a half-written entry and several provider processes can share the directory.
 * Every entry names its owner process; another process takes an entry over only once that owner is
 * gone, and only one of several that try at once succeeds (see `take`).
 */
export class OrderJournal {
  readonly owner: JournalOwner
  private readonly alive: (pid: number, started?: string) => boolean
  /** Entries this owner's operations hold: two identical intents never share one. */
  private readonly held: Set<string>
  /** Entries whose outcome this owner handed to its engine: what its graceful shutdown settles. */
  private readonly handedOver: Set<string>

  constructor(
    readonly directory: string,
    private readonly now: () => number,
    options: JournalOptions = {},
  ) {
    this.owner = options.owner ?? PROCESS_OWNER
    this.alive = options.alive ?? processAlive
    const memory = ownerMemory.get(this.owner.token) ?? { held: new Set<string>(), handedOver: new Set<string>() }
    ownerMemory.set(this.owner.token, memory)
    this.held = memory.held
    this.handedOver = memory.handedOver
  }

  fileOf(entry: JournalEntry): string {
    return join(this.directory, `${entry.id}.json`)
  }

  /** Whether the process that owns an entry is gone (an entry of an older version names none). */
  private ownerGone(owner: JournalOwner | undefined): boolean {
    if (owner === undefined) return true
    if (owner.token === this.owner.token) return false
    // Our pid with another token: a process that is gone, whose pid this one reuses.
    return owner.pid === this.owner.pid || !this.alive(owner.pid, owner.started)
  }

  private entries(): JournalEntry[] {
    let names: string[]
    try {
      names = readdirSync(this.directory)
    } catch {
      return []
    }
    const now = this.now()
    const out: JournalEntry[] = []
    for (const name of names) {
      const file = join(this.directory, name)
      const temporary = TEMPORARY.exec(name)
      if (temporary) {
        // A writer killed between write and rename: nobody will ever rename it.
        const pid = Number(temporary[2])
        if (pid !== this.owner.pid && !this.alive(pid)) rmSync(file, { force: true })
        continue
      }
      const take = TAKE.exec(name)
      if (take) {
        // Left by a takeover that was cut short; harmless, and gone with its entry.
        if (!existsSync(join(this.directory, `${take[1]}.json`))) rmSync(file, { force: true })
        continue
      }
      if (!name.endsWith('.json')) continue
      try {
        const entry = JSON.parse(readFileSync(file, 'utf8')) as JournalEntry
        if (entry.v !== 1 || typeof entry.fingerprint !== 'string') continue
        if (now - entry.sentAt > JOURNAL_KEEP_MS) {
          rmSync(file, { force: true })
          continue
        }
        out.push(entry)
      } catch {
        // A file another process is renaming, or not ours: skip it.
      }
    }
    return out.sort((a, b) => a.sentAt - b.sentAt || (a.id < b.id ? -1 : 1))
  }

  /**
   * An entry of this intent to take over instead of ordering again, inside the key's window and held
   * by no operation of this owner, in this order of preference:
   * 1. one never handed to the engine (`sent`, `answered`) that is this owner's, or whose owner is gone;
   * 2. with `adoptDelivered`, a delivered entry no state has settled, whose owner is gone.
   * Identical resources (Terraform `count`) each take their own entry, oldest first.
   */
  claim(fingerprintValue: string, options: ClaimOptions = {}): JournalEntry | undefined {
    const now = this.now()
    const mine = this.entries().filter(
      (e) => e.fingerprint === fingerprintValue && now - e.sentAt < JOURNAL_REUSE_MS && !this.held.has(e.id),
    )
    const open = mine.filter((e) => (e.state === 'sent' || e.state === 'answered') && (e.owner?.token === this.owner.token || this.ownerGone(e.owner)))
    const unsettled = options.adoptDelivered
      ? mine.filter((e) => e.state === 'delivered' && e.accountId !== undefined && this.ownerGone(e.owner))
      : []
    for (const entry of [...open, ...unsettled]) {
      if (this.take(entry)) {
        this.held.add(entry.id)
        return entry
      }
    }
    return undefined
  }

  /**
   * Entries of this intent that another process holds while it still runs, never handed to an engine
   * (`sent`, `answered`): the same order in flight elsewhere (a run whose Terraform was killed while
   * its provider still waits, a concurrent run of another workspace of this directory). Ordering
   * anew beside one could be a second order; the caller waits for it or stops.
   */
  heldElsewhere(fingerprintValue: string): JournalEntry[] {
    const now = this.now()
    return this.entries().filter(
      (e) =>
        e.fingerprint === fingerprintValue &&
        now - e.sentAt < JOURNAL_REUSE_MS &&
        (e.state === 'sent' || e.state === 'answered') &&
        e.owner !== undefined &&
        e.owner.token !== this.owner.token &&
        !this.ownerGone(e.owner),
    )
  }

  /**
   * Makes this owner the entry's owner, atomically against other processes trying the same: a
   * marker `<id>.take-<token of the owner replaced>` is created exclusively, so one of them wins.
   * When the marker's own holder is gone too (killed mid-takeover), the next marker in the chain
   * replaces it. The winner checks that the entry still names the owner it replaces, rewrites it,
   * then removes the markers.
   */
  private take(entry: JournalEntry): boolean {
    if (entry.owner?.token === this.owner.token) return true
    const replaced = entry.owner?.token ?? ''
    const chain: string[] = []
    let token = replaced
    for (let depth = 0; depth < 8; depth++) {
      const marker = join(this.directory, `${entry.id}.take-${token}`)
      try {
        writeFileSync(marker, JSON.stringify(this.owner), { flag: 'wx', mode: 0o600 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false
        let holder: JournalOwner
        try {
          holder = JSON.parse(readFileSync(marker, 'utf8')) as JournalOwner
        } catch {
          holder = { pid: 0, token: `unreadable-${token}` }
        }
        if (!this.ownerGone(holder) && holder.token !== this.owner.token) return false
        chain.push(marker)
        token = holder.token
        continue
      }
      chain.push(marker)
      const current = this.read(entry.id)
      if (current === undefined || (current.owner?.token ?? '') !== replaced || current.state !== entry.state) {
        rmSync(marker, { force: true })
        return false
      }
      entry.owner = this.owner
      this.write(entry)
      for (const done of chain) rmSync(done, { force: true })
      return true
    }
    return false
  }

  private read(id: string): JournalEntry | undefined {
    try {
      return JSON.parse(readFileSync(join(this.directory, `${id}.json`), 'utf8')) as JournalEntry
    } catch {
      return undefined
    }
  }

  /** A new entry, on disk before the request leaves. */
  open(fingerprintValue: string, service: string, key: string, method: string, path: string): JournalEntry {
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
    }
    this.held.add(entry.id)
    this.write(entry)
    return entry
  }

  write(entry: JournalEntry): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    const file = this.fileOf(entry)
    const temporary = `${file}.${this.owner.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(entry)}\n`, { mode: 0o600 })
    renameSync(temporary, file)
  }

  /**
   * The engine has the outcome: the entry is not taken over while this process lives, and its
   * account counts as managed. It stays unsettled until `settleOwn` or `settle` says it is kept.
   */
  release(entry: JournalEntry): void {
    this.held.delete(entry.id)
    if (entry.state === 'answered' || entry.state === 'failed') {
      entry.state = entry.state === 'failed' ? 'settled' : 'delivered'
      this.write(entry)
    }
    if (entry.state === 'delivered') this.handedOver.add(entry.id)
  }

  /** An operation lets go of an entry without handing its outcome over (taking it over failed). */
  drop(entry: JournalEntry): void {
    this.held.delete(entry.id)
  }

  /**
   * The account was deleted (or found gone): no entry that names it is ever taken over again, an
   * unanswered order on it included.
   */
  settle(accountId: string): void {
    for (const entry of this.entries()) {
      if (entry.accountId !== accountId || (entry.state === 'settled' && entry.unconfirmed !== true)) continue
      entry.state = 'settled'
      delete entry.unconfirmed
      this.write(entry)
    }
  }

  /**
   * A state names this account (a refresh, a plan or update of it, an import): the order that made
   * it, once handed over, is kept, and is never taken over again. An order on it that was never
   * handed over (a package change or migration cut short) stays open for the run that resumes it.
   * An account no entry names (a fresh workspace, an import) is recorded, so that this directory's
   * later runs know it as managed (knownAccounts).
   */
  named(accountId: string): void {
    let known = false
    for (const entry of this.entries()) {
      if (entry.accountId !== accountId) continue
      known = true
      if (entry.state !== 'delivered' && entry.unconfirmed !== true) continue
      entry.state = 'settled'
      delete entry.unconfirmed
      this.write(entry)
    }
    if (!known) {
      this.write({ v: 1, id: randomUUID(), fingerprint: '', service: '', key: '', method: '', path: '', sentAt: this.now(), state: 'settled', accountId })
    }
  }

  /** The engine closed this process gracefully after its run: every outcome it was handed is kept. */
  settleOwn(): void {
    for (const entry of this.entries()) {
      if (entry.state !== 'delivered' || entry.owner?.token !== this.owner.token || !this.handedOver.has(entry.id)) continue
      entry.state = 'settled'
      entry.unconfirmed = true
      this.write(entry)
    }
  }

  /**
   * Other orders of the same call still without an answer (a concurrent operation's, or a killed
   * run's, within the key's window): while one exists, a new account that matches an order cannot be
   * told to be this order's rather than that one's.
   */
  unresolvedBeside(entry: JournalEntry | undefined, method: string, path: string): number {
    const now = this.now()
    return this.entries().filter(
      (e) => e.id !== entry?.id && e.state === 'sent' && e.method === method && e.path === path && now - e.sentAt < JOURNAL_REUSE_MS,
    ).length
  }

  /** Accounts some run of this directory ordered (answered, delivered or settled): never adopted as "new". */
  knownAccounts(): Set<string> {
    const ids = new Set<string>()
    for (const e of this.entries()) if (e.accountId !== undefined) ids.add(e.accountId)
    return ids
  }

  /**
   * Accounts that orders of this intent made and handed to an engine that then closed the provider,
   * and that no state has named since: the state that held them may have been lost before it was
   * saved, or they were removed from it on purpose. Neither is a reason to order the same again.
   */
  unconfirmed(fingerprintValue: string): string[] {
    return this.entries()
      .filter((e) => e.fingerprint === fingerprintValue && e.unconfirmed === true && e.accountId !== undefined)
      .map((e) => e.accountId as string)
  }

  /** Whether any order or action to this service (a serviceOf hash) is recorded, in whatever state. */
  hasOrders(service: string): boolean {
    return this.entries().some((e) => e.service === service)
  }

  /** Whether this service (a serviceOf hash) was ever seen to echo the Idempotency-Key, per the journal. */
  honoured(service: string): boolean {
    return this.entries().some((e) => e.service === service && e.honoured === true)
  }
}

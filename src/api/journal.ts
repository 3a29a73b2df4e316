// The order journal: a local record of every paid order and one-shot destructive action, written
// before the request is sent and updated when it answers, so that a run killed at any point lets the
// next run from the same directory reuse the same Idempotency-Key (or the answer itself).
import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The service keeps a key for 24 h (§1.11); an entry is reused only well inside that window. */
export const JOURNAL_REUSE_MS = 23 * 3_600_000
/** Entries are kept a little longer, so that an account they name is known as "already managed". */
const JOURNAL_KEEP_MS = 48 * 3_600_000

/**
 * - `sent`: written before the request; the order may or may not exist.
 * - `answered`: the service answered with the account id; not yet handed to the engine.
 * - `failed`: the service refused it for good (a 4xx); nothing was ordered.
 * - `delivered`: the operation that placed it returned its outcome to the engine.
 */
export type JournalState = 'sent' | 'answered' | 'failed' | 'delivered'

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

/**
 * One directory, one small JSON file per entry, each replaced atomically (write then rename), so a
 * kill never leaves a half-written entry and several provider processes can share the directory.
 */
export class OrderJournal {
  /** Entries this process has taken for an operation: two identical intents never share one. */
  private readonly claimed = new Set<string>()

  constructor(
    readonly directory: string,
    private readonly now: () => number,
  ) {}

  fileOf(entry: JournalEntry): string {
    return join(this.directory, `${entry.id}.json`)
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
      if (!name.endsWith('.json')) continue
      const file = join(this.directory, name)
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
   * The oldest entry of this intent that was never handed to the engine and is still inside the
   * key's window, and that no operation of this process holds: a re-run takes over where a killed
   * run stopped. Identical resources (Terraform `count`) each take their own entry, in order.
   */
  claim(fingerprintValue: string): JournalEntry | undefined {
    const now = this.now()
    const found = this.entries().find(
      (e) =>
        e.fingerprint === fingerprintValue &&
        (e.state === 'sent' || e.state === 'answered') &&
        now - e.sentAt < JOURNAL_REUSE_MS &&
        !this.claimed.has(e.id),
    )
    if (found) this.claimed.add(found.id)
    return found
  }

  /** A new entry, on disk before the request leaves. */
  open(fingerprintValue: string, service: string, key: string, method: string, path: string): JournalEntry {
    const entry: JournalEntry = { v: 1, id: randomUUID(), fingerprint: fingerprintValue, service, key, method, path, sentAt: this.now(), state: 'sent' }
    this.claimed.add(entry.id)
    this.write(entry)
    return entry
  }

  write(entry: JournalEntry): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    const file = this.fileOf(entry)
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(entry)}\n`, { mode: 0o600 })
    renameSync(temporary, file)
  }

  /** The engine has the outcome: the entry is never reused, and its account counts as managed. */
  release(entry: JournalEntry): void {
    this.claimed.delete(entry.id)
    if (entry.state === 'answered' || entry.state === 'failed') {
      entry.state = 'delivered'
      this.write(entry)
    }
  }

  /** The account was deleted: no entry that names it may ever be taken over again. */
  releaseAccount(accountId: string): void {
    for (const entry of this.entries()) {
      if (entry.accountId !== accountId || entry.state === 'delivered') continue
      entry.state = 'delivered'
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

  /** Accounts some run of this directory ordered (answered or delivered): never adopted as "new". */
  knownAccounts(): Set<string> {
    const ids = new Set<string>()
    for (const e of this.entries()) if (e.accountId !== undefined) ids.add(e.accountId)
    return ids
  }

  /** Whether this service (a serviceOf hash) was ever seen to echo the Idempotency-Key, per the journal. */
  honoured(service: string): boolean {
    return this.entries().some((e) => e.service === service && e.honoured === true)
  }
}

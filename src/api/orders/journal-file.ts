// The order journal in a directory: one small JSON file per entry, each replaced atomically (write
// then rename), so a kill never leaves a half-written entry and the provider processes of one
// machine can share the directory. Owners are told alive by their pid (processAlive).
//
// Every read of a resource asks the journal about its account, so what was read is kept in memory: the
// whole listing for as long as the directory's modification time shows that no process has written since
// (every write is a rename into it, which changes that time), and each entry for as long as its file's
// time is the same. A refresh of N resources reads each file about once, not N times, and a plan that
// writes as it goes (settling what the last apply handed over) looks at the files' times, not their
// contents. A look that may miss what other processes created since (Completeness `known`) looks only at
// the files this process knows to name the account, so that its cost does not grow with the journal.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import {
  type Completeness,
  type JournalEntry,
  type JournalFilter,
  type JournalOwner,
  type JournalStore,
  kept,
  matches,
  sameIntent,
  processAlive,
  UNRESOLVED_KEEP_MS,
  type UnreadableEntry,
} from './journal-store.js'

const TEMPORARY = /^(.+\.json)\.(\d+)\.tmp$/
const TAKE = /^(.+)\.take-(.*)$/

/**
 * A modification time has the granularity of the kernel's clock tick (a few ms): two writes in one tick
 * leave the same time. What was read is trusted later only if its directory or file had been quiet this
 * long when it was read, so that any write after it shows as a newer time.
 */
const QUIET_NS = 200_000_000n

/** The entries as last read whole, and the directory's modification time (ns) just before. */
interface Listing {
  readonly changed: bigint
  readonly entries: readonly JournalEntry[]
}

/** An entry file's content as this process read or wrote it, and the file's modification time (ns) then. */
interface KnownFile {
  readonly changed: bigint
  readonly entry: JournalEntry
}

/** Whether an entry may match the filter now or after a rewrite: an answer sets the account, once. */
function mayCome(entry: JournalEntry, filter: JournalFilter): boolean {
  return (
    sameIntent(entry, filter) && (filter.accountId === undefined || entry.accountId === undefined || entry.accountId === filter.accountId)
  )
}

/** The order a list is answered in: oldest first, then by id. */
function oldestFirst(a: JournalEntry, b: JournalEntry): number {
  return a.sentAt - b.sentAt || (a.id < b.id ? -1 : 1)
}

/** An entry file's content as an entry of some version of the format, or undefined when it is none (cut short, or not JSON). */
function parsedEntry(text: string): JournalEntry | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const entry = value as Partial<JournalEntry> | null
  if (typeof entry !== 'object' || entry === null || typeof entry.v !== 'number') return undefined
  return entry.v === 1 && typeof entry.fingerprint !== 'string' ? undefined : (entry as JournalEntry)
}

/** Flushes a directory's entries (a rename into it) to disk; where a directory cannot be opened to flush (Windows), the rename stands as written. */
function flushDirectory(directory: string): void {
  let fd: number
  try {
    fd = openSync(directory, 'r')
  } catch {
    return
  }
  try {
    fsyncSync(fd)
  } catch {
    // Some file systems refuse to flush a directory (EINVAL): their renames are as durable as they get.
  } finally {
    closeSync(fd)
  }
}

/**
 * Whether the process `owner` names runs on this machine, as `self` sees it. Our pid with another
 * token: another owner of this very process when it started at the same time (two clients with
 * sessions of their own), else a process that is gone, whose pid this one reuses. A provider whose
 * engine is gone hands nothing over any more and is about to exit: gone already.
 */
export function ownerAliveHere(
  self: JournalOwner,
  owner: JournalOwner,
  pidAlive: (pid: number, started?: string) => boolean = processAlive,
): boolean {
  if (owner.pid === self.pid) return owner.started !== undefined && owner.started === self.started
  if (owner.enginePid !== undefined && owner.enginePid > 1 && !pidAlive(owner.enginePid, owner.engineStarted)) return false
  return pidAlive(owner.pid, owner.started)
}

export class FileJournalStore implements JournalStore {
  constructor(
    readonly directory: string,
    /** Who uses this store: an entry of another owner with its pid is a gone process's, unless it started when this one did. */
    private readonly self: JournalOwner,
    private readonly pidAlive: (pid: number, started?: string) => boolean = processAlive,
  ) {}

  get where(): string {
    return this.directory
  }

  readonly scope = 'this working directory'
  readonly ownershipLapses = false

  private fileOf(id: string): string {
    return join(this.directory, `${id}.json`)
  }

  removal(entry: JournalEntry): string {
    return `delete ${this.fileOf(entry.id)}`
  }

  async alive(owner: JournalOwner): Promise<boolean> {
    return this.aliveNow(owner)
  }

  private aliveNow(owner: JournalOwner): boolean {
    return ownerAliveHere(this.self, owner, this.pidAlive)
  }

  /** The last whole listing, while the directory's time says nobody wrote since (see QUIET_NS). */
  private listing: Listing | undefined
  /** Entry files by name whose content is known for as long as their time is the same (see QUIET_NS). */
  private readonly files = new Map<string, KnownFile>()
  /** Whether this process has read the directory's names since it was last found missing. */
  private listed = false
  /** The entry files seen or written here, and the account each one's entry names (set once, never changed). */
  private readonly accountOf = new Map<string, string | undefined>()
  /** The same, by account. */
  private readonly byAccount = new Map<string, Set<string>>()
  /** The entry files seen or written here whose entry named no account yet (an order still unanswered). */
  private readonly unaccounted = new Set<string>()
  /** The entry files whose content is no entry (see unreadable), and their time (ms). */
  private readonly unreadableFiles = new Map<string, number>()

  unreadable(): readonly UnreadableEntry[] {
    return [...this.unreadableFiles].map(([name, writtenAt]) => ({ where: join(this.directory, name), writtenAt }))
  }

  async list(now: number, filter?: JournalFilter, completeness: Completeness = 'complete'): Promise<JournalEntry[]> {
    const out: JournalEntry[] = []
    for (const entry of this.current(now, filter, completeness)) {
      if (kept(entry, now) && matches(entry, filter)) out.push(structuredClone(entry))
    }
    return out
  }

  /**
   * The entries that may match `filter` (every entry without one): from memory while the directory is
   * unchanged since it was last read whole; for a `known` look at an account, from the files this process
   * knows to name it (see readKnown); else from the files, looking only at those that may match.
   */
  private current(now: number, filter: JournalFilter | undefined, completeness: Completeness): readonly JournalEntry[] {
    const readAt = BigInt(Date.now()) * 1_000_000n
    const changed = statSync(this.directory, { bigint: true, throwIfNoEntry: false })?.mtimeNs
    if (changed === undefined) {
      this.forgetAll()
      return []
    }
    if (this.listing !== undefined && this.listing.changed === changed) return this.listing.entries
    if (completeness === 'known' && filter?.accountId !== undefined && this.listed) return this.readKnown(now, readAt, filter.accountId)
    // A first look reads everything, so that the listing can serve the next ones.
    if (filter !== undefined && this.files.size > 0) return this.readAll(now, readAt, filter)
    const entries = this.readAll(now, readAt, undefined)
    // A directory written within the last tick or so may be written again with the same time: such a
    // listing is used once and read again next time.
    this.listing = readAt - changed > QUIET_NS ? { changed, entries } : undefined
    return entries
  }

  /**
   * The entries of the files that may match `filter` (all without one), reading only those whose time
   * changed since they were read or written here; removes what a killed writer or takeover left and what
   * has expired. A known entry for another intent, or answered with another account, cannot come to match
   * (neither changes once set) and is not looked at.
   */
  private readAll(now: number, readAt: bigint, filter: JournalFilter | undefined): JournalEntry[] {
    let names: string[]
    try {
      names = readdirSync(this.directory)
    } catch {
      this.forgetAll()
      return []
    }
    const out: JournalEntry[] = []
    const present = new Set(names)
    for (const name of [...this.accountOf.keys()]) if (!present.has(name)) this.forget(name)
    for (const name of [...this.unreadableFiles.keys()]) if (!present.has(name)) this.unreadableFiles.delete(name)
    this.listed = true
    for (const name of names) {
      if (!name.endsWith('.json')) {
        this.removeLeftover(name)
        continue
      }
      const known = this.files.get(name)?.entry
      if (filter !== undefined && known !== undefined && !mayCome(known, filter)) continue
      const entry = this.liveEntry(name, now, readAt)
      if (entry !== undefined) out.push(entry)
    }
    return out.sort(oldestFirst)
  }

  /**
   * The entry of a file as stored now, unless it is gone, not an entry, or expired (then removed); a
   * file another process is renaming, or one that is not ours, is skipped, and read again next time.
   */
  private liveEntry(name: string, now: number, readAt: bigint): JournalEntry | undefined {
    const file = join(this.directory, name)
    try {
      const entry = this.entryOf(name, file, readAt)
      if (entry !== undefined && kept(entry, now)) return entry
      if (entry !== undefined) rmSync(file, { force: true })
      this.forget(name)
    } catch {
      // See above.
    }
    return undefined
  }

  /**
   * The entries naming `accountId` among the files this process has seen or written, each as stored now,
   * with those still naming no account (an answer may give them this one): what other processes created
   * since the last whole listing is not looked for (Completeness `known`).
   */
  private readKnown(now: number, readAt: bigint, accountId: string): JournalEntry[] {
    const out: JournalEntry[] = []
    for (const name of [...(this.byAccount.get(accountId) ?? []), ...this.unaccounted]) {
      const entry = this.liveEntry(name, now, readAt)
      if (entry !== undefined) out.push(entry)
    }
    return out.sort(oldestFirst)
  }

  /** Indexes a file by the account its entry names, as just read or written. */
  private noteAccount(name: string, entry: JournalEntry): void {
    const account = entry.accountId
    if (this.accountOf.get(name) === account && this.accountOf.has(name)) return
    this.forget(name)
    this.accountOf.set(name, account)
    if (account === undefined) {
      this.unaccounted.add(name)
      return
    }
    const names = this.byAccount.get(account)
    if (names === undefined) this.byAccount.set(account, new Set([name]))
    else names.add(name)
  }

  /** Drops what is known of a file that is gone. */
  private forget(name: string): void {
    const account = this.accountOf.get(name)
    this.accountOf.delete(name)
    this.files.delete(name)
    this.unaccounted.delete(name)
    if (account === undefined) return
    const names = this.byAccount.get(account)
    names?.delete(name)
    if (names?.size === 0) this.byAccount.delete(account)
  }

  /** Drops everything known of the directory (found missing or unreadable). */
  private forgetAll(): void {
    this.listing = undefined
    this.listed = false
    this.files.clear()
    this.accountOf.clear()
    this.byAccount.clear()
    this.unaccounted.clear()
  }

  /** Removes what a writer killed before its rename, or a takeover cut short, left behind. */
  private removeLeftover(name: string): void {
    const file = join(this.directory, name)
    const temporary = TEMPORARY.exec(name)
    if (temporary) {
      // A writer killed between write and rename: nobody will ever rename it.
      const pid = Number(temporary[2])
      if (pid !== this.self.pid && !this.pidAlive(pid)) rmSync(file, { force: true })
      return
    }
    const take = TAKE.exec(name)
    // Left by a takeover that was cut short; harmless, and gone with its entry.
    if (take && !existsSync(join(this.directory, `${take[1]}.json`))) rmSync(file, { force: true })
  }

  /**
   * A file's entry: as known while its time is the same, else read (and known from now if it was quiet).
   * A file whose content is no entry is noted as unreadable (see JournalStore.unreadable) until it is
   * gone, rewritten, or as old as the oldest entry kept; one of another version of the format is skipped.
   */
  private entryOf(name: string, file: string, readAt: bigint): JournalEntry | undefined {
    // The time first: a file replaced between this and the read is read again next time.
    const changed = statSync(file, { bigint: true, throwIfNoEntry: false })?.mtimeNs
    this.unreadableFiles.delete(name)
    if (changed === undefined) return undefined
    const known = this.files.get(name)
    if (known !== undefined && known.changed === changed) return known.entry
    const entry = parsedEntry(readFileSync(file, 'utf8'))
    if (entry === undefined) {
      // Its time is the file system's, as `readAt` is: no entry is kept longer than this.
      if (readAt - changed > BigInt(UNRESOLVED_KEEP_MS) * 1_000_000n) rmSync(file, { force: true })
      else this.unreadableFiles.set(name, Number(changed / 1_000_000n))
      return undefined
    }
    if (entry.v !== 1) return undefined
    this.noteAccount(name, entry)
    if (readAt - changed > QUIET_NS) this.files.set(name, { changed, entry })
    else this.files.delete(name)
    return entry
  }

  async write(entry: JournalEntry, options?: { readonly durable?: boolean }): Promise<void> {
    this.writeNow(entry, options?.durable === true)
  }

  /** Only a process found gone loses its entries here, so the check is against a misjudged liveness. */
  async writeOwned(entry: JournalEntry): Promise<boolean> {
    const stored = this.read(entry.id)
    if (stored !== undefined && stored.owner?.token !== entry.owner?.token) return false
    this.writeNow(entry)
    return true
  }

  /**
   * Writes the entry to a temporary file, then renames it over the entry's: a killed process leaves the
   * old entry or the new one. `durable` also flushes the content before the rename and the directory
   * after it, so that a power loss leaves one of the two as well (without, the renamed file could be
   * found empty), at the cost of two disk flushes.
   */
  private writeNow(entry: JournalEntry, durable = false): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    const file = this.fileOf(entry.id)
    const temporary = `${file}.${this.self.pid}.tmp`
    const content = `${JSON.stringify(entry)}\n`
    if (durable) {
      const fd = openSync(temporary, 'w', 0o600)
      try {
        writeSync(fd, content)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    } else {
      writeFileSync(temporary, content, { mode: 0o600 })
    }
    renameSync(temporary, file)
    if (durable) flushDirectory(this.directory)
    // Known as written: its time is the rename's. Only a takeover or a settling by another process
    // writes an entry it does not own, and neither replaces this one within the instant between the
    // rename and this look; a write after it shows as another time.
    const name = `${entry.id}.json`
    this.noteAccount(name, entry)
    const changed = statSync(file, { bigint: true, throwIfNoEntry: false })?.mtimeNs
    if (changed !== undefined) this.files.set(name, { changed, entry: structuredClone(entry) })
  }

  private read(id: string): JournalEntry | undefined {
    try {
      return JSON.parse(readFileSync(this.fileOf(id), 'utf8')) as JournalEntry
    } catch {
      return undefined
    }
  }

  /**
   * A marker `<id>.take-<token of the owner replaced>` is created exclusively, so one taker wins.
   * When the marker's own holder is gone too (killed mid-takeover), the next marker in the chain
   * replaces it. The winner checks that the entry still names the owner it replaces, rewrites it,
   * then removes the markers.
   */
  async take(entry: JournalEntry, to: JournalOwner, gone: (owner: JournalOwner) => Promise<boolean>): Promise<boolean> {
    const replaced = entry.owner?.token ?? ''
    const chain: string[] = []
    let token = replaced
    for (let depth = 0; depth < 8; depth++) {
      const marker = join(this.directory, `${entry.id}.take-${token}`)
      try {
        writeFileSync(marker, JSON.stringify(to), { flag: 'wx', mode: 0o600 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false
        let holder: JournalOwner
        try {
          holder = JSON.parse(readFileSync(marker, 'utf8')) as JournalOwner
        } catch {
          holder = { pid: 0, token: `unreadable-${token}` }
        }
        if (holder.token !== to.token && !(await gone(holder))) return false
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
      entry.owner = to
      this.writeNow(entry)
      for (const done of chain) rmSync(done, { force: true })
      return true
    }
    return false
  }

  async close(): Promise<void> {}
}

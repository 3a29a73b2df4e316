// The order journal in a directory: one small JSON file per entry, each replaced atomically (write
// then rename), so a kill never leaves a half-written entry and the provider processes of one
// machine can share the directory. Owners are told alive by their pid (processAlive).
//
// Every read of a resource asks the journal about its account, so the directory is read whole once and
// kept in memory for as long as the directory's modification time shows that no process has written
// since (every write is a rename into it, which changes that time): a no-op plan of N resources reads
// each file once, not N times.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  JOURNAL_KEEP_MS,
  type JournalEntry,
  type JournalFilter,
  type JournalOwner,
  type JournalStore,
  matches,
  processAlive,
} from './journal-store.js'

const TEMPORARY = /^(.+\.json)\.(\d+)\.tmp$/
const TAKE = /^(.+)\.take-(.*)$/

/**
 * A directory's modification time has the granularity of the kernel's clock tick (a few ms): two
 * writes in one tick leave the same time. A listing is trusted later only if the directory had been
 * quiet this long when it was read, so that any write after it shows as a newer time.
 */
const QUIET_NS = 200_000_000n

/** The entries as last read whole, and the directory's modification time (ns) just before. */
interface Listing {
  readonly changed: bigint
  readonly entries: readonly JournalEntry[]
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
    // Our pid with another token: another owner of this very process when it started at the same time
    // (two clients with sessions of their own), else a process that is gone, whose pid this one reuses.
    if (owner.pid === this.self.pid) return owner.started !== undefined && owner.started === this.self.started
    // A provider whose engine is gone hands nothing over any more and is about to exit: gone already.
    if (owner.enginePid !== undefined && owner.enginePid > 1 && !this.pidAlive(owner.enginePid, owner.engineStarted)) return false
    return this.pidAlive(owner.pid, owner.started)
  }

  /** The last whole listing, while the directory's time says nobody wrote since (see QUIET_NS). */
  private listing: Listing | undefined
  async list(now: number, filter?: JournalFilter): Promise<JournalEntry[]> {
    const entries = this.current(now)
    const out: JournalEntry[] = []
    for (const entry of entries) {
      if (now - entry.sentAt <= JOURNAL_KEEP_MS && matches(entry, filter)) out.push(structuredClone(entry))
    }
    return out
  }

  /** Every entry, from memory while the directory is unchanged since it was last read whole. */
  private current(now: number): readonly JournalEntry[] {
    const readAt = BigInt(Date.now()) * 1_000_000n
    const changed = statSync(this.directory, { bigint: true, throwIfNoEntry: false })?.mtimeNs
    if (changed === undefined) {
      this.listing = undefined
      return []
    }
    if (this.listing !== undefined && this.listing.changed === changed) return this.listing.entries
    const entries = this.readAll(now)
    // A directory written within the last tick or so may be written again with the same time: such a
    // listing is used once and read again next time.
    this.listing = readAt - changed > QUIET_NS ? { changed, entries } : undefined
    return entries
  }

  /** Reads every entry file, removing what a killed writer or takeover left and what has expired. */
  private readAll(now: number): JournalEntry[] {
    let names: string[]
    try {
      names = readdirSync(this.directory)
    } catch {
      return []
    }
    const out: JournalEntry[] = []
    for (const name of names) {
      const file = join(this.directory, name)
      const temporary = TEMPORARY.exec(name)
      if (temporary) {
        // A writer killed between write and rename: nobody will ever rename it.
        const pid = Number(temporary[2])
        if (pid !== this.self.pid && !this.pidAlive(pid)) rmSync(file, { force: true })
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

  async write(entry: JournalEntry): Promise<void> {
    this.writeNow(entry)
  }

  /** Only a process found gone loses its entries here, so the check is against a misjudged liveness. */
  async writeOwned(entry: JournalEntry): Promise<boolean> {
    const stored = this.read(entry.id)
    if (stored !== undefined && stored.owner?.token !== entry.owner?.token) return false
    this.writeNow(entry)
    return true
  }

  private writeNow(entry: JournalEntry): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    const file = this.fileOf(entry.id)
    const temporary = `${file}.${this.self.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(entry)}\n`, { mode: 0o600 })
    renameSync(temporary, file)
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

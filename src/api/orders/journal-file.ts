// The order journal in a directory: one small JSON file per entry, each replaced atomically (write
// then rename), so a kill never leaves a half-written entry and the provider processes of one
// machine can share the directory. Owners are told alive by their pid (processAlive).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
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

  async list(now: number, filter?: JournalFilter): Promise<JournalEntry[]> {
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
        if (matches(entry, filter)) out.push(entry)
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

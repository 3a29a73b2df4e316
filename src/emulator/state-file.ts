// The launcher's state file (--state-file): the state, rewritten atomically after changes, with the changes
// that finish together sharing one write (a group commit), and its request log in a file of its own beside
// it, to which each write appends the entries logged since the last. Each write holds the whole state, so
// a write per change made an apply of N objects cost N whole-state writes: 2,000 keypairs took 16 s of the
// emulator's CPU to create and 29 s to delete, against 3 s and 1 s without a state file. The log, which
// grows with every request whatever the number of objects, was half of each write at 2,000 keypairs.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

/** A file kept beside the state file, named after it: `state.json` and `.snapshots.json` give `state.snapshots.json`. */
export function besideStateFile(stateFile: string, suffix: string): string {
  return `${stateFile.replace(/\.json$/, '')}${suffix}`
}

/** Temp file then rename: a crash mid-write never leaves a torn state file behind. */
export function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}

interface Waiter {
  resolve(): void
  reject(error: unknown): void
}

/**
 * One write for every change committed in the same turn of the event loop. `commit()` resolves once a
 * write that began after the call is on disk, so an answer held until then never promises a change the
 * file lacks; a failed write rejects the commits it was for, and the next commit writes again.
 */
export class GroupCommit {
  #waiting: Waiter[] = []
  #scheduled = false
  /** Writes done so far (for tests and diagnostics). */
  writes = 0

  constructor(
    private readonly write: () => void,
    /** When a scheduled write runs: after the other work of this turn (I/O callbacks and their promises). */
    private readonly defer: (run: () => void) => void = (run) => void setImmediate(run),
  ) {}

  commit(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ resolve, reject })
      if (this.#scheduled) return
      this.#scheduled = true
      this.defer(() => this.flush())
    })
  }

  /** Writes now if any commit waits (a scheduled write then finds nothing to do): at shutdown. */
  flush(): void {
    this.#scheduled = false
    const waiting = this.#waiting
    if (waiting.length === 0) return
    this.#waiting = []
    try {
      this.write()
    } catch (error) {
      for (const waiter of waiting) waiter.reject(error)
      return
    }
    this.writes++
    for (const waiter of waiting) waiter.resolve()
  }
}

/** What a state file needs of the emulator (src/emulator/index.ts's Emulator). */
export interface Persistable {
  snapshotText(options: { log: false }): string
  requestLog(): readonly unknown[]
}

const lines = (entries: readonly unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('')

/**
 * The state file and its request log: `state.json` keeps the state with an empty log, and
 * `state.requests.jsonl` the log, one entry per line, appended to at each write. A crash mid-append leaves
 * at most a torn last line, which the next start drops.
 */
export class StateFile {
  readonly logPath: string
  /** Entries logged since the last write, in the order they were logged. */
  #pending: unknown[] = []
  /** The log the log file holds, up to the pending entries; undefined: the next write rewrites it whole. */
  #written: readonly unknown[] | undefined
  /** Set by load(): the log file can be appended to as it is (no torn line, no log inside the state file). */
  #clean = false

  constructor(readonly path: string) {
    this.logPath = besideStateFile(path, '.requests.jsonl')
  }

  /** Give it to the emulator as `EmulatorOptions.logged`. */
  readonly logged = (entry: unknown): void => {
    this.#pending.push(entry)
  }

  /**
   * The saved state with its whole log, ready for `Emulator.restore`; undefined when there is no state file.
   * The log is the log file's entries with any the state file itself holds (one an earlier emulator wrote,
   * which kept its log inside), by `seq`.
   */
  load(): unknown {
    if (!existsSync(this.path)) return undefined
    const state = JSON.parse(readFileSync(this.path, 'utf8')) as { log?: unknown } | null
    if (state === null || typeof state !== 'object' || Array.isArray(state)) throw new Error('not an emulator state snapshot (version 1)')
    const inside = Array.isArray(state.log) ? (state.log as unknown[]) : []
    const { entries, torn } = existsSync(this.logPath) ? this.#readLog() : { entries: [], torn: false }
    this.#clean = !torn && inside.length === 0
    // Appended as the requests finished, which is not always the order they arrived in (the log's order).
    const bySeq = new Map<number, unknown>()
    for (const entry of [...inside, ...entries]) bySeq.set(Number((entry as { seq?: unknown }).seq), entry)
    const log = [...bySeq.entries()].sort(([a], [b]) => a - b)
    // The log file may hold reads logged after the state's last write: the request sequence (each answer's
    // X-Request-Id) resumes after the last of them, so no id is given twice.
    const seq = (state as { seq?: Record<string, unknown> }).seq
    const last = log.at(-1)?.[0]
    const resumed =
      seq !== undefined && last !== undefined && Number.isFinite(last) && typeof seq.request === 'number' && seq.request <= last
        ? { seq: { ...seq, request: last + 1 } }
        : {}
    return { ...state, ...resumed, log: log.map(([, entry]) => entry) }
  }

  #readLog(): { entries: unknown[]; torn: boolean } {
    const text = readFileSync(this.logPath, 'utf8')
    const parts = text.split('\n')
    // Text after the last newline is a line whose append never finished.
    const torn = parts.pop() !== ''
    const entries = parts.map((line, i) => {
      try {
        return JSON.parse(line) as unknown
      } catch {
        throw new Error(`${this.logPath} line ${i + 1} is not a request log entry (JSON): ${line.slice(0, 80)}`)
      }
    })
    return { entries, torn }
  }

  /** After the restore of what load() gave: the log file needs no rewrite if it held the whole log, intact. */
  started(emulator: Persistable): void {
    this.#pending = []
    this.#written = this.#clean ? emulator.requestLog() : undefined
  }

  /** The log's new entries, then the state: an entry may outlive its change in a crash, never the reverse. */
  write(emulator: Persistable): void {
    this.writeLog(emulator)
    writeAtomically(this.path, emulator.snapshotText({ log: false }))
  }

  /** Appends the entries logged since the last write; rewrites the log file whole if the log was replaced. */
  writeLog(emulator: Persistable): void {
    const log = emulator.requestLog()
    if (log !== this.#written) {
      // A reset, a restore or a clear gave the emulator a new log (or this is the first write after a start
      // that found the file torn or an older state file's log inside it).
      writeAtomically(this.logPath, lines(log))
      this.#written = log
    } else if (this.#pending.length > 0) {
      try {
        appendFileSync(this.logPath, lines(this.#pending))
      } catch (error) {
        // Part of the append may be in the file (a full disk): the next write rewrites it whole.
        this.#written = undefined
        throw error
      }
    }
    this.#pending = []
  }
}

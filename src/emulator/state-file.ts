// The launcher's state file (--state-file): the whole state, rewritten atomically after changes, with
// the changes that finish together sharing one write (a group commit). Each write holds the whole state,
// so a write per change made an apply of N objects cost N whole-state writes: 2,000 keypairs took 16 s
// of the emulator's CPU to create and 29 s to delete, against 3 s and 1 s without a state file.
import { renameSync, writeFileSync } from 'node:fs'

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

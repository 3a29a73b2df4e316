// Named snapshots of the whole emulator state (POST/GET/DELETE /_emulator/snapshots): a clean baseline a
// user or a test can return to. Each one is exactly what `Store.snapshot()` writes (a state file's JSON),
// so a state file of any earlier emulator can be shelved and restored. Kept in memory; the launcher keeps
// them on disk too through the `onChange` hook, which sees the whole shelf before a change is committed.
// Must not: touch the file system (the launcher does) or the live state (the store does).
import { formatDateTime } from './clock.js'
import { HttpError, type Issue, notFound } from './envelope.js'
import { isObject, type Json, type JsonObject } from './json.js'
import type { State } from './model.js'

/** The name rule, one place: file-name safe on every platform the emulator runs on, and short enough to show. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9._-]+$/
export const SNAPSHOT_NAME_MAX = 64

/** The shelf as kept on disk (the launcher's snapshots file): a version, then one entry per name, in name order. */
export interface SnapshotFile {
  version: 1
  snapshots: { name: string; state: State }[]
}

/** Called with the whole shelf as it will be after a save or a delete; throwing cancels the change. */
export type SnapshotKeeper = (file: SnapshotFile) => void

/** A name from the control API, or a 422 naming where it came from and the rule it broke. */
export function snapshotName(value: Json | undefined, loc: readonly string[]): string {
  const bad = (msg: string, type: Issue['type'] = 'value_error') => new HttpError(422, [{ loc: [...loc], msg, type }])
  if (value === undefined) throw bad('field required', 'missing')
  if (typeof value !== 'string') throw bad('must be a string', 'type_error')
  if (value === '') throw bad('must not be empty')
  if (value.length > SNAPSHOT_NAME_MAX) throw bad(`must be at most ${SNAPSHOT_NAME_MAX} characters`)
  if (!SNAPSHOT_NAME.test(value)) throw bad('may only hold the characters A-Z a-z 0-9 . _ -')
  return value
}

/** What a state snapshot must look like to be shelved (the same check `Store.restore` makes). */
function isStateSnapshot(value: unknown): value is State {
  return isObject(value) && (value as { version?: unknown }).version === 1
}

export class SnapshotShelf {
  private readonly shelf = new Map<string, State>()

  constructor(private readonly keep?: SnapshotKeeper) {}

  /** Fills the shelf from a snapshots file read back at start; a malformed file is an error, not an empty shelf. */
  load(file: unknown): void {
    const entries = isObject(file) ? (file as { version?: unknown; snapshots?: unknown }) : undefined
    if (entries?.version !== 1 || !Array.isArray(entries.snapshots)) throw new Error('not an emulator snapshots file (version 1)')
    for (const entry of entries.snapshots as unknown[]) {
      const { name, state } = (isObject(entry) ? entry : {}) as { name?: unknown; state?: unknown }
      if (typeof name !== 'string' || !SNAPSHOT_NAME.test(name) || name.length > SNAPSHOT_NAME_MAX || !isStateSnapshot(state)) {
        throw new Error(`snapshots file: entry ${JSON.stringify(name ?? null)} is not a named state snapshot`)
      }
      this.shelf.set(name, structuredClone(state))
    }
  }

  /** Shelves a copy under `name`, replacing one already there. */
  save(name: string, state: State): JsonObject {
    this.commit(new Map(this.shelf).set(name, structuredClone(state)))
    return summary(name, state)
  }

  /** A copy of the named state, ready for `Store.restore`; 404 when no snapshot has that name. */
  get(name: string): State {
    const state = this.shelf.get(name)
    if (!state) throw notFound(`snapshot ${name} not found`)
    return structuredClone(state)
  }

  delete(name: string): void {
    this.get(name)
    const next = new Map(this.shelf)
    next.delete(name)
    this.commit(next)
  }

  list(): JsonObject[] {
    return [...this.shelf.keys()].sort().map((name) => summary(name, this.shelf.get(name)!))
  }

  summary(name: string): JsonObject {
    return summary(name, this.get(name))
  }

  /** The keeper sees the new shelf first: a failed write leaves memory and disk agreeing. */
  private commit(next: Map<string, State>): void {
    this.keep?.(fileOf(next))
    this.shelf.clear()
    for (const [name, state] of next) this.shelf.set(name, state)
  }
}

function fileOf(shelf: ReadonlyMap<string, State>): SnapshotFile {
  return { version: 1, snapshots: [...shelf.keys()].sort().map((name) => ({ name, state: shelf.get(name)! })) }
}

/** One line of the listing; the counts read arrays a state file of any version 1 emulator has. */
function summary(name: string, state: State): JsonObject {
  const count = (items: unknown) => (Array.isArray(items) ? items.length : 0)
  return {
    name,
    saved_at: typeof state.now === 'number' ? formatDateTime(state.now) : null,
    accounts: count(state.accounts),
    keypairs: count(state.keypairs),
    orders: count(state.orders),
  }
}

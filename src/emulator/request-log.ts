// The request log behind GET /_emulator/requests: entries in arrival order, secrets redacted at any depth,
// the query string as an object, and the cursor that lets a poller fetch only what was logged since its
// last call (`?after=`).
import { randomBytes } from 'node:crypto'
import { isObject, type Json, type JsonObject } from './json.js'
import type { LogEntry, State } from './model.js'

const SENSITIVE = ['password', 'secret', 'token', 'private']

/** Redaction in the request log: any key whose lower-cased name holds a sensitive word, at any depth and in arrays. */
export function redact(value: Json): Json {
  if (Array.isArray(value)) return value.map(redact)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, item] of Object.entries(value)) {
    const lower = key.toLowerCase()
    out[key] = SENSITIVE.some((word) => lower.includes(word)) ? '***' : redact(item)
  }
  return out
}

export function queryObject(query: URLSearchParams): JsonObject {
  const out: JsonObject = {}
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key)
    out[key] = values.length === 1 ? (values[0] ?? '') : values
  }
  return out
}

/**
 * How far each log has been appended to, for `?after=`: every entry appended gets the next number of its
 * log (the order entries were logged in, which is not `seq` order when requests overlap: a slow request
 * is logged after a later one), and each log list a name of its own, so that a cursor of a log since
 * replaced (a clear, a reset, a restore, a restart of the process) is told from one of the log in force.
 * Kept beside the state, never in it (a state file or a snapshot holds no cursor): a cursor is good for
 * the log list and the process that gave it.
 */
interface Tally {
  readonly name: string
  appended: number
}
const PROCESS = randomBytes(6).toString('hex')
let lists = 0
const tallies = new WeakMap<LogEntry[], Tally>()
const places = new WeakMap<LogEntry, number>()

function tallyOf(log: LogEntry[]): Tally {
  let tally = tallies.get(log)
  if (!tally) {
    lists += 1
    tally = { name: `${PROCESS}-${lists}`, appended: 0 }
    tallies.set(log, tally)
  }
  return tally
}

/** Entries finish out of order when requests overlap; the log stays in arrival (`seq`) order. */
export function appendLog(state: State, entry: LogEntry): void {
  const log = state.log
  let i = log.length
  while (i > 0 && (log[i - 1]?.seq ?? 0) > entry.seq) i--
  log.splice(i, 0, entry)
  const tally = tallyOf(log)
  tally.appended += 1
  places.set(entry, tally.appended)
}

/** What `?after=` answers: the cursor to send next time, and the entries logged since `after`, or the whole log. */
export interface LogRead {
  readonly cursor: string
  /** True when `entries` is the whole log: the first call, or a cursor of a log since emptied or replaced. */
  readonly whole: boolean
  readonly entries: LogEntry[]
}

/**
 * The entries logged since the call that gave `after` (in `seq` order, like the log), or the whole log
 * when `after` is not a cursor of the log in force (empty the first time; any other value is taken as
 * one of a log since replaced, so a poller starts over rather than miss anything).
 */
export function logAfter(state: State, after: string): LogRead {
  const tally = tallyOf(state.log)
  const cursor = `${tally.name}.${tally.appended}`
  const dot = after.lastIndexOf('.')
  const seen = /^\d+$/.test(after.slice(dot + 1)) ? Number(after.slice(dot + 1)) : Number.NaN
  if (after.slice(0, dot) !== tally.name || !(seen <= tally.appended)) return { cursor, whole: true, entries: state.log }
  // Entries read back from a file or a snapshot have no number: they were in the log before any cursor of it.
  const entries = seen === tally.appended ? [] : state.log.filter((e) => (places.get(e) ?? 0) > seen)
  return { cursor, whole: false, entries }
}

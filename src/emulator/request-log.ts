// The request log behind GET /_emulator/requests: entries in arrival order, secrets redacted at any depth,
// the query string as an object.
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

/** Entries finish out of order when requests overlap; the log stays in arrival (`seq`) order. */
export function appendLog(state: State, entry: LogEntry): void {
  const log = state.log
  let i = log.length
  while (i > 0 && (log[i - 1]?.seq ?? 0) > entry.seq) i--
  log.splice(i, 0, entry)
}

export function logSince(state: State, since: number | null): LogEntry[] {
  return since === null ? state.log : state.log.filter((e) => e.seq > since)
}

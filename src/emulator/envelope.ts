// The API's error envelope and success envelope, the HttpError a handler throws to answer with one, and
// the DroppedConnection the in-process fetch throws for a `drop_after` fault, and the validator of the
// control API's GET answers.
import { createHash } from 'node:crypto'
import type { Json } from './json.js'

/** One failed check of a 422 (the API's error envelope). */
export interface Issue {
  loc: (string | number)[]
  msg: string
  type: 'missing' | 'type_error' | 'value_error' | 'json_invalid'
}

/** Thrown anywhere in a handler; the pipeline turns it into the API's error envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | Issue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '))
  }
}

export const notFound = (what = 'Not Found') => new HttpError(404, what)
export const conflict = (what: string) => new HttpError(409, what)
export const invalid = (issues: Issue[]) => new HttpError(422, issues)

export function successBody(data: Json): Json {
  return { success: true, code: 200, data }
}

export function errorBody(status: number, detail: string | Issue[]): Json {
  const items = typeof detail === 'string' ? detail : detail.map(({ loc, msg, type }) => ({ loc, msg, type }))
  return { success: false, code: status, detail: items }
}

/**
 * What the emulator reads of a request: a fetch `Request` is one, and the HTTP launcher passes a lighter
 * object of its own (building a `Request` and a `Response` was a quarter of the emulator's CPU per call).
 */
export interface EmulatorRequest {
  readonly method: string
  /** The absolute URL. */
  readonly url: string
  readonly headers: { get(name: string): string | null }
  /** Aborted when the client gives up (a hanging fault rule waits for it). */
  readonly signal: AbortSignal
  text(): Promise<string>
}

/** An answer before it becomes a `Response` (the in-process fetch) or an HTTP response (the launcher). */
export interface Answer {
  status: number
  body: string
  headers: Record<string, string>
}

export function jsonAnswer(status: number, body: Json, headers: Record<string, string> = {}): Answer {
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } }
}

export function toResponse(answer: Answer): Response {
  // A 304 has no body, and a Response refuses one (even empty) for it.
  return new Response(answer.status === 304 ? null : answer.body, { status: answer.status, headers: answer.headers })
}

/**
 * A GET's answer with its validator (an ETag of its body, and `no-cache`: reused only once the
 * emulator says it has not changed), or a 304 without a body when `ifNoneMatch` names that ETag. The
 * web console polls its view every second, and a browser then asks with If-None-Match by itself: an
 * unchanged list of a few hundred accounts (some 250 KB) costs a few hundred bytes.
 */
export function revalidated(answer: Answer, ifNoneMatch: string | null): Answer {
  const validator = { etag: `"${createHash('sha1').update(answer.body).digest('base64url')}"`, 'cache-control': 'no-cache' }
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === validator.etag)) return { status: 304, body: '', headers: validator }
  return { ...answer, headers: { ...answer.headers, ...validator } }
}

/** Thrown by the in-process fetch for `drop_after`: a lost connection looks like a network failure. */
export class DroppedConnection extends TypeError {
  constructor() {
    super('fetch failed: connection dropped by emulator fault')
  }
}

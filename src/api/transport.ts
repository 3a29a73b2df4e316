// The one place that does HTTP: headers, envelopes, error decoding, retries (§1.5, §1.6, §1.10).
import { ShapeError } from './decode.js'
import { ApiError, DecodeError, type FieldError, type RequestContext, TransportError } from './errors.js'
import { decodeOrder, type Order } from './models.js'

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'
export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void
export type FetchFunction = (request: Request) => Promise<Response>
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface TransportOptions {
  readonly baseUrl: string
  readonly apiKey: string
  readonly userAgent: string
  readonly fetch: FetchFunction
  readonly requestTimeoutMs: number
  readonly maxAttempts: number
  readonly sleep: Sleep
  readonly now: () => number
  readonly random: () => number
  readonly log: Logger
  readonly idempotencyKey: () => string
}

export interface RequestSpec<T> {
  readonly method: HttpMethod
  /** Canonical path under the base URL, starting with `/` (§1.1). */
  readonly path: string
  readonly query?: Readonly<Record<string, string | readonly string[] | undefined>>
  /** `undefined` sends no body and no Content-Type. */
  readonly body?: unknown
  /** Set on order-placing calls: the key that makes their retries safe, kept across them. */
  readonly idempotencyKey?: string
  readonly accountId?: string
  readonly signal?: AbortSignal | undefined
  readonly decode: (payload: unknown) => T
}

export interface CallOptions {
  /** Cancels the call (and its retries), e.g. on Ctrl-C. */
  readonly signal?: AbortSignal
}

export interface OrderOptions extends CallOptions {
  /**
   * The Idempotency-Key to send; default a fresh one per call. Pass one only to repeat the same
   * intent (e.g. a key saved before a crash), never to place a second order.
   */
  readonly idempotencyKey?: string
}

export interface ListOptions extends CallOptions {
  /** Statuses to list (case-insensitive); default every status but Terminated. */
  readonly status?: readonly string[]
}

/** Retry-After is capped so that a confused server cannot park an apply for hours. */
const RETRY_AFTER_CAP_MS = 60_000
const RETRY_AFTER_DEFAULT_MS = 1_000
const BACKOFF_BASE_MS = 500
const RETRYABLE_5XX = new Set([500, 502, 503, 504])

export class Transport {
  constructor(readonly options: TransportOptions) {}

  now(): number {
    return this.options.now()
  }

  /** GET with its payload decoded; `accountId` is named in errors. */
  get<T>(path: string, decode: (payload: unknown) => T, options?: CallOptions, accountId?: string): Promise<T> {
    return this.request({ method: 'GET', path, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) })
  }

  /** A mutation that is not an order: no Idempotency-Key, so 5xx and network failures are not retried. */
  send<T>(
    method: HttpMethod,
    path: string,
    body: unknown,
    decode: (payload: unknown) => T,
    options?: CallOptions,
    accountId?: string,
  ): Promise<T> {
    return this.request({ method, path, body, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) })
  }

  /** Places an order (§1.11): one key per intent, the same key on every retry of it. */
  order(method: HttpMethod, path: string, body: unknown, options?: OrderOptions, accountId?: string): Promise<Order> {
    const idempotencyKey = options?.idempotencyKey ?? this.options.idempotencyKey()
    return this.request({
      method,
      path,
      body,
      idempotencyKey,
      decode: (payload) => decodeOrder(payload),
      signal: options?.signal,
      ...(accountId ? { accountId } : {}),
    })
  }

  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const { options } = this
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId }
    // Retrying a mutation is only safe when nothing was processed (429, the in-progress 409) or when
    // the server can recognise the repeat by its Idempotency-Key.
    const mayRetryFailure = spec.method === 'GET' || spec.idempotencyKey !== undefined
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= options.maxAttempts
      const outcome = await this.attempt(spec, context, attempt)
      if (outcome.kind === 'ok') return this.decode(spec, outcome.payload, outcome.requestId)
      let delayMs: number
      if (outcome.kind === 'transport') {
        if (outcome.error.reason === 'cancelled' || !mayRetryFailure || last) throw outcome.error
        delayMs = this.backoff(attempt)
      } else {
        const { error, retryAfterMs } = outcome
        if (error.status === 429 || (error.status === 409 && retryAfterMs !== undefined)) {
          if (last) throw error
          delayMs = Math.min(retryAfterMs ?? RETRY_AFTER_DEFAULT_MS, RETRY_AFTER_CAP_MS)
        } else if (RETRYABLE_5XX.has(error.status) && mayRetryFailure && !last) {
          delayMs = this.backoff(attempt)
        } else {
          throw error
        }
      }
      const cause = outcome.kind === 'transport' ? outcome.error.reason : outcome.error.status
      options.log('warn', `retrying ${spec.method} ${spec.path} in ${delayMs}ms`, {
        method: spec.method,
        path: spec.path,
        attempt,
        cause,
        delay_ms: delayMs,
      })
      await this.pause(delayMs, spec.signal, context)
    }
  }

  /** 0.5 s, 1 s, 2 s ... with ±25% jitter so that many clients do not retry in step. */
  private backoff(attempt: number): number {
    const base = BACKOFF_BASE_MS * 2 ** (attempt - 1)
    return Math.round(base * (0.75 + 0.5 * this.options.random()))
  }

  private async pause(ms: number, signal: AbortSignal | undefined, context: RequestContext): Promise<void> {
    if (signal?.aborted) throw cancelled(context, signal)
    try {
      await this.options.sleep(ms, signal)
    } catch (error) {
      if (signal?.aborted) throw cancelled(context, signal)
      throw error
    }
    if (signal?.aborted) throw cancelled(context, signal)
  }

  private url(spec: RequestSpec<unknown>): string {
    let url = this.options.baseUrl + spec.path
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value === undefined) continue
      for (const item of typeof value === 'string' ? [value] : value) params.append(key, item)
    }
    const query = params.toString()
    if (query !== '') url += `?${query}`
    return url
  }

  private async attempt(spec: RequestSpec<unknown>, context: RequestContext, attempt: number): Promise<Outcome> {
    const { options } = this
    if (spec.signal?.aborted) return { kind: 'transport', error: cancelled(context, spec.signal) }
    const headers = new Headers({ 'x-token': options.apiKey, 'user-agent': options.userAgent, accept: 'application/json' })
    if (spec.body !== undefined) headers.set('content-type', 'application/json')
    if (spec.idempotencyKey !== undefined) headers.set('idempotency-key', spec.idempotencyKey)

    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('request timed out'))
    }, options.requestTimeoutMs)
    const onAbort = () => controller.abort(spec.signal?.reason)
    spec.signal?.addEventListener('abort', onAbort, { once: true })
    // A fetch that ignores its signal (an in-process handler may) must still give up on time.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
    })
    aborted.catch(() => undefined)

    const started = options.now()
    const fields: Record<string, unknown> = { method: spec.method, path: spec.path, attempt }
    if (spec.idempotencyKey !== undefined) fields.idempotency_key = spec.idempotencyKey
    try {
      const request = new Request(this.url(spec), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? null : JSON.stringify(spec.body),
        signal: controller.signal,
      })
      const response = await Promise.race([options.fetch(request), aborted])
      const text = await Promise.race([response.text(), aborted])
      const requestId = response.headers.get('x-request-id') ?? undefined
      context.requestId = requestId
      fields.status = response.status
      fields.request_id = requestId
      fields.duration_ms = options.now() - started
      if (response.headers.get('idempotency-replayed') === 'true') fields.replayed = true
      options.log(response.ok ? 'debug' : 'info', `${spec.method} ${spec.path} → ${response.status}`, fields)
      if (response.ok) return { kind: 'ok', payload: text, requestId }
      return {
        kind: 'http',
        error: decodeError(response.status, response.statusText, text, { ...context }),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now()),
      }
    } catch (error) {
      fields.duration_ms = options.now() - started
      let failure: TransportError
      if (spec.signal?.aborted) failure = cancelled(context, spec.signal)
      else if (timedOut) {
        failure = new TransportError('timeout', `no answer within ${options.requestTimeoutMs}ms`, { ...context }, { cause: error })
      } else {
        failure = new TransportError('network', describeCause(error), { ...context }, { cause: error })
      }
      fields.error = failure.reason
      options.log('info', `${spec.method} ${spec.path} failed: ${failure.reason}`, fields)
      return { kind: 'transport', error: failure }
    } finally {
      clearTimeout(timer)
      spec.signal?.removeEventListener('abort', onAbort)
    }
  }

  private decode<T>(spec: RequestSpec<T>, text: string, requestId: string | undefined): T {
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId, requestId }
    let payload: unknown
    try {
      payload = unwrap(text)
    } catch {
      throw new DecodeError(`the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`, context)
    }
    try {
      return spec.decode(payload)
    } catch (error) {
      if (error instanceof ShapeError) throw new DecodeError(error.message, context)
      throw error
    }
  }
}

type Outcome =
  | { kind: 'ok'; payload: string; requestId: string | undefined }
  | { kind: 'http'; error: ApiError; retryAfterMs: number | undefined }
  | { kind: 'transport'; error: TransportError }

function cancelled(context: RequestContext, signal: AbortSignal): TransportError {
  return new TransportError('cancelled', 'cancelled by the caller', { ...context }, { cause: signal.reason })
}

function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}

/** §1.5: `{success: bool, data}` gives `data`; any other JSON is the payload itself; empty is null. */
export function unwrap(text: string): unknown {
  if (text.trim() === '') return null
  const body: unknown = JSON.parse(text)
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    if ('data' in record && typeof record.success === 'boolean') return record.data
  }
  return body
}

/** Integer seconds per the contract; an HTTP date is accepted too, as other servers send it. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const value = header.trim()
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const RAW_TEXT_LIMIT = 500

/** §1.6: the message and the per-field errors of a non-2xx answer. */
export function decodeError(status: number, statusText: string, text: string, context: RequestContext): ApiError {
  let body: unknown
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  const fields: FieldError[] = []
  let message: string | undefined
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    const detail = record.detail
    if (typeof detail === 'string') message = detail
    else if (Array.isArray(detail)) {
      for (const item of detail) fields.push(fieldError(item))
      message = fields.map((f) => (f.field === '' ? f.message : `${f.field}: ${f.message}`)).join('; ')
    } else if (typeof record.message === 'string') message = record.message
    else if (typeof record.error === 'string') message = record.error
  }
  if (message === undefined || message === '') {
    const raw = text.trim().slice(0, RAW_TEXT_LIMIT)
    message = raw !== '' ? raw : statusText !== '' ? statusText : `HTTP ${status}`
  }
  return new ApiError(status, message, fields, context)
}

function fieldError(item: unknown): FieldError {
  if (item === null || typeof item !== 'object') return { field: '', message: String(item) }
  const record = item as Record<string, unknown>
  const loc = Array.isArray(record.loc) ? record.loc.slice(1).map(String) : []
  const message = typeof record.msg === 'string' ? record.msg : JSON.stringify(item)
  return { field: loc.join('.'), message }
}

/** Drops `undefined` members so the body only says what the caller said. */
export function compact(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value
  return out
}

/** Turns a synchronous throw (a malformed id) into a rejected promise, as callers of async calls expect. */
export function rejectingSync<T extends object>(api: T): T {
  const target = api as Record<string, unknown>
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function') continue
    const call = value as (...args: unknown[]) => unknown
    target[key] = (...args: unknown[]) => {
      try {
        return call(...args)
      } catch (error) {
        return Promise.reject(error)
      }
    }
  }
  return api
}

/** §1.8: the repeatable `status` filter of account lists. */
export function statusQuery(options?: ListOptions) {
  return options?.status === undefined ? undefined : { status: options.status }
}

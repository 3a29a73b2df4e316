// The one place that does HTTP: headers, envelopes, error decoding, retries.
// Must not: know orders, their keys' bookkeeping, the journal or the caller's operation
// (src/api/orders/ and operation.ts sit above this file; the client hands in their rules as functions).
import { randomUUID } from 'node:crypto'
import { keepWire, ShapeError } from './decode.js'
import { decodeError, parseRetryAfter, unwrap } from './envelope.js'
import { ApiError, cancelled, DecodeError, formatDuration, type RequestContext, TransportError } from './errors.js'
import { scrubSecrets } from './redact.js'
import { SharedReads } from './shared-reads.js'

/**
 * `status`: what a long operation is doing now (waiting for Active). A front end with a status line per
 * resource (Pulumi) shows it there and keeps it out of the diagnostics printed at the end; others log it as `info`.
 */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'status'
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
  /**
   * When the current call's operation gives up, on the client's clock (see operation.ts): a request
   * retried after 429 keeps trying until then.
   */
  readonly deadline: () => number
  /**
   * Runs before every attempt of a change (any request but a GET), orders included, and refuses it by
   * throwing (a plan's rehearsal sends no change: see operation.ts).
   */
  readonly beforeChange?: ((method: HttpMethod, path: string) => void) | undefined
}

export interface RequestSpec<T> {
  readonly method: HttpMethod
  /** Canonical path under the base URL, starting with `/` (the API's path rules). */
  readonly path: string
  readonly query?: Readonly<Record<string, string | readonly string[] | undefined>>
  /** `undefined` sends no body and no Content-Type. */
  readonly body?: unknown
  /** Set on order-placing calls: the key that makes their retries safe, kept across them. */
  readonly idempotencyKey?: string
  /**
   * A change that may be sent again, whatever became of the first: a repeat of it does nothing more
   * (a power state or a label set again) or is refused without effect (a keypair create, whose name
   * is then taken). Like a DELETE, it gets a key of its own, so that its 5xx and unanswered attempts
   * are retried (a service that recognises the key answers the repeat from its store).
   */
  readonly repeatable?: boolean
  readonly accountId?: string
  readonly signal?: AbortSignal | undefined
  readonly decode: (payload: unknown) => T
  /**
   * A read the API has no narrower form of (a whole list searched for one item): its decoded answer
   * serves identical reads for this long (the client's clock), unless a change was answered since
   * (see SharedReads.keep). A refresh of N items then lists their pool a few times, not N times.
   */
  readonly reuseForMs?: number
  /**
   * Error statuses the caller takes as an answer and deals with (a keypair create's 409 for a taken
   * name): logged at debug like a success, so that Pulumi does not show the line among the diagnostics.
   */
  readonly handles?: readonly number[]
}

export interface CallOptions {
  /** Cancels the call (and its retries), e.g. on Ctrl-C. */
  readonly signal?: AbortSignal
}

/**
 * How long a request keeps trying while every answer says nothing was processed (a 429, the "in
 * progress" 409) before it gives up, whatever time its operation has left: a service that refuses
 * for 5 minutes is reported then, not at a 20-minute create timeout.
 */
export const REFUSED_GIVE_UP_MS = 5 * 60_000
/** Retry-After is capped so that a confused server cannot park an apply for hours. */
const RETRY_AFTER_CAP_MS = 60_000
const RETRY_AFTER_DEFAULT_MS = 1_000
const RETRY_AFTER_FLOOR_MS = 250
const BACKOFF_BASE_MS = 500
/** The shortest wait for an answer that a near deadline leaves an attempt (request_timeout permitting). */
const MIN_ATTEMPT_MS = 1_000
const RETRYABLE_5XX = new Set([500, 502, 503, 504])

/** A server error that another attempt may get past. */
export function retryableStatus(status: number): boolean {
  return RETRYABLE_5XX.has(status)
}
/** After this long without an answer a request says so (a warning in the log the user sees). */
const SLOW_ANSWER_MS = 5_000

export class Transport {
  constructor(readonly options: TransportOptions) {}

  now(): number {
    return this.options.now()
  }

  /** GET with its payload decoded; `accountId` is named in errors. */
  get<T>(path: string, decode: (payload: unknown) => T, options?: CallOptions, accountId?: string): Promise<T> {
    return this.request({ method: 'GET', path, decode, signal: options?.signal, ...(accountId ? { accountId } : {}) })
  }

  /**
   * A mutation that is not an order: no Idempotency-Key, so 5xx and network failures are not retried
   * (a DELETE and a `repeatable` one excepted: see request).
   */
  send<T>(
    method: HttpMethod,
    path: string,
    body: unknown,
    decode: (payload: unknown) => T,
    options?: CallOptions,
    accountId?: string,
    repeatable = false,
  ): Promise<T> {
    return this.request({ method, path, body, decode, signal: options?.signal, ...(accountId ? { accountId } : {}), repeatable })
  }

  /**
   * Server text as it may be shown: whatever the server echoes, the API key, the request's secret
   * values (by key pattern, as in `raw`) and any URL userinfo are replaced.
   */
  private scrub(text: string, spec: RequestSpec<unknown>): string {
    return scrubSecrets(text, this.options.apiKey, spec.body)
  }

  /** Full jitter on top of a server's delay, so parallel workers do not retry in step. */
  jittered(ms: number): number {
    return Math.min(Math.round(ms * (1 + 0.25 * this.options.random())), RETRY_AFTER_CAP_MS)
  }

  /** Identical reads in flight share one request (see request). */
  private readonly reads = new SharedReads<Answer>()

  /**
   * One request with its retries, decoded. Identical reads in flight at once share one request, each
   * caller decoding the answer itself, but never one sent before this transport's latest change was
   * answered (see shared-reads.ts): the order code lists after its own orders have answered.
   */
  async request<T>(spec: RequestSpec<T>): Promise<T> {
    if ((spec.method === 'DELETE' || spec.repeatable === true) && spec.idempotencyKey === undefined) {
      // A delete is safe to send again: the service answers a repeat of a done cancellation with the same
      // 200, and 404 once the object is gone, which a delete takes as done. With a key of its own, its
      // 5xx and unanswered attempts are retried as a keyed order's are, so one bad gateway does not fail a
      // destroy. So is a request marked repeatable (see RequestSpec).
      return this.request({ ...spec, idempotencyKey: randomUUID() })
    }
    if (spec.method !== 'GET' || spec.idempotencyKey !== undefined) {
      const answer = await this.exchange(spec)
      return this.decode(spec, answer.payload, answer.requestId)
    }
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId }
    if (spec.signal?.aborted) throw cancelled(context, spec.signal)
    const key = `${this.url(spec)}\n${spec.accountId ?? ''}`
    if (spec.reuseForMs !== undefined) {
      const decoded = (signal: AbortSignal) =>
        this.exchange({ ...spec, signal }).then((answer) => this.decode(spec, answer.payload, answer.requestId))
      return this.reads.keep(key, decoded, spec.reuseForMs, this.options.now(), spec.signal, context)
    }
    const answer = await this.reads.join(key, (signal) => this.exchange({ ...spec, signal }), spec.signal, context)
    return this.decode(spec, answer.payload, answer.requestId)
  }

  private async exchange(spec: RequestSpec<unknown>): Promise<Answer> {
    const { options } = this
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId }
    // Retrying a mutation is only safe when nothing was processed (429, the in-progress 409) or when
    // the server can recognise the repeat by its Idempotency-Key.
    const mayRetryFailure = spec.method === 'GET' || spec.idempotencyKey !== undefined
    // A 429 (nothing processed) does not use up an attempt while the operation has time left, up to
    // REFUSED_GIVE_UP_MS of nothing else.
    const deadline = options.deadline()
    let refusedSince: number | undefined
    let refusals = 0
    const started = options.now()
    /** The 5xx answers of this request so far, for the message when it gives up on them. */
    const serverErrors: number[] = []
    /** Earlier attempts that reached the service and got no answer or a 5xx: they may have been processed. */
    let unanswered = 0
    for (let attempt = 1, failures = 0; ; attempt++) {
      const outcome = await this.attempt(spec, context, attempt, deadline)
      if (outcome.kind === 'ok') return { payload: outcome.payload, requestId: outcome.requestId }
      let delayMs: number
      if (outcome.kind === 'transport') {
        failures++
        if (!outcome.error.refused) unanswered++
        if (outcome.error.reason === 'cancelled' || !mayRetryFailure || outcome.error.portBlocked) throw outcome.error
        if (failures >= options.maxAttempts) throw this.unanswered(outcome.error, failures, started)
        // A read that got no answer (a timeout, a reset) is asked again, as any transport failure of a
        // GET is (backend-api 1.10), within the attempts and the operation's time.
        delayMs = this.backoff(failures)
        if (options.now() + delayMs >= deadline) throw this.unanswered(outcome.error, failures, started)
      } else {
        const { error } = outcome
        error.unansweredBefore = unanswered
        if (error.status >= 500) unanswered++
        const asked = this.askedToWait(outcome, refusals + 1)
        if (asked !== undefined) {
          delayMs = asked
          refusedSince ??= options.now()
          refusals++
          if (options.now() + delayMs - refusedSince >= REFUSED_GIVE_UP_MS) {
            error.history =
              `${refusals === attempt ? 'all ' : ''}${refusals} attempts over ${formatDuration(options.now() - refusedSince)} were answered ${error.status}, ` +
              `given up after ${formatDuration(REFUSED_GIVE_UP_MS)}; nothing was processed`
            error.refreshMessage()
          }
          if (options.now() + delayMs >= deadline || error.history !== undefined) throw error
        } else if (retryableStatus(error.status) && mayRetryFailure && failures + 1 < options.maxAttempts) {
          failures++
          serverErrors.push(error.status)
          // A 503 may say when to come back (Retry-After); never sooner than the backoff.
          delayMs = Math.max(this.backoff(failures), Math.min(outcome.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS))
          if (options.now() + delayMs >= deadline) throw this.gaveUp(error, serverErrors, started)
        } else {
          if (retryableStatus(error.status) && serverErrors.length > 0) {
            serverErrors.push(error.status)
            throw this.gaveUp(error, serverErrors, started)
          }
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

  /**
   * The last failure of a request that got no answer to any of its attempts, with how many and over how
   * long: not one slow call but a service that does not answer (or a request timeout shorter than it needs).
   */
  private unanswered(error: TransportError, failures: number, started: number): TransportError {
    if (failures < 2) return error
    const over = `${failures} attempts over ${formatDuration(this.options.now() - started)}`
    // A connection nobody accepted (nothing listening, an unknown host) is not a slow service: no
    // request_timeout would help. The provider's advice names the address to check.
    error.history = error.refused
      ? `None of ${over} could connect; the request was given up`
      : `None of ${over} was answered; the request was given up. ` +
        'The service is not answering: try again later, check its status, or raise request_timeout if it is only slow'
    error.refreshMessage()
    return error
  }

  /** The last 5xx of a request that was asked again, with what every attempt got: the service is failing, not this one call. */
  private gaveUp(error: ApiError, statuses: readonly number[], started: number): ApiError {
    const same = statuses.every((status) => status === statuses[0])
    // One status: the operation's timeout left no time to ask again (the attempts left would ask).
    const answered =
      statuses.length === 1
        ? `${statuses[0]} to the one attempt the operation's timeout left time for`
        : `${same ? `${statuses[0]} to all ${statuses.length} attempts` : `${statuses.join(', ')} to ${statuses.length} attempts`} ` +
          `over ${formatDuration(this.options.now() - started)}`
    error.history = `${answered}; the request was given up. The service is failing: try again later, or check its status`
    error.refreshMessage()
    return error
  }

  /**
   * The jittered wait a server asked for when it processed nothing: a 429, or a 409 with Retry-After
   * (the first attempt of the same key still in progress). Undefined for any other outcome. A
   * Retry-After of 0 (or in the past) would have every worker ask again at once for as long as the
   * service refuses: the caller's `refusal`-th refusal (of the request here; in a row for an order, see
   * Attempts.refusals) then waits RETRY_AFTER_FLOOR_MS doubled for each one before it, up to the cap.
   * Without Retry-After, 1 s (backend-api 1.10).
   */
  askedToWait(outcome: Outcome, refusal = 1): number | undefined {
    if (outcome.kind !== 'http') return undefined
    const { status } = outcome.error
    const given = outcome.retryAfterMs
    if (status !== 429 && !(status === 409 && given !== undefined)) return undefined
    if (given === undefined) return this.jittered(RETRY_AFTER_DEFAULT_MS)
    return this.jittered(given > 0 ? given : RETRY_AFTER_FLOOR_MS * 2 ** Math.min(refusal - 1, 8))
  }

  /** 0.5 s, 1 s, 2 s ... with ±25% jitter so that many clients do not retry in step. */
  backoff(attempt: number): number {
    const base = BACKOFF_BASE_MS * 2 ** (attempt - 1)
    return Math.round(base * (0.75 + 0.5 * this.options.random()))
  }

  async pause(ms: number, signal: AbortSignal | undefined, context: RequestContext): Promise<void> {
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

  /**
   * One attempt of a request, every request's one way out (orders included): a change's end is counted
   * (see request). It waits request_timeout for an answer, or less when the operation's `deadline`
   * comes first (never less than MIN_ATTEMPT_MS).
   */
  async attempt(spec: RequestSpec<unknown>, context: RequestContext, attempt: number, deadline = Infinity): Promise<Outcome> {
    if (spec.method !== 'GET') this.options.beforeChange?.(spec.method, spec.path)
    const timeoutMs = Math.min(this.options.requestTimeoutMs, Math.max(MIN_ATTEMPT_MS, deadline - this.options.now()))
    try {
      return await this.attemptOnce(spec, context, attempt, timeoutMs)
    } finally {
      if (spec.method !== 'GET') this.reads.changed()
    }
  }

  private async attemptOnce(spec: RequestSpec<unknown>, context: RequestContext, attempt: number, timeoutMs: number): Promise<Outcome> {
    const { options } = this
    if (spec.signal?.aborted) return { kind: 'transport', error: cancelled(context, spec.signal), unsent: true }
    const headers = new Headers({ 'x-token': options.apiKey, 'user-agent': options.userAgent, accept: 'application/json' })
    if (spec.body !== undefined) headers.set('content-type', 'application/json')
    if (spec.idempotencyKey !== undefined) headers.set('idempotency-key', spec.idempotencyKey)

    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('request timed out'))
    }, timeoutMs)
    const limit = timeoutMs < options.requestTimeoutMs ? "the operation's timeout" : 'request_timeout'
    // A service that accepted the connection and says nothing: tell the user soon, not only at the timeout.
    const waiting =
      timeoutMs > SLOW_ANSWER_MS
        ? setTimeout(() => {
            options.log(
              'warn',
              `no answer yet to ${spec.method} ${spec.path} after ${SLOW_ANSWER_MS / 1000} s; giving up after ${Math.round(timeoutMs / 1000)} s (${limit})`,
              { method: spec.method, path: spec.path, attempt },
            )
          }, SLOW_ANSWER_MS)
        : undefined
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
        // A redirect would carry x-token (and on 307/308 the body) to wherever it points.
        redirect: 'manual',
      })
      const response = await Promise.race([options.fetch(request), aborted])
      const text = await Promise.race([response.text(), aborted])
      const requestId = response.headers.get('x-request-id') ?? undefined
      context.requestId = requestId
      fields.status = response.status
      fields.request_id = requestId
      fields.duration_ms = options.now() - started
      if (response.headers.get('idempotency-replayed') === 'true') fields.replayed = true
      // A read answered 404 is how a refresh, an import or a gone check learns that something is not there:
      // the outcome says so, and Pulumi would show every such line among the stack's diagnostics.
      const expected = response.ok || (spec.method === 'GET' && response.status === 404) || spec.handles?.includes(response.status) === true
      options.log(expected ? 'debug' : 'info', `${spec.method} ${spec.path} → ${response.status}`, fields)
      const echoed = spec.idempotencyKey !== undefined && response.headers.get('idempotency-key') === spec.idempotencyKey
      // A replay of a stored answer: the service recognised the key, whether or not it echoes it on replays.
      const replayed = response.headers.get('idempotency-replayed') === 'true'
      if (response.ok) return { kind: 'ok', payload: text, requestId, echoed, replayed }
      if (response.status >= 300 && response.status < 400) {
        const message =
          `the API answered ${response.status} with a redirect to ${originOf(response.headers.get('location'), request.url)}; ` +
          'redirects are refused so that the API key and request bodies never go to another address. ' +
          'Set base_url to the address the API answers at'
        return { kind: 'http', echoed, error: new ApiError(response.status, message, [], { ...context }), retryAfterMs: undefined }
      }
      return {
        kind: 'http',
        echoed,
        error: decodeError(response.status, response.statusText, this.scrub(text, spec), { ...context }),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now()),
      }
    } catch (error) {
      fields.duration_ms = options.now() - started
      let failure: TransportError
      if (spec.signal?.aborted) failure = cancelled(context, spec.signal, true)
      else if (timedOut) {
        failure = new TransportError(
          'timeout',
          `no answer within ${formatDuration(timeoutMs)} (${limit})`,
          { ...context },
          { cause: error },
        )
      } else {
        failure = new TransportError('network', this.scrub(describeCause(error), spec), { ...context }, { cause: error })
      }
      fields.error = failure.reason
      options.log('info', `${spec.method} ${spec.path} failed: ${failure.reason}`, fields)
      return { kind: 'transport', error: failure }
    } finally {
      clearTimeout(timer)
      clearTimeout(waiting)
      spec.signal?.removeEventListener('abort', onAbort)
    }
  }

  decode<T>(spec: RequestSpec<T>, text: string, requestId: string | undefined): T {
    const context: RequestContext = { method: spec.method, path: spec.path, accountId: spec.accountId, requestId }
    let payload: unknown
    try {
      payload = unwrap(text)
    } catch {
      // Never an excerpt: a successful answer cut short may hold a private key or a VPN profile that no scrub knows.
      const page = /^\s*</.test(text) ? ' It looks like a web page: check that base_url is the address the API answers at.' : ''
      throw new DecodeError(`the body is not JSON (${text.length} characters, not shown: an answer may hold secrets).${page}`, context)
    }
    try {
      return keepWire(spec.decode(payload), payload)
    } catch (error) {
      if (error instanceof ShapeError) throw new DecodeError(error.message, context)
      throw error
    }
  }
}

export type Outcome =
  | { kind: 'ok'; payload: string; requestId: string | undefined; echoed: boolean; replayed: boolean }
  | { kind: 'http'; error: ApiError; retryAfterMs: number | undefined; echoed: boolean }
  /** `unsent`: the request never left (cancelled before it was sent); a refused connection says so itself (TransportError.refused). */
  | { kind: 'transport'; error: TransportError; unsent?: true }

/** A successful answer before decoding. */
interface Answer {
  readonly payload: string
  readonly requestId: string | undefined
}

/** Where a redirect points, as an origin only: never the path, query or userinfo it may carry. */
function originOf(location: string | null, base: string): string {
  if (location === null) return 'an unnamed address'
  try {
    return new URL(location, base).origin
  } catch {
    return 'an unparseable address'
  }
}

function describeCause(error: unknown): string {
  if (error instanceof Error && error.cause instanceof Error && error.cause.message === 'bad port') {
    return 'fetch refuses this port (one that browsers block, such as 6000 or 10080), so nothing was sent; serve the API on another port'
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}

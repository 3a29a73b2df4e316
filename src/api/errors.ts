// The client's errors, each naming the request it came from (method, path, account, order, request id):
// the service's refusals (ApiError), answers that break the contract (DecodeError), requests that got
// no answer (TransportError), waits that failed (WaitError) and orders whose outcome is unclear or that
// were not placed; and the wording helpers their messages share (durations, sentences).

/** One failed check of a 422 answer; `field` is its `loc` without the leading `body`/`query`/... */
export interface FieldError {
  readonly field: string
  readonly message: string
}

/** Where a request went; every error of the client carries it so a diagnostic can say what failed. */
export interface RequestContext {
  readonly method: string
  readonly path: string
  requestId?: string | undefined
  accountId?: string | undefined
  orderId?: string | undefined
}

function idsText(context: RequestContext): string {
  const parts: string[] = []
  if (context.accountId !== undefined) parts.push(`account ${context.accountId}`)
  if (context.orderId !== undefined) parts.push(`order ${context.orderId}`)
  if (context.requestId !== undefined) parts.push(`request id ${context.requestId}`)
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** `text` and the ids as one sentence: one full stop, whether or not the service's text ended in one. */
function withIds(text: string, context: RequestContext): string {
  const ids = idsText(context)
  const trimmed = text.trimEnd()
  if (ids === '' && /[.!?]$/.test(trimmed)) return trimmed
  return `${trimmed.replace(/\.$/, '')}${ids}.`
}

/**
 * The service answered with a non-2xx status. `apiMessage` is the API's own text: shown to people,
 * never branched on (its wording is not part of the contract).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number
  readonly apiMessage: string
  readonly fields: readonly FieldError[]
  readonly method: string
  readonly path: string
  readonly requestId: string | undefined
  // Writable because a wait learns the account id and order id after the request that failed.
  accountId: string | undefined
  orderId: string | undefined
  /** What the retries of the request saw before it gave up on this answer, when they are worth saying. */
  history: string | undefined
  /**
   * How many earlier attempts of this request reached the service and got no answer or a 5xx, so may
   * have been processed: a refusal of the repeat (a keypair name taken) may be the first attempt's doing.
   */
  unansweredBefore = 0

  constructor(status: number, apiMessage: string, fields: readonly FieldError[], context: RequestContext) {
    super('')
    this.status = status
    this.apiMessage = apiMessage
    this.fields = fields
    this.method = context.method
    this.path = context.path
    this.requestId = context.requestId
    this.accountId = context.accountId
    this.orderId = context.orderId
    this.refreshMessage()
  }

  /** 404 Not Found or 410 Gone: definite evidence that the object is not there (a read removes it, a delete is done). */
  get notFound(): boolean {
    return this.status === 404 || this.status === 410
  }

  /** 'client': fix the input or the key. 'server': for a mutating request the outcome is unknown. */
  get fault(): 'client' | 'server' {
    return this.status >= 500 ? 'server' : 'client'
  }

  /** A 5xx on a mutating request may still have been processed (an order may exist). */
  get outcomeUnknown(): boolean {
    return this.fault === 'server' && MUTATING.has(this.method)
  }

  /** A request that changes something (not a read) was answered with an error status: that change failed. */
  get changeRefused(): boolean {
    return MUTATING.has(this.method)
  }

  /** 401 or 403: the service refused the credentials (or their scope), whatever was asked. */
  get credentialsRefused(): boolean {
    return this.status === 401 || this.status === 403
  }

  get summary(): string {
    return `The API answered ${this.status} to ${this.method} ${this.path}`
  }

  get detail(): string {
    const unknown = this.outcomeUnknown ? ' The request may have been processed anyway.' : ''
    const history = this.history === undefined ? '' : ` The service answered ${this.history}.`
    return `${withIds(this.apiMessage, this)}${unknown}${history}`
  }

  /** Rebuilds the message after ids were attached, so logs and diagnostics show them. */
  refreshMessage(): void {
    this.message = `HTTP ${this.status} on ${this.method} ${this.path}: ${this.detail}`
  }
}

export type TransportFailure = 'network' | 'timeout' | 'cancelled'

/** No HTTP answer at all: connection failure, per-request timeout, or cancellation by the caller. */
export class TransportError extends Error {
  override readonly name = 'TransportError'
  readonly reason: TransportFailure
  readonly method: string
  readonly path: string
  accountId: string | undefined
  orderId: string | undefined
  private readonly text: string

  /** Cancelled after the request had left: the service may have received it, and processed it. */
  readonly afterSending: boolean
  /** What every attempt of a request that was asked again got, when it was given up (see the transport). */
  history: string | undefined

  constructor(reason: TransportFailure, text: string, context: RequestContext, options?: { cause?: unknown; afterSending?: boolean }) {
    super('', options)
    this.reason = reason
    this.afterSending = options?.afterSending === true
    this.text = text
    this.method = context.method
    this.path = context.path
    this.accountId = context.accountId
    this.orderId = context.orderId
    this.refreshMessage()
  }

  get fault(): 'client' | 'server' {
    return this.reason === 'cancelled' ? 'client' : 'server'
  }

  /** No connection could be opened (nothing listening, unknown host): the request never reached the service. */
  get refused(): boolean {
    return this.reason === 'network' && connectFailed(this.cause)
  }

  /** fetch refuses the base URL's port (one browsers block): no attempt can ever be sent, so none is repeated. */
  get portBlocked(): boolean {
    return this.reason === 'network' && badPort(this.cause)
  }

  get summary(): string {
    if (this.reason === 'cancelled') return `${this.method} ${this.path} was cancelled`
    if (this.refused) return `Could not connect to the API for ${this.method} ${this.path}`
    return `No answer from the API to ${this.method} ${this.path}`
  }

  get detail(): string {
    const unknown = !MUTATING.has(this.method)
      ? ''
      : this.reason === 'cancelled'
        ? this.afterSending
          ? ' It may already have been on its way, so the service may have processed it: the next plan or refresh reads what it did.'
          : ''
        : this.refused
          ? ''
          : ' The request may have been processed anyway.'
    const history = this.history === undefined ? '' : ` ${this.history}.`
    return `${withIds(this.text, this)}${unknown}${history}`
  }

  refreshMessage(): void {
    this.message = `${this.summary}: ${this.detail}`
  }
}

/** The system errors of a connection that was never opened. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

/** Whether fetch refused the port (its cause chain): it blocks those browsers block (6000, 10080, …). */
function badPort(error: unknown, depth = 0): boolean {
  if (depth > 5 || !(error instanceof Error)) return false
  return error.message === 'bad port' || badPort(error.cause, depth + 1)
}

/** Whether a fetch failure (its cause chain, an AggregateError's members included) failed to connect. */
function connectFailed(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && CONNECT_CODES.has(code)) return true
  // fetch refuses a port that browsers block (6000, 10080, …) before it opens a connection.
  if (badPort(error)) return true
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.every((e) => connectFailed(e, depth + 1))
  return connectFailed((error as { cause?: unknown }).cause, depth + 1)
}

/** A 2xx answer whose payload does not have the contract's shape. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError'
  readonly method: string
  readonly path: string
  readonly requestId: string | undefined

  constructor(problem: string, context: RequestContext) {
    super(`Unexpected answer to ${context.method} ${context.path}: ${problem}${idsText(context)}`)
    this.method = context.method
    this.path = context.path
    this.requestId = context.requestId
  }

  get fault(): 'server' {
    return 'server'
  }

  get summary(): string {
    return `Unexpected answer from the API to ${this.method} ${this.path}`
  }

  get detail(): string {
    return this.message
  }
}

export type WaitFailure = 'timeout' | 'status' | 'gone' | 'cancelled'

/** Waiting for Active ended without Active (or an unpaid invoice). Always names the account. */
export class WaitError extends Error {
  override readonly name = 'WaitError'
  readonly reason: WaitFailure
  readonly accountId: string | undefined
  readonly orderId: string | undefined
  /** The last status seen (e.g. `Pending`, `Suspended`), or `not found` after a 404. */
  readonly lastStatus: string | undefined
  readonly elapsedMs: number

  constructor(
    reason: WaitFailure,
    message: string,
    details: { accountId?: string; orderId?: string; lastStatus?: string; elapsedMs: number },
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.reason = reason
    this.accountId = details.accountId
    this.orderId = details.orderId
    this.lastStatus = details.lastStatus
    this.elapsedMs = details.elapsedMs
  }

  get fault(): 'client' | 'server' {
    return this.reason === 'timeout' || this.reason === 'cancelled' ? 'client' : 'server'
  }

  /** The account no longer exists (404 after the grace window) or was terminated while waited for. */
  get gone(): boolean {
    return this.reason === 'gone' || (this.reason === 'status' && this.lastStatus?.toLowerCase() === 'terminated')
  }

  get summary(): string {
    return this.reason === 'timeout' ? 'Timed out waiting for Active' : 'Waiting for Active failed'
  }

  get detail(): string {
    return this.message
  }
}

/** Formats a duration for people: `950ms`, `42s`, `20m0s`, `1h5m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m${seconds % 60}s`
  return `${Math.floor(minutes / 60)}h${minutes % 60}m`
}

/**
 * A paid order (or one-shot action) whose outcome is not known: no answer before the operation's
 * deadline, or an ambiguous failure from a service that does not confirm Idempotency-Keys. It
 * names the key, so that nothing is lost: the next run from the same directory reuses it.
 */
export class OrderUnresolvedError extends Error {
  override readonly name = 'OrderUnresolvedError'
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string
  readonly candidates: readonly string[]
  accountId: string | undefined
  orderId: string | undefined

  constructor(
    text: string,
    details: { context: RequestContext; idempotencyKey: string; candidates?: readonly string[] },
    options?: { cause?: unknown },
  ) {
    super(text, options)
    this.method = details.context.method
    this.path = details.context.path
    this.accountId = details.context.accountId
    this.idempotencyKey = details.idempotencyKey
    this.candidates = details.candidates ?? []
  }

  get fault(): 'server' {
    return 'server'
  }

  /** Read by core: the service may have processed it, so the state is read back before it is recorded. */
  get outcomeUnknown(): true {
    return true
  }

  get summary(): string {
    return `The outcome of ${this.method} ${this.path} is not known`
  }

  get detail(): string {
    return this.message
  }
}

/**
 * An order (or one-shot action) the service kept answering with statuses that guarantee nothing was
 * processed (429), or whose requests never reached the service (cancelled before they were sent, a
 * connection never opened), until the provider gave up: it was not placed, and nothing is left to take
 * over. `status` is the last answer's (0 when no request reached the service).
 */
export class OrderNotPlacedError extends Error {
  override readonly name = 'OrderNotPlacedError'
  readonly method: string
  readonly path: string
  readonly status: number
  readonly idempotencyKey: string
  accountId: string | undefined
  orderId: string | undefined

  constructor(text: string, details: { context: RequestContext; idempotencyKey: string; status: number }, options?: { cause?: unknown }) {
    super(text, options)
    this.method = details.context.method
    this.path = details.context.path
    this.accountId = details.context.accountId
    this.status = details.status
    this.idempotencyKey = details.idempotencyKey
  }

  get fault(): 'server' {
    return 'server'
  }

  /** Known: nothing was processed, so core need not read the state back. */
  get outcomeUnknown(): false {
    return false
  }

  /** An order (a change) the service kept refusing, so that change failed. */
  get changeRefused(): true {
    return true
  }

  get summary(): string {
    return `${this.method} ${this.path} was not placed`
  }

  get detail(): string {
    return this.message
  }
}

/**
 * A new order not placed because the order journal holds an entry it cannot read (a file cut short by a
 * disk fault or a power loss, or edited by hand): that entry may record an order whose outcome is not
 * known, so ordering beside it could be a second one. Nothing was sent.
 */
export class JournalUnreadableError extends Error {
  override readonly name = 'JournalUnreadableError'

  get summary(): string {
    return 'Not ordered: the order journal holds an entry it cannot read'
  }

  get detail(): string {
    return this.message
  }
}

/**
 * A new order not placed: an account created recently matches it, and neither the order journal nor
 * any state this directory's runs have seen names it (see the transport's unrecordedMatches).
 */
export class UnrecordedMatchError extends OrderUnresolvedError {
  override get summary(): string {
    return `Not ordered: ${this.candidates.length === 1 ? 'an account matches' : 'accounts match'} this order and no state names ${this.candidates.length === 1 ? 'it' : 'them'}`
  }
}

/** A message as a sentence: one full stop at its end. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The caller cancelled the call (its signal aborted). */
export function cancelled(context: RequestContext, signal: AbortSignal, afterSending = false): TransportError {
  return new TransportError('cancelled', 'cancelled by the caller', { ...context }, { cause: signal.reason, afterSending })
}

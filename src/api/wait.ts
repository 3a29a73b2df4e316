// Waiting for Active after an order: poll, back off gently, stop early on an unpaid invoice,
// tolerate the short 404 window of a fresh order and a service that fails for a while, respect the
// operation timeout.
import { ApiError, formatDuration, TransportError, WaitError } from './errors.js'
import { type Account, type Invoice, statusIs } from './models.js'
import { type Logger, retryableStatus, type Sleep } from './transport.js'

export interface WaitOptions {
  /** The operation's timeout; the wait fails with reason 'timeout' after it. */
  readonly timeoutMs: number
  /** `client.now()` when the order answered: a 404 in the 30 s after it means "not there yet". */
  readonly orderedAt?: number
  readonly signal?: AbortSignal
  /** How people call the thing, e.g. `Lite VM`; default `account`. */
  readonly describe?: string
  /** Named in errors even when no read succeeded. */
  readonly accountId?: string
  /** Named in errors so that a failed wait never loses the order. */
  readonly orderId?: string
}

export interface WaitResult<A extends Account<unknown> = Account> {
  readonly account: A
  /** Set when the wait stopped on `Pending` with an unpaid invoice: the caller warns and saves. */
  readonly unpaidInvoice?: Invoice
}

export interface WaitSettings {
  readonly pollIntervalMs: number
  readonly pollMaxIntervalMs: number
  readonly sleep: Sleep
  readonly now: () => number
  readonly log: Logger
}

/** The real service may show a new account a little after the order answered. */
export const NOT_FOUND_GRACE_MS = 30_000
const BACKOFF_FACTOR = 1.5
/** How often a wait says again where it stands when nothing changed (a status line, see LogLevel). */
export const STATUS_EVERY_MS = 10_000

export async function waitForActive<A extends Account<unknown>>(
  settings: WaitSettings,
  read: () => Promise<A>,
  options: WaitOptions,
): Promise<WaitResult<A>> {
  const started = settings.now()
  const what = options.describe ?? 'account'
  let accountId = options.accountId
  let orderId = options.orderId
  let lastStatus: string | undefined
  /** The last read that failed in a way the next one may get past (a 5xx, a 429, no answer), while the wait went on. */
  let lastFailure: ApiError | TransportError | undefined
  let interval = settings.pollIntervalMs
  const elapsed = () => settings.now() - started
  const name = () => (accountId === undefined ? what : `${what} ${accountId}`)
  const fail = (reason: WaitError['reason'], message: string, cause?: unknown): WaitError => {
    const details = { elapsedMs: elapsed(), ...defined({ accountId, orderId, lastStatus }) }
    return new WaitError(reason, message, details, cause === undefined ? undefined : { cause })
  }
  const cancelled = () => fail('cancelled', `Stopped waiting for ${name()} to become Active: cancelled`)
  let reported: { status: string; at: number } | undefined
  /** Where the wait stands, at its first read, at each change of status and every STATUS_EVERY_MS. */
  const report = (status: string) => {
    const at = settings.now()
    if (reported !== undefined && reported.status === status && at - reported.at < STATUS_EVERY_MS) return
    reported = { status, at }
    const spent = elapsed()
    const after = spent < 1000 ? '' : ` after ${formatDuration(spent)}`
    settings.log(
      'status',
      `waiting for ${name()} to become Active: ${status}${after} (gives up after ${formatDuration(options.timeoutMs)})`,
    )
  }

  for (;;) {
    if (options.signal?.aborted) throw cancelled()
    let account: A | undefined
    try {
      account = await read()
    } catch (error) {
      if (error instanceof ApiError || error instanceof TransportError) {
        error.accountId ??= accountId
        error.orderId ??= orderId
        accountId ??= error.accountId
        error.refreshMessage()
        if (error instanceof TransportError && error.reason === 'cancelled') throw cancelled()
      }
      const inGrace = options.orderedAt !== undefined && settings.now() - options.orderedAt < NOT_FOUND_GRACE_MS
      if (passing(error)) {
        // A provisioning of many minutes outlives a short outage of the service: the transport has
        // retried this read already, and the wait goes on polling until its timeout rather than
        // leaving the order unfinished at the first bad minute.
        lastFailure = error
        settings.log('warn', `reading ${name()} failed while waiting for Active; still waiting: ${error.message}`, {
          ...defined({ account_id: accountId }),
        })
      } else {
        if (!(error instanceof ApiError && error.notFound)) throw error
        if (!inGrace) {
          throw fail('gone', `${name()} is gone (404) after ${formatDuration(elapsed())} of waiting for Active`, error)
        }
        lastStatus = 'not found'
      }
    }
    if (account !== undefined) {
      lastFailure = undefined
      accountId = account.account_id
      orderId ??= account.order_id
      lastStatus = account.status
      settings.log('debug', `waiting for ${name()}: ${account.status}`, { account_id: accountId, status: lastStatus })
      if (statusIs(account.status, 'Active')) {
        // The last status line stays on the resource's row after the operation: it says how the wait ended.
        if (reported !== undefined) settings.log('status', `${name()} is Active after ${formatDuration(elapsed())}`)
        return { account }
      }
      if (statusIs(account.status, 'Pending')) {
        const invoice = account.last_invoice
        if (invoice !== null && statusIs(invoice.status, 'Unpaid')) return { account, unpaidInvoice: invoice }
        report(account.status)
      } else if (statusIs(account.status, 'Suspended') || statusIs(account.status, 'Terminated')) {
        throw fail('status', `${name()} is ${account.status}; it will not become Active`)
      }
    }
    const spent = elapsed()
    if (spent >= options.timeoutMs) {
      const failing = lastFailure === undefined ? '' : `; the service failed the last read: ${lastFailure.message}`
      throw fail(
        'timeout',
        `Timed out after ${formatDuration(spent)} waiting for ${name()} to become Active (last status: ${lastStatus ?? 'none'}${failing})`,
        lastFailure,
      )
    }
    // Sleep no further than the deadline so the last poll happens just before giving up.
    const delay = Math.min(interval, options.timeoutMs - spent)
    try {
      await settings.sleep(delay, options.signal)
    } catch (error) {
      if (options.signal?.aborted) throw cancelled()
      throw error
    }
    interval = Math.min(interval * BACKOFF_FACTOR, settings.pollMaxIntervalMs)
  }
}

/**
 * A failed read that a later one may get past: a server error of a passing outage (the 500, 502, 503
 * and 504 the transport asks again after), a rate limit, or no answer (not one the caller cancelled).
 * Another 5xx (501 Not Implemented, 505, 511 ...) is no outage: it ends the wait at once, the order kept.
 */
function passing(error: unknown): error is ApiError | TransportError {
  if (error instanceof TransportError) return error.reason !== 'cancelled'
  return error instanceof ApiError && (error.status === 429 || retryableStatus(error.status))
}

function defined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value
  return out as { [K in keyof T]?: Exclude<T[K], undefined> }
}

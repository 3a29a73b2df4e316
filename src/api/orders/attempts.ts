// What the attempts of one order were answered, as the user is told it: a warning per retry naming
// the attempt and the answer, and the final message of an order that never got a clear answer (how
// many attempts, over how long, the last status and the service's own text). It also says when to
// stop early: after REFUSED_GIVE_UP_MS of answers that each say the attempt was not processed (429,
// the 409 "in progress") or that the order's key makes safe to repeat (a 5xx from a service that
// recognises keys), an order gives up, well before a create timeout of 20 minutes; an attempt that
// got no answer at all keeps the operation's own deadline (its order may still be under way).
import { formatDuration } from '../errors.js'
import { type Outcome, REFUSED_GIVE_UP_MS } from '../transport.js'

export { REFUSED_GIVE_UP_MS }
/** Retries are warnings at most this often (the others are logged at info): a 429 each second would flood Pulumi's output. */
const REPORT_EVERY_MS = 10_000
/** The service's own text is quoted up to this length. */
const QUOTE_LIMIT = 200

type Failed = Exclude<Outcome, { kind: 'ok' }>

/** What one answer says about its attempt; `unreached`: the request never reached the service (see unreached). */
type Kind = 'rate-limited' | 'unreached' | 'in-progress' | 'repeatable' | 'unclear'

/** A request that never reached the service: cancelled before it was sent, or its connection was never opened. */
export function unreached(outcome: Failed): boolean {
  return outcome.kind === 'transport' && (outcome.unsent === true || outcome.error.refused)
}

export class Attempts {
  private readonly startedAt: number
  private count = 0
  private last: Failed | undefined
  private readonly kinds = new Set<Kind>()
  /** How many attempts got each answer (`500`, `no answer`), in the order first seen. */
  private readonly tally = new Map<string, number>()
  private reportedAt: number | undefined
  private refusedInRow = 0

  constructor(private readonly now: () => number) {
    this.startedAt = now()
  }

  /**
   * One attempt that did not succeed. `waitAsked`: the service asked to wait, having processed
   * nothing (a 429, a 409 with Retry-After); `keyHonoured`: the service recognises Idempotency-Keys,
   * so repeating a 5xx with the same key cannot place a second order.
   */
  add(outcome: Failed, waitAsked: boolean, keyHonoured: boolean): void {
    this.count++
    this.refusedInRow = waitAsked && outcome.kind === 'http' ? this.refusedInRow + 1 : 0
    this.last = outcome
    this.kinds.add(kindOf(outcome, waitAsked, keyHonoured))
    const label = labelOf(outcome)
    this.tally.set(label, (this.tally.get(label) ?? 0) + 1)
  }

  get attempts(): number {
    return this.count
  }

  /** How many attempts in a row, up to now, the service asked to wait (429, 409 in progress). */
  get refusals(): number {
    return this.refusedInRow
  }

  /** The last answer's HTTP status, if it had one. */
  get lastStatus(): number | undefined {
    return this.last?.kind === 'http' ? this.last.error.status : undefined
  }

  /** Every answer was a 429, which guarantees that nothing was processed, or no request reached the service. */
  get nothingProcessed(): boolean {
    return this.count > 0 && [...this.kinds].every((kind) => kind === 'rate-limited' || kind === 'unreached')
  }

  /** Some answer was the 409 "in progress": an earlier request with the same key is still being processed. */
  get inProgress(): boolean {
    return this.kinds.has('in-progress')
  }

  /** Every answer said its attempt was not processed, or can be repeated with the key without a second order. */
  get onlyRefused(): boolean {
    return this.count > 0 && !this.kinds.has('unclear')
  }

  /** Whether an order that would try again at `at` gives up instead (see REFUSED_GIVE_UP_MS). */
  givesUpBy(at: number): boolean {
    return this.onlyRefused && at - this.startedAt >= REFUSED_GIVE_UP_MS
  }

  /** The last answer, as it may be shown: `500 "database unavailable"`, or `no answer within the request timeout`. */
  lastAnswer(): string {
    const last = this.last
    if (last === undefined) return 'none'
    if (last.kind === 'transport') return last.error.reason === 'timeout' ? 'no answer within the request timeout' : labelOf(last)
    const text = last.error.apiMessage.trim()
    const quoted = text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text
    return quoted === '' ? String(last.error.status) : `${last.error.status} ${JSON.stringify(quoted)}`
  }

  /** `all 35 attempts over 5m0s were answered 500 (the last: 500 "database unavailable")`. */
  summary(): string {
    const over = `over ${formatDuration(this.now() - this.startedAt)}`
    const which = this.count === 1 ? `the only attempt ${over} was` : `all ${this.count} attempts ${over} were`
    const tally = [...this.tally.entries()]
    const [only] = tally
    const what =
      tally.length === 1 && only !== undefined
        ? `${which} ${/^\d/.test(only[0]) ? `answered ${only[0]}` : `met with ${only[0]}`}`
        : `${which} not answered clearly: ${tally.map(([label, n]) => `${label} ×${n}`).join(', ')}`
    return `${what} (the last: ${this.lastAnswer()})`
  }

  /** The level a retry is logged at: a warning for the first and then one every REPORT_EVERY_MS, info otherwise. */
  progressLevel(): 'warn' | 'info' {
    const now = this.now()
    if (this.reportedAt !== undefined && now - this.reportedAt < REPORT_EVERY_MS) return 'info'
    this.reportedAt = now
    return 'warn'
  }

  /** The message of one retry: the attempt, its answer, when the next goes, and until when it keeps trying. */
  progress(method: string, path: string, delayMs: number, deadline: number): string {
    const spent = this.now() - this.startedAt
    const until = this.onlyRefused
      ? `giving up after ${formatDuration(REFUSED_GIVE_UP_MS)} of such answers, ${formatDuration(spent)} so far`
      : `until the operation's deadline in ${formatDuration(Math.max(0, deadline - this.now()))}`
    const answer = this.last?.kind === 'http' ? `was answered ${this.lastAnswer()}` : `got ${this.lastAnswer()}`
    return `${method} ${path}: attempt ${this.count} ${answer}; trying again in ${formatDuration(delayMs)} with the same Idempotency-Key (${until})`
  }
}

function kindOf(outcome: Failed, waitAsked: boolean, keyHonoured: boolean): Kind {
  if (outcome.kind === 'transport') return unreached(outcome) ? 'unreached' : 'unclear'
  const { status } = outcome.error
  if (status === 429) return 'rate-limited'
  if (status === 409 && waitAsked) return 'in-progress'
  if (status >= 500 && (outcome.echoed || keyHonoured)) return 'repeatable'
  return 'unclear'
}

function labelOf(outcome: Failed): string {
  if (outcome.kind === 'http') return String(outcome.error.status)
  if (outcome.unsent === true) return 'a cancellation before it was sent'
  if (outcome.error.refused) return 'a connection that was never opened'
  return outcome.error.reason === 'timeout' ? 'no answer' : 'a network failure'
}

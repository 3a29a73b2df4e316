// What the caller's operation tells the client: who asks (its scope), until when (its deadline on the
// client's clock), where its log goes, when it has handed its outcome over (orders/ hands it then),
// and whether it is a plan's rehearsal of a create. The HTTP transport knows none of this: the client
// hands it the deadline and the rehearsal's refusal of changes as plain functions (see client.ts).
import type { Logger } from './transport.js'

/** What the caller's operation tells an order: who asks, until when, and when it has handed the outcome over. */
export interface OperationFrame {
  /** Identifies the resource beyond its inputs when the front end knows it (a Pulumi URN), or the state it is in (Terraform's). */
  readonly scope?: string | undefined
  /**
   * The scope names the resource itself (a Pulumi URN: one resource of one stack), not only the state it
   * is in (Terraform's workspace and backend, which two states configured from the environment can share).
   */
  readonly scopeIsResource?: boolean | undefined
  /**
   * When the scope names the resource, the scope of the state it is in (a Pulumi stack): identical
   * creates of one state are twins, whichever resource each is (see JournalEntry.twin).
   */
  readonly stateScope?: string | undefined
  /** How long the operation may take: an order is retried with its key until then. */
  readonly timeoutMs?: number | undefined
  /** Set at the client's first call of the operation, on the client's clock. */
  startedAt?: number
  /**
   * What the running change is: the inputs the step changes, each from its value in the engine's state
   * to its planned one; set while a step of an update runs. Its orders are a killed run's only when
   * they make the same change from the same state (see IntentParts.from).
   */
  from?: string | undefined
  /**
   * Runs once the operation's outcome is about to go back to the engine (`handedOver`), or once it is
   * known to reach no engine (`handedOver` false: the engine's call is gone, so its orders stay open for
   * the next run to take over).
   */
  onFinish(callback: (handedOver: boolean) => void | Promise<void>): void
  /** Shows the user a warning with the operation's outcome (besides the log). */
  warn?(summary: string, detail: string): void
  /**
   * The log of the operation's resource (Pulumi's messages of its URN): while the operation runs the
   * client logs there, so what an order says is shown with the resource that orders, not the stack.
   */
  readonly log?: Logger | undefined
  /**
   * Set when the operation is a plan's rehearsal of a create: nothing but reads is sent, and the
   * create's order (its first) reports here what the apply would do with it, then ends the rehearsal
   * (see Rehearsed). The plan prices what is really ordered by it.
   */
  readonly rehearsal?: ((outcome: Rehearsed) => void) | undefined
}

/**
 * What the apply of a create would do with its order, as the journal shows it at plan time: take over
 * the account an earlier run's order of the same intent made (`adopt`), repeat an earlier run's order
 * that had no answer with its key (`repeat`: placed only if that one was never processed), or order.
 */
export type Rehearsed =
  | { readonly kind: 'adopt'; readonly accountId: string; readonly key: string; readonly sentAt: number }
  | { readonly kind: 'repeat'; readonly key: string; readonly sentAt: number }
  | { readonly kind: 'order' }

/** Ends a rehearsal (see OperationFrame.rehearsal): thrown where the create would first change something. */
export class RehearsalEnded extends Error {
  override readonly name = 'RehearsalEnded'
  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(`a plan's rehearsal sends no ${method} (${path})`)
  }
}

/**
 * Refuses a change (any request but a GET) while the operation is a plan's rehearsal of a create: the
 * rehearsal changes nothing, whatever the create would do before its order. The client runs it before
 * every attempt of a change, orders included.
 */
export function refuseInRehearsal(frame: OperationFrame | undefined, method: string, path: string): void {
  if (frame?.rehearsal !== undefined) throw new RehearsalEnded(method, path)
}

/** Without an operation deadline, a request keeps trying this many request timeouts... */
const DEFAULT_TIMEOUTS = 4
/** ...and at least this long: a refresh of a service that rate-limits waits as its 429s ask (REFUSED_GIVE_UP_MS). */
const DEFAULT_DEADLINE_MS = 5 * 60_000

/**
 * When the operation gives up, on the client's clock; without one (a refresh, a plan's read), a few
 * request timeouts from now and no less than five minutes. Failures other than 429 stay bounded by
 * their attempts (backend-api 1.10), and refusals by REFUSED_GIVE_UP_MS.
 */
export function operationDeadline(frame: OperationFrame | undefined, now: number, requestTimeoutMs: number): number {
  if (frame?.timeoutMs === undefined) return now + Math.max(DEFAULT_TIMEOUTS * requestTimeoutMs, DEFAULT_DEADLINE_MS)
  frame.startedAt ??= now
  return frame.startedAt + frame.timeoutMs
}

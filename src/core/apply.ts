/**
 * The apply engine: create, ordered update steps with checkpoints, read, import, delete, data reads.
 * It runs one call at a time and keeps nothing between calls: the operation a call runs in and what
 * the order journal is told are the provider runtime's (src/server).
 */
import { type Attributes, isComputed, isInput } from './attributes.js'
import {
  type AnyDataSource,
  type AnyMethod,
  type AnyResource,
  type Logger,
  type OperationContext,
  ordersAccounts,
  type Quote,
  type ReadContext,
  type TimeoutName,
} from './definition-types.js'
import { causeOf, clauseOf, type Diagnostic, error, hasErrors, toDiagnostics, warning } from './diagnostics.js'
import { knownOrNull, type Plan, type PrivateState, stepsToRun } from './plan.js'
import { parseDuration, timeoutMs } from './timeouts.js'
import { validateConfig } from './validate.js'
import { isEmpty, isUnknown, type Value, type ValueMap, valuesEqual } from './values.js'
import { handlerInput, unverifiedAlternatives, withoutUnchosenForm, withoutWriteOnlyValues } from './write-only.js'

export interface Session<C> {
  readonly client: C
  readonly log: Logger
  /** Aborted when the user interrupts (Terraform StopProvider, Pulumi Cancel, SIGTERM). */
  readonly signal: AbortSignal
  /** The provider's advice on a failure caused by its configuration (AnyProvider.advise). */
  readonly advise?: (thrown: unknown) => string | null
  /**
   * Set when the user asked (through the provider setting of this name) that an order left
   * unfinished (waiting for payment, or work deferred until it is Active) fail the operation: the
   * state is still returned with its id, marked incomplete.
   */
  readonly unfinishedIsError?: string
  /** What identifies the resource beyond its inputs, when the front end knows it (a Pulumi URN), or its state (Terraform's). */
  readonly scope?: string | undefined
  /** The scope names the resource itself (a Pulumi URN), not only its state (see the API client's OperationFrame). */
  readonly scopeIsResource?: boolean
  /** When the scope names the resource, the scope of the state it is in (a Pulumi stack; see the API client's OperationFrame). */
  readonly stateScope?: string | undefined
  /**
   * A create's question before it takes an existing object over (CreateContext.takeOver); the
   * provider server answers it for the whole process. Without it every take-over is allowed.
   */
  readonly takeOver?: (id: string) => Promise<boolean>
  /**
   * Told, while a step of an update runs, what it changes (each of its inputs from its value in the
   * prior state to its planned one, as text), and undefined once it ends: the front end's operation
   * hands it to the orders the step places, so that an order is a stopped run's only when it is the
   * same change planned from the same state.
   */
  readonly changingFrom?: (change: string | undefined) => void
  /** The clock (ms); default Date.now. */
  readonly now?: () => number
  /**
   * Aborted once whoever the outcome is for can no longer get it: the engine's call is gone (a terraform
   * killed while a provider process it reattached to, which outlives it, still runs the operation). The
   * orders of an operation whose outcome reaches nobody are not handed over (see the server's withOperation).
   */
  readonly receiver?: AbortSignal
}

/**
 * How long after a create's order a 404 for the object is not taken as gone: a service may not show a
 * new order at once (the service's API says up to 30 s), and a refresh or destroy soon after an apply
 * that stopped during its wait would otherwise forget an object that is being billed.
 */
export const NEW_ORDER_GRACE_MS = 120_000

/** Whether a 404 for the object may only mean that its create's order does not show yet (see NEW_ORDER_GRACE_MS). */
function orderNotShownYet<C>(priorPrivate: PrivateState, session: Session<C>): boolean {
  const at = priorPrivate.orderedAt
  return priorPrivate.resume === true && typeof at === 'number' && (session.now ?? Date.now)() - at < NEW_ORDER_GRACE_MS
}

/** With `unfinishedIsError`, the error that makes an unfinished order fail the operation. */
function unfinishedError<C>(session: Session<C>, definition: AnyResource, id: string, why: string | undefined): Diagnostic[] {
  if (!session.unfinishedIsError || why === undefined) return []
  return [
    error(
      `${definition.name} ${id} is not finished`,
      `The order for ${definition.name} ${id} was placed but is not finished: ${why}. The provider is set to treat this ` +
        `as an error (${session.unfinishedIsError}). The resource is saved with its id; the next apply resumes it and orders nothing again.`,
    ),
  ]
}

/** The diagnostics of a failure, the first one ending with what to fix in the configuration when that is the cause. */
export function failureOf<C>(session: Session<C>, thrown: unknown, summary: string, attributeNames: readonly string[]): Diagnostic[] {
  const list = toDiagnostics(thrown, summary, attributeNames)
  const advice = session.advise?.(thrown)
  const [first, ...rest] = list
  return advice && first ? [{ ...first, detail: `${first.detail} ${advice}` }, ...rest] : list
}

export interface Outcome {
  /** The state to record; null when nothing exists (a failed create before any order, a delete). */
  readonly state: ValueMap | null
  readonly private: PrivateState
  readonly diagnostics: readonly Diagnostic[]
  /** An order was placed but the operation stopped before it finished; the state holds its id. */
  readonly incomplete: boolean
  /**
   * With `incomplete`: the service refused a later step after the order was placed, so the operation
   * failed, rather than stopping before it finished (interrupted, timed out, waiting for payment).
   */
  readonly failedAfterOrder?: true
  /** What was thrown when the operation failed, for front ends that map it to their own codes. */
  readonly cause?: unknown
}

type Observed = Record<string, unknown>

function contextFor<C>(session: Session<C>, diagnostics: Diagnostic[]): OperationContext<C> {
  return {
    client: session.client,
    signal: session.signal,
    log: session.log,
    warn: (summary, detail) => diagnostics.push(warning(summary, detail)),
  }
}

/** What a read is given of the notes (ReadContext.notes, note, resuming). */
type ReadNotes = Pick<ReadContext<unknown, Attributes>, 'notes' | 'note' | 'resuming'>

/** What a read that only compares or tells gone is given of the notes: none, and its own are not kept. */
const UNNOTED = { notes: {}, note: () => undefined, resuming: false } as const

/** The notes with `name` set to `value`, or dropped when it is null (PrivateState.notes). */
function noted(notes: Readonly<Record<string, string>>, name: string, value: string | null): Record<string, string> {
  const { [name]: _dropped, ...rest } = notes
  return value === null ? rest : { ...rest, [name]: value }
}

/** The private state with these notes, none when empty. */
function withNotes(state: PrivateState, notes: Readonly<Record<string, string>>): PrivateState {
  const { notes: _prior, ...rest } = state
  return Object.keys(notes).length > 0 ? { ...rest, notes } : rest
}

function names(definition: AnyResource | AnyDataSource): string[] {
  return Object.keys(definition.attributes)
}

/** The state after an operation: known planned values stand; the service fills what was unknown. */
function settle(planned: ValueMap, observed: Observed): ValueMap {
  const state: Record<string, Value> = {}
  for (const [name, value] of Object.entries(planned)) {
    state[name] = isUnknown(value) ? knownOrNull((observed[name] ?? null) as Value) : knownOrNull(value)
  }
  return state
}

function plainInput(planned: ValueMap): Record<string, Value> {
  return Object.fromEntries(Object.entries(planned).map(([k, v]) => [k, isUnknown(v) ? null : v]))
}

function timeoutOf(definition: AnyResource, state: ValueMap, name: TimeoutName): number {
  return timeoutMs(definition.timeouts, state.timeouts ?? null, name)
}

/**
 * An order or change bound to time out at once is not sent (a paid object or change left unfinished for
 * nothing): why, when what came before it in the operation left under a tenth of its timeout; else null.
 */
function tooLateToSend(name: TimeoutName, elapsedMs: number, timeoutMs: number, before: string, sent: string): string | null {
  if (timeoutMs - elapsedMs >= timeoutMs / 10) return null
  return (
    `${before} took ${Math.round(elapsedMs / 1000)} s of the ${name} timeout, and ${sent} not ` +
    `sent with less than a tenth of it left: apply again, or raise timeouts.${name}`
  )
}

/**
 * What to do about a wait that ran out of the operation's timeout (the API client's wait error, read
 * structurally: reason 'timeout' and the time it waited): raise that timeout, named with its value.
 * Empty for any other failure, a request's own timeout included, and for a wait the service's failures
 * ended.
 */
function raiseTimeout(thrown: unknown, name: TimeoutName, timeoutMs: number): string {
  const wait = thrown as { reason?: unknown; elapsedMs?: unknown } | null
  if (!(thrown instanceof Error) || wait?.reason !== 'timeout' || typeof wait.elapsedMs !== 'number') return ''
  // A wait whose reads the service was failing when it ran out (the error's cause): the service, not
  // the time it needs, kept the answer away, and the message names that failure.
  if (thrown.cause !== undefined) return ''
  const seconds = Math.round(timeoutMs / 1000)
  const text = seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`
  return ` The ${name} timeout is ${text}: if the service needs longer, raise timeouts.${name}.`
}

function isNotFound(value: unknown): boolean {
  return value instanceof Error && (value as { notFound?: unknown }).notFound === true
}

/** The not-found answers of the object's own calls (ownCall): copies, so an answer shared with another caller stays unmarked. */
const ownNotFound = new WeakSet<object>()

/**
 * The call of a read or a delete that is about the object itself (its GET by id, its DELETE): a 404
 * or 410 it answers says that the object is gone (a read finds nothing, a delete is done). Core
 * takes no other not-found as that: one from any other call (the details under a VM, a server's
 * power state) fails the read or delete and keeps the object in state, since removing a live object
 * makes the next apply order it again. A read whose object can be missing without a not-found (a
 * list searched for it, a terminated status) returns null instead.
 */
export async function ownCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown
    // Identical reads in flight share one answer (api/shared-reads.ts): the mark goes on a copy that
    // inherits everything the answer says (its message, status, request), never on the answer itself.
    const own = Object.create(thrown as Error) as Error
    ownNotFound.add(own)
    throw own
  }
}

/** Whether the object's own call (ownCall) answered that it is not there. */
function isGone(value: unknown): boolean {
  return typeof value === 'object' && value !== null && ownNotFound.has(value)
}

/**
 * An order (or one-shot action) the service may have processed without the provider learning it: no
 * answer before the deadline, or an ambiguous failure from a service that does not confirm keys.
 */
function outcomeUnknown(value: unknown): boolean {
  return value instanceof Error && (value as { outcomeUnknown?: unknown }).outcomeUnknown === true
}

/** The outcome with no write-only value in its state, whatever path the operation ended on (write-only.ts). */
function scrubbed<O extends { readonly state: ValueMap | null }>(definition: AnyResource, outcome: O): O {
  return { ...outcome, state: withoutWriteOnlyValues(definition, outcome.state) }
}

/**
 * A create. `planned` is the plan with the configuration's write-only values put back
 * (withWriteOnlyValues): the handler receives them under their alternatives' names.
 */
export async function applyCreate<C>(definition: AnyResource, planned: ValueMap, session: Session<C>): Promise<Outcome> {
  return scrubbed(definition, await create(definition, planned, session))
}

async function create<C>(definition: AnyResource, planned: ValueMap, session: Session<C>): Promise<Outcome> {
  const diagnostics: Diagnostic[] = []
  let reached: Observed | null = null
  let later = false
  let waiting: string | undefined
  // An order left unfinished is resumed by the next apply; until then a 404 for it may be a new order's.
  const now = session.now ?? Date.now
  const started = now()
  const resumeMark = { resume: true, orderedAt: started }
  const timeoutMs = timeoutOf(definition, planned, 'create')
  let ordering = false
  try {
    // One timeout for the whole create: what the wait before the order took, the order does not get again.
    await readyToOrder(definition, planned, session, diagnostics, timeoutMs)
    const late = tooLateToSend('create', now() - started, timeoutMs, 'waiting for what this order needs', 'the order is')
    if (late !== null) throw new Error(late)
    ordering = true
    const observed = await definition.create({
      ...contextFor(session, diagnostics),
      waitingFor: (why: string) => {
        waiting = why
      },
      input: handlerInput(definition.attributes, plainInput(planned)),
      timeoutMs: Math.max(1, timeoutMs - (now() - started)),
      checkpoint: (partial: Observed) => {
        reached = { ...(reached ?? {}), ...partial }
      },
      resumeLater: () => {
        later = true
      },
      takeOver: session.takeOver ?? (async () => true),
    })
    const state = settle(planned, observed)
    const deferred = later && definition.resume !== undefined
    const failing = unfinishedError(
      session,
      definition,
      String(state.id),
      waiting ?? (deferred ? 'what was asked besides the order waits until it is Active' : undefined),
    )
    // Made an error, an unfinished order is resumed by the next apply as its message says: it waits for
    // the order again (and fails again while it is unfinished) instead of taking the saved state as done.
    const resume = (deferred || failing.length > 0) && definition.resume !== undefined
    return { state, private: resume ? resumeMark : {}, diagnostics: [...diagnostics, ...failing], incomplete: failing.length > 0 }
  } catch (thrown) {
    const failure = failureOf(
      session,
      thrown,
      ordering ? `Creating ${definition.name} failed` : `Creating ${definition.name} failed before its order: nothing was ordered`,
      names(definition),
    )
    // Nothing to keep when nothing was ordered, or when what was ordered is gone (terminated while waited for).
    if (reached === null || (await goneAfterOrder(definition, settle(planned, reached), thrown, session))) {
      return { state: null, private: {}, diagnostics: [...diagnostics, ...failure], incomplete: false, cause: thrown }
    }
    const state = settle(planned, reached)
    const resumable = definition.resume !== undefined
    if (refusedLater(thrown)) {
      // The order went through and a later step of the create failed (e.g. a storage upgrade the
      // service refused): the state records what the server has, so the next plan shows what is left.
      // The next apply resumes what the create left (a power state to set), when the type resumes.
      const server = await serverState(definition, state, session, diagnostics, { ...UNNOTED, resuming: resumable })
      if (server !== null) {
        diagnostics.push(
          ...failure,
          error(
            `The ${definition.name} was ordered, but a later step of its create failed`,
            `The service accepted the order for ${definition.name} ${String(state.id)}${orderText(definition, state)} and it is kept in state ` +
              `with what the server reports. Then this failed: ${clauseOf(thrown)}. The next plan shows what the server ` +
              'does not have yet, and the next apply changes only that; nothing is ordered again for what already exists.',
          ),
        )
        return {
          state: server,
          private: resumable ? resumeMark : {},
          diagnostics,
          incomplete: true,
          failedAfterOrder: true,
          cause: thrown,
        }
      }
    }
    diagnostics.push(
      ...failure,
      error(
        `The ${definition.name} order was placed and is kept in state`,
        `The service accepted the order for ${definition.name} ${String(state.id)}${orderText(definition, state)}, but the ` +
          `operation did not finish: ${clauseOf(thrown)}. The resource is recorded with its id, so nothing is lost ` +
          (resumable ? 'and the next apply resumes waiting for it instead of ordering again.' : 'and is not ordered again.') +
          raiseTimeout(thrown, 'create', timeoutMs),
      ),
    )
    const refused = refusedLater(thrown) ? { failedAfterOrder: true as const } : {}
    return { state, private: resumable ? resumeMark : {}, diagnostics, incomplete: true, ...refused, cause: thrown }
  }
}

/**
 * The service answered a later request of the create that changes something (a storage upgrade, a
 * power action) with an error status: the step failed. Not a read that failed while waiting, nor a
 * wait that ran out or was stopped: those leave the order unfinished, to be resumed.
 */
function refusedLater(value: unknown): boolean {
  return value instanceof Error && (value as { changeRefused?: unknown }).changeRefused === true
}

/** The state with every attribute the service reports replaced by its value; null when it cannot be read. */
async function serverState<C>(
  definition: AnyResource,
  state: ValueMap,
  session: Session<C>,
  diagnostics: Diagnostic[],
  notes: ReadNotes,
): Promise<ValueMap | null> {
  try {
    const observed = await definition.read({
      ...contextFor(session, diagnostics),
      ...notes,
      id: String(state.id),
      prior: state as never,
      importing: false,
    })
    if (observed === null) return null
    const out: Record<string, Value> = { ...state }
    for (const [name, value] of Object.entries(observed)) {
      if (value !== undefined && definition.attributes[name] !== undefined) out[name] = value as Value
    }
    return out
  } catch {
    return null
  }
}

/**
 * Whether the object a create ordered is gone after `thrown` ended the create: the wait's own verdict
 * (terminated, or not found past the service's grace), or a 404 that a read of the object confirms. A
 * 404 of another call (a power action, a detail under the object) says nothing about the object itself,
 * and the paid object stays in state unless the read finds it gone.
 */
async function goneAfterOrder<C>(definition: AnyResource, state: ValueMap, thrown: unknown, session: Session<C>): Promise<boolean> {
  if (thrown instanceof Error && (thrown as { gone?: unknown }).gone === true) return true
  if (!isNotFound(thrown)) return false
  try {
    const observed = await definition.read({
      ...contextFor(session, []),
      ...UNNOTED,
      id: String(state.id),
      prior: state as never,
      importing: false,
    })
    return observed === null
  } catch (error) {
    return isGone(error)
  }
}

/** The order that made the object, for messages, when its definition keeps it (AttributeFlags.identifiesOrder). */
function orderText(definition: AnyResource, state: ValueMap): string {
  const name = Object.keys(definition.attributes).find((n) => definition.attributes[n]?.identifiesOrder === true)
  const order = name === undefined ? undefined : state[name]
  return typeof order === 'string' && order !== '' ? ` (order ${order})` : ''
}

/** An update; `planned` holds the configuration's write-only values, as for applyCreate. */
export async function applyUpdate<C>(
  definition: AnyResource,
  prior: ValueMap,
  planned: ValueMap,
  priorPrivate: PrivateState,
  session: Session<C>,
): Promise<Outcome> {
  return scrubbed(definition, await update(definition, prior, planned, priorPrivate, session))
}

async function update<C>(
  definition: AnyResource,
  prior: ValueMap,
  planned: ValueMap,
  priorPrivate: PrivateState,
  session: Session<C>,
): Promise<Outcome> {
  const run = new UpdateRun(definition, prior, planned, priorPrivate, session)
  // Each part answers an outcome when the update stops there, null to go on.
  return (await resumeWait(run)) ?? (await runSteps(run)) ?? (await finishResume(run)) ?? (await readAfterUpdate(run))
}

/** One update as it runs: what it was asked, the state it has reached, and the marks its steps earned. */
class UpdateRun<C> {
  readonly id: string
  readonly diagnostics: Diagnostic[] = []
  /** The update's timeout, one for all its parts: what the wait before a step took, the step does not get again. */
  readonly timeoutMs: number
  readonly startedAt: number
  private readonly now: () => number
  private readonly fixed: OperationContext<C> & { readonly id: string; waitingFor(why: string): void }
  /** The state so far: the prior, with what the resumed wait and each step did. */
  current: Record<string, Value>
  /** Something called the service, so the update ends with a read. */
  remote = false
  /** The resumed wait or a step left something for the next apply to finish. */
  later = false
  /** What a change waits for (an unpaid invoice), as its handler said. */
  waiting: string | undefined
  /** The wait an earlier apply left (the resume mark) ran first. */
  resumed = false
  /** The object was found ready for this update's orders (readyForChanges): what waited for payment before is paid. */
  readied = false
  /** That resume only waited (steps followed): the rest of it runs after the steps (finishResume). */
  resumeDeferred = false

  constructor(
    readonly definition: AnyResource,
    readonly prior: ValueMap,
    readonly planned: ValueMap,
    readonly priorPrivate: PrivateState,
    readonly session: Session<C>,
  ) {
    this.id = String(prior.id)
    this.current = { ...prior }
    this.notes = priorPrivate.notes ?? {}
    this.timeoutMs = timeoutOf(definition, planned, 'update')
    this.now = session.now ?? Date.now
    this.startedAt = this.now()
    this.fixed = {
      ...contextFor(session, this.diagnostics),
      id: this.id,
      waitingFor: (why: string) => {
        this.waiting = why
      },
    }
  }

  /** What every handler of the update is given, with what is left of the update's timeout. */
  get base(): OperationContext<C> & { readonly id: string; readonly timeoutMs: number; waitingFor(why: string): void } {
    return { ...this.fixed, timeoutMs: Math.max(1, this.timeoutMs - this.elapsedMs()) }
  }

  elapsedMs(): number {
    return this.now() - this.startedAt
  }

  /** The planned inputs as handlers take them. */
  input(): Record<string, Value> {
    return handlerInput(this.definition.attributes, plainInput(this.planned))
  }

  /** Steps of this update will call the service (not only record, nor only rename): a resume then waits only, first. */
  get stepsFollow(): boolean {
    return stepsToRun(this.definition, this.prior, this.planned).some(
      (step) => !step.recordOnly && this.definition.updates[step.index]?.cosmetic !== true,
    )
  }

  /**
   * What an update that stops early hands back: the prior marks plus those earned by the steps that
   * ran (a wait left for later, a change waiting for payment). Dropping them would let the next
   * refresh copy the old values over a change already ordered, and the next plan order it again.
   */
  earned(): PrivateState {
    return withNotes(
      {
        ...this.priorPrivate,
        ...(this.later ? { resume: true } : {}),
        ...(this.waiting !== undefined ? { waiting: this.waiting } : {}),
      },
      this.notes,
    )
  }

  /** What the steps and reads of this update noted (PrivateState.notes), from the prior ones on. */
  notes: Readonly<Record<string, string>>

  readonly note = (name: string, value: string | null): void => {
    this.notes = noted(this.notes, name, value)
  }

  /** The notes as a read of this update takes them. */
  readNotes(): ReadNotes {
    return { notes: this.notes, note: this.note, resuming: this.priorPrivate.resume === true || this.later }
  }

  /** The state reached, for an update that stops early. */
  reached(): ValueMap {
    return knownOrNull(this.current) as ValueMap
  }
}

/**
 * Finishes the wait a previous apply left (PrivateState.resume), before any step runs: only the wait
 * when steps follow, the rest after them (finishResume).
 */
async function resumeWait<C>(run: UpdateRun<C>): Promise<Outcome | null> {
  const { definition, session } = run
  if (!run.priorPrivate.resume || !definition.resume) return null
  try {
    run.remote = true
    run.resumed = true
    run.resumeDeferred = run.stepsFollow
    await resumeOnce(run, run.resumeDeferred)
    return null
  } catch (thrown) {
    const [first, ...rest] = failureOf(session, thrown, `Waiting for ${definition.name} ${run.id} failed`, names(definition))
    const advice = raiseTimeout(thrown, 'update', run.timeoutMs)
    const failure = first === undefined ? rest : [{ ...first, detail: `${first.detail}${advice}` }, ...rest]
    return { state: run.current, private: run.priorPrivate, diagnostics: [...run.diagnostics, ...failure], incomplete: true, cause: thrown }
  }
}

async function resumeOnce<C>(run: UpdateRun<C>, waitOnly: boolean): Promise<void> {
  const resumeLater = () => {
    run.later = true
  }
  const resume = run.definition.resume as NonNullable<AnyResource['resume']>
  const observed = (await resume({ ...run.base, input: run.input(), prior: run.current as never, resumeLater, waitOnly })) ?? {}
  // Before the steps, only what the service alone sets: each step's change is told from the inputs the
  // state held (changeOf), as a stopped run of the same step told it, so that a re-run takes its order over.
  const kept = Object.entries(observed as Record<string, Value>).filter(([name]) => {
    const attribute = run.definition.attributes[name]
    return !waitOnly || attribute === undefined || !isInput(attribute)
  })
  run.current = { ...run.current, ...Object.fromEntries(kept) }
}

/**
 * The rest of a resume that only waited while the steps ran (ResumeContext.waitOnly): what the earlier
 * apply left for after Active, done now from what the steps left (a disk the new package includes is
 * not ordered). A failure keeps the steps' changes and the resume mark.
 */
async function finishResume<C>(run: UpdateRun<C>): Promise<Outcome | null> {
  if (!run.resumeDeferred) return null
  run.resumeDeferred = false
  // What the earlier apply left may order (a disk): not with under a tenth of the update's timeout left.
  const stopped = tooLate(run, `what an earlier apply left of ${run.definition.name} ${run.id} (its resume)`, {
    summary: `${run.definition.name} ${run.id} is not finished yet`,
    after: 'The changes this apply made are recorded in state; the next apply finishes the rest and orders nothing twice.',
    private: { ...run.earned(), resume: true },
  })
  if (stopped) return stopped
  try {
    await resumeOnce(run, false)
    return null
  } catch (thrown) {
    const { definition, session } = run
    const failure = failureOf(session, thrown, `Finishing ${definition.name} ${run.id} failed`, names(definition))
    return {
      state: run.reached(),
      private: { ...run.earned(), resume: true },
      diagnostics: [...run.diagnostics, ...failure],
      incomplete: true,
      cause: thrown,
    }
  }
}

/** Runs the steps the plan needs, in order; answers an outcome when one stops the update. */
async function runSteps<C>(run: UpdateRun<C>): Promise<Outcome | null> {
  const { definition, prior, planned, session } = run
  const steps = stepsToRun(definition, prior, planned)
  for (const [position, scheduled] of steps.entries()) {
    const sends = !scheduled.recordOnly && definition.updates[scheduled.index]?.cosmetic !== true
    if (sends && !run.readied && run.waiting === undefined) {
      const stopped = await readyForChanges(run, scheduled.attributes)
      if (stopped) return stopped
    }
    if (sends && run.waiting !== undefined) return await waitingForPayment(run, steps.slice(position))
    // Only an order (a priced step): a free call that returns at once is worth sending with little time left.
    if (sends && definition.updates[scheduled.index]?.price !== undefined) {
      const what = `${scheduled.attributes.join(', ')} of ${definition.name} ${run.id}`
      const stopped = tooLate(run, what, {
        summary: `${what} not changed yet`,
        after: 'Whatever this apply changed before is recorded in state.',
        private: run.earned(),
        path: [scheduled.attributes[0] as string],
      })
      if (stopped) return stopped
    }
    if (session.signal.aborted && !scheduled.recordOnly) {
      // Interrupted: stop at a step boundary with every finished step recorded.
      run.diagnostics.push(
        error(
          'Interrupted',
          `The update of ${definition.name} ${run.id} stopped before changing ${scheduled.attributes.join(', ')}; ` +
            'the steps already done are recorded, and the next apply continues from here.',
        ),
      )
      return { state: run.reached(), private: run.earned(), diagnostics: run.diagnostics, incomplete: false }
    }
    const stopped = await runStep(run, scheduled)
    if (stopped) return stopped
  }
  return null
}

/**
 * Waits until the service takes this update's orders (ResourceDefinition.readyForChanges): a failure
 * there (Suspended, a timeout) stops the update before anything is sent, keeping what the steps
 * before did.
 */
async function readyForChanges<C>(run: UpdateRun<C>, attributes: readonly string[]): Promise<Outcome | null> {
  const { definition, session } = run
  if (definition.readyForChanges === undefined) return null
  try {
    await definition.readyForChanges({ ...run.base, prior: run.current as never })
    run.readied = run.waiting === undefined
    return null
  } catch (thrown) {
    const what = `${attributes.join(', ')} of ${definition.name} ${run.id}`
    const failure = failureOf(session, thrown, `Not changing ${what}: nothing was sent`, names(definition))
    return { state: run.reached(), private: run.earned(), diagnostics: [...run.diagnostics, ...failure], incomplete: false, cause: thrown }
  }
}

/**
 * One timeout for the whole update: an order (`what`: a step's, or what a resume left) is not sent once
 * what ran before it (the wait an earlier apply left, the wait until the service takes changes, the
 * steps before) left under a tenth of it. What ran is recorded; the next apply goes on from there.
 */
function tooLate<C>(
  run: UpdateRun<C>,
  what: string,
  stop: { readonly summary: string; readonly after: string; readonly private: PrivateState; readonly path?: readonly string[] },
): Outcome | null {
  const why = tooLateToSend('update', run.elapsedMs(), run.timeoutMs, 'what this update waited for and changed before', `${what} is`)
  if (why === null) return null
  run.diagnostics.push(error(stop.summary, `${why}. ${stop.after}`, stop.path))
  return { state: run.reached(), private: stop.private, diagnostics: run.diagnostics, incomplete: false }
}

/**
 * A step ordered a change that waits for payment (its invoice unpaid: the account stays Pending), and
 * the service refuses every other change of a Pending account but a cosmetic one: the steps left are
 * not sent, rather than refused one by one. What was ordered is recorded, with what the service shows
 * of the account now (its status Pending: the next plan then asks whether the invoice is paid, even
 * without a refresh); the error says what is left and that the next apply, once the invoice is paid,
 * changes it without ordering anything twice.
 */
async function waitingForPayment<C>(run: UpdateRun<C>, left: ReturnType<typeof stepsToRun>): Promise<Outcome> {
  const { definition } = run
  // Only what the service alone sets: an input keeps the target its order was placed for, or the value it had.
  const shown = await serverState(definition, run.reached(), run.session, run.diagnostics, run.readNotes())
  if (shown !== null) {
    for (const [name, attribute] of Object.entries(definition.attributes)) {
      if (!isInput(attribute) && name in shown) run.current[name] = shown[name] ?? null
    }
  }
  const names = left.filter((step) => !step.recordOnly).flatMap((step) => step.attributes)
  const one = names.length === 1
  run.diagnostics.push(
    error(
      `${names.join(', ')} of ${definition.name} ${run.id} ${one ? 'is' : 'are'} not changed yet`,
      `The account waits for payment (${run.waiting}), and the service takes no other change while it is Pending, so ` +
        `${names.join(', ')} ${one ? 'was' : 'were'} not sent. Whatever this apply ordered before is recorded in state. ` +
        `Pay the invoice in the portal, then apply again: that apply changes ${names.join(', ')} and orders nothing twice.`,
      [names[0] as string],
    ),
  )
  return { state: run.reached(), private: run.earned(), diagnostics: run.diagnostics, incomplete: false }
}

/** What a step moves its attributes to: their planned values. */
function movedTo(attributes: readonly string[], planned: ValueMap): Record<string, Value> {
  return Object.fromEntries(attributes.map((name) => [name, planned[name] ?? null]))
}

/** One step: recorded only, or applied; answers an outcome when its failure stops the update. */
async function runStep<C>(run: UpdateRun<C>, scheduled: ReturnType<typeof stepsToRun>[number]): Promise<Outcome | null> {
  const { definition, planned, session } = run
  const step = definition.updates[scheduled.index]
  const moved = movedTo(scheduled.attributes, planned)
  if (!step || scheduled.recordOnly) {
    run.current = { ...run.current, ...moved }
    return null
  }
  run.remote = true
  let placed = false
  session.changingFrom?.(changeOf(definition, scheduled.attributes, run.current, moved))
  // The order-time inputs the step's order is sent with are recorded once it is placed (its checkpoint),
  // even when the update stops after it (waiting for payment): the state then tells the order as sent.
  const sentWith: Record<string, Value> = {}
  for (const name of step.placedWith ?? []) sentWith[name] = knownOrNull(planned[name] ?? null)
  try {
    const observed = await step.apply({
      ...run.base,
      input: run.input(),
      prior: run.current as never,
      checkpoint: (partial?: Observed) => {
        placed = true
        run.current = { ...run.current, ...moved, ...sentWith, ...((partial ?? {}) as Record<string, Value>) }
      },
      note: run.note,
    })
    run.current = { ...run.current, ...moved, ...((observed ?? {}) as Record<string, Value>) }
    return null
  } catch (thrown) {
    if (!placed && outcomeUnknown(thrown) && (await shownDone(run, scheduled.attributes, thrown))) return null
    const changed = scheduled.attributes.join(', ')
    run.diagnostics.push(...failureOf(session, thrown, `Updating ${changed} of ${definition.name} ${run.id} failed`, names(definition)))
    if (placed) {
      run.diagnostics.push(
        error(
          'The order was placed and is recorded',
          `The change of ${changed} was ordered but did not finish: ${clauseOf(thrown)}. ` +
            'It is recorded in state, so the next apply waits for it and does not order it again.' +
            raiseTimeout(thrown, 'update', run.timeoutMs),
        ),
      )
    }
    return {
      state: run.reached(),
      private: placed && definition.resume ? { ...run.earned(), resume: true } : run.earned(),
      diagnostics: run.diagnostics,
      incomplete: placed,
      cause: thrown,
    }
  } finally {
    session.changingFrom?.(undefined)
  }
}

/**
 * What a step changes: each of its inputs from its value in the prior state to its planned one (a
 * sensitive one only as set or not). A run stopped mid-step and its re-run plan the same change from
 * the same state, so the re-run's order is the stopped one's. A later identical request is another
 * change: it starts from the values the first one left, or, planned from a state that does not show
 * the first one yet, it aims at another value (the body of a relative order, +10 GB, is computed from
 * the service at apply and may be the same).
 */
function changeOf(definition: AnyResource, attributes: readonly string[], current: ValueMap, planned: ValueMap): string {
  const shown = (name: string, value: Value) => (definition.attributes[name]?.sensitive && value !== null ? '(set)' : value)
  return JSON.stringify(attributes.map((name) => [name, shown(name, current[name] ?? null), shown(name, planned[name] ?? null)]))
}

/**
 * After a step whose outcome is unknown: the service may have made the change. What it shows now is
 * recorded, so that a run that plans from the saved state without reading it first (Pulumi's `up`)
 * does not order it again; and when it shows the change made, the step is done (its order ran once,
 * unanswered): true.
 */
async function shownDone<C>(run: UpdateRun<C>, attributes: readonly string[], thrown: unknown): Promise<boolean> {
  const { definition, planned } = run
  const server = await serverState(definition, run.reached(), run.session, run.diagnostics, run.readNotes())
  if (server === null) return false
  run.current = { ...server }
  if (!attributes.every((name) => valuesEqual(server[name] ?? null, planned[name] ?? null))) return false
  run.diagnostics.push(
    warning(
      'The service shows the change',
      `${causeOf(thrown)} Read afterwards, ${definition.name} ${run.id} shows the change of ${attributes.join(', ')}: ` +
        'it took effect, so it is recorded as done and not ordered again.',
    ),
  )
  return true
}

/** The end of an update whose steps all ran: the marks it leaves, and a read when anything called the service. */
async function readAfterUpdate<C>(run: UpdateRun<C>): Promise<Outcome> {
  const { definition, planned, priorPrivate, session, diagnostics } = run
  run.current = { ...run.current, timeouts: planned.timeouts ?? null }
  // A change still waiting for payment stays marked until a read shows it took effect, or a resumed
  // wait ends without meeting an unpaid invoice again.
  const stillWaiting = run.waiting ?? (run.resumed || run.readied ? undefined : priorPrivate.waiting)
  const failing = unfinishedError(
    session,
    definition,
    run.id,
    run.waiting ?? (run.later ? 'what was asked waits until it is Active' : undefined),
  )
  // Made an error, an unfinished order is waited for again by the next apply (see applyCreate).
  const resume = run.later || (failing.length > 0 && definition.resume !== undefined)
  // A create's order still unfinished keeps when it was placed: a 404 soon after it is no proof of a gone object.
  const orderedAt = resume && priorPrivate.resume === true ? priorPrivate.orderedAt : undefined
  const marks: PrivateState = {
    ...(resume ? { resume: true } : {}),
    ...(orderedAt !== undefined ? { orderedAt } : {}),
    ...(stillWaiting !== undefined ? { waiting: stillWaiting } : {}),
  }
  // Read when the outcome is made: the handlers' warnings so far are among the diagnostics, their notes in run.notes.
  const finished = () => ({
    private: withNotes(marks, run.notes),
    diagnostics: [...diagnostics, ...failing],
    incomplete: failing.length > 0,
  })
  if (!run.remote) return { state: settle(planned, run.current), ...finished() }
  // Inputs that follow the service hold no target of their own: the read reports the current value.
  const following = Object.keys(definition.attributes).filter((name) => isUnknown(planned[name]) && definition.attributes[name]?.follows)
  for (const name of following) run.current[name] = null
  try {
    const observed = await definition.read({
      ...run.base,
      ...run.readNotes(),
      resuming: resume,
      prior: run.current as never,
      importing: false,
    })
    return { state: settle(planned, { ...run.current, ...(observed ?? {}) }), ...finished() }
  } catch (thrown) {
    diagnostics.push(...failureOf(session, thrown, `Reading ${definition.name} ${run.id} after the update failed`, names(definition)))
    return { state: run.reached(), ...finished(), cause: thrown }
  }
}

export async function applyDelete<C>(
  definition: AnyResource,
  prior: ValueMap,
  priorPrivate: PrivateState,
  session: Session<C>,
): Promise<Outcome> {
  const diagnostics: Diagnostic[] = []
  try {
    await definition.delete({
      ...contextFor(session, diagnostics),
      id: String(prior.id),
      prior: prior as never,
      timeoutMs: timeoutOf(definition, prior, 'delete'),
    })
    return { state: null, private: {}, diagnostics, incomplete: false }
  } catch (thrown) {
    // A 404 of the delete's own call (ownCall) is a delete already done, unless the object's order was placed moments ago by an apply that
    // stopped during its wait: a service may not show a new order at once, and the object would then be
    // billed, unmanaged.
    if (isGone(thrown) && !orderNotShownYet(priorPrivate, session)) return { state: null, private: {}, diagnostics, incomplete: false }
    if (isGone(thrown)) {
      diagnostics.push(
        error(
          `${definition.name} ${String(prior.id)} is not found yet; nothing was deleted`,
          'Its order was placed moments ago by an apply that stopped before it was Active, and the service does not ' +
            `show it yet (${clauseOf(thrown)}). It stays in state: run the destroy again in two minutes; a 404 then is ` +
            'taken as deleted.',
        ),
      )
      return { state: prior, private: priorPrivate, diagnostics, incomplete: false, cause: thrown }
    }
    const failure = failureOf(session, thrown, `Deleting ${definition.name} ${String(prior.id)} failed`, names(definition))
    // The object stays as it was, its marks too: a wait an earlier apply left is still resumed by the next apply.
    return { state: prior, private: priorPrivate, diagnostics: [...diagnostics, ...failure], incomplete: false, cause: thrown }
  }
}

/**
 * A one-shot method on an existing object (see ResourceMethod): its arguments checked as written,
 * then run once. It changes no state; its failure is diagnostics naming the method and the object,
 * and, when the object takes no change now for a reason the definition knows (changesRefused: an
 * unpaid invoice keeps it Pending), that reason, ending with `again`: how the user runs the method
 * again, in the front end's words.
 */
export async function runMethod<C>(
  definition: AnyResource,
  method: AnyMethod,
  id: string,
  input: ValueMap,
  session: Session<C>,
  progress: (message: string) => void,
  again = 'run it again',
): Promise<{ readonly diagnostics: readonly Diagnostic[]; readonly cause?: unknown }> {
  const issues = [...validateConfig(method.inputs, input, { requireInputs: true }), ...checkMethodId(definition, id)]
  if (hasErrors(issues)) return { diagnostics: issues }
  // What the service would refuse is refused before the call (a rebuild with an OS it does not offer).
  issues.push(...(await checkMethodOnline(method, id, input, session)))
  if (hasErrors(issues)) return { diagnostics: issues }
  const diagnostics: Diagnostic[] = [...issues]
  const arguments_ = Object.fromEntries(Object.keys(method.inputs).map((name) => [name, knownOrNull(input[name] ?? null)]))
  try {
    await method.run({
      ...contextFor(session, diagnostics),
      id,
      input: arguments_,
      timeoutMs: parseDuration(method.timeout) ?? 0,
      progress,
    })
    return { diagnostics }
  } catch (thrown) {
    const summary = `${definition.name} ${method.name} of ${id} failed`
    const [first, ...rest] = failureOf(session, thrown, summary, Object.keys(method.inputs))
    const why = first === undefined || !refusedByService(thrown) ? undefined : await refusedNow(definition, id, session, again)
    const failure = first === undefined ? [] : [why === undefined ? first : { ...first, detail: `${first.detail} ${why}.` }, ...rest]
    return { diagnostics: [...diagnostics, ...failure], cause: thrown }
  }
}

/**
 * The service answered the method's call and refused it (a mutating call answered 4xx, read structurally:
 * `changeRefused` and the client's `fault`), as it refuses a change of an object whose status takes none.
 * A 5xx, or no answer, is no such refusal: a read after it would only spend the time of a failing service.
 */
function refusedByService(thrown: unknown): boolean {
  const answer = thrown as { changeRefused?: unknown; fault?: unknown } | null
  return answer?.changeRefused === true && answer.fault === 'client'
}

/**
 * Why the service takes no change of the object now (changesRefused), asked after it refused a method:
 * the service's own answer says only what status the call needs, not what keeps the object there nor
 * what to do. Nothing when the run was interrupted, or when the read fails.
 */
async function refusedNow<C>(definition: AnyResource, id: string, session: Session<C>, again: string): Promise<string | undefined> {
  if (definition.changesRefused === undefined || session.signal.aborted) return undefined
  try {
    return await definition.changesRefused({ ...contextFor(session, []), id, prior: null, cosmetic: [], afterwards: again })
  } catch {
    return undefined
  }
}

export interface ReadOutcome {
  /** Null when the object is gone. */
  readonly state: ValueMap | null
  readonly private: PrivateState
  readonly diagnostics: readonly Diagnostic[]
  readonly cause?: unknown
  /** An import found no object of this type with the id (its error says so): set only by importResource. */
  readonly missing?: true
}

/**
 * A refresh: what the service reports replaces the state; inputs it cannot report keep their prior
 * values (or their defaults at import); a read that finds the object gone (null, or a 404 of its own
 * call: ownCall) removes the resource.
 */
export async function readResource<C>(
  definition: AnyResource,
  prior: ValueMap | null,
  id: string,
  priorPrivate: PrivateState,
  session: Session<C>,
): Promise<ReadOutcome> {
  const outcome = scrubbed(definition, await read(definition, prior, id, priorPrivate, session))
  const state = withoutUnchosenForm(definition, prior, outcome.state)
  // Compared once the state holds what it will keep: a write-only value the service echoes (left
  // out of every state) is no change that records the live figures.
  const kept = prior !== null && state !== null && outcome.cause === undefined ? keepLiveFigures(definition, prior, state) : state
  return { ...outcome, state: kept }
}

async function read<C>(
  definition: AnyResource,
  prior: ValueMap | null,
  id: string,
  priorPrivate: PrivateState,
  session: Session<C>,
): Promise<ReadOutcome> {
  const diagnostics: Diagnostic[] = []
  let notes = prior === null ? {} : (priorPrivate.notes ?? {})
  try {
    const observed = await definition.read({
      ...contextFor(session, diagnostics),
      id,
      prior: prior as never,
      importing: prior === null,
      notes,
      note: (name, value) => {
        notes = noted(notes, name, value)
      },
      resuming: prior !== null && priorPrivate.resume === true,
    })
    if (observed === null) return { state: null, private: {}, diagnostics }
    const base = prior ?? importBase(definition)
    const state: Record<string, Value> = { ...base, id }
    // An order still in flight (the resume mark) or waiting for payment shows its change only once
    // Active: the inputs keep the targets recorded when it was placed, or the next plan would order
    // the same change again.
    const pending = prior !== null && (priorPrivate.resume === true || priorPrivate.waiting !== undefined)
    let differs = false
    for (const [name, value] of Object.entries(observed)) {
      const attribute = definition.attributes[name]
      if (value === undefined || attribute === undefined) continue
      if (pending && isInput(attribute)) {
        // A grow-only target the object has outgrown is reached (see `growOnly`).
        const outgrown = attribute.growOnly === true && typeof value === 'number' && typeof prior[name] === 'number' && value > prior[name]
        differs ||= !outgrown && !valuesEqual(value as Value, prior[name] ?? null)
        continue
      }
      // A grow-only value is a floor: found larger, the object is no drift (see `growOnly`).
      if (attribute.growOnly && typeof value === 'number' && typeof prior?.[name] === 'number' && value > prior[name]) continue
      state[name] = value as Value
    }
    if (Object.keys(definition.timeouts).length > 0) state.timeouts = prior?.timeouts ?? null
    // A paid change shows in the service's values: the wait for payment is over.
    const { waiting, ...rest } = withNotes(priorPrivate, notes)
    const paid = waiting !== undefined && !differs ? rest : withNotes(priorPrivate, notes)
    // The order the resume mark waits for is done, and every input shows what was asked: nothing is left.
    if (paid.resume === true && !differs && definition.finished?.(observed as never) === true) {
      const { resume: _resume, orderedAt: _orderedAt, ...done } = paid
      return { state, private: done, diagnostics }
    }
    return { state, private: paid, diagnostics }
  } catch (thrown) {
    // The object's own read (ownCall) answered 404: gone. But an order placed moments ago by an apply
    // that stopped during its wait may not show yet: a service may answer 404 for a while after it
    // accepted an order. The object stays in state for that while. Any other not-found is a failure.
    if (isGone(thrown) && !(prior !== null && orderNotShownYet(priorPrivate, session))) return { state: null, private: {}, diagnostics }
    if (isGone(thrown)) {
      diagnostics.push(
        warning(
          `${definition.name} ${id} is not found yet; it is kept in state`,
          'Its order was placed moments ago by an apply that stopped before it was Active, and the service does not ' +
            `show it yet (${causeOf(thrown)}). It stays in state, so that nothing is ordered again; two minutes after ` +
            'its order, a 404 is taken as gone.',
        ),
      )
      return { state: prior, private: priorPrivate, diagnostics }
    }
    diagnostics.push(...failureOf(session, thrown, `Reading ${definition.name} ${id} failed`, names(definition)))
    return { state: prior, private: priorPrivate, diagnostics, cause: thrown }
  }
}

/** A refresh that finds nothing but live figures changed records none of them (see `live`). */
function keepLiveFigures(definition: AnyResource, prior: ValueMap, state: ValueMap): ValueMap {
  const live = Object.keys(definition.attributes).filter((name) => definition.attributes[name]?.live === true)
  if (live.length === 0) return state
  const others = Object.keys(state).filter((name) => definition.attributes[name]?.live !== true)
  if (others.some((name) => !valuesEqual(state[name] ?? null, prior[name] ?? null))) return state
  const kept: Record<string, Value> = { ...state }
  for (const name of live) if (prior[name] !== undefined && prior[name] !== null) kept[name] = prior[name]
  return kept
}

/** What an import starts from: inputs the service cannot return take their defaults, the rest null. */
function importBase(definition: AnyResource): Record<string, Value> {
  const base: Record<string, Value> = {}
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    base[name] = isInput(attribute) && attribute.default !== undefined ? attribute.default : null
  }
  return base
}

export async function importResource<C>(definition: AnyResource, text: string, session: Session<C>): Promise<ReadOutcome> {
  const parsed = definition.importId.parse(text.trim())
  if ('error' in parsed) {
    const detail = `The import id of ${definition.name} is ${definition.importId.format}, e.g. ${definition.importId.example}: ${parsed.error}.`
    return { state: null, private: {}, diagnostics: [error('Invalid import id', detail)] }
  }
  const outcome = await readResource(definition, null, parsed.id, {}, session)
  if (outcome.state === null && !hasErrors(outcome.diagnostics)) {
    const instead = await definition.elsewhere?.({ ...contextFor(session, []), id: parsed.id }).catch(() => undefined)
    if (instead !== undefined) {
      const detail = `No ${definition.name} has id ${parsed.id}: ${instead}.`
      return {
        ...outcome,
        diagnostics: [...outcome.diagnostics, error(`Cannot import ${parsed.id} as ${definition.name}`, detail)],
        missing: true,
      }
    }
    const detail = `No ${definition.name} with id ${parsed.id} exists (or it is terminated). Check the id and the API key's account.`
    return { ...outcome, diagnostics: [...outcome.diagnostics, error('Cannot import a missing object', detail)], missing: true }
  }
  // What the import could not read, and what it read as the object is now rather than as it was
  // created: the plan after it records the former and warns of a replacement for the latter (plan.ts).
  const imported = [...(definition.unrecoverable ?? []), ...(definition.importReadsCurrent ?? [])].filter((name) => {
    const attribute = definition.attributes[name]
    return attribute !== undefined && isInput(attribute)
  })
  // A grow-only size read from the service is the object's, not a floor of a configuration's.
  const floors = Object.keys(definition.attributes).filter(
    (name) => definition.attributes[name]?.growOnly === true && typeof outcome.state?.[name] === 'number',
  )
  const marks = { ...(imported.length > 0 ? { imported } : {}), ...(floors.length > 0 ? { floors } : {}) }
  return Object.keys(marks).length > 0 ? { ...outcome, private: { ...outcome.private, ...marks } } : outcome
}

/**
 * The state of an object of another type (`sourceName`) moved to `definition` (Terraform `moved`),
 * as the target's rule for that type converts it; the next refresh reads it as the target type.
 */
export async function moveResource<C>(
  definition: AnyResource,
  sourceName: string,
  source: ValueMap,
  sourcePrivate: PrivateState,
  session: Session<C> | null,
): Promise<ReadOutcome> {
  return scrubbed(definition, await move(definition, sourceName, source, sourcePrivate, session))
}

async function move<C>(
  definition: AnyResource,
  sourceName: string,
  source: ValueMap,
  sourcePrivate: PrivateState,
  session: Session<C> | null,
): Promise<ReadOutcome> {
  const diagnostics: Diagnostic[] = []
  const rule = definition.movesFrom?.find((m) => m.from === sourceName)
  const id = String(source.id ?? '')
  if (!rule) {
    const from = (definition.movesFrom ?? []).map((m) => m.from)
    const detail = `An object of ${sourceName} cannot become a ${definition.name}${from.length > 0 ? `; only ${from.join(', ')} can` : ''}.`
    return { state: null, private: {}, diagnostics: [error(`Cannot move ${sourceName} to ${definition.name}`, detail)] }
  }
  try {
    const moved = await rule.move(source, session ? { ...contextFor(session, diagnostics), id } : null)
    if (typeof moved === 'string') {
      return {
        state: null,
        private: {},
        diagnostics: [...diagnostics, error(`Cannot move ${sourceName} ${id} to ${definition.name}`, moved)],
      }
    }
    const state: Record<string, Value> = { id }
    for (const name of Object.keys(definition.attributes)) state[name] = (moved[name] ?? null) as Value
    if (Object.keys(definition.timeouts).length > 0) state.timeouts = (source.timeouts ?? null) as Value
    return { state, private: sourcePrivate, diagnostics }
  } catch (thrown) {
    diagnostics.push(...toDiagnostics(thrown, `Moving ${sourceName} ${id} to ${definition.name} failed`, names(definition)))
    return { state: null, private: {}, diagnostics, cause: thrown }
  }
}

export interface DataOutcome {
  readonly state: ValueMap | null
  readonly diagnostics: readonly Diagnostic[]
  readonly cause?: unknown
}

export async function readDataSource<C>(definition: AnyDataSource, config: ValueMap, session: Session<C>): Promise<DataOutcome> {
  const diagnostics: Diagnostic[] = validateConfig(definition.attributes, config)
  if (hasErrors(diagnostics)) return { state: null, diagnostics }
  try {
    const input = plainInput(config)
    const observed = await definition.read({ ...contextFor(session, diagnostics), input })
    const state: Record<string, Value> = {}
    for (const [name, attribute] of Object.entries(definition.attributes)) {
      const given = input[name] ?? null
      state[name] = isInput(attribute) && (given !== null || !isComputed(attribute)) ? given : ((observed[name] ?? null) as Value)
    }
    return { state, diagnostics }
  } catch (thrown) {
    const about = definition.notFound
    if (about !== undefined && isNotFound(thrown)) {
      const { attribute, what } = about
      const value = JSON.stringify(config[attribute] ?? null)
      const issue = error(
        `Invalid ${attribute}`,
        `${attribute} must be ${what}; the service has none with id ${value} (${causeOf(thrown)})`,
        [attribute],
      )
      return { state: null, diagnostics: [...diagnostics, issue], cause: thrown }
    }
    const failure = failureOf(session, thrown, `Reading ${definition.name} failed`, names(definition))
    return { state: null, diagnostics: [...diagnostics, ...failure], cause: thrown }
  }
}

/** The service refused the credentials (an API error's `credentialsRefused`, read structurally: core does not import the API client). */
function credentialsRefused(thrown: unknown): boolean {
  return (thrown as { credentialsRefused?: unknown } | null)?.credentialsRefused === true
}

/**
 * A replacement whose new object the service cannot check at plan, because inputs its create checks
 * read are known only at apply (set from another resource): said, since a replacement that deletes
 * first (Terraform's default) deletes the live object before the service can refuse the new one.
 */
function uncheckedReplacement(definition: AnyResource, prior: ValueMap, plan: Plan): Diagnostic[] {
  // An unset input planned unknown (it follows the service's value) asks nothing of the checks.
  const catalog = (definition.createChecks ?? []).filter((c) => c.references !== true).map((c) => c.attribute)
  const unknown = [...new Set(catalog)].filter((name) => isUnknown(plan.planned[name]) && !(plan.following ?? []).includes(name))
  const atOrder = Object.keys(definition.attributes).filter(
    (name) => definition.attributes[name]?.checkedAtOrder === true && !isEmpty(plan.planned[name] ?? null),
  )
  const warnings: Diagnostic[] = []
  const createFirst =
    'Unless the resource already has lifecycle { create_before_destroy = true } (the new one is then ordered first), set it'
  if (atOrder.length > 0) {
    const list = atOrder.join(', ')
    warnings.push(
      warning(
        `${definition.name} ${String(prior.id)} is replaced by an order the service checks only when it is placed`,
        `The new object is ordered with ${list}, which the service checks only when it places the order (a code that is ` +
          `unknown, expired or already used is refused then): a replacement that deletes first (Terraform's default) deletes ` +
          `${definition.name} ${String(prior.id)} before then, and keeps nothing if the order is refused. ${createFirst}, or ` +
          `remove ${list} from the configuration for this replacement.`,
        [atOrder[0] as string],
      ),
    )
  }
  if (unknown.length === 0) return warnings
  const list = unknown.join(', ')
  const one = unknown.length === 1
  return [
    ...warnings,
    warning(
      `${definition.name} ${String(prior.id)} is replaced by an object the plan cannot check`,
      `${list} ${one ? 'is' : 'are'} known only at apply, so the service's catalog and accounts check ${one ? 'it' : 'them'} only ` +
        `when the new object is ordered: a replacement that deletes first (Terraform's default) deletes ${definition.name} ` +
        `${String(prior.id)} before then, and keeps nothing if the order is refused. ${createFirst}, or apply what sets the value first (-target).`,
      [unknown[0] as string],
    ),
  ]
}

/** Waits for what the create checks let pass while it was still being made (CreateCheck.ready), before the order. */
async function readyToOrder<C>(
  definition: AnyResource,
  planned: ValueMap,
  session: Session<C>,
  diagnostics: Diagnostic[],
  timeoutMs: number,
): Promise<void> {
  const input = plainInput(planned)
  for (const check of definition.createChecks ?? []) {
    if (check.ready !== undefined && !isEmpty(input[check.attribute] ?? null))
      await check.ready({ ...contextFor(session, diagnostics), input, orders: ordersAccounts(definition), timeoutMs })
  }
}

/**
 * The definition's checks against the service while planning. A new object (a create, or the new half
 * of a replacement) runs its create checks, so a replacement whose create is known to fail is refused
 * before anything is deleted; a change of an existing object runs the plan checks of the attributes it
 * changes. None of them calls anything that changes the service. A check that cannot reach the
 * service only warns; the service still validates the value when the change is applied.
 */
export async function checkPlanOnline<C>(
  definition: AnyResource,
  prior: ValueMap | null,
  plan: Plan,
  session: Session<C>,
  replacing?: string,
): Promise<Diagnostic[]> {
  const creating = prior === null || plan.replace.length > 0
  const checks = creating
    ? (definition.createChecks ?? [])
    : (definition.planChecks ?? []).filter(({ attribute }) => plan.changed.includes(attribute))
  const input = plainInput(plan.planned)
  // The object a replacement replaces: this plan's prior, or the one the front end names (see CreateCheckContext).
  const replaced = prior !== null ? String(prior.id) : replacing
  const of = { orders: ordersAccounts(definition), ...(replaced === undefined ? {} : { replacing: replaced }) }
  const diagnostics = await runChecks(checks, plan.planned, session, (context) =>
    creating ? { ...context, input, ...of } : { ...context, id: String(prior?.id), prior, input },
  )
  if (creating && prior !== null) return [...diagnostics, ...uncheckedReplacement(definition, prior, plan)]
  if (creating || prior === null) return diagnostics
  return [
    ...diagnostics,
    ...(await checkRefused(definition, prior, plan, session)),
    ...(await checkUnverified(definition, prior, plan, session)),
  ]
}

/**
 * An in-place change of an object the service takes no change of now (ResourceDefinition.changesRefused):
 * refused at plan, naming why and what to do, rather than priced and then refused by the service at
 * apply. Only the steps that will call the service count: not one that only records a value (a
 * trigger emptied), nor a cosmetic one the service takes anyway (a rename). A read that fails says
 * nothing: the apply finds out as it always did.
 */
async function checkRefused<C>(definition: AnyResource, prior: ValueMap, plan: Plan, session: Session<C>): Promise<Diagnostic[]> {
  if (definition.changesRefused === undefined) return []
  const inPlace = stepsToRun(definition, prior, plan.planned)
    .filter((step) => !step.recordOnly && definition.updates[step.index]?.cosmetic !== true)
    .flatMap((step) => step.attributes)
  if (inPlace.length === 0) return []
  const id = String(prior.id)
  let why: string | undefined
  try {
    const cosmetic = definition.updates.filter((step) => step.cosmetic === true).flatMap((step) => step.attributes)
    why = await definition.changesRefused({ ...contextFor(session, []), id, prior: prior as never, cosmetic, afterwards: 'plan again' })
  } catch {
    return []
  }
  if (why === undefined) return []
  return [
    error(`${definition.name} ${id} cannot be changed yet`, `${inPlace.join(', ')} cannot be changed now: ${why}. Nothing was ordered.`, [
      inPlace[0] as string,
    ]),
  ]
}

/**
 * The create-only values a plan records without the object's own to compare (unverifiedAlternatives),
 * checked against a read of the object: one that differs is refused now, rather than recorded and
 * found by the next plan, which would replace the object. A sensitive value is never shown.
 */
async function checkUnverified<C>(definition: AnyResource, prior: ValueMap, plan: Plan, session: Session<C>): Promise<Diagnostic[]> {
  // Only where this plan records a new value: a state that keeps none (a service that reports none) costs no read.
  const names = unverifiedAlternatives(definition, prior, plan.planned).filter((name) => plan.changed.includes(name))
  if (names.length === 0) return []
  const id = String(prior.id)
  const diagnostics: Diagnostic[] = []
  let observed: Record<string, unknown> | null
  try {
    // Only compared: what the read itself warns of is the refresh's to say.
    observed = await definition.read({ ...contextFor(session, []), ...UNNOTED, id, prior: prior as never, importing: false })
  } catch (thrown) {
    return [
      warning(
        `Could not check ${names.join(', ')} before applying`,
        `Reading ${definition.name} ${id} to compare ${names.join(', ')} with the value it has failed: ${causeOf(thrown)} ` +
          'The value is recorded as given; if it differs from the one the object has, the next plan replaces the object.',
      ),
    ]
  }
  for (const name of names) {
    const held = (observed?.[name] ?? null) as Value
    const wanted = plan.planned[name] ?? null
    if (held === null || held === '' || valuesEqual(held, wanted)) continue
    const secret = definition.attributes[name]?.sensitive === true
    diagnostics.push(
      error(
        `Invalid ${name}`,
        `${name} differs from the value ${definition.name} ${id} has${secret ? ' (neither is shown: the value is sensitive)' : ` (${JSON.stringify(held)})`}. ` +
          `${name} cannot be changed on an existing object: this plan would only record it, and the next plan would replace ` +
          `${definition.name} ${id}. Set the value it has, or ask for a new object (terraform apply -replace=<address>, pulumi up --replace=<urn>).`,
        secret ? undefined : [name],
      ),
    )
  }
  return diagnostics
}

/**
 * The id a method acts on, as the resource's import id reads it: an error naming `id` otherwise (empty,
 * a name, another resource's composite id), before anything is called.
 */
export function checkMethodId(definition: AnyResource, id: string): Diagnostic[] {
  const text = id.trim()
  const parsed = text === '' ? { error: 'it is empty' } : definition.importId.parse(text)
  if (!('error' in parsed)) return []
  const { format, example } = definition.importId
  return [
    error('Invalid id', `id must be the id of the ${definition.name} to act on, written ${format} (e.g. ${example}): ${parsed.error}.`, [
      'id',
    ]),
  ]
}

/**
 * That the object a method would act on exists, checked while planning the method (a Terraform action):
 * a read that finds it gone (a deleted object, another kind's id) is an error naming `id`. A read that
 * fails says nothing: the method's own call finds out.
 */
export async function checkMethodTarget<C>(definition: AnyResource, id: string, session: Session<C>): Promise<Diagnostic[]> {
  const context = contextFor(session, [])
  try {
    if ((await definition.read({ ...context, ...UNNOTED, id, prior: null, importing: false })) !== null) return []
  } catch (thrown) {
    // Only its own call's not-found says gone (see ownCall); any other failure is no answer.
    if (!isGone(thrown)) return []
  }
  return [
    error(
      'Invalid id',
      `No ${definition.name} has id ${id}: it was deleted, or the id is another kind's. id must be the id of an existing ${definition.name}.`,
      ['id'],
    ),
  ]
}

/**
 * A method's checks against the service (see ResourceMethod.checks) for the arguments known so far;
 * an argument not known yet, or empty, is checked when the method runs. Read-only calls only.
 */
export async function checkMethodOnline<C>(method: AnyMethod, id: string, input: ValueMap, session: Session<C>): Promise<Diagnostic[]> {
  const known = plainInput(input)
  return runChecks(method.checks ?? [], input, session, (context) => ({ ...context, id, input: known }))
}

/**
 * Runs `checks` on the values that are known and non-empty, each with the context `contextOf` makes:
 * an error per value the service refuses, and the warnings a check gives (a rule it cannot check
 * yet) on its attribute. A check that cannot reach the service warns, once, for it and every check
 * left, since the service still validates the value when the change is made.
 */
async function runChecks<C>(
  checks: readonly { readonly attribute: string; check(ctx: never): Promise<string | null> }[],
  values: ValueMap,
  session: Session<C>,
  contextOf: (context: OperationContext<C>) => unknown,
): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = []
  const runnable = checks.filter(({ attribute }) => !isUnknown(values[attribute]) && !isEmpty(values[attribute] ?? null))
  for (const [index, { attribute, check }] of runnable.entries()) {
    try {
      const context = {
        ...contextFor(session, diagnostics),
        warn: (summary: string, detail: string) => diagnostics.push(warning(summary, detail, [attribute])),
      }
      const problem = await check(contextOf(context) as never)
      if (problem) diagnostics.push(error(`Invalid ${attribute}`, `${attribute} ${problem}.`, [attribute]))
    } catch (thrown) {
      // Refused credentials are the real error, and would refuse the change itself: said once, first.
      if (credentialsRefused(thrown)) return [...failureOf(session, thrown, `Checking ${attribute} failed`, []), ...diagnostics]
      // The rest would fail the same way: one warning for every check left undone.
      const skipped = runnable.slice(index).map((c) => c.attribute)
      diagnostics.push(
        warning(
          `Could not check ${skipped.join(', ')} before applying`,
          `Asking the service which values ${skipped.join(', ')} may take failed: ${clauseOf(thrown)}. The service checks ${skipped.length === 1 ? 'it' : 'them'} when the change is applied.`,
          [attribute],
        ),
      )
      break
    }
  }
  return diagnostics
}

/**
 * Runs a create as a plan's rehearsal, in the operation the caller set up for it (the server: see the
 * API client's OperationFrame.rehearsal), which lets nothing but reads through and in which the
 * create's order reports what the apply would do with it. Whatever ends the create ends the
 * rehearsal; nothing is kept. Not run while an input is unknown: the apply's order would differ.
 */
export async function rehearseCreate<C>(definition: AnyResource, planned: ValueMap, session: Session<C>): Promise<void> {
  const unknown = Object.entries(definition.attributes).some(
    ([name, attribute]) => isInput(attribute) && !isComputed(attribute) && isUnknown(planned[name] ?? null),
  )
  if (unknown) return
  try {
    await definition.create({
      ...contextFor(session, []),
      waitingFor: () => undefined,
      input: handlerInput(definition.attributes, plainInput(planned)),
      timeoutMs: timeoutOf(definition, planned, 'create'),
      checkpoint: () => undefined,
      resumeLater: () => undefined,
      // Nothing the rehearsal ends with is kept, so nothing is taken over either.
      takeOver: async () => true,
    })
  } catch {
    // Ended by the rehearsal, or by anything else: either way the plan prices the create as it is.
  }
}

/** A quote of a plan, with the resource that orders it. */
export interface PricedOrder {
  readonly resource: string
  readonly what: string
  readonly amount: number
  readonly cycle: string
  /** The in-place step that places it (its index in `updates`) and the state it runs on, for a rehearsal (rehearseStep). */
  readonly step?: { readonly index: number; readonly prior: ValueMap }
  /** Why the service may bill more than `amount` (Quote.atLeast); absent when the amount is what it bills. */
  readonly atLeast?: string
}

/**
 * Runs one in-place step as its apply would, up to its order, in a plan's rehearsal (see
 * rehearseCreate): with the change it makes told as the apply tells it (changeOf), so that the
 * client reports whether the apply would take over the order a stopped run placed for the same
 * change. Nothing but reads is sent; whatever ends it, the plan prices the step as it is.
 */
export async function rehearseStep<C>(
  definition: AnyResource,
  planned: ValueMap,
  step: NonNullable<PricedOrder['step']>,
  session: Session<C>,
): Promise<void> {
  const update = definition.updates[step.index]
  if (!update) return
  session.changingFrom?.(changeOf(definition, update.attributes, step.prior, movedTo(update.attributes, planned)))
  try {
    await update.apply({
      ...contextFor(session, []),
      id: String(step.prior.id),
      input: handlerInput(definition.attributes, plainInput(planned)),
      prior: step.prior as never,
      // A wait before its order (none of today's steps has one) gives up at once: a plan never waits.
      timeoutMs: 1,
      checkpoint: () => undefined,
      note: () => undefined,
    })
  } catch {
    // Ended by the rehearsal, or by anything else.
  } finally {
    session.changingFrom?.(undefined)
  }
}

/** What a plan of one resource orders: the priced orders, and what could not be priced and why. */
export interface PlanPrice {
  readonly orders: readonly PricedOrder[]
  readonly unpriced: readonly string[]
}

/**
 * The paid orders a plan of one resource places, priced by its definition from the catalog: the
 * create's (or a replacement's new object's), or each in-place step that runs and declares a price.
 * Never fails: a price that cannot be asked (the catalog unreachable) or depends on values known only
 * after apply is named in `unpriced` instead.
 */
export async function pricePlan<C>(definition: AnyResource, prior: ValueMap | null, plan: Plan, session: Session<C>): Promise<PlanPrice> {
  const ignored: Diagnostic[] = []
  const context = contextFor(session, ignored)
  const input = plainInput(plan.planned)
  const creating = prior === null || plan.replace.length > 0
  const asks: { what: string; ask: () => Promise<readonly Quote[] | null>; step?: PricedOrder['step'] }[] = []
  if (creating) {
    const price = definition.priceCreate
    if (price) asks.push({ what: 'the new object', ask: () => price({ ...context, input }) })
  } else {
    // Each step is priced on the object the steps before it leave, as the apply runs it (its `prior`
    // is the state so far) and as the service bills it: a resize then a change of product bills the
    // new product on the new size. A value an earlier step sets that is unknown until apply is null.
    let before: ValueMap = prior
    // An input that only follows the service (Plan.following) asks its step for nothing: no order.
    const asked: Record<string, Value> = { ...plan.planned }
    for (const name of plan.following ?? []) asked[name] = prior[name] ?? null
    for (const step of stepsToRun(definition, prior, asked, true)) {
      const price = definition.updates[step.index]?.price
      const stepPrior = before
      before = { ...before, ...plainInput(movedTo(step.attributes, plan.planned)) }
      if (step.recordOnly || !price) continue
      const what = `the change of ${step.attributes.join(', ')}`
      if (step.attributes.some((name) => isUnknown(plan.planned[name]))) {
        asks.push({ what, ask: async () => null })
        continue
      }
      asks.push({
        what,
        ask: () => price({ ...context, id: String(prior.id), prior: stepPrior as never, input }),
        step: { index: step.index, prior: stepPrior },
      })
    }
    const resumed = definition.priceResume
    if (plan.private.resume === true && resumed) {
      asks.push({
        what: 'what its unfinished create left',
        ask: () => resumed({ ...context, id: String(prior.id), prior: prior as never, input }),
      })
    }
  }
  const orders: PricedOrder[] = []
  const unpriced: string[] = []
  for (const { what, ask, step } of asks) {
    try {
      const quotes = await ask()
      if (quotes === null) unpriced.push(`${definition.name}: ${what} (its price depends on values known only after apply)`)
      else for (const quote of quotes) orders.push({ resource: definition.name, ...quote, ...(step === undefined ? {} : { step }) })
    } catch (thrown) {
      unpriced.push(`${definition.name}: ${what} (asking the catalog failed: ${clauseOf(thrown)})`)
    }
  }
  return { orders, unpriced }
}

/**
 * The operation a piece of code runs for, carried through async calls: which resource asks (a
 * Pulumi URN; Terraform's state, as Terraform names no resource), until when it may take, and what to do once its outcome has
 * been handed to the engine. The API client reads it through a callback that the provider
 * definition's configure receives (ConfigureMeta.operation), so the server never calls the client.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { LogLevel, OperationFrame, Rehearsed } from '../api/index.js'
import { logAt, type Session, type Settlement } from '../core/index.js'

/** The frame of one operation; what it means is declared once, where it is read (the API client's OperationFrame). */
function newFrame(
  who: Who,
  timeoutMs: number | undefined,
  finishers: Finisher[],
  warn: Warn,
  rehearsal?: (outcome: Rehearsed) => void,
): OperationFrame {
  const { scope, scopeIsResource, stateScope, log } = who
  const frame = {
    scope,
    scopeIsResource,
    stateScope,
    timeoutMs,
    onFinish: (callback: Finisher): void => void finishers.push(callback),
    warn,
    log: (level: LogLevel, message: string, fields?: Record<string, unknown>) => logAt(log, level, message, fields),
  }
  return rehearsal === undefined ? frame : { ...frame, rehearsal }
}
/** The resource an operation runs for: its scope (a Pulumi URN, Terraform's state) and the log of its messages (the session's). */
type Who = Pick<Session<unknown>, 'scope' | 'scopeIsResource' | 'stateScope' | 'log' | 'receiver'>
/**
 * What runs just before an operation's outcome is handed over (the journal marks its order delivered); throws
 * to withhold it. `handedOver` false: the outcome reaches nobody (Session.receiver), and nothing is marked.
 */
type Finisher = (handedOver: boolean) => void | Promise<void>
/** Tells the user something about the operation (a warning diagnostic of its outcome). */
export type Warn = (summary: string, detail: string) => void
const storage = new AsyncLocalStorage<OperationFrame>()
let abandoned = false

/**
 * From now on no outcome counts as handed over: the process is going down and the engine may not
 * be there to receive it, so every order stays open in the journal for the next run to take over.
 */
export function abandonDeliveries(): void {
  abandoned = true
}

const settlements = new Map<string, Settlement>()

/** The run every configure of the process belongs to, for what lives as long as the process (perProcess). */
const PROCESS_RUN = {}

/**
 * A value that lives as long as the process, made at the first ask under its key and the same for
 * every configure after: what all the API clients of one process share (the order journal's session:
 * its owner, and what its operations hold).
 */
export function perProcess<T>(key: string, create: () => T): T {
  return perRun(PROCESS_RUN, key, create)
}

const perRunValues = new WeakMap<object, Map<string, unknown>>()

/**
 * A value that lives as long as the engine's run `run` stands for (see ConfigureOptions.run): made at
 * the first ask under its key, and the same for every configure of that run, whichever connection it
 * came on (the order journal's orders of this very run).
 */
export function perRun<T>(run: object, key: string, create: () => T): T {
  let values = perRunValues.get(run)
  if (values === undefined) {
    values = new Map()
    perRunValues.set(run, values)
  }
  if (!values.has(key)) values.set(key, create())
  return values.get(key) as T
}

/**
 * Registered by whoever builds the API client (the provider definition's configure, through
 * ConfigureMeta), under a key (its journal's location) so that configuring again replaces rather
 * than adds. Returns a function that removes it again.
 */
export function registerSettlement(key: string, settlement: Settlement): () => void {
  settlements.set(key, settlement)
  return () => {
    if (settlements.get(key) === settlement) settlements.delete(key)
  }
}

/**
 * Writing the journal may fail (a full disk, a database gone): that only leaves the order unsettled,
 * never fails the call. Unsettled, it is taken over only by a create of the same intent while its
 * account exists.
 */
async function eachSettlement(run: (settlement: Settlement) => void | Promise<void>): Promise<void> {
  for (const settlement of settlements.values()) {
    try {
      await run(settlement)
    } catch {
      // See above.
    }
  }
}

/**
 * A prior or current state the engine sent names this id (a refresh, a plan or update of it, a
 * delete, an import): the account is in state, so its order is never taken over again.
 */
export async function settleAccount(id: unknown): Promise<void> {
  if (typeof id !== 'string' && typeof id !== 'number') return
  const text = String(id)
  if (text !== '') await eachSettlement((s) => s.account(text))
}

/** The ids that the state the engine saved names, where the front end can read it (see registerSavedState). */
let savedState: (() => ReadonlySet<string>) | undefined

/**
 * A front end whose engine saves its state before it closes the provider, where the provider can read
 * it, registers how (Terraform's local backend): what was handed over and is in it is confirmed at the
 * close, not only once a later run's refresh names it.
 */
export function registerSavedState(read: () => ReadonlySet<string>): void {
  savedState = read
}

/**
 * The engine closes the provider gracefully once its run is over (Terraform's Shutdown, Pulumi's
 * interrupt on close): what was handed over is kept. Not after abandonDeliveries. A state that cannot
 * be read confirms nothing.
 */
export async function settleDeliveries(): Promise<void> {
  const read = savedState
  const saved =
    read === undefined
      ? undefined
      : () => {
          try {
            return read()
          } catch {
            return new Set<string>()
          }
        }
  if (!abandoned) await eachSettlement((s) => s.delivered(saved))
}

/**
 * What every registered journal says the user must hear of (see Settlement.notices). A journal that
 * cannot be read says nothing: this is news, never a reason to fail a run.
 */
export async function settlementNotices(): Promise<{ readonly summary: string; readonly detail: string }[]> {
  const out: { readonly summary: string; readonly detail: string }[] = []
  for (const settlement of settlements.values()) {
    try {
      out.push(...((await settlement.notices?.()) ?? []))
    } catch (error) {
      // A journal that cannot be read (a database refusing the password, gone from the network) would
      // otherwise let a plan pass in silence and every create of the apply fail on it.
      out.push({
        summary: 'The order journal could not be read',
        detail:
          `${error instanceof Error ? error.message : String(error)}. What runs that were stopped left in it cannot be ` +
          'named, and no order is placed while it cannot be read: each create or change that orders fails before it is sent.',
      })
    }
  }
  return out
}

/** The frame of the operation the caller runs in, if any. */
export function currentOperation(): OperationFrame | undefined {
  return storage.getStore()
}

/**
 * Runs one operation (with `rehearsal`, a plan's rehearsal of a create: see OperationFrame.rehearsal).
 * The finish callbacks run after `fn` settles, that is once the outcome (with any
 * id an order answered) is in the hands of the front end that returns it to the engine.
 */
export async function withOperation<T>(
  who: Who,
  timeoutMs: number | undefined,
  fn: () => Promise<T>,
  warn: Warn = () => undefined,
  rehearsal?: (outcome: Rehearsed) => void,
): Promise<T> {
  const finishers: Finisher[] = []
  const frame = newFrame(who, timeoutMs, finishers, warn, rehearsal)
  let outcome: T
  try {
    outcome = await storage.run(frame, fn)
  } catch (error) {
    await finish(finishers, who.receiver)
    throw error
  }
  // A finisher that refuses (the order is another runner's now) fails the operation instead.
  const refused = await finish(finishers, who.receiver)
  if (refused !== undefined) throw refused
  return outcome
}

/**
 * Runs the finish callbacks before the outcome goes out: the journal says "delivered" only of what the
 * engine then gets, never of an outcome whose receiver is gone (Session.receiver). Returns the first
 * refusal; a journal that cannot be written refuses nothing.
 */
async function finish(finishers: readonly Finisher[], receiver: AbortSignal | undefined): Promise<unknown> {
  let refused: unknown
  const handedOver = receiver?.aborted !== true
  for (const callback of abandoned ? [] : finishers) {
    try {
      await callback(handedOver)
    } catch (error) {
      refused ??= error
    }
  }
  return refused
}

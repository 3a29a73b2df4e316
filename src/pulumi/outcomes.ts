/**
 * The server's answers as the Pulumi handlers report them: a plan's diagnostics before anything is
 * applied (logged as warnings, or the call's INVALID_ARGUMENT), and an operation's outcome as the
 * engine's result, a partial failure that keeps the object in state (ErrorResourceInitFailed), or a
 * failure with the code of its cause.
 */
import { type AnyResource, type Diagnostic, hasErrors, type Outcome, type ValueMap, valuesEqual } from '../core/index.js'
import type { PlannedChange } from '../server/index.js'
import type { CodeNumber } from './errors.js'
import { inputAttributes, type PulumiServer } from './server.js'
import type { WireMap } from './wire.js'

/**
 * What Create and Update report of their plan before anything is applied, at preview and again at
 * the update (`up --skip-preview` has no preview): the plan's errors refuse the call; the service's
 * checks are logged and their errors refuse it; the price is shown at preview, and the order limit's
 * error refuses the call whenever it is exceeded.
 */
export function reportPlan(ps: PulumiServer, planned: PlannedChange, urn: string, preview: boolean): void {
  const diagnostics = planned.plan?.diagnostics ?? []
  if (hasErrors(diagnostics)) throw ps.invalid(diagnostics)
  ps.warn(planned.online, urn)
  if (hasErrors(planned.online)) throw ps.invalid(planned.online)
  if (preview) ps.warn(planned.price, urn)
  if (hasErrors(planned.price)) throw ps.invalid(planned.price)
}

/** A create's outcome: the new object, or the failure (a partial one when its order was placed). */
export function created(
  ps: PulumiServer,
  definition: AnyResource,
  outcome: Outcome,
  secrets: ReadonlySet<string>,
  urn: string,
): { id: string; properties: WireMap } {
  ps.warn(outcome.diagnostics, urn)
  const { state } = outcome
  if (state !== null && outcome.incomplete) throw ps.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
  if (state === null || hasErrors(outcome.diagnostics)) throw ps.failure(outcome.diagnostics, outcome.cause)
  return { id: String(state.id), properties: ps.outputs(definition, state, secrets, outcome.private) }
}

/**
 * An update's outcome: the object's new outputs, or the failure; a partial one when an order was left
 * unfinished or an input took effect before the failure, so the engine keeps what changed.
 */
export function updated(
  ps: PulumiServer,
  definition: AnyResource,
  prior: ValueMap,
  outcome: Outcome,
  secrets: ReadonlySet<string>,
  urn: string,
): { properties: WireMap } {
  ps.warn(outcome.diagnostics, urn)
  const state: ValueMap = outcome.state ?? prior
  if (hasErrors(outcome.diagnostics)) {
    const moved = Object.keys(inputAttributes(definition)).some((name) => !valuesEqual(state[name] ?? null, prior[name] ?? null))
    if (outcome.incomplete || moved) throw ps.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
    throw ps.failure(outcome.diagnostics, outcome.cause)
  }
  return { properties: ps.outputs(definition, state, secrets, outcome.private) }
}

/** Warns what an operation said, and fails the call on its errors (with the code of its cause, else `fallback`). */
export function finished(
  ps: PulumiServer,
  outcome: { readonly diagnostics: readonly Diagnostic[]; readonly cause?: unknown },
  urn: string | undefined,
  fallback?: CodeNumber,
): void {
  ps.warn(outcome.diagnostics, urn)
  if (hasErrors(outcome.diagnostics)) throw ps.failure(outcome.diagnostics, outcome.cause, fallback)
}

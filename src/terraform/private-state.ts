/**
 * Terraform's private bytes: the server's private state plus this front end's marks, which guard a
 * paid object left unfinished under the unfinished setting against the replacement Terraform plans
 * for a tainted object (see taint.ts).
 */
import type { PrivateState } from '../core/index.js'
import { parsePrivate, serializePrivate } from '../server/index.js'

const EMPTY = new Uint8Array()

export interface TfPrivate extends PrivateState {
  /**
   * The create placed its order and ended with an error because the order was left unfinished (the
   * setting asked for one), so Terraform tainted the object. Kept in state until an update runs
   * (Terraform updates only objects that are not tainted); a delete is refused while the setting is on.
   */
  readonly failedUnfinished?: true
  /**
   * The create placed its order, then the service refused a later step, so the apply ended with an
   * error and Terraform tainted the object. Kept until an update runs; the replacement Terraform
   * plans for it is refused whatever the setting (see refusedDelete).
   */
  readonly failedStep?: true
  /** A plan's own marks, never stored: planned with the object's prior state, or without one. */
  readonly planned?: 'withPrior' | 'withoutPrior'
  /**
   * A plan's own mark, never stored: the ids of objects marked `failedStep` that this process's
   * refresh saw. Terraform plans the replacement of a tainted object without its private state, and
   * the delete half of that replacement receives this plan's private state: an id listed here is the
   * tainted object of a create that failed after its order.
   */
  readonly guarded?: readonly string[]
  /**
   * A plan's own mark, never stored: this plan of an object with a prior state priced the new object
   * its changes force (a replacement), so the second plan of that replacement, which Terraform makes
   * without the prior state, prices nothing again. A replacement Terraform forces by itself
   * (`-replace`, a taint) has no such first plan: its second plan prices the new object.
   */
  readonly pricedNew?: true
  /**
   * A plan's own mark, never stored: the id of the object this plan had as its prior state. Terraform
   * plans the new half of a replacement without it, handing that plan this one's private state, so
   * the checks of the new object know which object it replaces (CreateCheckContext.replacing).
   */
  readonly of?: string
}

export function readPrivate(bytes: Uint8Array): TfPrivate {
  return parsePrivate<TfPrivate>(new TextDecoder().decode(bytes))
}

export function writePrivate(state: TfPrivate): Uint8Array {
  const text = serializePrivate(state)
  return text === null ? EMPTY : new TextEncoder().encode(text)
}

/** What a plan passes on to its apply: the private state with how it was planned (see refusedDelete). */
export function plannedPrivate(state: TfPrivate, planned: 'withPrior' | 'withoutPrior'): Uint8Array {
  return writePrivate({ ...state, planned })
}

/** What an apply stores: the private state without the plan's marks. */
export function storedPrivate(state: TfPrivate): Uint8Array {
  const { planned: _planned, guarded: _guarded, pricedNew: _pricedNew, of: _of, ...kept } = state
  return writePrivate(kept)
}

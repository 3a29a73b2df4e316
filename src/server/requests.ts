/**
 * The requests and answers of the server's plan and apply entries, by canonical names: what every
 * front end's plan (Terraform's PlanResourceChange, Pulumi's Create and Update previews and Diff) and
 * apply hand the server, and what they encode from its answer.
 */
import type { AnyResource, Diagnostic, Outcome, Plan, PrivateState, Session, Value, ValueMap } from '../core/index.js'

/**
 * The session of one call, opened when the server first needs one (a plan asks the service only
 * once the provider is configured); before configure it throws NotConfiguredError.
 */
export type OpenSession = () => Session<unknown>

/** A front end's rule that refuses to delete an object (Terraform's taint guards): the error, or null. */
export type DeleteRule = (prior: ValueMap) => Diagnostic | null

export interface PlanRequest {
  readonly definition: AnyResource
  /** The object as the engine's state has it; null for a create. */
  readonly prior: ValueMap | null
  /** The configuration to plan; null plans the delete of `prior`. */
  readonly config: ValueMap | null
  readonly priorPrivate: PrivateState
  readonly session: OpenSession
  /** The id the engine's state names, when the protocol sends it with the plan: the order that made it is kept. */
  readonly stateNames?: unknown
  /** Refuses the delete the plan implies (a delete, or the delete half of a replacement). */
  readonly refuseDelete?: DeleteRule
  /**
   * Whether a configured provider asks the service: the checks of the change (read-only calls), then
   * the price of its orders. Off, nothing but the plan runs (Pulumi's Diff).
   */
  readonly online: boolean
  /**
   * With `online`, the price of the plan's orders: false when an earlier plan counted them (Terraform's
   * second plan of a replacement); `key` names the resource in the plan's running total when the
   * protocol names it (a Pulumi URN), so a preview and its update count once.
   */
  readonly price: false | { readonly key?: string }
  /**
   * The configuration as written, when the engine asks whether a replacement may delete the object
   * before it creates the new one (Pulumi's Diff): see PlannedChange.deleteBeforeReplace.
   */
  readonly replacement?: ValueMap
  /**
   * A plan of a new object (no prior) that the protocol says replaces one: its id (see
   * CreateCheckContext.replacing). Terraform's second plan of a replacement, Pulumi's Create after a Diff.
   */
  readonly replacing?: string | undefined
  /**
   * The engine's proposed new state (Terraform's), which a plan with errors hands back in place of its
   * own (PlannedChange.handBack).
   */
  readonly proposed?: ValueMap | null
  /**
   * The engine's own per-operation timeout (Pulumi's customTimeouts), which no configuration holds:
   * checked by the rule of a configured `timeouts` block, and set on the planned values of a change.
   */
  readonly timeouts?: Value
}

export interface PlannedChange {
  /** Core's plan of the change; null for a delete. */
  readonly plan: Plan | null
  /** The refusal of the delete the plan implies (see PlanRequest.refuseDelete). */
  readonly refused: Diagnostic | null
  /** What the service's checks said (nothing when they did not run). */
  readonly online: readonly Diagnostic[]
  /** The price of the plan's orders and the order limit's error (nothing when not priced). */
  readonly price: readonly Diagnostic[]
  /** All of the above in order: the plan's, the refusal, the checks', the price's. */
  readonly diagnostics: readonly Diagnostic[]
  /**
   * The planned state the front end hands back: the plan's, or, when it has errors, the engine's
   * proposed one (PlanRequest.proposed) without write-only values, which OpenTofu checks even then.
   */
  readonly handBack?: ValueMap | null
  /**
   * With PlanRequest.replacement: whether a replacement deletes the object before it creates the new
   * one (the definition asks for it, and the new object passes the service's checks); the new
   * object's plan when it has errors (`invalid`), and its failed checks as warnings.
   */
  readonly deleteBeforeReplace?: {
    readonly ok: boolean
    readonly invalid: readonly Diagnostic[]
    readonly warnings: readonly Diagnostic[]
  }
}

/** A plan (see PlanRequest) that goes on to apply what it planned unless the front end stops it. */
export interface ChangeRequest extends PlanRequest {
  readonly config: ValueMap
  /** False for a preview: the plan only. */
  readonly apply: boolean
  /** Hears the plan before anything is applied (the front end reports it), and throws to stop. */
  readonly checked: (planned: PlannedChange) => void
}

export interface Change {
  readonly planned: PlannedChange
  /** The planned values, with the engine's timeouts. */
  readonly values: ValueMap
  /** The create's or update's outcome; absent for a preview. */
  readonly outcome?: Outcome
}

export interface ApplyRequest {
  readonly definition: AnyResource
  readonly prior: ValueMap | null
  /** The planned values; null applies the delete of `prior`. */
  readonly planned: ValueMap | null
  /** The configuration sent with the apply: the write-only values the plan does not hold (core/write-only.ts). */
  readonly config: ValueMap | null
  readonly priorPrivate: PrivateState
  readonly session: OpenSession
  readonly refuseDelete?: DeleteRule
}

export type Applied =
  | { readonly action: 'none' }
  | { readonly action: 'refused'; readonly refused: Diagnostic }
  | { readonly action: 'create' | 'update' | 'delete'; readonly outcome: Outcome }

/**
 * Terraform taints an object whose create ends with an error and plans to replace it: for a paid
 * object that is a second order. What a create reports, and which deletes are refused, so that it is not.
 */
import { type Diagnostic, error, type Outcome, type ValueMap } from '../core/index.js'
import type { TfPrivate } from './private-state.js'

/**
 * A create that placed its order but did not finish is reported with warnings, not errors: an error
 * makes Terraform taint the object, and a tainted object is replaced, which is a second paid order.
 */
export function untainting(list: readonly Diagnostic[]): Diagnostic[] {
  return list.map((d) => (d.severity === 'error' ? { ...d, severity: 'warning' as const } : d))
}

/** The error a create that failed after its paid order ends with, on top of core's account of it. */
export function failedStepAdvice(): Diagnostic {
  return {
    severity: 'error',
    summary: 'Untaint this resource before the next apply',
    detail:
      'Terraform marks a resource whose create ends with an error as tainted and plans to replace it, which would delete ' +
      'this paid object and place a second order. Run `terraform untaint <address>` (the address shown with this error), ' +
      'fix what failed, and apply again: that apply changes only what the server does not have yet and orders nothing ' +
      'again. An apply without the untaint stops before deleting or ordering anything (unless it runs with -refresh=false, ' +
      'which skips the check that finds this resource).',
  }
}

export function untaintAdvice(setting: string): Diagnostic {
  return {
    severity: 'error',
    summary: 'Untaint this resource before the next apply',
    detail:
      'Terraform marks a resource created with an error as tainted and would replace it, which places a second paid order. ' +
      'Run `terraform untaint <address>` on it; the next apply then resumes the order that was kept. Without it, the next ' +
      `apply stops before deleting it (while ${setting} is set) and orders nothing.`,
  }
}

/**
 * A delete that would cancel a paid order left unfinished, refused while the unfinished setting is on.
 * With the setting, a create whose order is not finished ends with an error, so Terraform taints the
 * object and the next apply replaces it: delete it, then order a new one (a second paid order).
 * Terraform plans that replacement as a create, without the object's state or private state, and
 * the delete of the old object receives the private state of that plan: marked `withoutPrior`, it is
 * the delete of a tainted object. A delete Terraform plans with the object's state (destroy, removal
 * from the configuration, a replacement) carries the object's private state: `failedUnfinished` says
 * its order was left unfinished and not resumed since. The error says how to resume it and how to
 * really delete it.
 */
export function refusedDelete(typeName: string, prior: ValueMap, priorPrivate: TfPrivate, setting: string | undefined): Diagnostic | null {
  const id = String(prior.id)
  const tainted = priorPrivate.planned === 'withoutPrior'
  if (tainted && priorPrivate.guarded?.includes(id) === true) {
    return error(
      `Not replacing ${typeName} ${id}: its create failed after the paid order`,
      `Terraform plans to replace ${typeName} ${id} because it is tainted: the apply that created it placed and paid its ` +
        'order, then a later step failed, and Terraform taints a resource whose create ends with an error. Replacing it ' +
        'would delete a paid object and place a second order, so nothing was deleted or ordered. To keep it and finish ' +
        `the failed step: run \`terraform untaint ${typeName}.<name>\` (the address shown with this error), fix what ` +
        'failed, and apply again. To replace it on purpose: untaint it, then run `terraform apply -replace=<address>`.',
    )
  }
  if (setting === undefined) return null
  if (!tainted && priorPrivate.failedUnfinished !== true) return null
  return error(
    `Not deleting ${typeName} ${id} while ${setting} is true`,
    (tainted
      ? `Terraform plans to replace ${typeName} ${id} because it is tainted, which happens when an apply that created it ` +
        `ended with an error, as ${setting} makes it do when the order is not finished (unpaid, or still being provisioned).`
      : `${typeName} ${id} was ordered by an apply that ended with an error because the order was not finished (${setting}), ` +
        'and it has not been applied since.') +
      ' Deleting it would cancel a paid order, and a replacement would place a second one, so nothing was deleted or ordered. ' +
      `To keep it and finish the order: run \`terraform untaint ${typeName}.<name>\` (the address shown with this error), pay ` +
      'its invoice if it waits for payment, and apply again; no second order is placed. To really delete or replace it: set ' +
      `${setting} = false (or remove it) for that apply or destroy, or untaint it, let the order finish, and delete it then. ` +
      'To replace a resource on purpose, use `terraform apply -replace=<address>` rather than `terraform taint`.',
  )
}

/**
 * What Terraform is told of a create or an update (`creating`) and the private state stored with it.
 * A create that placed its order and stopped before it finished reports warnings, so Terraform keeps
 * the object untainted and the next apply resumes it. It stays an error when a later step failed, or
 * when asked for (the unfinished setting): Terraform then taints the object, which the message says
 * and refusedDelete guards. Terraform updates only objects that are not tainted, so an update drops the mark.
 */
export function appliedReport(
  outcome: Outcome,
  creating: boolean,
  setting: string | undefined,
): { readonly shown: Diagnostic[]; readonly private: TfPrivate } {
  const created = creating && outcome.incomplete
  const failedStep = created && outcome.failedAfterOrder === true
  const advice = setting ? untaintAdvice(setting) : failedStep ? failedStepAdvice() : null
  const shown = created ? (advice ? [...outcome.diagnostics, advice] : untainting(outcome.diagnostics)) : [...outcome.diagnostics]
  const { failedUnfinished: _unfinished, failedStep: _step, ...rest } = outcome.private as TfPrivate
  const marks = {
    ...(created && setting !== undefined ? { failedUnfinished: true as const } : {}),
    ...(failedStep ? { failedStep: true as const } : {}),
  }
  return { shown, private: { ...rest, ...marks } }
}

/** PlanResourceChange: core's plan of the change, the service's checks, and refused deletes at plan time. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { checkPlanOnline, hasErrors, planResource } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { PlanResourceChange_Request, PlanResourceChange_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { plannedPrivate, readPrivate } from './private-state.js'
import { attributePath } from './schema.js'
import { refusedDelete } from './taint.js'

export async function planResourceChange(
  ctx: TfContext,
  request: PlanResourceChange_Request,
): Promise<MessageInitShape<typeof PlanResourceChange_ResponseSchema>> {
  try {
    const resource = ctx.resource(request.typeName)
    const { definition, view } = resource
    const config = decode(view, request.config)
    const proposed = decode(view, request.proposedNewState)
    const prior = decode(view, request.priorState)
    const priorPrivate = readPrivate(request.priorPrivate)
    const strict = ctx.server.unfinishedSetting
    if (prior !== null) await ctx.server.stateNames(prior.id)
    if (config === null || proposed === null) {
      // A delete (plan_destroy): refused here already when its apply would refuse it.
      const refused = prior === null ? null : refusedDelete(request.typeName, prior, priorPrivate, strict)
      return {
        plannedState: encode(view, null),
        plannedPrivate: request.priorPrivate,
        diagnostics: refused ? ctx.diagnostics([refused]) : [],
      }
    }
    const plan = planResource(definition, prior, config, priorPrivate)
    const issues = [...plan.diagnostics]
    // A replacement deletes the object: refused at plan time when its delete would be.
    const refused = prior !== null && plan.replace.length > 0 ? refusedDelete(request.typeName, prior, priorPrivate, strict) : null
    if (refused) issues.push(refused)
    if (ctx.server.isConfigured && !hasErrors(issues)) issues.push(...(await checkPlanOnline(definition, prior, plan, ctx.session())))
    // The second plan of a replacement (at apply) prices nothing: its first plan counted the new object.
    const replanned = prior === null && priorPrivate.planned === 'withPrior'
    if (ctx.server.isConfigured && !hasErrors(issues) && !replanned)
      issues.push(...(await ctx.server.pricePlan(definition, prior, plan, ctx.session())))
    // Planned without a prior state: a create, or the replacement of a tainted object (Terraform then
    // sends no prior private state), unless this is the second plan of a replacement planned just before.
    const how = prior !== null || priorPrivate.planned === 'withPrior' ? 'withPrior' : 'withoutPrior'
    const guarded = how === 'withoutPrior' && ctx.failedSteps.size > 0 ? { guarded: [...ctx.failedSteps] } : {}
    return {
      plannedState: encode(view, hasErrors(issues) ? proposed : plan.planned),
      requiresReplace: plan.replace.map((name) => attributePath([name])),
      plannedPrivate: plannedPrivate(prior === null ? { ...priorPrivate, ...guarded } : plan.private, how),
      // An object kept in place keeps its identity; a new one (a create, a replacement) has none until apply.
      plannedIdentity: prior !== null && plan.replace.length === 0 ? ctx.identity(resource, prior.id) : undefined,
      diagnostics: ctx.diagnostics(issues),
    }
  } catch (thrown) {
    return { diagnostics: ctx.failed('PlanResourceChange', thrown) }
  }
}

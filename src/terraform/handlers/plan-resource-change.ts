/**
 * PlanResourceChange: the server's plan of the change (with the service's checks and the price), and
 * Terraform's encoding of it: the planned state, the attributes that force a replacement, the private
 * bytes that carry the taint guards to the apply, and the identity of an object kept in place.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode, encode } from '../dynamic-value.js'
import type { PlanResourceChange_Request, PlanResourceChange_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { plannedPrivate, readPrivate } from '../private-state.js'
import { attributePath } from '../schema.js'
import type { TerraformServer } from '../server.js'
import { refusedDelete } from '../taint.js'

export async function planResourceChange(
  tf: TerraformServer,
  request: PlanResourceChange_Request,
): Promise<MessageInitShape<typeof PlanResourceChange_ResponseSchema>> {
  try {
    const resource = tf.resource(request.typeName)
    const { definition, view } = resource
    const config = decode(view, request.config)
    const proposed = decode(view, request.proposedNewState)
    const prior = decode(view, request.priorState)
    const priorPrivate = readPrivate(request.priorPrivate)
    const strict = tf.server.unfinishedSetting
    // The second plan of a replacement its changes force prices nothing: its first plan counted the new
    // object. One Terraform forces (-replace) is priced here, at plan time, before anything is deleted.
    const replanned = prior === null && priorPrivate.planned === 'withPrior' && priorPrivate.pricedNew === true
    const planned = await tf.server.plan({
      definition,
      prior,
      // No configuration or no proposed state: a delete (plan_destroy).
      config: config === null || proposed === null ? null : config,
      priorPrivate,
      session: () => tf.session(),
      stateNames: prior?.id,
      refuseDelete: (object) => refusedDelete(request.typeName, object, priorPrivate, strict),
      online: true,
      price: replanned ? false : {},
      // The second plan of a replacement (-replace included): the object its first plan had as prior.
      replacing: prior === null && priorPrivate.planned === 'withPrior' ? priorPrivate.of : undefined,
      proposed,
    })
    const { plan } = planned
    if (plan === null)
      return { plannedState: encode(view, null), plannedPrivate: request.priorPrivate, diagnostics: tf.diagnostics(planned.diagnostics) }
    // Planned without a prior state: a create, or the replacement of a tainted object (Terraform then
    // sends no prior private state), unless this is the second plan of a replacement planned just before.
    const how = prior !== null || priorPrivate.planned === 'withPrior' ? 'withPrior' : 'withoutPrior'
    const guarded = how === 'withoutPrior' && tf.failedSteps.size > 0 ? { guarded: [...tf.failedSteps] } : {}
    return {
      plannedState: encode(view, planned.handBack ?? plan.planned),
      requiresReplace: plan.replace.map((name) => attributePath([name])),
      plannedPrivate: plannedPrivate(
        prior === null
          ? { ...priorPrivate, ...guarded }
          : { ...plan.private, ...(plan.replace.length > 0 ? { pricedNew: true } : {}), of: String(prior.id) },
        how,
      ),
      // An object kept in place keeps its identity; a new one (a create, a replacement) has none until apply.
      plannedIdentity: prior !== null && plan.replace.length === 0 ? tf.identity(resource, prior.id) : undefined,
      diagnostics: tf.diagnostics(planned.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: tf.failed('PlanResourceChange', thrown) }
  }
}

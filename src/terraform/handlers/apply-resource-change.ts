/** ApplyResourceChange: the server's create, update or delete, with Terraform's taint guards and marks. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { AnyResource } from '../../core/index.js'
import { decode, encode } from '../dynamic-value.js'
import type { ApplyResourceChange_Request, ApplyResourceChange_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { readPrivate, storedPrivate } from '../private-state.js'
import type { TerraformServer } from '../server.js'
import { appliedReport, refusedDelete } from '../taint.js'

export async function applyResourceChange(
  tf: TerraformServer,
  request: ApplyResourceChange_Request,
  /** Aborted when Terraform's call is gone (Session.receiver): what it orders is then handed to nobody. */
  receiver?: AbortSignal,
): Promise<MessageInitShape<typeof ApplyResourceChange_ResponseSchema>> {
  let changed: { definition: AnyResource; id: unknown } | undefined
  const response = await apply(tf, request, receiver, (definition, id) => {
    changed = { definition, id }
  })
  // A create or an update (a delete triggers no action): remembered for the actions it triggers.
  if (changed) tf.applied(changed.definition, changed.id, response.diagnostics ?? [])
  return response
}

async function apply(
  tf: TerraformServer,
  request: ApplyResourceChange_Request,
  receiver: AbortSignal | undefined,
  changing: (definition: AnyResource, id: unknown) => void,
): Promise<MessageInitShape<typeof ApplyResourceChange_ResponseSchema>> {
  try {
    const resource = tf.resource(request.typeName)
    const { definition, view } = resource
    const prior = decode(view, request.priorState)
    const planned = decode(view, request.plannedState)
    if (planned !== null) changing(definition, prior?.id)
    const priorPrivate = readPrivate(request.plannedPrivate)
    const strict = tf.server.unfinishedSetting
    const applied = await tf.server.apply({
      definition,
      prior,
      planned,
      // The plan holds no write-only value: the configuration sent with the apply does.
      config: decode(view, request.config),
      priorPrivate,
      session: () => (receiver === undefined ? tf.session() : { ...tf.session(), receiver }),
      refuseDelete: (object) => refusedDelete(request.typeName, object, priorPrivate, strict),
    })
    if (applied.action === 'none') return { newState: encode(view, null) }
    // Refused: no object with an error makes Terraform keep the object as it was, private state included.
    if (applied.action === 'refused') return { newState: encode(view, null), diagnostics: tf.diagnostics([applied.refused]) }
    const { outcome } = applied
    if (applied.action === 'delete') {
      return {
        newState: encode(view, outcome.state),
        private: storedPrivate(priorPrivate),
        diagnostics: tf.diagnostics(outcome.diagnostics),
      }
    }
    if (outcome.state !== null) changing(definition, outcome.state.id)
    const report = appliedReport(outcome, prior === null, strict)
    if (outcome.state === null && prior !== null) {
      return {
        newState: encode(view, prior),
        private: storedPrivate(priorPrivate),
        newIdentity: tf.identity(resource, prior.id),
        diagnostics: tf.diagnostics(report.shown),
      }
    }
    return {
      newState: encode(view, outcome.state),
      private: storedPrivate(report.private),
      newIdentity: outcome.state === null ? undefined : tf.identity(resource, outcome.state.id),
      diagnostics: tf.diagnostics(report.shown),
    }
  } catch (thrown) {
    return { newState: request.priorState, diagnostics: tf.failed('ApplyResourceChange', thrown) }
  }
}

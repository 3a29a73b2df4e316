/** ReadResource: the server's refresh; a gone object comes back as a null state, others with their identity. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode, encode } from '../dynamic-value.js'
import type { ReadResource_Request, ReadResource_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { decodeIdentity, identityChanged } from '../identity.js'
import { readPrivate, writePrivate } from '../private-state.js'
import type { TerraformServer } from '../server.js'

export async function readResource(
  tf: TerraformServer,
  request: ReadResource_Request,
): Promise<MessageInitShape<typeof ReadResource_ResponseSchema>> {
  try {
    const resource = tf.resource(request.typeName)
    const { definition, view } = resource
    const current = decode(view, request.currentState)
    if (current === null) return { newState: encode(view, null), private: request.private }
    const kept = decodeIdentity(resource.identity, request.currentIdentity)
    const stored = readPrivate(request.private)
    const outcome = await tf.server.refresh(
      definition,
      current,
      stored,
      kept,
      (named, identity) => identityChanged(definition, current.id, named, identity),
      () => {
        if (stored.failedStep === true) tf.failedSteps.add(String(current.id))
        return tf.session()
      },
    )
    if ('conflict' in outcome) {
      const diagnostics = tf.diagnostics([outcome.conflict])
      return { newState: request.currentState, private: request.private, newIdentity: request.currentIdentity, diagnostics }
    }
    return {
      newState: encode(view, outcome.state),
      private: writePrivate(outcome.private),
      newIdentity: outcome.state === null ? undefined : tf.identity(resource, outcome.state.id),
      diagnostics: tf.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { newState: request.currentState, private: request.private, diagnostics: tf.failed('ReadResource', thrown) }
  }
}

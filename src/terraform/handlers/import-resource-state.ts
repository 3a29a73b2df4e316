/** ImportResourceState: an import id, or an identity (Terraform 1.12+ `import { identity = ... }`), read by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TerraformServer } from '../server.js'
import { encode } from '../dynamic-value.js'
import type { ImportResourceState_Request, ImportResourceState_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { decodeIdentity } from '../identity.js'
import { writePrivate } from '../private-state.js'

export async function importResourceState(
  tf: TerraformServer,
  request: ImportResourceState_Request,
): Promise<MessageInitShape<typeof ImportResourceState_ResponseSchema>> {
  try {
    const resource = tf.resource(request.typeName)
    const { definition, view } = resource
    // Terraform sends one or the other: an identity comes with an empty id.
    const identity = request.id === '' ? decodeIdentity(resource.identity, request.identity) : null
    const outcome =
      identity === null
        ? await tf.server.importById(definition, request.id, tf.session())
        : await tf.server.importByIdentity(definition, identity, tf.session())
    if (outcome.state === null) return { diagnostics: tf.diagnostics(outcome.diagnostics) }
    return {
      importedResources: [
        {
          typeName: request.typeName,
          state: encode(view, outcome.state),
          private: writePrivate(outcome.private),
          identity: tf.identity(resource, outcome.state.id),
        },
      ],
      diagnostics: tf.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: tf.failed('ImportResourceState', thrown) }
  }
}

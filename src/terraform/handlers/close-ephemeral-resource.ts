/**
 * CloseEphemeralResource. This provider's ephemeral resources are lookups (AnyDataSource.ephemeral):
 * opening one leaves nothing at the service, so there is nothing to release; an unknown type is
 * still an error.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { CloseEphemeralResource_Request, CloseEphemeralResource_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function closeEphemeralResource(
  tf: TerraformServer,
  request: CloseEphemeralResource_Request,
): MessageInitShape<typeof CloseEphemeralResource_ResponseSchema> {
  try {
    tf.ephemeral(request.typeName)
    return { diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: tf.failed('CloseEphemeralResource', thrown) }
  }
}

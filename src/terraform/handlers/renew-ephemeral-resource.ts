/**
 * RenewEphemeralResource. This provider's ephemeral resources are lookups (AnyDataSource.ephemeral):
 * opening one leaves nothing at the service, and the open answers no `renew_at`, so there is nothing
 * to renew. The answer has no `renew_at` either (Terraform asks for no further renewal); an unknown
 * type is still an error.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { RenewEphemeralResource_Request, RenewEphemeralResource_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function renewEphemeralResource(
  tf: TerraformServer,
  request: RenewEphemeralResource_Request,
): MessageInitShape<typeof RenewEphemeralResource_ResponseSchema> {
  try {
    tf.ephemeral(request.typeName)
    return { diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: tf.failed('RenewEphemeralResource', thrown) }
  }
}

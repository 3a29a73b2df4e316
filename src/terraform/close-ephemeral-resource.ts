/**
 * RenewEphemeralResource and CloseEphemeralResource. This provider's ephemeral resources are lookups
 * (AnyDataSource.ephemeral): opening one leaves nothing at the service, and the open answers no
 * `renew_at`, so there is nothing to renew or release. Both still name an unknown type as an error.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import type {
  CloseEphemeralResource_Request,
  CloseEphemeralResource_ResponseSchema,
  RenewEphemeralResource_Request,
  RenewEphemeralResource_ResponseSchema,
} from './gen/tfplugin6.10_pb.js'

/** An answer without `renew_at`: Terraform asks for no further renewal. */
export function renewEphemeralResource(
  ctx: TfContext,
  request: RenewEphemeralResource_Request,
): MessageInitShape<typeof RenewEphemeralResource_ResponseSchema> {
  try {
    ctx.ephemeral(request.typeName)
    return { diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: ctx.failed('RenewEphemeralResource', thrown) }
  }
}

export function closeEphemeralResource(
  ctx: TfContext,
  request: CloseEphemeralResource_Request,
): MessageInitShape<typeof CloseEphemeralResource_ResponseSchema> {
  try {
    ctx.ephemeral(request.typeName)
    return { diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: ctx.failed('CloseEphemeralResource', thrown) }
  }
}

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
  return nothingToDo(ctx, 'RenewEphemeralResource', request.typeName)
}

export function closeEphemeralResource(
  ctx: TfContext,
  request: CloseEphemeralResource_Request,
): MessageInitShape<typeof CloseEphemeralResource_ResponseSchema> {
  return nothingToDo(ctx, 'CloseEphemeralResource', request.typeName)
}

/** No diagnostics for a type this provider serves; an error naming an unknown one. */
function nothingToDo(ctx: TfContext, rpc: string, typeName: string) {
  try {
    ctx.ephemeral(typeName)
    return { diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: ctx.failed(rpc, thrown) }
  }
}

/** ImportResourceState: an import id, or an identity (Terraform 1.12+ `import { identity = ... }`), read by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import { encode } from './dynamic-value.js'
import type { ImportResourceState_Request, ImportResourceState_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { decodeIdentity } from './identity.js'
import { writePrivate } from './private-state.js'

export async function importResourceState(
  ctx: TfContext,
  request: ImportResourceState_Request,
): Promise<MessageInitShape<typeof ImportResourceState_ResponseSchema>> {
  try {
    const resource = ctx.resource(request.typeName)
    const { definition, view } = resource
    // Terraform sends one or the other: an identity comes with an empty id.
    const identity = request.id === '' ? decodeIdentity(resource.identity, request.identity) : null
    const outcome =
      identity === null
        ? await ctx.server.importById(definition, request.id, ctx.session())
        : await ctx.server.importByIdentity(definition, identity, ctx.session())
    if (outcome.state === null) return { diagnostics: ctx.diagnostics(outcome.diagnostics) }
    return {
      importedResources: [
        {
          typeName: request.typeName,
          state: encode(view, outcome.state),
          private: writePrivate(outcome.private),
          identity: ctx.identity(resource, outcome.state.id),
        },
      ],
      diagnostics: ctx.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ImportResourceState', thrown) }
  }
}

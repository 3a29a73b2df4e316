/** ImportResourceState: the import id parsed and read by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import { encode } from './dynamic-value.js'
import type { ImportResourceState_Request, ImportResourceState_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { writePrivate } from './private-state.js'

export async function importResourceState(
  ctx: TfContext,
  request: ImportResourceState_Request,
): Promise<MessageInitShape<typeof ImportResourceState_ResponseSchema>> {
  try {
    const { definition, view } = ctx.resource(request.typeName)
    const outcome = await ctx.server.importById(definition, request.id, ctx.session())
    if (outcome.state === null) return { diagnostics: ctx.diagnostics(outcome.diagnostics) }
    return {
      importedResources: [{ typeName: request.typeName, state: encode(view, outcome.state), private: writePrivate(outcome.private) }],
      diagnostics: ctx.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ImportResourceState', thrown) }
  }
}

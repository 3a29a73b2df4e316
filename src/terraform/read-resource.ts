/** ReadResource: a refresh through the server; gone objects come back as a null state. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { ReadResource_Request, ReadResource_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { readPrivate, writePrivate } from './private-state.js'

export async function readResource(
  ctx: TfContext,
  request: ReadResource_Request,
): Promise<MessageInitShape<typeof ReadResource_ResponseSchema>> {
  try {
    const { definition, view } = ctx.resource(request.typeName)
    const current = decode(view, request.currentState)
    if (current === null) return { newState: encode(view, null), private: request.private }
    const stored = readPrivate(request.private)
    if (stored.failedStep === true) ctx.failedSteps.add(String(current.id))
    const outcome = await ctx.server.read(definition, current, String(current.id), stored, ctx.session())
    return {
      newState: encode(view, outcome.state),
      private: writePrivate(outcome.private),
      diagnostics: ctx.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { newState: request.currentState, private: request.private, diagnostics: ctx.failed('ReadResource', thrown) }
  }
}

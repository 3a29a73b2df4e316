/** ReadResource: a refresh through the server; gone objects come back as a null state, others with their identity. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { error, valuesEqual } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { ReadResource_Request, ReadResource_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { decodeIdentity } from './identity.js'
import { readPrivate, writePrivate } from './private-state.js'

export async function readResource(
  ctx: TfContext,
  request: ReadResource_Request,
): Promise<MessageInitShape<typeof ReadResource_ResponseSchema>> {
  try {
    const resource = ctx.resource(request.typeName)
    const { definition, view } = resource
    const current = decode(view, request.currentState)
    if (current === null) return { newState: encode(view, null), private: request.private }
    // The identity Terraform kept must be the one this object's id names: a hand-edited state that
    // pairs an id with another object's identity is refused before anything is read.
    const kept = decodeIdentity(resource.identity, request.currentIdentity)
    const named = ctx.server.identity(definition, current.id)
    if (kept !== null && named !== null && !valuesEqual(kept, named)) {
      const detail =
        `The state of this ${definition.name} has id ${String(current.id)}, whose identity is ${JSON.stringify(named)}, ` +
        `but Terraform kept the identity ${JSON.stringify(kept)}. An object's identity never changes: restore the state, or remove ` +
        'the object from it and import it again.'
      return {
        newState: request.currentState,
        private: request.private,
        newIdentity: request.currentIdentity,
        diagnostics: ctx.diagnostics([error('Resource identity changed', detail)]),
      }
    }
    const stored = readPrivate(request.private)
    if (stored.failedStep === true) ctx.failedSteps.add(String(current.id))
    const outcome = await ctx.server.read(definition, current, String(current.id), stored, ctx.session())
    return {
      newState: encode(view, outcome.state),
      private: writePrivate(outcome.private),
      newIdentity: outcome.state === null ? undefined : ctx.identity(resource, outcome.state.id),
      diagnostics: ctx.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { newState: request.currentState, private: request.private, diagnostics: ctx.failed('ReadResource', thrown) }
  }
}

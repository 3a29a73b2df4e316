/** Delete: through the server; a gone object is deleted already. */
import { hasErrors, type ValueMap } from '../core/index.js'
import type { PulumiContext, ResourceRequest } from './context.js'
import { timeoutsOf } from './create.js'
import type { WireMap } from './wire.js'

export async function deleteResource(
  ctx: PulumiContext,
  request: ResourceRequest & { id: string; properties: WireMap; timeout?: number },
): Promise<void> {
  const definition = ctx.resource(request)
  const prior: ValueMap = {
    ...ctx.priorOf(definition, request.properties, {}),
    id: request.id,
    timeouts: timeoutsOf('delete', request.timeout),
  }
  const outcome = await ctx.server.delete(definition, prior, ctx.session(request.urn, request.properties))
  ctx.warn(outcome.diagnostics, request.urn)
  if (hasErrors(outcome.diagnostics)) throw ctx.failure(outcome.diagnostics, outcome.cause)
}

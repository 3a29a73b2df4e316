/** Create: the catalog checks (at preview too), then the create through the server. */
import { checkPlanOnline, hasErrors, type TimeoutName, type Value, type ValueMap } from '../core/index.js'
import type { PulumiContext, ResourceRequest } from './context.js'
import { secretAttributes, type WireMap } from './wire.js'

/** The engine's per-operation timeout (customTimeouts), in seconds, as core's timeouts value. */
export function timeoutsOf(name: TimeoutName, seconds: number | undefined): Value {
  return seconds !== undefined && seconds > 0 ? { [name]: `${Math.ceil(seconds)}s` } : null
}

export async function create(
  ctx: PulumiContext,
  request: ResourceRequest & { properties: WireMap; timeout?: number; preview: boolean },
): Promise<{ id: string; properties: WireMap }> {
  const definition = ctx.resource(request)
  const plan = ctx.plan(definition, null, request.properties)
  const planned: ValueMap = { ...plan.planned, timeouts: timeoutsOf('create', request.timeout) }
  const secrets = secretAttributes(definition.attributes, request.properties)
  if (ctx.server.isConfigured) {
    // The catalog checks of a new object, before the preview answers and before any order.
    const online = await checkPlanOnline(definition, null, plan, ctx.session(request.urn, request.properties))
    ctx.warn(online, request.urn)
    if (hasErrors(online)) throw ctx.invalid(online)
  }
  if (request.preview) return { id: '', properties: ctx.outputs(definition, planned, secrets, {}) }
  const outcome = await ctx.server.create(definition, planned, ctx.session(request.urn, request.properties))
  ctx.warn(outcome.diagnostics, request.urn)
  const { state } = outcome
  if (state !== null && outcome.incomplete) throw ctx.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
  if (state === null || hasErrors(outcome.diagnostics)) throw ctx.failure(outcome.diagnostics, outcome.cause)
  return { id: String(state.id), properties: ctx.outputs(definition, state, secrets, outcome.private) }
}

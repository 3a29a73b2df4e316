/** Update: the service's own checks (at preview too), then the ordered steps through the server. */
import { checkPlanOnline, hasErrors, type ValueMap, valuesEqual } from '../core/index.js'
import type { PulumiContext, ResourceRequest } from './context.js'
import { inputAttributes, privateOf } from './context.js'
import { timeoutsOf } from './create.js'
import { secretAttributes, type WireMap } from './wire.js'

export interface UpdateRequest extends ResourceRequest {
  readonly id: string
  readonly olds: WireMap
  readonly oldInputs: WireMap
  readonly news: WireMap
  readonly timeout?: number
  readonly ignoreChanges?: readonly string[]
  readonly preview: boolean
}

export async function update(ctx: PulumiContext, request: UpdateRequest): Promise<{ properties: WireMap }> {
  const definition = ctx.resource(request)
  const prior: ValueMap = { ...ctx.priorOf(definition, request.olds, request.oldInputs), id: request.id }
  const priorPrivate = privateOf(request.olds)
  const plan = ctx.plan(definition, prior, request.news, request.ignoreChanges, priorPrivate)
  // The service's own lists (OS names, migration targets) are asked here, at preview too, never in Diff.
  const online = ctx.server.isConfigured
    ? await checkPlanOnline(definition, prior, plan, ctx.session(request.urn, request.news, request.olds))
    : []
  ctx.warn(online, request.urn)
  if (hasErrors(online)) throw ctx.invalid(online)
  const planned: ValueMap = { ...plan.planned, timeouts: timeoutsOf('update', request.timeout) }
  const secrets = secretAttributes(definition.attributes, request.news, request.olds)
  if (request.preview) return { properties: ctx.outputs(definition, planned, secrets, priorPrivate) }
  const outcome = await ctx.server.update(definition, prior, planned, priorPrivate, ctx.session(request.urn, request.news, request.olds))
  ctx.warn(outcome.diagnostics, request.urn)
  const state: ValueMap = outcome.state ?? prior
  if (hasErrors(outcome.diagnostics)) {
    const moved = Object.keys(inputAttributes(definition)).some((name) => !valuesEqual(state[name] ?? null, prior[name] ?? null))
    if (outcome.incomplete || moved) throw ctx.partial(definition, state, outcome.private, secrets, outcome.diagnostics)
    throw ctx.failure(outcome.diagnostics, outcome.cause)
  }
  return { properties: ctx.outputs(definition, state, secrets, outcome.private) }
}

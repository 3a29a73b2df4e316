/**
 * Update: the server's plan of the change (the service's own checks and the price, at preview too,
 * never in Diff), then, unless this is a preview, the ordered update steps.
 */
import type { ValueMap } from '../../core/index.js'
import { reportPlan, updated } from '../outcomes.js'
import type { UpdateRequest } from '../protocol.js'
import { privateOf, type PulumiServer, timeoutsOf } from '../server.js'
import { secretAttributes, type WireMap } from '../wire.js'

export async function update(ps: PulumiServer, request: UpdateRequest): Promise<{ properties: WireMap }> {
  const definition = ps.resource(request)
  const prior: ValueMap = { ...ps.priorOf(definition, request.olds, request.oldInputs), id: request.id }
  const priorPrivate = privateOf(request.olds)
  const secrets = secretAttributes(definition.attributes, request.news, request.olds)
  const change = await ps.server.change({
    definition,
    prior,
    config: ps.configOf(definition, prior, request.news, request.ignoreChanges),
    priorPrivate,
    session: ps.opener(request.urn, request.news, request.olds),
    online: true,
    price: { key: request.urn },
    apply: !request.preview,
    timeouts: timeoutsOf('update', request.timeout),
    checked: (planned) => reportPlan(ps, planned, request.urn, request.preview),
  })
  if (change.outcome === undefined) return { properties: ps.outputs(definition, change.values, secrets, priorPrivate) }
  return updated(ps, definition, prior, change.outcome, secrets, request.urn)
}

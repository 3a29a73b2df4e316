/**
 * Create: the server's plan of the new object (its checks against the service and its price, at
 * preview too, before any order), then, unless this is a preview, its create.
 */
import { created, reportPlan } from '../outcomes.js'
import type { CreateRequest } from '../protocol.js'
import { type PulumiServer, timeoutsOf } from '../server.js'
import { secretAttributes, type WireMap } from '../wire.js'

export async function create(ps: PulumiServer, request: CreateRequest): Promise<{ id: string; properties: WireMap }> {
  const definition = ps.resource(request)
  const secrets = secretAttributes(definition.attributes, request.properties)
  const change = await ps.server.change({
    definition,
    prior: null,
    config: ps.configOf(definition, null, request.properties),
    priorPrivate: {},
    session: ps.opener(request.urn, request.properties),
    online: true,
    // The URN keys the resource, so its preview and its create count once in the plan's total.
    price: { key: request.urn },
    // A URN diffed before is created again only as the replacement of the object its Diff named.
    replacing: ps.diffed.get(request.urn),
    apply: !request.preview,
    timeouts: timeoutsOf('create', request.timeout),
    checked: (planned) => reportPlan(ps, planned, request.urn, request.preview),
  })
  if (change.outcome === undefined) return { id: '', properties: ps.outputs(definition, change.values, secrets, {}) }
  return created(ps, definition, change.outcome, secrets, request.urn)
}

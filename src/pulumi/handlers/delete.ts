/** Delete: the server's delete of the object; a gone object is deleted already. */
import type { ValueMap } from '../../core/index.js'
import { finished } from '../outcomes.js'
import type { DeleteRequest } from '../protocol.js'
import { privateOf, type PulumiServer, timeoutsOf } from '../server.js'

export async function deleteResource(ps: PulumiServer, request: DeleteRequest): Promise<void> {
  const definition = ps.resource(request)
  const prior: ValueMap = {
    ...ps.priorOf(definition, request.properties, {}),
    id: request.id,
    timeouts: timeoutsOf('delete', request.timeout),
  }
  const outcome = await ps.server.delete(definition, prior, privateOf(request.properties), ps.session(request.urn, request.properties))
  finished(ps, outcome, request.urn)
}

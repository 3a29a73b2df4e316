/** Invoke: a function (a lookup) read by the server with the configured client. */
import type { CheckFailure, InvokeRequest } from '../protocol.js'
import type { PulumiServer } from '../server.js'
import { decodeMap, encodeMap, secretAttributes, type WireMap } from '../wire.js'

export async function invoke(ps: PulumiServer, request: InvokeRequest): Promise<{ return: WireMap; failures: readonly CheckFailure[] }> {
  const definition = ps.lookup(request.tok)
  const { values, unknownKeys } = decodeMap(definition.attributes, request.args)
  if (unknownKeys.length > 0) {
    return { return: {}, failures: unknownKeys.map((key) => ({ property: key, reason: `${key} is not an argument of ${request.tok}` })) }
  }
  const outcome = await ps.server.readLookup(definition, values, ps.opener(undefined, request.args))
  const failures = ps.failuresOf(outcome.diagnostics)
  if (outcome.state === null || failures.length > 0) return { return: {}, failures }
  const secrets = secretAttributes(definition.attributes, request.args)
  return { return: encodeMap(definition.attributes, outcome.state, { secret: secrets, keepNull: true }), failures: [] }
}

/** Invoke: a function (a lookup) read with the configured client. */
import { hasErrors, readDataSource } from '../core/index.js'
import type { CheckFailure, PulumiContext } from './context.js'
import { decodeMap, encodeMap, secretAttributes, type WireMap } from './wire.js'

export async function invoke(
  ctx: PulumiContext,
  request: { tok: string; args: WireMap },
): Promise<{ return: WireMap; failures: readonly CheckFailure[] }> {
  const definition = ctx.lookup(request.tok)
  const { values, unknownKeys } = decodeMap(definition.attributes, request.args)
  if (unknownKeys.length > 0) {
    return { return: {}, failures: unknownKeys.map((key) => ({ property: key, reason: `${key} is not an argument of ${request.tok}` })) }
  }
  const outcome = await readDataSource(definition, values, ctx.session(undefined, request.args))
  if (outcome.state === null || hasErrors(outcome.diagnostics)) return { return: {}, failures: ctx.failuresOf(outcome.diagnostics) }
  const secrets = secretAttributes(definition.attributes, request.args)
  return { return: encodeMap(definition.attributes, outcome.state, { secret: secrets, keepNull: true }), failures: [] }
}

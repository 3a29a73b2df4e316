/** Check: every value rule, and against the old inputs the grow-only rule (Diff never rejects: a refresh diffs in reverse). */
import { isInput, shrinks, type Value, validateConfig } from '../core/index.js'
import type { CheckResult } from './configure.js'
import type { CheckFailure, PulumiContext, ResourceRequest } from './context.js'
import { isEmptyMap } from './context.js'
import { resourceToken } from './tokens.js'
import { decodeMap, secret, type WireMap, wireName } from './wire.js'

export function check(ctx: PulumiContext, request: ResourceRequest & { news: WireMap; olds?: WireMap }): CheckResult {
  const definition = ctx.resource(request)
  const { values, unknownKeys } = decodeMap(definition.attributes, request.news, { ignore: (k) => k.startsWith('__') })
  const failures: CheckFailure[] = unknownKeys.map((key) => ({
    property: key,
    reason: `${key} is not an input of ${resourceToken(definition)}`,
  }))
  const config: Record<string, Value> = { ...values }
  const inputs: WireMap = { ...request.news }
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    const key = wireName(name)
    if (isInput(attribute) && attribute.default !== undefined && (config[name] ?? null) === null) {
      config[name] = attribute.default
      inputs[key] = attribute.default
    }
    if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
  }
  failures.push(...ctx.failuresOf(validateConfig(definition.attributes, config)))
  if (request.olds && !isEmptyMap(request.olds)) {
    failures.push(...ctx.failuresOf(shrinks(definition, decodeMap(definition.attributes, request.olds).values, config)))
  }
  return { inputs, failures }
}

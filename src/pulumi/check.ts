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
  const olds = request.olds && !isEmptyMap(request.olds) ? decodeMap(definition.attributes, request.olds).values : null
  // A secret input an import left out of the code it generates (read.ts): the missing value is
  // explained, since the engine calls a failed Check at import "a bug in the provider".
  const leftOut = (key: string) =>
    Object.entries(definition.attributes).some(
      ([name, a]) =>
        wireName(name) === key &&
        a.sensitive &&
        isInput(a) &&
        olds !== null &&
        (config[name] ?? null) === null &&
        (olds[name] ?? null) === null,
    )
  for (const failure of ctx.failuresOf(validateConfig(definition.attributes, config))) {
    failures.push(
      leftOut(failure.property)
        ? {
            ...failure,
            reason:
              `${failure.reason} It is a secret, so \`pulumi import\` leaves it out of the code it generates (it would be ` +
              'written there in clear): give it in the program from a secret, e.g. a config value set with `pulumi config set --secret`.',
          }
        : failure,
    )
  }
  if (olds !== null) failures.push(...ctx.failuresOf(shrinks(definition, olds, config)))
  return { inputs, failures }
}

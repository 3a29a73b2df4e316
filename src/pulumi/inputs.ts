/**
 * A resource's inputs as Pulumi's Check returns them: defaults filled in (so the engine records them)
 * and sensitive inputs marked secret; and the secret inputs an import leaves out of the code it generates.
 */
import { type AnyResource, isInput, isUnknown, type ValueMap } from '../core/index.js'
import { secret, type WireMap, wireName } from './wire.js'

/**
 * The wire inputs of `news` (decoded: `values`) with the defaults the server filled into `config`,
 * sensitive inputs as secrets.
 */
export function checkedInputs(definition: AnyResource, values: ValueMap, config: ValueMap, news: WireMap): WireMap {
  const inputs: WireMap = { ...news }
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    const key = wireName(name)
    if (attribute.default !== undefined && config[name] !== values[name]) inputs[key] = attribute.default
    if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
  }
  return inputs
}

/**
 * Whether `key` is a secret input an import left out of the code it generates (handlers/read.ts):
 * missing now and in the old inputs. The engine calls a failed Check at import "a bug in the
 * provider", so the failure explains it.
 */
export function leftOutByImport(definition: AnyResource, key: string, config: ValueMap, olds: ValueMap | null): boolean {
  return Object.entries(definition.attributes).some(
    ([name, a]) =>
      wireName(name) === key &&
      a.sensitive &&
      isInput(a) &&
      olds !== null &&
      (config[name] ?? null) === null &&
      (olds[name] ?? null) === null,
  )
}

/** The names of the values not known yet (a preview's unknowns). */
export function unknownNames(values: ValueMap): string[] {
  return Object.entries(values)
    .filter(([, v]) => isUnknown(v))
    .map(([name]) => name)
}

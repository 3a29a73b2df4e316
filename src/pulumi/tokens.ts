/** Pulumi's names for the registry: type tokens, function tokens, and how messages spell names. */
import { toCamel, toPascal } from '../core/index.js'
import type { Naming } from '../server/index.js'

export const PACKAGE = 'provider'

export const resourceToken = (definition: { name: string }) => `${PACKAGE}:index:${toPascal(definition.name)}`
export const functionToken = (definition: { name: string }) => `${PACKAGE}:index:${toCamel(definition.name)}`

/** `urn:pulumi:stack::project::parent$provider:index:LiteVm::name` → `provider:index:LiteVm`. */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split('::')[2] ?? ''
  return qualified.split('$').pop() ?? ''
}

/** Resources as `LiteVm`, functions and fields in camelCase, settings as configuration keys (`provider:apiKey`). */
export const PULUMI_NAMING: Naming = {
  resourceType: (name) => resourceToken({ name }),
  dataSourceType: (name) => functionToken({ name }),
  lookup: 'function',
  words: { resource: toPascal, dataSource: toCamel, attribute: toCamel, setting: (name) => `${PACKAGE}:${toCamel(name)}` },
}

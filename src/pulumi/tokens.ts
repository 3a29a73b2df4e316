/** Pulumi's names for the registry: type tokens, function tokens, and how messages spell names. */
import { toCamel, toPascal } from '../core/index.js'
import type { Naming } from '../server/index.js'

export const PACKAGE = 'provider'

export const resourceToken = (definition: { name: string }) => `${PACKAGE}:index:${toPascal(definition.name)}`
export const functionToken = (definition: { name: string }) => `${PACKAGE}:index:${toCamel(definition.name)}`
/** A resource's method as Pulumi names it: `power` of a Lite VM is `vm.power(...)`, token `provider:index:LiteVm/power`. */
export const methodName = (method: { name: string }) => toCamel(method.name)
export const methodToken = (definition: { name: string }, method: { name: string }) => `${resourceToken(definition)}/${methodName(method)}`

/** `provider:index:LiteVm/power` → `provider:index:LiteVm` and `power`; null for a token that names no method. */
export function splitMethodToken(token: string): { readonly type: string; readonly method: string } | null {
  const slash = token.lastIndexOf('/')
  return slash > 0 && slash < token.length - 1 ? { type: token.slice(0, slash), method: token.slice(slash + 1) } : null
}

/** `urn:pulumi:stack::project::parent$provider:index:LiteVm::name` → `provider:index:LiteVm`. */
export function typeOfUrn(urn: string): string {
  const qualified = urn.split('::')[2] ?? ''
  return qualified.split('$').pop() ?? ''
}

/**
 * The engine reads for an existence check (its ExistsResource) under a made-up URN whose name is
 * `__exists__<n>`: the object has no name in the program, and Read has no other sign of the call.
 */
export function isExistenceCheck(urn: string): boolean {
  return urn.slice(urn.lastIndexOf('::') + 2).startsWith('__exists__')
}

/** `urn:pulumi:stack::project::type::name` → `urn:pulumi:stack::project`: the stack a resource is in; undefined for what is no URN. */
export function stackOfUrn(urn: string): string | undefined {
  const [stack, project] = urn.split('::')
  return stack?.startsWith('urn:pulumi:') && project !== undefined ? `${stack}::${project}` : undefined
}

/** Resources as `LiteVm`, functions and fields in camelCase, settings as configuration keys (`provider:apiKey`). */
export const PULUMI_NAMING: Naming = {
  resourceType: (name) => resourceToken({ name }),
  dataSourceType: (name) => functionToken({ name }),
  lookup: 'function',
  words: {
    resource: toPascal,
    dataSource: toCamel,
    attribute: toCamel,
    setting: (name) => `${PACKAGE}:${toCamel(name)}`,
    // The engine's per-operation timeouts: the customTimeouts resource option, spelled as each SDK does.
    timeout: (name) => `customTimeouts.${name} (custom_timeouts in Python, pulumi.Timeouts in Go)`,
  },
}

/** Making resource, data source and provider definitions: plain data plus handlers, checked once at load. */
import { type Attributes, isComputed, isInput } from './attributes.js'
import type {
  AnyDataSource,
  AnyMethod,
  AnyProvider,
  AnyResource,
  DataSourceDefinition,
  ProviderDefinition,
  ResourceDefinition,
  ResourceMethod,
} from './definition-types.js'
import { identityProblems } from './identity.js'
import { attributeNames, nameProblems } from './names.js'
import { parseDuration } from './timeouts.js'
import { writeOnlyProblems, writeOnlyRefused } from './write-only.js'

/** The step of an input that changes nothing remotely: its new value is only recorded. */
export async function recordOnly(): Promise<undefined> {
  return undefined
}

/** A method typed against its own inputs, held erased in the resource's list. */
export function defineMethod<C, I extends Attributes>(method: ResourceMethod<C, I>): AnyMethod {
  return method
}

/** The names core adds to every resource; a definition may not declare them. */
export const RESERVED = ['id', 'timeouts'] as const

export class DefinitionError extends Error {}

/**
 * True (an esbuild define) only in the release bundles, whose build has run every check below over the
 * same sources: scripts/build.mjs first bundles the definitions with the checks on and evaluates them
 * (scripts/check-definitions.mjs), and a DefinitionError stops the build before any bundle is written.
 * Those bundles skip the checks at each launch; everything else that loads core (the tsc output the
 * tests run, the emulator, the docs generator) runs them when a definition is made.
 */
declare const PROVIDER_DEFINITIONS_CHECKED: boolean | undefined
const CHECKED_AT_BUILD = typeof PROVIDER_DEFINITIONS_CHECKED === 'boolean' && PROVIDER_DEFINITIONS_CHECKED

/**
 * A resource typed against its own client and attributes, checked at load, and returned erased: the
 * form the registry lists and the engine runs (AnyResource).
 */
export function defineResource<C, A extends Attributes>(definition: Omit<ResourceDefinition<C, A>, 'kind'>): AnyResource {
  const resource: AnyResource = { kind: 'resource', ...definition }
  if (!CHECKED_AT_BUILD) checkResource(resource)
  return resource
}

/** A data source typed against its own client and attributes, checked at load, and returned erased (AnyDataSource). */
export function defineDataSource<C, A extends Attributes>(definition: Omit<DataSourceDefinition<C, A>, 'kind'>): AnyDataSource {
  const dataSource: AnyDataSource = { kind: 'dataSource', ...definition }
  if (CHECKED_AT_BUILD) return dataSource
  checkNames(dataSource.name, dataSource.attributes)
  const refused = writeOnlyRefused(dataSource.name, dataSource.attributes)
  if (refused.length > 0) throw new DefinitionError(`${dataSource.name}: ${refused.join('; ')}`)
  return dataSource
}

/** The provider typed against its own client and settings, checked at load, and returned erased (AnyProvider). */
export function defineProvider<C, A extends Attributes, F = unknown>(definition: ProviderDefinition<C, A, F>): AnyProvider {
  if (CHECKED_AT_BUILD) return definition
  checkNames('provider', definition.attributes)
  const refused = writeOnlyRefused('the provider', definition.attributes)
  if (refused.length > 0) throw new DefinitionError(`provider: ${refused.join('; ')}`)
  return definition
}

/** The Session.unfinishedIsError of a provider configuration: the setting's name when it is on. */
export function unfinishedIsError(provider: AnyProvider, config: Readonly<Record<string, unknown>>): string | undefined {
  const setting = provider.unfinishedSetting
  return setting !== undefined && config[setting] === true ? setting : undefined
}

/** The order-time inputs (AttributeFlags.orderTime): a change on an existing object is only recorded. */
export function orderTimeInputs(definition: AnyResource): string[] {
  return Object.entries(definition.attributes)
    .filter(([, a]) => isInput(a) && a.orderTime === true)
    .map(([name]) => name)
}

/** The inputs a change of which replaces the resource. */
export function createOnlyInputs(definition: AnyResource): string[] {
  return Object.entries(definition.attributes)
    .filter(([, a]) => isInput(a) && a.createOnly === true)
    .map(([name]) => name)
}

/**
 * The load-time check: every input is create-only or named by exactly one update step, so no
 * change is ever silently dropped; every step that calls the service says what it affects; flags
 * that contradict each other are refused.
 */
export function checkResource(definition: AnyResource): void {
  const { name, attributes, updates } = definition
  checkNames(name, attributes)
  const problems: string[] = []
  const stepOf = new Map<string, number>()
  updates.forEach((step, index) => {
    for (const attribute of step.attributes) {
      const declared = attributes[attribute]
      if (!declared) problems.push(`update step ${index} names unknown attribute ${attribute}`)
      else if (!isInput(declared)) problems.push(`update step ${index} names ${attribute}, which is not an input`)
      else if (declared.createOnly) problems.push(`${attribute} is create-only but update step ${index} names it`)
      else if (declared.orderTime)
        problems.push(`${attribute} is an order-time input: core records its changes, so update step ${index} cannot name it`)
      if (stepOf.has(attribute)) problems.push(`${attribute} is named by two update steps`)
      stepOf.set(attribute, index)
    }
    if (step.affects === undefined && step.apply !== recordOnly) {
      problems.push(`update step ${index} (${step.attributes.join(', ')}) calls the service but does not declare what it affects`)
    }
    for (const attribute of step.placedWith ?? []) {
      const declared = attributes[attribute]
      if (declared === undefined || declared.orderTime !== true || !isInput(declared))
        problems.push(`update step ${index} is placed with ${attribute}, which is not an order-time input`)
      else if (step.price === undefined)
        problems.push(`update step ${index} is placed with ${attribute} but has no price, so it places no order`)
    }
    for (const attribute of step.affects ?? []) {
      const declared = attributes[attribute]
      if (!declared || !((!isInput(declared) && isComputed(declared)) || declared.follows === true)) {
        problems.push(`update step ${index} affects ${attribute}, which is not a read-only attribute or an input that follows the service`)
      }
    }
  })
  for (const [attribute, declared] of Object.entries(attributes)) {
    // A write-only input's changes are carried by its version (write-only.ts).
    if (isInput(declared) && !declared.createOnly && !declared.orderTime && !declared.writeOnly && !stepOf.has(attribute)) {
      problems.push(`${attribute} is neither create-only nor covered by an update step, so its changes would be dropped`)
    }
    if (declared.required && (declared.optional || declared.computed || declared.default !== undefined)) {
      problems.push(`${attribute} is required, so it cannot also be optional, computed or defaulted`)
    }
    if (declared.action && (declared.createOnly || declared.growOnly)) {
      problems.push(`${attribute} is an action, so it cannot be create-only or grow-only`)
    }
    if (declared.orderTime && (!isInput(declared) || declared.createOnly || declared.action || declared.growOnly || declared.writeOnly)) {
      problems.push(`${attribute} is an order-time input, so it cannot be create-only, an action, grow-only, write-only or read-only`)
    }
    if (declared.emptyIsUnset && !(declared.optional && declared.type.kind === 'string')) {
      problems.push(`${attribute} reads empty as unset, so it must be an optional string`)
    }
    if (declared.growOnly && declared.type.kind !== 'int64' && declared.type.kind !== 'float') {
      problems.push(`${attribute} is grow-only but not a number`)
    }
    if (!isInput(declared) && !isComputed(declared)) problems.push(`${attribute} is neither an input nor computed`)
    if (declared.stable && isInput(declared)) problems.push(`${attribute} is an input, so it cannot be marked stable`)
    if (declared.follows && !(declared.optional && declared.computed))
      problems.push(`${attribute} follows the service, so it must be optional and computed`)
  }
  problems.push(...writeOnlyProblems(definition, stepOf))
  for (const attribute of definition.unrecoverable ?? []) {
    if (!attributes[attribute]) problems.push(`unrecoverable names unknown attribute ${attribute}`)
  }
  for (const attribute of definition.importReadsCurrent ?? []) {
    const declared = attributes[attribute]
    if (!declared) problems.push(`importReadsCurrent names unknown attribute ${attribute}`)
    else if (!isInput(declared) || declared.createOnly !== true)
      problems.push(`importReadsCurrent names ${attribute}, which is not a create-only input`)
  }
  const methodNames = new Set<string>()
  for (const method of definition.methods ?? []) {
    if (methodNames.has(method.name)) problems.push(`two methods are named ${method.name}`)
    methodNames.add(method.name)
    problems.push(...nameProblems('method', [method.name]))
    if (!method.description) problems.push(`method ${method.name} has no description`)
    if (parseDuration(method.timeout) === null) problems.push(`method ${method.name} has a timeout that is not a duration`)
    try {
      checkNames(`method ${method.name}`, method.inputs)
    } catch (thrown) {
      problems.push((thrown as Error).message)
    }
    for (const [input, declared] of Object.entries(method.inputs)) {
      if (!isInput(declared) || isComputed(declared) || declared.createOnly || declared.action || declared.growOnly) {
        problems.push(`method ${method.name}: ${input} must be a plain required or optional argument`)
      }
    }
    for (const { attribute } of method.checks ?? []) {
      if (!method.inputs[attribute]) problems.push(`method ${method.name}: a check names ${attribute}, which is not an argument`)
    }
  }
  for (const { attribute } of [...(definition.planChecks ?? []), ...(definition.createChecks ?? [])]) {
    if (!attributes[attribute] || !isInput(attributes[attribute])) problems.push(`a plan check names ${attribute}, which is not an input`)
  }
  problems.push(...identityProblems(definition))
  problems.push(...listProblems(definition))
  if (problems.length > 0) throw new DefinitionError(`${name}: ${problems.join('; ')}`)
}

/** What is wrong with a resource's list declaration; empty when it is sound or absent. */
export function listProblems(definition: AnyResource): string[] {
  const list = definition.list
  if (!list) return []
  const problems: string[] = []
  for (const [name, filter] of Object.entries(list.filters)) {
    if (!definition.attributes[filter.attribute]) problems.push(`list filter ${name} reads unknown attribute ${filter.attribute}`)
    if (!filter.description) problems.push(`list filter ${name} has no description`)
    if (filter.values !== undefined && (filter.values.length === 0 || filter.match !== 'equals'))
      problems.push(`list filter ${name} lists its values but does not match a whole value`)
    const refused = [
      ...(filter.values && !filter.values.some((v) => v.toLowerCase() === filter.example.toLowerCase())
        ? [`is none of ${filter.values.join(', ')}`]
        : []),
      ...(filter.validate ?? []).map((rule) => rule.check(filter.example)).filter((p): p is string => p !== null),
    ]
    if (!filter.example || refused.length > 0)
      problems.push(
        `list filter ${name} has no example the filter takes${refused.length > 0 ? ` (${JSON.stringify(filter.example)} ${refused.join('; ')})` : ''}`,
      )
  }
  problems.push(...nameProblems('list filter', Object.keys(list.filters)))
  if (list.displayName !== undefined && !definition.attributes[list.displayName])
    problems.push(`list displayName names unknown attribute ${list.displayName}`)
  return problems
}

function checkNames(owner: string, attributes: Attributes): void {
  const names = Object.keys(attributes)
  const problems: string[] = []
  for (const reserved of RESERVED) if (names.includes(reserved)) problems.push(`${reserved} is reserved for core`)
  problems.push(...nameProblems('attribute', attributeNames(attributes)))
  for (const [attribute, declared] of Object.entries(attributes)) {
    if (!declared.description) problems.push(`${attribute} has no description`)
  }
  if (problems.length > 0) throw new DefinitionError(`${owner}: ${problems.join('; ')}`)
}

/**
 * Write-only inputs (Terraform's `write_only`): a secret given in the configuration that reaches the
 * create (or its update step) and never a plan, a state, or a client that cannot keep it out of one.
 *
 * A write-only input `W` is declared with three partners: the `alternative` input that carries the
 * same value through plans and state for older clients (the two cannot both be set, and handlers
 * receive W's value under the alternative's name, so they need no change), the `version` input kept
 * in state whose change is what sends W again (W itself is never stored, so a plan cannot see it
 * change), and the `echoes`, read-only attributes holding the value as the service reports it.
 *
 * An object uses the write-only form while its version is set: W, the alternative and the echoes are
 * then null in every plan and state. When the alternative is create-only (the service cannot change
 * the value), a change of the version replaces the object as a change of the alternative would;
 * switching an existing object from the alternative to W replaces it only when W differs from the
 * value in state, and switching back only records the value given (the next refresh reads the
 * service's).
 */
import { type Attribute, type Attributes, isComputed, isInput, type TypeSpec, type WriteOnly } from './attributes.js'
import type { AnyResource } from './definition-types.js'
import { type Diagnostic, error } from './diagnostics.js'
import type { Value, ValueMap } from './values.js'
import { isUnknown, UNKNOWN, valuesEqual } from './values.js'

export interface WriteOnlyInput {
  readonly name: string
  readonly attribute: Attribute
  readonly spec: WriteOnly
}

/** The write-only inputs of an attribute map, with what each is paired with. */
export function writeOnlyInputs(attributes: Attributes): WriteOnlyInput[] {
  const found: WriteOnlyInput[] = []
  for (const [name, attribute] of Object.entries(attributes)) {
    if (attribute.writeOnly) found.push({ name, attribute, spec: attribute.writeOnly })
  }
  return found
}

const given = (value: Value | undefined): boolean => value !== null && value !== undefined
/** Set to a value known now: a rule between two inputs is checked only when both are (unknown values are checked at apply). */
const known = (value: Value | undefined): boolean => given(value) && !isUnknown(value as Value)
const unset = (value: Value | undefined): boolean => !given(value)

/** Whether a state or plan holds the object in the write-only form of this input: its version is set. */
function inWriteOnlyForm(values: ValueMap, spec: WriteOnly): boolean {
  return given(values[spec.version])
}

/**
 * The load-time rules of a resource's write-only inputs (part of checkResource). `stepOf` maps each
 * input an update step names to the step's index.
 */
export function writeOnlyProblems(definition: AnyResource, stepOf: ReadonlyMap<string, number>): string[] {
  const { attributes } = definition
  const problems: string[] = []
  const partners = new Map<string, string>()
  for (const { name, attribute: w, spec } of writeOnlyInputs(attributes)) {
    if (!w.optional || w.required)
      problems.push(`${name} is write-only, so it must be optional (its alternative is the other way to set it)`)
    if (isComputed(w) || w.createOnly || w.growOnly || w.follows || w.live || w.stable || w.nullable || w.normalize) {
      problems.push(
        `${name} is write-only, so it cannot be computed, defaulted, an action, create-only, grow-only, normalized or follow the service`,
      )
    }
    if (!w.sensitive) problems.push(`${name} is write-only, so it must be sensitive`)
    if (stepOf.has(name)) problems.push(`${name} is write-only, so no update step may name it (its version does)`)
    if (definition.unrecoverable?.includes(name)) problems.push(`${name} is write-only, so it cannot be listed as unrecoverable`)
    for (const { attribute } of [...(definition.planChecks ?? []), ...(definition.createChecks ?? [])]) {
      if (attribute === name) problems.push(`a plan check names ${name}, which is write-only and never planned`)
    }
    for (const partner of [spec.alternative, spec.version, ...(spec.echoes ?? [])]) {
      const owner = partners.get(partner)
      if (owner !== undefined) problems.push(`${partner} is paired with both ${owner} and ${name}`)
      partners.set(partner, name)
    }
    const alternative = attributes[spec.alternative]
    if (!alternative || spec.alternative === name) {
      problems.push(`${name} is write-only with alternative ${spec.alternative}, which is not another attribute`)
    } else {
      if (!isInput(alternative) || alternative.required || isComputed(alternative) || alternative.writeOnly) {
        problems.push(`${spec.alternative}, the alternative of write-only ${name}, must be an optional input without a default`)
      }
      if (!alternative.sensitive) problems.push(`${spec.alternative}, the alternative of write-only ${name}, must be sensitive`)
      if (!sameType(alternative.type, w.type)) problems.push(`${name} and its alternative ${spec.alternative} must have the same type`)
    }
    const version = attributes[spec.version]
    if (!version || spec.version === name) {
      problems.push(`${name} is write-only with version ${spec.version}, which is not another attribute`)
    } else {
      if (!isInput(version) || version.required || isComputed(version) || version.writeOnly || version.sensitive) {
        problems.push(`${spec.version}, the version of write-only ${name}, must be an optional, non-sensitive input without a default`)
      }
      if (version.type.kind !== 'int64' && version.type.kind !== 'string')
        problems.push(`${spec.version} must be a whole number or a string`)
      // The version stands for the value: its change must do what a change of the alternative does.
      if (alternative && (version.createOnly === true) !== (alternative.createOnly === true)) {
        problems.push(`${spec.version} must be create-only exactly when ${spec.alternative} is`)
      }
      if (alternative && !alternative.createOnly && stepOf.get(spec.version) !== stepOf.get(spec.alternative)) {
        problems.push(`${spec.version} must be named by the update step of ${spec.alternative}`)
      }
    }
    for (const echo of spec.echoes ?? []) {
      const declared = attributes[echo]
      if (!declared || isInput(declared) || !isComputed(declared) || !declared.sensitive) {
        problems.push(`${echo}, an echo of write-only ${name}, must be a sensitive read-only attribute`)
      }
    }
  }
  for (const [name, attribute] of Object.entries(attributes)) {
    if (nestedWriteOnly(attribute.type)) problems.push(`${name} holds a write-only attribute; only top-level inputs can be write-only`)
  }
  return problems
}

/** Data sources and the provider have no state to keep a value out of: write-only is refused there. */
export function writeOnlyRefused(owner: string, attributes: Attributes): string[] {
  return Object.entries(attributes)
    .filter(([, a]) => a.writeOnly !== undefined || nestedWriteOnly(a.type))
    .map(([name]) => `${name} is write-only, which only a resource's inputs can be (${owner} keeps no state)`)
}

function nestedWriteOnly(type: TypeSpec): boolean {
  if (type.kind === 'list' || type.kind === 'map') return nestedWriteOnly(type.element)
  if (type.kind !== 'object') return false
  return Object.values(type.attributes).some((a) => a.writeOnly !== undefined || nestedWriteOnly(a.type))
}

function sameType(a: TypeSpec, b: TypeSpec): boolean {
  return a.kind === b.kind && (a.kind === 'string' || a.kind === 'int64' || a.kind === 'float' || a.kind === 'bool')
}

/**
 * The configuration rules of write-only inputs, reported with the other validation issues. With
 * `allowed: false` (a client that says it cannot keep write-only values out of its state) a
 * write-only value is refused, naming the alternative to use instead.
 */
export function writeOnlyIssues(attributes: Attributes, config: ValueMap, allowed: boolean): Diagnostic[] {
  const issues: Diagnostic[] = []
  for (const { name, spec } of writeOnlyInputs(attributes)) {
    const { alternative, version } = spec
    const wo = given(config[name])
    if (wo && !allowed) {
      issues.push(
        error(
          `Write-only attribute ${name} not supported by this client`,
          `${name} is write-only: its value is kept out of plans and state, which needs a client with write-only attributes ` +
            `(Terraform 1.11 or later, OpenTofu 1.11 or later). This client would store it. Set ${alternative} instead ` +
            '(it is kept in the state, marked sensitive), or upgrade the client.',
          [name],
        ),
      )
      continue
    }
    if (known(config[name]) && known(config[alternative])) {
      issues.push(
        error(
          `Conflicting ${name} and ${alternative}`,
          `${name} and ${alternative} set the same value: set ${name} (write-only, with ${version}) or ${alternative}, not both.`,
          [name],
        ),
      )
    }
    const onChange = attributes[alternative]?.createOnly
      ? 'changing it replaces the object, as a change of the value would'
      : 'changing it sends the value again'
    if (known(config[name]) && unset(config[version])) {
      issues.push(
        error(
          `Missing ${version}`,
          `${name} needs ${version}. The value of ${name} is never stored, so a plan cannot see it change: ${version} ` +
            `is what a plan compares (${onChange}). Set it to 1, and change it whenever ${name} changes.`,
          [version],
        ),
      )
    }
    if (unset(config[name]) && known(config[version])) {
      issues.push(error(`${version} without ${name}`, `${version} only goes with ${name}: set ${name}, or remove ${version}.`, [version]))
    }
    if (spec.required && unset(config[name]) && unset(config[alternative])) {
      issues.push(
        error(
          `Missing ${alternative}`,
          `Set ${name} with ${version} (write-only: kept out of plans and state; Terraform 1.11 or later, OpenTofu 1.11 or later), ` +
            `or ${alternative}.`,
          [alternative],
        ),
      )
    }
  }
  return issues
}

/**
 * How a plan moves a create-only value between its two forms: `before` and `after`, whether the prior
 * and the plan use the write-only form; `unchecked`, whether the plan records the value with none of
 * the object's in state to compare it with: back to the alternative (the write-only form keeps none),
 * or an imported object in neither form yet (withoutUnchosenForm). The next refresh of the
 * alternative's form reads the service's value.
 */
function formChange(prior: ValueMap, planned: ValueMap, spec: WriteOnly): { before: boolean; after: boolean; unchecked: boolean } {
  const before = inWriteOnlyForm(prior, spec)
  const after = inWriteOnlyForm(planned, spec)
  const back = before && !after
  const unchosen = !before && (prior[spec.alternative] ?? null) === null
  return { before, after, unchecked: back || unchosen }
}

/**
 * The inputs whose change replaces the object, after the rules of switching between the two forms
 * of a create-only value (see the head of this file). `planned` holds the planned inputs.
 */
export function writeOnlyReplace(
  definition: AnyResource,
  prior: ValueMap,
  config: ValueMap,
  planned: ValueMap,
  replace: readonly string[],
): string[] {
  let result = [...replace]
  for (const { name, spec } of writeOnlyInputs(definition.attributes)) {
    const { alternative, version } = spec
    if (!definition.attributes[alternative]?.createOnly) continue
    const { before, after, unchecked } = formChange(prior, planned, spec)
    const value = config[name] ?? null
    const priorValue = prior[alternative] ?? null
    const unrecoverable = (definition.unrecoverable ?? []).includes(alternative) && priorValue === null
    // To the write-only form: the same value as the one in state changes nothing at the service.
    const same = !before && after && !isUnknown(value) && ((priorValue !== null && valuesEqual(value, priorValue)) || unrecoverable)
    // Back to the alternative, or an import's first form: only recorded (see formChange).
    if (same || unchecked) result = result.filter((input) => input !== alternative && input !== version)
  }
  return result
}

/**
 * The create-only alternatives a plan records unchecked (formChange), each set to a value known now.
 * The service may hold another value: the next refresh would read it, and the plan after it replace
 * the object. checkPlanOnline reads the object and refuses such a value now.
 */
export function unverifiedAlternatives(definition: AnyResource, prior: ValueMap, planned: ValueMap): string[] {
  const out: string[] = []
  for (const { spec } of writeOnlyInputs(definition.attributes)) {
    const { alternative } = spec
    const value = planned[alternative] ?? null
    if (!definition.attributes[alternative]?.createOnly || value === null || isUnknown(value)) continue
    const { after, unchecked } = formChange(prior, planned, spec)
    if (!after && unchecked) out.push(alternative)
  }
  return out
}

function scrubForm(values: Record<string, Value>, spec: WriteOnly): void {
  if (spec.alternative in values) values[spec.alternative] = null
  for (const echo of spec.echoes ?? []) if (echo in values) values[echo] = null
}

/**
 * A state or plan with no write-only value in it: write-only inputs null, and their alternatives and
 * echoes too while the write-only form is used. What every plan and operation hands back.
 */
export function withoutWriteOnlyValues(definition: AnyResource, state: ValueMap): ValueMap
export function withoutWriteOnlyValues(definition: AnyResource, state: ValueMap | null): ValueMap | null
export function withoutWriteOnlyValues(definition: AnyResource, state: ValueMap | null): ValueMap | null {
  const inputs = writeOnlyInputs(definition.attributes)
  if (state === null || inputs.length === 0) return state
  const out: Record<string, Value> = { ...state }
  for (const { name, spec } of inputs) {
    if (name in out) out[name] = null
    if (inWriteOnlyForm(out, spec)) scrubForm(out, spec)
  }
  return out
}

/**
 * A read's state with neither the alternative nor the echoes of a write-only input while the object
 * is in neither form: an import (no prior), or an imported object that no apply has given a form yet
 * (its prior holds neither the alternative nor the version; a created object always holds one). The
 * service reports the value (a VM's password), but only the configuration tells the form it goes in,
 * and a read never sees the configuration: were the value kept, a configuration in the write-only
 * form would find it in the state its import plans from, and so in the saved plan. The plan records
 * whichever form the configuration gives, replacing nothing (writeOnlyReplace).
 */
export function withoutUnchosenForm(definition: AnyResource, prior: ValueMap | null, state: ValueMap | null): ValueMap | null {
  const inputs = writeOnlyInputs(definition.attributes)
  if (state === null || inputs.length === 0) return state
  const out: Record<string, Value> = { ...state }
  for (const { spec } of inputs) {
    const chosen = prior !== null && (given(prior[spec.alternative]) || inWriteOnlyForm(prior, spec))
    if (!chosen) scrubForm(out, spec)
  }
  return out
}

/**
 * A plan with no write-only value in it. The alternatives stay as planned: they come from the
 * configuration, which a plan must not change (both forms set is refused by validation, when both
 * are known). The echoes are planned by the form the configuration takes: null in the write-only
 * form, as planned otherwise, and unknown while the version that tells the form is unknown.
 */
export function withoutWriteOnlyPlanned(definition: AnyResource, planned: ValueMap): ValueMap {
  const inputs = writeOnlyInputs(definition.attributes)
  if (inputs.length === 0) return planned
  const out: Record<string, Value> = { ...planned }
  for (const { name, spec } of inputs) {
    if (name in out) out[name] = null
    const version = out[spec.version]
    const echo: Value | undefined = isUnknown(version ?? null) ? UNKNOWN : given(version) ? null : undefined
    if (echo === undefined) continue
    for (const field of spec.echoes ?? []) if (field in out) out[field] = echo
  }
  return out
}

/** The input handed to a create or update step: each write-only value given stands in for its alternative. */
export function handlerInput(attributes: Attributes, input: Record<string, Value>): Record<string, Value> {
  const inputs = writeOnlyInputs(attributes)
  if (inputs.length === 0) return input
  const out = { ...input }
  for (const { name, spec } of inputs) {
    const value = out[name] ?? null
    if (value !== null) out[spec.alternative] = value
    out[name] = null
  }
  return out
}

/**
 * The planned values with the write-only values of the configuration put back, for the apply: a
 * front end calls this with the configuration the client sends with the apply (the plan holds none).
 */
export function withWriteOnlyValues(attributes: Attributes, planned: ValueMap | null, config: ValueMap | null): ValueMap | null {
  const inputs = writeOnlyInputs(attributes)
  if (inputs.length === 0 || config === null || planned === null) return planned
  const out: Record<string, Value> = { ...planned }
  for (const { name } of inputs) out[name] = config[name] ?? null
  return out
}

/**
 * A resource as a client without write-only attributes sees it (Pulumi, whose state encrypts secrets
 * instead): the write-only inputs and their versions left out, the alternative required where one
 * of the pair is.
 */
export function withoutWriteOnlyInputs(definition: AnyResource): AnyResource {
  const inputs = writeOnlyInputs(definition.attributes)
  if (inputs.length === 0) return definition
  const dropped = new Set(inputs.flatMap(({ name, spec }) => [name, spec.version]))
  const attributes: Record<string, Attribute> = {}
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    if (dropped.has(name)) continue
    const pair = inputs.find(({ spec }) => spec.alternative === name)
    if (pair?.spec.required) {
      const { optional: _optional, ...rest } = attribute
      attributes[name] = { ...rest, required: true }
    } else {
      attributes[name] = attribute
    }
  }
  const updates = definition.updates
    .map((step) => ({ ...step, attributes: step.attributes.filter((name) => !dropped.has(name)) }))
    .filter((step) => step.attributes.length > 0)
  return { ...definition, attributes, updates }
}

/** Plan-time validation: every issue at once, each with its attribute path; unknown values wait. */
import { type Attribute, type Attributes, meansUnset, type TypeSpec } from './attributes.js'
import type { TimeoutDefaults } from './definition-types.js'
import { type Diagnostic, error, type Path } from './diagnostics.js'
import { timeoutIssues } from './timeouts.js'
import { isUnknown, type ValueMap } from './values.js'
import { writeOnlyIssues } from './write-only.js'

/**
 * Int64 values must stay exact in JavaScript numbers, as the API client sends them; the service's ids and
 * sizes are far below this. A larger one is refused rather than rounded.
 */
const MAX_INT = Number.MAX_SAFE_INTEGER

export interface ValidateOptions {
  readonly timeouts?: TimeoutDefaults
  readonly requireInputs?: boolean
  /** False when the client said it cannot keep write-only values out of its state (write-only.ts). */
  readonly writeOnlyAllowed?: boolean
}

export function validateConfig(attributes: Attributes, config: ValueMap, options: ValidateOptions = {}): Diagnostic[] {
  const issues: Diagnostic[] = []
  validate(attributes, config, options, issues)
  // An issue of a sensitive attribute that is given names it in its message and carries no path: a
  // client shows what a path points at, Terraform the configuration line (a literal secret with it),
  // Pulumi the property's value. A missing one keeps its path: there is no value to show.
  return issues.map((issue) => {
    const name = String(issue.path?.[0])
    if (attributes[name]?.sensitive !== true || (config[name] ?? null) === null) return issue
    const { path: _path, ...rest } = issue
    return rest
  })
}

function validate(attributes: Attributes, config: ValueMap, options: ValidateOptions, issues: Diagnostic[]): void {
  for (const [name, attribute] of Object.entries(attributes)) {
    const value = config[name] ?? null
    const settable = attribute.required === true || attribute.optional === true
    if (!settable) {
      if (value !== null && !isUnknown(value)) {
        issues.push(error(`Read-only attribute ${name}`, `${name} is set by the service and cannot be configured.`, [name]))
      }
      continue
    }
    if (value === null) {
      if (attribute.required && options.requireInputs !== false) {
        issues.push(error(`Missing required attribute ${name}`, `${name} is required.`, [name]))
      }
      continue
    }
    // Empty, it asks for what unset asks for, and the rules of a given value do not apply to it.
    if (!attribute.required && meansUnset(attribute, value)) continue
    checkValue(attribute, value, [name], issues)
  }
  issues.push(...writeOnlyIssues(attributes, config, options.writeOnlyAllowed !== false))
  if (options.timeouts) issues.push(...timeoutIssues(config.timeouts, options.timeouts))
}

/**
 * Checks a given value against its attribute. `hidden`: it is part of a sensitive value, as is every
 * value of a sensitive attribute; an issue about it then shows no value and carries no path (see
 * validateConfig), however deep it is.
 */
function checkValue(attribute: Attribute, value: unknown, path: Path, issues: Diagnostic[], hidden = false): void {
  if (isUnknown(value)) return
  const secret = hidden || attribute.sensitive === true
  const typeProblem = checkType(attribute.type, value, path, issues, secret)
  if (typeProblem) return
  for (const validator of attribute.validate ?? []) {
    const problem = validator.check(value)
    const hidden = secret || validator.holdsSecret?.(value) === true
    if (problem) issues.push(error(`Invalid ${label(path)}`, `${label(path)} ${problem}.`, hidden ? undefined : path))
  }
}

/** Reports a value of the wrong shape, never showing a sensitive one (`hidden`); returns true when it did. */
function checkType(type: TypeSpec, value: unknown, path: Path, issues: Diagnostic[], hidden = false): boolean {
  const wrong = (expected: string) => {
    const got = hidden ? `a ${Array.isArray(value) ? 'list' : typeof value}, not shown: the value is sensitive` : describe(value)
    issues.push(error(`Invalid ${label(path)}`, `${label(path)} must be ${expected} (got ${got}).`, hidden ? undefined : path))
    return true
  }
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? false : wrong('a string')
    case 'bool':
      return typeof value === 'boolean' ? false : wrong('true or false')
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? false : wrong('a number')
    case 'int64':
      // A whole number beyond a JS number's exact range arrives as a bigint: refused, shown as written.
      if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) > MAX_INT))
        return wrong(`a whole number no larger than ${MAX_INT}`)
      return typeof value === 'number' && Number.isInteger(value) ? false : wrong('a whole number')
    case 'list':
      if (!Array.isArray(value)) return wrong('a list')
      value.forEach((item, i) => {
        if (!isUnknown(item)) checkType(type.element, item, [...path, i], issues, hidden)
      })
      return false
    case 'map':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return wrong('a map')
      for (const [key, item] of Object.entries(value)) {
        if (!isUnknown(item)) checkType(type.element, item, [...path, key], issues, hidden)
      }
      return false
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return wrong('an object')
      for (const [key, nested] of Object.entries(type.attributes)) {
        const item = (value as Record<string, unknown>)[key] ?? null
        if (item !== null) checkValue(nested, item, [...path, key], issues, hidden)
      }
      return false
  }
}

function label(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}

/** The value as the user wrote it: a number in full (a bigint too), a long string by its length. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value)
  if (Array.isArray(value)) return 'a list'
  if (value !== null && typeof value === 'object') return 'an object'
  return String(value)
}

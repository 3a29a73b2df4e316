/** Validators: each states its rule once, for plan-time errors and for generated docs. */

export interface Validator {
  /** The rule in words, e.g. "6 to 16 characters"; used in docs and error messages. */
  readonly rule: string
  /** A message naming what is wrong with a known value, or null when the value obeys the rule. */
  check(value: unknown): string | null
  /**
   * Whether a value that is not sensitive as a whole holds a secret here (a password in a URL): a
   * problem with it then carries no attribute path, so that no front end shows the value beside it
   * (Pulumi prints a property's value with a problem that names it, Terraform the configuration line).
   */
  readonly holdsSecret?: (value: unknown) => boolean
}

export function length(bounds: { min?: number; max?: number }): Validator {
  const { min, max } = bounds
  const rule =
    min !== undefined && max !== undefined
      ? `${min} to ${max} characters`
      : min !== undefined
        ? `at least ${min} characters`
        : `at most ${max} characters`
  return {
    rule,
    check(value) {
      if (typeof value !== 'string') return null
      const n = [...value].length
      if ((min !== undefined && n < min) || (max !== undefined && n > max)) return `must be ${rule} long (got ${n})`
      return null
    },
  }
}

/**
 * A string matching `regex`. The error reads "must be <rule>"; a rule that is not what the value is, but
 * what it holds (at least one digit, say), gives its own `requirement` ("must contain ..."), so the
 * error does not say the value must be made of it.
 */
export function pattern(regex: RegExp, rule: string, requirement = `must be ${rule}`): Validator {
  return {
    rule,
    check: (value) => (typeof value === 'string' && !regex.test(value) ? requirement : null),
  }
}

/**
 * One of `values`. With `ignoreCase`, a string matches whatever its case (the service compares status
 * values case-insensitively), and the rule says so.
 */
export function oneOf(values: readonly (string | number)[], options: { ignoreCase?: boolean } = {}): Validator {
  const listed = `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
  const rule = options.ignoreCase ? `${listed} (in any case)` : listed
  const folded = values.map((v) => (typeof v === 'string' ? v.toLowerCase() : v))
  const matches = (value: unknown) =>
    options.ignoreCase && typeof value === 'string' ? folded.includes(value.toLowerCase()) : values.includes(value as string | number)
  return {
    rule,
    check: (value) => (value === null || matches(value) ? null : `must be ${rule} (got ${JSON.stringify(value)})`),
  }
}

/** C0 controls (NUL, tab, line breaks, escape...), DEL and the C1 controls (U+0080 to U+009F). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * No control character: a name, label or description is one line of text. The service stores what it
 * is sent, so a line break or a NUL that passed the plan was ordered as it was.
 */
export function printable(): Validator {
  return {
    rule: 'free of control characters (line breaks, tabs, NUL)',
    check(value) {
      if (typeof value !== 'string') return null
      const found = CONTROL.exec(value)
      if (!found) return null
      const code = found[0].codePointAt(0) ?? 0
      return `must not contain control characters (line breaks, tabs, NUL): found U+${code.toString(16).toUpperCase().padStart(4, '0')} at character ${[...value.slice(0, found.index)].length + 1}`
    },
  }
}

export function range(bounds: { min?: number; max?: number }): Validator {
  const { min, max } = bounds
  const rule =
    min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`
  return {
    rule,
    check(value) {
      if (typeof value !== 'number') return null
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) return `must be ${rule} (got ${value})`
      return null
    },
  }
}

/** A rule no builder expresses; `check` returns the message or null. */
export function custom(rule: string, check: (value: unknown) => string | null, holdsSecret?: (value: unknown) => boolean): Validator {
  return holdsSecret === undefined ? { rule, check } : { rule, check, holdsSecret }
}

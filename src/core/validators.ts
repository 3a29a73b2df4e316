/** Validators: each states its rule once, for plan-time errors and for generated docs. */

export interface Validator {
  /** The rule in words, e.g. "6 to 16 characters"; used in docs and error messages. */
  readonly rule: string
  /** A message naming what is wrong with a known value, or null when the value obeys the rule. */
  check(value: unknown): string | null
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

export function pattern(regex: RegExp, rule: string): Validator {
  return {
    rule,
    check: (value) => (typeof value === 'string' && !regex.test(value) ? `must be ${rule}` : null),
  }
}

export function oneOf(values: readonly (string | number)[]): Validator {
  const rule = `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
  return {
    rule,
    check: (value) =>
      value === null || values.includes(value as string | number) ? null : `must be ${rule} (got ${JSON.stringify(value)})`,
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
export function custom(rule: string, check: (value: unknown) => string | null): Validator {
  return { rule, check }
}

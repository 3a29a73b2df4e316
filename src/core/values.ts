/** The value model every front end translates to and from. */

/** A value not known until apply (Terraform's unknown, Pulumi's computed). */
export const UNKNOWN: unique symbol = Symbol.for('provider.core.unknown')
export type Unknown = typeof UNKNOWN

/**
 * A `bigint` is a whole number a front end received exactly but a JS number cannot hold (Terraform's
 * numbers are arbitrary precision): validation refuses it for every input, naming it as written.
 */
export type Value = null | string | number | bigint | boolean | Unknown | readonly Value[] | { readonly [key: string]: Value }
export type ValueMap = { readonly [key: string]: Value }

export function isUnknown(value: unknown): value is Unknown {
  return value === UNKNOWN
}

/** True when the value is unknown or holds an unknown anywhere inside it. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true
  if (Array.isArray(value)) return value.some(containsUnknown)
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown)
  return false
}

/** Structural equality; object key order never matters. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, i) => valuesEqual(item, b[i]))
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (ka.length !== kb.length) return false
  return ka.every((k) => valuesEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** An action value that fires nothing: null, unknown is not empty. */
export function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === ''
}

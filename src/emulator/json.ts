// The JSON values state and bodies are made of, and the comparisons and merges done on them.
/** Values that survive JSON.stringify/parse unchanged: the only shape state and bodies take. */
export type Json = null | boolean | number | string | Json[] | JsonObject
export interface JsonObject {
  [key: string]: Json
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Idempotent repeats compare bodies as parsed JSON (the service's Idempotency-Key extension), so key order must not matter. */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    if (keys.length !== Object.keys(b).length) return false
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  }
  return false
}

/** Out-of-band drift (the emulator's control endpoints) merges objects key by key; arrays and scalars replace. */
export function deepMerge(target: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...target }
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key]
    out[key] = isObject(current) && isObject(value) ? deepMerge(current, value) : value
  }
  return out
}

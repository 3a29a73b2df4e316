/** Pulumi's wire values (JSON plus the unknown and secret sentinels) to and from core's values, by attribute. */
import { type Attribute, type Attributes, isUnknown, type TypeSpec, toCamel, UNKNOWN, type Value, type ValueMap } from '../core/index.js'

/** The value of a property not known until apply (preview only). */
export const UNKNOWN_WIRE = '04da6b54-80e4-46f7-96ec-b56ff0331ba9'
export const SIG_KEY = '4dabf18193072939515e22adb298388d'
export const SIG_SECRET = '1b47061264138c4ac30d75fd1eb44270'
export const SIG_RESOURCE_REF = '5cf8f73096256a8f31e491e813e4eb8e'
export const SIG_OUTPUT = 'd0e6a833031e9bbcd3f4e8bde6ca49a4'

/** A plain JSON-like property value as it travels inside a google.protobuf.Struct. */
export type Wire = null | string | number | boolean | Wire[] | { [key: string]: Wire }
export type WireMap = { [key: string]: Wire }

/** The output key holding core's private state (the resume marker); never an attribute name. */
export const META_KEY = '__meta'

function isObject(value: unknown): value is { [key: string]: Wire } {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function isSecret(value: unknown): value is { [key: string]: Wire } {
  return isObject(value) && value[SIG_KEY] === SIG_SECRET
}

export function secret(value: Wire): Wire {
  return isSecret(value) ? value : { [SIG_KEY]: SIG_SECRET, value }
}

/** The value without secret wrappers and output-value envelopes, at any depth; a resource reference becomes its id. */
export function plain(value: unknown): Wire {
  if (Array.isArray(value)) return value.map(plain)
  if (!isObject(value)) return (value ?? null) as Wire
  const signature = value[SIG_KEY]
  if (signature === SIG_SECRET) return plain(value.value)
  if (signature === SIG_OUTPUT) return 'value' in value ? plain(value.value) : UNKNOWN_WIRE
  if (signature === SIG_RESOURCE_REF) return plain(value.id ?? value.urn ?? null)
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
}

/** Whether a secret wrapper (or a secret output value) occurs anywhere in the value. */
export function containsSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsSecret)
  if (!isObject(value)) return false
  if (value[SIG_KEY] === SIG_SECRET || (value[SIG_KEY] === SIG_OUTPUT && value.secret === true)) return true
  return Object.values(value).some(containsSecret)
}

/** Every string held under a secret wrapper, so that logs can scrub them. */
export function secretStrings(value: unknown, into: Set<string> = new Set(), inside = false): Set<string> {
  if (typeof value === 'string' && inside && value.length >= 4 && value !== UNKNOWN_WIRE) into.add(value)
  if (Array.isArray(value)) for (const item of value) secretStrings(item, into, inside)
  else if (isObject(value)) for (const item of Object.values(value)) secretStrings(item, into, inside || isSecret(value))
  return into
}

/** Top-level property names whose value carries a secret anywhere inside. */
export function secretKeys(map: WireMap): Set<string> {
  return new Set(
    Object.entries(map)
      .filter(([, v]) => containsSecret(v))
      .map(([k]) => k),
  )
}

/** A wire map without `undefined` values, which Struct.fromJavaScript refuses. */
export function dropUndefined(value: unknown): Wire {
  if (Array.isArray(value)) return value.map(dropUndefined)
  if (!isObject(value)) return (value ?? null) as Wire
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, dropUndefined(v)]),
  )
}

// ---------------------------------------------------------------------------------------------
// Decoding: camelCase wire names to canonical names, sentinels to core values.

export interface Decoded {
  readonly values: ValueMap
  /** Wire keys that name no attribute. */
  readonly unknownKeys: readonly string[]
}

/** Wire property name of each attribute, keyed by canonical name. */
export function wireName(name: string): string {
  return toCamel(name)
}

export function decodeMap(attributes: Attributes, map: WireMap, options: { ignore?: (key: string) => boolean } = {}): Decoded {
  const byWire = new Map(Object.entries(attributes).map(([name, attribute]) => [wireName(name), [name, attribute] as const]))
  const values: Record<string, Value> = {}
  const unknownKeys: string[] = []
  for (const [key, raw] of Object.entries(map)) {
    const found = byWire.get(key)
    if (!found) {
      if (!(options.ignore?.(key) ?? false)) unknownKeys.push(key)
      continue
    }
    const [name, attribute] = found
    values[name] = decodeValue(attribute.type, plain(raw))
  }
  return { values, unknownKeys }
}

function decodeValue(type: TypeSpec, value: Wire): Value {
  if (value === UNKNOWN_WIRE) return UNKNOWN
  if (value === null) return null
  switch (type.kind) {
    case 'list':
      return Array.isArray(value) ? value.map((item) => decodeValue(type.element, item)) : value
    case 'map':
      return isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeValue(type.element, v)])) : value
    case 'object':
      return isObject(value) ? decodeMap(type.attributes, value).values : value
    case 'int64':
      // Resource ids are strings in Pulumi (`${server.id}` in YAML): digits are accepted as the number they spell.
      return typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value
    default:
      return value
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding: canonical names to camelCase, unknown to the sentinel, sensitive attributes secret.

export interface EncodeOptions {
  /** Canonical names whose value must be wrapped as secret even when the attribute is not sensitive. */
  readonly secret?: ReadonlySet<string>
  /** Keep null values (outputs do; inputs leave unset keys out). */
  readonly keepNull?: boolean
}

export function encodeMap(attributes: Attributes, values: ValueMap, options: EncodeOptions = {}): WireMap {
  const out: WireMap = {}
  for (const [name, attribute] of Object.entries(attributes)) {
    const value = values[name]
    if (value === undefined || (value === null && !options.keepNull)) continue
    const encoded = encodeValue(attribute, value)
    out[wireName(name)] = attribute.sensitive || options.secret?.has(name) ? secret(encoded) : encoded
  }
  return out
}

function encodeValue(attribute: Attribute, value: Value): Wire {
  return encodeTyped(attribute.type, value)
}

function encodeTyped(type: TypeSpec, value: Value): Wire {
  if (isUnknown(value)) return UNKNOWN_WIRE
  if (value === null) return null
  switch (type.kind) {
    case 'list':
      return Array.isArray(value) ? value.map((item) => encodeTyped(type.element, item as Value)) : null
    case 'map':
      return isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeTyped(type.element, v as Value)])) : null
    case 'object':
      return isObject(value) ? encodeMap(type.attributes, value as ValueMap, { keepNull: true }) : null
    default:
      return value as Wire
  }
}

/** Canonical names of the attributes whose wire value (by camel name) carried a secret. */
export function secretAttributes(attributes: Attributes, ...maps: WireMap[]): Set<string> {
  const out = new Set<string>()
  for (const map of maps) {
    const keys = secretKeys(map)
    for (const name of Object.keys(attributes)) if (keys.has(wireName(name))) out.add(name)
  }
  return out
}

// The msgpack half of Terraform's DynamicValue: cty values to and from msgpack bytes, shaped by the
// schema's type as go-cty writes them (unknowns as an extension value, numbers exact, objects with
// exactly their type's attributes).
import { Decoder, Encoder, ExtData } from '@msgpack/msgpack'
import {
  BigNum,
  type CtyNumber,
  type CtyObject,
  type CtyType,
  type CtyValue,
  numberFromBigInt,
  numberFromText,
  typeToJson,
  Unknown,
} from './cty.js'

/** A value that does not fit its type; `path` is cty-style (`.tags["a"]`, `[2]`) for the log. */
export class CtyCodecError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(path === '' ? message : `${path}: ${message}`)
    this.name = 'CtyCodecError'
  }
}

// go-cty writes an unknown as fixext1 type 0 with one zero byte; we send exactly that.
const UNKNOWN_WIRE = new ExtData(0, new Uint8Array([0]))

// One codec of each for the process: msgpack's decode() and encode() make a new one per call, and each
// new encoder allocates its 2 KiB buffer. A shared one gives the same bytes and values: encode() returns
// a copy of its buffer, and a call made while another is under way gets a clone.
const decoder = new Decoder({ useBigInt64: true })
const encoder = new Encoder({ useBigInt64: true })

/** Decodes a DynamicValue.msgpack against the schema's implied type. Any ext code means unknown. */
export function decodeMsgpack(bytes: Uint8Array, type: CtyType): CtyValue {
  const raw = decoder.decode(bytes)
  return fromWire(raw, type, '')
}

/** Encodes a value for DynamicValue.msgpack, shaped by `type` (objects get exactly its attribute set). */
export function encodeMsgpack(value: CtyValue | undefined, type: CtyType): Uint8Array {
  return encoder.encode(toWire(value, type, ''))
}

function isRecord(raw: unknown): raw is Record<string, unknown> {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof Uint8Array)
}

function describe(raw: unknown): string {
  if (raw === null) return 'null'
  if (Array.isArray(raw)) return 'array'
  return typeof raw
}

function typeName(type: CtyType): string {
  return JSON.stringify(typeToJson(type))
}

function fromWire(raw: unknown, type: CtyType, path: string): CtyValue {
  if (raw === null || raw === undefined) return null
  if (raw instanceof ExtData) return Unknown // ext 0 plain, ext 12 refined, and anything newer
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof raw === 'string') return raw
        break
      case 'bool':
        if (typeof raw === 'boolean') return raw
        break
      case 'number':
        if (typeof raw === 'number') return Object.is(raw, -0) ? 0 : raw
        if (typeof raw === 'bigint') return numberFromBigInt(raw)
        if (typeof raw === 'string') {
          try {
            return numberFromText(raw)
          } catch {
            throw new CtyCodecError(path, `invalid number ${JSON.stringify(raw)}`)
          }
        }
        break
    }
    throw new CtyCodecError(path, `expected ${type}, got ${describe(raw)}`)
  }
  switch (type.kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) break
      return raw.map((item: unknown, i) => fromWire(item, type.element, `${path}[${i}]`))
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== type.elements.length) break
      return type.elements.map((t, i) => fromWire(raw[i], t, `${path}[${i}]`))
    case 'map':
      if (!isRecord(raw)) break
      return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, fromWire(v, type.element, `${path}[${JSON.stringify(k)}]`)]))
    case 'object': {
      if (!isRecord(raw)) break
      // Extra keys are ignored: the shape we hand on is always the type's own attribute set.
      const entries = Object.entries(type.attributes).map(([name, t]): [string, CtyValue] => [
        name,
        Object.hasOwn(raw, name) ? fromWire(raw[name], t, `${path}.${name}`) : null,
      ])
      return Object.fromEntries(entries)
    }
  }
  throw new CtyCodecError(path, `expected ${typeName(type)}, got ${describe(raw)}`)
}

/**
 * A finite number goes on the wire as its decimal text, which Terraform parses exactly as it parses a
 * number in the state's JSON. An integer sent as a msgpack int decodes to a differently built (if equal)
 * number, and Terraform compares states structurally: every refresh would then look like a change
 * (`plan -refresh-only -detailed-exitcode` exiting 2 with "No changes").
 */
function numberToWire(value: CtyNumber, path: string): number | string {
  if (typeof value !== 'number') return value.text
  if (Number.isNaN(value)) throw new CtyCodecError(path, 'NaN is not a cty number')
  if (!Number.isFinite(value)) return value // no text form: msgpack float64 infinity
  return String(Object.is(value, -0) ? 0 : value)
}

function toWire(value: CtyValue | undefined, type: CtyType, path: string): unknown {
  if (value === null || value === undefined) return null
  if (value === Unknown) return UNKNOWN_WIRE
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof value === 'string') return value
        break
      case 'bool':
        if (typeof value === 'boolean') return value
        break
      case 'number':
        if (typeof value === 'number' || value instanceof BigNum) return numberToWire(value, path)
        break
    }
    throw new CtyCodecError(path, `expected ${type}, got ${describe(value)}`)
  }
  switch (type.kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(value)) break
      return value.map((item: CtyValue, i: number) => toWire(item, type.element, `${path}[${i}]`))
    case 'tuple':
      if (!Array.isArray(value) || value.length !== type.elements.length) break
      return type.elements.map((t, i) => toWire((value as readonly CtyValue[])[i], t, `${path}[${i}]`))
    case 'map':
      if (!isPlainObject(value)) break
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v, type.element, `${path}[${JSON.stringify(k)}]`)]))
    case 'object': {
      if (!isPlainObject(value)) break
      // Terraform rejects an object whose key set differs from the type's, so the type decides the keys.
      const entries = Object.entries(type.attributes).map(([name, t]) => [
        name,
        Object.hasOwn(value, name) ? toWire(value[name], t, `${path}.${name}`) : null,
      ])
      return Object.fromEntries(entries)
    }
  }
  throw new CtyCodecError(path, `expected ${typeName(type)}, got ${describe(value)}`)
}

function isPlainObject(value: CtyValue): value is CtyObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof BigNum)
}

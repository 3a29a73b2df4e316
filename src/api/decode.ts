// Lenient readers for payloads: ids arrive as numbers or numeric strings, flags as 0/1 or
// booleans. A payload that breaks the contract throws ShapeError; the transport turns it into a
// DecodeError that names the request.

import { isSecretKey, redact } from './redact.js'

export type JsonObject = Record<string, unknown>

export class ShapeError extends Error {
  override readonly name = 'ShapeError'
}

/**
 * A value of the wrong shape as an error message may show it: numbers, flags and null as they are; a
 * string only when short and not under a secret-looking key (a private key sent as the wrong type must
 * not reach a message); an object or array with its secret-looking keys redacted, cut at 60 characters.
 */
function show(value: unknown, at: string): string {
  if (typeof value === 'string') {
    return value.length > 24 || isSecretKey(at.slice(at.lastIndexOf('.') + 1))
      ? `a string of ${value.length} characters`
      : JSON.stringify(value)
  }
  const text = JSON.stringify(redact(value)) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

export function object(value: unknown, at: string): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ShapeError(`${at} should be an object, got ${show(value, at)}`)
  }
  return value as JsonObject
}

export function array<T>(value: unknown, at: string, item: (value: unknown, at: string) => T): T[] {
  if (!Array.isArray(value)) throw new ShapeError(`${at} should be an array, got ${show(value, at)}`)
  return value.map((v, i) => keepWire(item(v, `${at}[${i}]`), v))
}

const WIRE = Symbol('wire')

/**
 * Keeps beside a decoded object the unwrapped `data` it was read from, as the service sent it (ids as
 * it typed them, figures as text where it sent text): what a `raw` output shows. Not enumerable, so
 * no copy, comparison or serialisation of the decoded object sees it.
 */
export function keepWire<T>(decoded: T, wire: unknown): T {
  if (decoded !== null && typeof decoded === 'object' && !Object.hasOwn(decoded, WIRE)) {
    Object.defineProperty(decoded, WIRE, { value: wire })
  }
  return decoded
}

/** The unwrapped `data` a decoded object was read from (keepWire), or the value itself when it has none. */
export function wireOf(value: unknown): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, WIRE) ? (value as Record<symbol, unknown>)[WIRE] : value
}

export function nullable<T>(value: unknown, at: string, read: (value: unknown, at: string) => T): T | null {
  return value === null || value === undefined ? null : read(value, at)
}

export function string(value: unknown, at: string): string {
  if (typeof value === 'string') return value
  // A number where text is expected loses nothing when kept as its decimal text.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  throw new ShapeError(`${at} should be a string, got ${show(value, at)}`)
}

/** A text the service may leave out or send as null, read as empty: a label or a name nobody set. */
export function optionalText(value: unknown, at: string): string {
  return nullable(value, at, string) ?? ''
}

const NUMERIC = /^-?\d+(\.\d+)?$/

export function number(value: unknown, at: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && NUMERIC.test(value.trim())) return Number(value.trim())
  throw new ShapeError(`${at} should be a number, got ${show(value, at)}`)
}

/** Keypair, product, invoice and payment ids: JSON integers, numeric strings accepted. */
export function numericId(value: unknown, at: string): number {
  const n = number(value, at)
  if (!Number.isSafeInteger(n) || n < 0) throw new ShapeError(`${at} should be a whole id, got ${show(value, at)}`)
  return n
}

/** An id in digits as the service writes it: without leading zeros ("0100001" is 100001). */
export const withoutLeadingZeros = (digits: string): string => digits.replace(/^0+(?=\d)/, '')

/** Account and order ids: kept as decimal strings whichever form they arrive in. */
export function accountId(value: unknown, at: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return withoutLeadingZeros(value.trim())
  throw new ShapeError(`${at} should be an id (digits), got ${show(value, at)}`)
}

export function boolean(value: unknown, at: string): boolean {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === '1' || value === 'true') return true
  if (value === 0 || value === '0' || value === 'false') return false
  throw new ShapeError(`${at} should be a boolean or 0/1, got ${show(value, at)}`)
}

/** Reads `key` of `source`; `read` gets the field's path for its error message. */
export function field<T>(source: JsonObject, key: string, at: string, read: (value: unknown, at: string) => T): T {
  return read(source[key], `${at}.${key}`)
}

/** Like `field`, but an absent key gives `undefined` (for fields clients must tolerate missing). */
export function optionalField<T>(source: JsonObject, key: string, at: string, read: (value: unknown, at: string) => T): T | undefined {
  const value = source[key]
  return value === undefined ? undefined : read(value, `${at}.${key}`)
}

/** An id given by a caller, for a path or a body: the contract wants digits in paths and integers in bodies. */
export function idText(id: string | number, what: string): string {
  const text = typeof id === 'number' ? (Number.isSafeInteger(id) ? String(id) : '') : id.trim()
  if (!/^\d+$/.test(text)) throw new TypeError(`${what} must be a decimal id, got ${JSON.stringify(id)}`)
  return text
}

export function idInteger(id: string | number, what: string): number {
  const n = Number(idText(id, what))
  if (!Number.isSafeInteger(n)) throw new TypeError(`${what} is too large to send as a JSON integer: ${id}`)
  return n
}

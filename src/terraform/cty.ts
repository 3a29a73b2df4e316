// cty, Terraform's value system, as far as this provider needs it: the type model with its JSON
// notation (schema `type` bytes), the value shape the codecs produce, the Unknown sentinel and exact
// numbers. No wire format lives here (see msgpack.ts, json-state.ts).

/** A cty type. Primitives are plain strings; collections and structurals are tagged objects. */
export type CtyType =
  | 'string'
  | 'number'
  | 'bool'
  | { readonly kind: 'list' | 'set' | 'map'; readonly element: CtyType }
  | { readonly kind: 'object'; readonly attributes: Readonly<Record<string, CtyType>> }
  | { readonly kind: 'tuple'; readonly elements: readonly CtyType[] }

/** Builders, so that call sites read like the HCL type expressions they mirror. */
export const cty = {
  string: 'string',
  number: 'number',
  bool: 'bool',
  list: (element: CtyType): CtyType => ({ kind: 'list', element }),
  set: (element: CtyType): CtyType => ({ kind: 'set', element }),
  map: (element: CtyType): CtyType => ({ kind: 'map', element }),
  object: (attributes: Readonly<Record<string, CtyType>>): CtyType => ({ kind: 'object', attributes }),
  tuple: (elements: readonly CtyType[]): CtyType => ({ kind: 'tuple', elements }),
} as const satisfies Record<string, CtyType | ((arg: never) => CtyType)>

/** The JSON notation Terraform uses for types: "string", ["list","string"], ["object",{"a":"number"}]. */
export type CtyTypeJson =
  | string
  | readonly [string, CtyTypeJson | Readonly<Record<string, CtyTypeJson>>]
  | readonly [string, readonly CtyTypeJson[]]

export function typeToJson(type: CtyType): CtyTypeJson {
  if (typeof type === 'string') return type
  switch (type.kind) {
    case 'list':
    case 'set':
    case 'map':
      return [type.kind, typeToJson(type.element)]
    case 'object':
      return ['object', Object.fromEntries(Object.entries(type.attributes).map(([k, t]) => [k, typeToJson(t)]))]
    case 'tuple':
      return ['tuple', type.elements.map(typeToJson)]
  }
}

/** The bytes of `Schema.Attribute.type`. */
export function encodeTypeJson(type: CtyType): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(typeToJson(type)))
}

/** Reads the JSON notation back; `dynamic` and optional-attribute objects are outside our model. */
export function parseTypeJson(json: Uint8Array | string): CtyType {
  const text = typeof json === 'string' ? json : new TextDecoder().decode(json)
  return typeFromJson(JSON.parse(text) as unknown)
}

function typeFromJson(json: unknown): CtyType {
  if (json === 'string' || json === 'number' || json === 'bool') return json
  if (Array.isArray(json) && json.length === 2) {
    const [kind, arg] = json as [unknown, unknown]
    if (kind === 'list' || kind === 'set' || kind === 'map') return { kind, element: typeFromJson(arg) }
    if (kind === 'object' && arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
      const entries = Object.entries(arg).map(([k, t]): [string, CtyType] => [k, typeFromJson(t)])
      return { kind: 'object', attributes: Object.fromEntries(entries) }
    }
    if (kind === 'tuple' && Array.isArray(arg)) return { kind: 'tuple', elements: arg.map(typeFromJson) }
  }
  throw new TypeError(`unsupported cty type ${JSON.stringify(json)}`)
}

export function typeEquals(a: CtyType, b: CtyType): boolean {
  return JSON.stringify(typeToJson(a)) === JSON.stringify(typeToJson(b))
}

/**
 * The one unknown value. Refinements (ext 12: prefix, nullness, bounds) are dropped on decode: Terraform
 * accepts a plain unknown wherever config had a refined one, and the core never reasons about them.
 */
export const Unknown: unique symbol = Symbol.for('cty.Unknown')
export type Unknown = typeof Unknown

export function isUnknown(value: unknown): value is Unknown {
  return value === Unknown
}

/**
 * A number whose decimal text a JS double cannot hold exactly (12345678901234567890, 0.12345678901234567890123).
 * Terraform compares numbers exactly, so such values must go back out as the same decimal text.
 */
export class BigNum {
  readonly text: string
  constructor(text: string) {
    if (!DECIMAL.test(text)) throw new TypeError(`not a decimal number: ${JSON.stringify(text)}`)
    this.text = text
  }
  toString(): string {
    return this.text
  }
  toJSON(): string {
    return this.text
  }
}

/** A cty number: a plain JS number whenever that is exact, otherwise a BigNum. */
export type CtyNumber = number | BigNum

export type CtyValue = null | Unknown | string | boolean | CtyNumber | readonly CtyValue[] | CtyObject
export interface CtyObject {
  readonly [name: string]: CtyValue
}

const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/

interface Decimal {
  readonly negative: boolean
  readonly digits: string // no leading or trailing zeros; '' for zero
  readonly exponent: number // value = 0.digits × 10^exponent
}

/** Parses decimal text into a normal form, so that "1.50" and "15e-1" compare equal. */
function parseDecimal(text: string): Decimal | undefined {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text)
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined
  const whole = match[2] ?? ''
  const fraction = match[3] ?? ''
  let digits = whole + fraction
  let exponent = whole.length + Number(match[4] ?? '0')
  const lead = digits.length - digits.replace(/^0+/, '').length
  digits = digits.slice(lead).replace(/0+$/, '')
  exponent -= lead
  if (digits === '') return { negative: false, digits: '', exponent: 0 }
  return { negative: match[1] === '-', digits, exponent }
}

function decimalEquals(a: Decimal, b: Decimal): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent
}

/**
 * Decimal text → CtyNumber. A plain number is used only when printing it back gives the same decimal value,
 * so that encoding it later reproduces exactly what Terraform sent.
 */
export function numberFromText(text: string): CtyNumber {
  const decimal = parseDecimal(text.trim())
  if (!decimal) throw new TypeError(`not a decimal number: ${JSON.stringify(text)}`)
  const n = Number(text)
  if (Number.isFinite(n)) {
    const back = parseDecimal(String(n))
    if (back && decimalEquals(back, decimal)) return Object.is(n, -0) ? 0 : n
  }
  return new BigNum(text.trim())
}

/** int64/uint64 from msgpack: a number when safe, else the exact decimal text. */
export function numberFromBigInt(value: bigint): CtyNumber {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : new BigNum(value.toString())
}

/**
 * A BigNum's value as a bigint when it is a whole number ("9223372036854775807", "1e30"), else null (a
 * fraction, or one of more than a thousand digits, which no input could mean).
 */
export function wholeNumberOf(value: BigNum): bigint | null {
  const decimal = parseDecimal(value.text.trim())
  if (!decimal || decimal.digits.length > decimal.exponent || decimal.exponent > 1000) return null
  const magnitude = BigInt(decimal.digits + '0'.repeat(decimal.exponent - decimal.digits.length))
  return decimal.negative ? -magnitude : magnitude
}

/** The decimal text of a CtyNumber (shortest round-trip text for plain numbers). */
export function numberToText(value: CtyNumber): string {
  return typeof value === 'number' ? String(value) : value.text
}

export function isCtyNumber(value: unknown): value is CtyNumber {
  return typeof value === 'number' || value instanceof BigNum
}

/** Numeric equality across representations (1 equals BigNum("1.0")). */
export function numberEquals(a: CtyNumber, b: CtyNumber): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  const x = parseDecimal(numberToText(a))
  const y = parseDecimal(numberToText(b))
  return x !== undefined && y !== undefined && decimalEquals(x, y)
}

/**
 * Whether a double's shortest text is its exact binary value (2.5 yes, 0.1 no). Terraform sends a number
 * as float64 only in that case and as a decimal string otherwise; we follow the same rule.
 */
export function isExactDouble(value: number): boolean {
  if (!Number.isFinite(value)) return true
  if (Number.isInteger(value)) return true
  const decimal = parseDecimal(String(value))
  if (!decimal) return false
  // value = M / 10^k with k = fractional digits; exact iff M·2^-e == mantissa where value = mantissa·2^e.
  const k = decimal.digits.length - decimal.exponent
  const m = BigInt(decimal.digits)
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, Math.abs(value))
  const bits = view.getBigUint64(0)
  const biased = Number((bits >> 52n) & 0x7ffn)
  const fraction = bits & ((1n << 52n) - 1n)
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n)
  const e = (biased === 0 ? 1 : biased) - 1075 // value = mantissa · 2^e, e < 0 for non-integers
  // Compare m / 10^k with mantissa / 2^-e by cross-multiplying.
  return m * (1n << BigInt(-e)) === mantissa * 10n ** BigInt(k)
}

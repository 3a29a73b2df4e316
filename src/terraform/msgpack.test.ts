// The cty codec as Terraform reads it: the type JSON notation, exact numbers, and msgpack values of every type.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decode, encode, ExtData } from '@msgpack/msgpack'
import {
  BigNum,
  type CtyType,
  type CtyValue,
  cty,
  encodeTypeJson,
  isExactDouble,
  numberEquals,
  numberFromText,
  parseTypeJson,
  typeToJson,
  Unknown,
  wholeNumberOf,
} from './cty.js'
import { decode as decodeDynamic, encode as encodeDynamic } from './dynamic-value.js'
import { CtyCodecError, decodeMsgpack, encodeMsgpack } from './msgpack.js'
import { view as tfView } from './schema.js'
import { int64, validateConfig } from '../core/index.js'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const fromHex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'))

/** A resource shape close to the real ones: primitives, collections, a nested object and a block list. */
const thing = cty.object({
  id: cty.string,
  name: cty.string,
  size: cty.number,
  enabled: cty.bool,
  tags: cty.map(cty.string),
  ports: cty.set(cty.number),
  status: cty.object({ state: cty.string, revision: cty.number }),
  disks: cty.list(cty.object({ size: cty.number, label: cty.string })),
  pair: cty.tuple([cty.string, cty.number]),
})

function roundTrip(value: CtyValue, type: CtyType): CtyValue {
  return decodeMsgpack(encodeMsgpack(value, type), type)
}

describe('cty type JSON', () => {
  test('encodes the notation Terraform expects in Schema.Attribute.type', () => {
    assert.equal(new TextDecoder().decode(encodeTypeJson(cty.string)), '"string"')
    assert.equal(new TextDecoder().decode(encodeTypeJson(cty.list(cty.string))), '["list","string"]')
    assert.equal(new TextDecoder().decode(encodeTypeJson(cty.object({ a: cty.number }))), '["object",{"a":"number"}]')
    assert.deepEqual(typeToJson(cty.tuple([cty.bool, cty.map(cty.set(cty.number))])), ['tuple', ['bool', ['map', ['set', 'number']]]])
  })

  test('parses back what it writes', () => {
    assert.deepEqual(parseTypeJson(encodeTypeJson(thing)), thing)
    assert.throws(() => parseTypeJson('"dynamic"'), /unsupported cty type/)
  })
})

describe('numbers', () => {
  test('decimal text becomes a plain number only when printing it back is exact', () => {
    assert.equal(numberFromText('42'), 42)
    assert.equal(numberFromText('0.1'), 0.1)
    assert.equal(numberFromText('2.50'), 2.5)
    assert.equal(numberFromText('1e3'), 1000)
    assert.deepEqual(numberFromText('12345678901234567890'), new BigNum('12345678901234567890'))
    assert.deepEqual(numberFromText('0.12345678901234567890123'), new BigNum('0.12345678901234567890123'))
    assert.deepEqual(numberFromText('9007199254740993'), new BigNum('9007199254740993'))
    assert.throws(() => numberFromText('abc'))
  })

  test('isExactDouble follows Terraform: float64 only when exact', () => {
    for (const n of [2.5, 0.5, 0.125, -1.75, 3, 1e20]) assert.ok(isExactDouble(n), String(n))
    // 2^-30's shortest text (9.313225746154785e-10) is not its exact value, so it travels as that text.
    for (const n of [0.1, 0.2, 1 / 3, 2.71, 1e-7, 2 ** -30]) assert.ok(!isExactDouble(n), String(n))
  })

  test('numberEquals compares values, not spellings', () => {
    assert.ok(numberEquals(1, new BigNum('1.0')))
    assert.ok(numberEquals(new BigNum('15e-1'), 1.5))
    assert.ok(!numberEquals(new BigNum('12345678901234567890'), Number('12345678901234567890')))
  })

  test('numbers go on the wire as decimal text, the form Terraform parses from the state JSON', () => {
    const wire = (n: number | BigNum) => decode(encodeMsgpack(n, cty.number), { useBigInt64: true })
    assert.equal(hex(encodeMsgpack(3, cty.number)), 'a133') // "3"
    assert.equal(wire(2.5), '2.5')
    assert.equal(wire(0.1), '0.1')
    assert.equal(wire(-5), '-5')
    assert.equal(wire(-0), '0')
    assert.equal(wire(2 ** 40), '1099511627776')
    assert.equal(wire(new BigNum('12345678901234567890')), '12345678901234567890')
    assert.equal(wire(new BigNum('0.12345678901234567890123')), '0.12345678901234567890123')
    assert.equal(wire(Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY)
    assert.throws(() => encodeMsgpack(Number.NaN, cty.number), CtyCodecError)
  })

  test('every form Terraform sends decodes and re-encodes to the same bytes', () => {
    const forms = [
      '03', // fixint
      'cd012c', // uint16
      'd0e0', // int8 -32
      'cb4004000000000000', // float64 2.5
      'a3302e31', // "0.1"
      'b431323334353637383930313233343536373839 30'.replace(/ /g, ''), // "12345678901234567890"
      'd3 7fffffffffffffff', // int64 max
      'cf 000000e8d4a51000', // uint64 10^12
    ]
    for (const form of forms) {
      const value = decodeMsgpack(fromHex(form), cty.number)
      const again = decodeMsgpack(encodeMsgpack(value, cty.number), cty.number)
      assert.ok(value !== null && value !== Unknown && (typeof value === 'number' || value instanceof BigNum))
      assert.ok(again !== null && again !== Unknown && (typeof again === 'number' || again instanceof BigNum))
      assert.ok(numberEquals(value, again), form)
    }
    assert.deepEqual(decodeMsgpack(fromHex('d37fffffffffffffff'), cty.number), new BigNum('9223372036854775807'))
    assert.equal(decodeMsgpack(fromHex('cf000000e8d4a51000'), cty.number), 1e12)
    assert.equal(decodeMsgpack(fromHex('a3302e31'), cty.number), 0.1)
    assert.deepEqual(decodeMsgpack(encode('12345678901234567890'), cty.number), new BigNum('12345678901234567890'))
  })
})

describe('whole numbers beyond a double', () => {
  // Terraform's numbers are exact: 9223372036854775807 arrives as an int64, or as decimal text.
  const view = tfView('provider_thing', { size: int64({ optional: true, description: 'Size.' }) }, 'A thing.', false, [])
  const BIG = '9223372036854775807'

  test('they reach validation exactly, which refuses them naming the value as written', () => {
    for (const wire of [BigInt(BIG), BIG, '9.223372036854775807e18']) {
      const config = decodeDynamic(view, { msgpack: encode({ size: wire }, { useBigInt64: true }) } as never) ?? {}
      assert.equal(config.size, BigInt(BIG), String(wire))
      assert.deepEqual(
        validateConfig(view.attributes, config).map((d) => d.detail),
        [`size must be a whole number no larger than 9007199254740991 (got ${BIG}).`],
      )
    }
  })

  test('encoded back, one is the same decimal text', () => {
    const encoded = encodeDynamic(view, { size: BigInt(BIG) })
    assert.deepEqual(decode(encoded.msgpack), { size: BIG })
  })

  test('a fraction a double cannot hold stays a number, and a whole number that fits stays a plain number', () => {
    assert.equal(wholeNumberOf(new BigNum('0.12345678901234567890123')), null)
    assert.equal(wholeNumberOf(new BigNum('1e30')), 10n ** 30n)
    assert.equal(wholeNumberOf(new BigNum('-9223372036854775808')), -(2n ** 63n))
    assert.equal(decodeDynamic(view, { msgpack: encode({ size: 42 }) } as never)?.size, 42)
  })
})

describe('unknowns', () => {
  test('encode as d4 00 00 and decode from ext 0', () => {
    assert.equal(hex(encodeMsgpack(Unknown, cty.string)), 'd40000')
    assert.equal(decodeMsgpack(fromHex('d40000'), cty.string), Unknown)
  })

  test('a refined unknown (ext 12 with a map payload) decodes as Unknown', () => {
    // {1: false, 2: "beta-"}: not null, string prefix "beta-", as Terraform sends for "beta-${x.id}".
    const payload = encode(
      new Map<number, unknown>([
        [1, false],
        [2, 'beta-'],
      ]),
    )
    const bytes = encode(new ExtData(12, payload))
    assert.equal(decodeMsgpack(bytes, cty.string), Unknown)
    assert.equal(decodeMsgpack(encode(new ExtData(42, new Uint8Array([1, 2]))), cty.number), Unknown)
  })

  test('unknowns inside nested values survive a round trip', () => {
    const value: CtyValue = {
      id: Unknown,
      name: 'beta',
      size: 3,
      enabled: Unknown,
      tags: { env: Unknown, team: 'core' },
      ports: [80, Unknown],
      status: Unknown,
      disks: [{ size: Unknown, label: 'root' }],
      pair: ['a', Unknown],
    }
    assert.deepEqual(roundTrip(value, thing), value)
    const refinedInside = encode({ env: new ExtData(12, encode(new Map([[1, false]]))) })
    assert.deepEqual(decodeMsgpack(refinedInside, cty.map(cty.string)), { env: Unknown })
  })
})

describe('objects', () => {
  test('round-trip a full value', () => {
    const value: CtyValue = {
      id: 'th-1',
      name: 'alpha',
      size: new BigNum('12345678901234567890'),
      enabled: true,
      tags: { env: 'prod', __proto__: 'odd but legal' },
      ports: [22, 443],
      status: { state: 'Active', revision: 0.1 },
      disks: [],
      pair: ['x', 2.5],
    }
    const back = roundTrip(value, thing)
    assert.deepEqual(back, value)
  })

  test('a whole null object is nil', () => {
    assert.equal(hex(encodeMsgpack(null, thing)), 'c0')
    assert.equal(decodeMsgpack(fromHex('c0'), thing), null)
  })

  test('encoding writes exactly the type attribute set: missing become null, extras are dropped', () => {
    const type = cty.object({ a: cty.string, b: cty.number, c: cty.list(cty.string) })
    const encoded = decode(encodeMsgpack({ a: 'x', extra: 'dropped' }, type))
    assert.deepEqual(encoded, { a: 'x', b: null, c: null })
    assert.deepEqual(Object.keys(encoded as object), ['a', 'b', 'c'])
    const nested = decode(encodeMsgpack({ status: {} }, cty.object({ status: cty.object({ s: cty.string, r: cty.number }) })))
    assert.deepEqual(nested, { status: { s: null, r: null } })
  })

  test('decoding gives exactly the type attribute set too', () => {
    const type = cty.object({ a: cty.string, b: cty.number })
    assert.deepEqual(decodeMsgpack(encode({ a: 'x', z: 1 }), type), { a: 'x', b: null })
  })

  test('type mismatches name the path', () => {
    assert.throws(
      () => encodeMsgpack({ disks: [{ size: 'big' }] }, thing),
      (error: unknown) => error instanceof CtyCodecError && error.path === '.disks[0].size',
    )
    assert.throws(
      () => decodeMsgpack(encode({ tags: { a: 1 } }), thing),
      (error: unknown) => error instanceof CtyCodecError && error.path === '.tags["a"]',
    )
    assert.throws(() => decodeMsgpack(encode(['a']), cty.tuple([cty.string, cty.number])), CtyCodecError)
  })

  test('sets and lists are arrays; maps have string keys', () => {
    assert.equal(hex(encodeMsgpack(['a', 'b'], cty.set(cty.string))), '92a161a162')
    assert.equal(hex(encodeMsgpack({ k: true }, cty.map(cty.bool))), '81a16bc3')
    assert.equal(hex(encodeMsgpack([], cty.list(cty.string))), '90')
  })
})

describe('the shared codec', () => {
  test('each encoding is its own buffer: a later one changes no earlier result', () => {
    const first = encodeMsgpack({ name: 'alpha' }, cty.object({ name: cty.string }))
    const before = hex(first)
    const second = encodeMsgpack({ name: 'omega' }, cty.object({ name: cty.string }))
    assert.equal(hex(first), before)
    assert.notEqual(first.buffer, second.buffer)
    assert.deepEqual(decodeMsgpack(first, cty.object({ name: cty.string })), { name: 'alpha' })
    assert.deepEqual(decodeMsgpack(second, cty.object({ name: cty.string })), { name: 'omega' })
  })
})

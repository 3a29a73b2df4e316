// Stored JSON states decoded into the current type: dropped and missing attributes, and exact numbers.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { BigNum, cty } from './cty.js'
import { decodeJsonState } from './json-state.js'
import { CtyCodecError } from './msgpack.js'

const type = cty.object({
  id: cty.string,
  size: cty.number,
  ratio: cty.number,
  enabled: cty.bool,
  tags: cty.map(cty.string),
  ports: cty.set(cty.number),
  status: cty.object({ state: cty.string }),
  added_later: cty.string,
})

describe('decodeJsonState', () => {
  test('keeps number precision, drops old attributes and fills new ones with null', () => {
    const json = `{"id":"th-1","size":12345678901234567890,"ratio":0.1,"enabled":true,
      "tags":{"env":"prod","__proto__":"x"},"ports":[22, 443],"status":{"state":"Active","gone":1},
      "removed_attribute":{"deep":[1,2]}}`
    assert.deepEqual(decodeJsonState(new TextEncoder().encode(json), type), {
      id: 'th-1',
      size: new BigNum('12345678901234567890'),
      ratio: 0.1,
      enabled: true,
      tags: { env: 'prod', ['__proto__']: 'x' },
      ports: [22, 443],
      status: { state: 'Active' },
      added_later: null,
    })
  })

  test('nulls, escapes, exponents and go-cty leniency between primitive spellings', () => {
    const json = '{"id":"a\\"b\\u00e9\\n","size":"42","ratio":-1.5e-3,"enabled":"false","tags":null,"ports":[],"status":null}'
    assert.deepEqual(decodeJsonState(json, type), {
      id: 'a"bé\n',
      size: 42,
      ratio: -0.0015,
      enabled: false,
      tags: null,
      ports: [],
      status: null,
      added_later: null,
    })
    assert.deepEqual(decodeJsonState('{"id": 7}', cty.object({ id: cty.string })), { id: '7' })
  })

  test('rejects malformed JSON and mismatched shapes', () => {
    for (const bad of ['', '{', '{"id":}', '{"id":"x"} x', '[1,]', '{"a":01}', 'nul']) {
      assert.throws(() => decodeJsonState(bad, type), SyntaxError, bad)
    }
    assert.throws(() => decodeJsonState('{"tags":["a"]}', type), CtyCodecError)
  })
})

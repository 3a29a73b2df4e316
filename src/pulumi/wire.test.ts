// Pulumi's wire values: secrets, unknowns and camelCase names to and from core's values.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { int64, string, UNKNOWN } from '../core/index.js'
import { decodeMap, encodeMap, secret } from './wire.js'

const attributes = {
  metal_account_id: int64({ required: true, description: 'A server.' }),
  label: string({ optional: true, sensitive: true, description: 'A label.' }),
}

test('an id given as a string of digits, as Pulumi YAML passes a server id, decodes as the number it spells', () => {
  assert.deepEqual(decodeMap(attributes, { metalAccountId: '100070' }).values, { metal_account_id: 100070 })
  assert.deepEqual(
    decodeMap(attributes, { metalAccountId: 'abc' }).values,
    { metal_account_id: 'abc' },
    'anything else is left for Check to reject',
  )
})

test('camelCase wire names map to canonical names; secrets are unwrapped on decode and wrapped on encode', () => {
  const decoded = decodeMap(attributes, { label: secret('x'), extra: 1 })
  assert.deepEqual(decoded.values, { label: 'x' })
  assert.deepEqual(decoded.unknownKeys, ['extra'])
  const encoded = encodeMap(attributes, { metal_account_id: 5, label: 'x' })
  assert.deepEqual(encoded.label, secret('x'))
  assert.equal(encoded.metalAccountId, 5)
  assert.equal(decodeMap(attributes, { metalAccountId: '04da6b54-80e4-46f7-96ec-b56ff0331ba9' }).values.metal_account_id, UNKNOWN)
})

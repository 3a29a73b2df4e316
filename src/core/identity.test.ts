// Resource identity: the parts derived from an import id's format or declared with it, the mapping between
// an id and an identity both ways with each problem named, and the load-time check that refuses a bad one.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { boxDefinition } from '../../test/support/box-resource.js'
import { checkResource, DefinitionError } from './definition.js'
import type { AnyResource, ImportId } from './definition-types.js'
import { resourceIdentity } from './identity.js'

/** The box with another import id. */
function boxWith(importId: ImportId): AnyResource {
  return { ...boxDefinition, importId }
}

const pair: ImportId = {
  format: '<server_id>:<ip_id>',
  example: '10:20',
  parse: (text) =>
    /^[0-9]+:[0-9]+$/.test(text) ? { id: text } : { error: `expected two ids joined by a colon, got ${JSON.stringify(text)}` },
  parts: [
    { name: 'server_id', type: 'int64', description: 'The server.' },
    { name: 'ip_id', type: 'int64', description: 'The IP.' },
  ],
  separator: ':',
}

describe('resource identity', () => {
  test('without declared parts, each <name> of the import id format is a string part', () => {
    const identity = resourceIdentity(boxDefinition)
    assert.deepEqual(
      identity.parts.map((p) => [p.name, p.type]),
      [['id', 'string']],
    )
    assert.equal(identity.version, 0)
    assert.deepEqual(identity.of('7'), { id: '7' })
    assert.deepEqual(identity.idOf({ id: '7' }), { id: '7' })
    // The import id's own rule applies to what the identity names.
    assert.deepEqual(identity.idOf({ id: 'x7' }), { error: 'expected digits' })
    assert.deepEqual(identity.idOf({}), { error: 'id is required' })
  })

  test('a format of several placeholders joined by one separator derives several string parts', () => {
    const identity = resourceIdentity(boxWith({ format: '<a>/<b>/<c>', example: 'x/y/z', parse: (text) => ({ id: text }) }))
    assert.deepEqual(
      identity.parts.map((p) => p.name),
      ['a', 'b', 'c'],
    )
    assert.deepEqual(identity.of('x/y/z'), { a: 'x', b: 'y', c: 'z' })
    assert.equal(identity.of('x/y'), null, 'an id with too few parts has no identity')
    assert.deepEqual(identity.idOf({ a: 'x', b: 'y', c: 'z' }), { id: 'x/y/z' })
    assert.deepEqual(identity.idOf({ a: 'x', b: 'y/1', c: 'z' }), { error: 'b must not contain "/", got "y/1"' })
  })

  test('declared whole-number parts: the id and the identity map to each other, and every problem is named', () => {
    const identity = resourceIdentity(boxWith(pair))
    assert.deepEqual(identity.of('10:20'), { server_id: 10, ip_id: 20 })
    assert.equal(identity.of('10'), null)
    assert.equal(identity.of('10:x'), null)
    assert.equal(identity.of('10:99999999999999999999'), null, 'beyond a safe integer')
    assert.deepEqual(identity.idOf({ server_id: 10, ip_id: 20 }), { id: '10:20' })
    assert.deepEqual(identity.idOf({ server_id: 1.5, ip_id: null }), {
      error: 'server_id must be a whole number of 0 or more, got 1.5; ip_id is required',
    })
    assert.deepEqual(identity.idOf({ server_id: '10', ip_id: -1 }), {
      error: 'server_id must be a whole number of 0 or more, got "10"; ip_id must be a whole number of 0 or more, got -1',
    })
    // A whole number a front end received beyond a double's exact range: named as written, not rounded.
    assert.deepEqual(identity.idOf({ server_id: 9223372036854775807n, ip_id: 20 }), {
      error: 'server_id must be a whole number of 0 or more, no larger than 9007199254740991, got 9223372036854775807',
    })
  })

  test('the definition check refuses an identity that cannot be derived or is declared wrong', () => {
    const refused = (importId: ImportId, message: RegExp) =>
      assert.throws(
        () => checkResource(boxWith(importId)),
        (e: unknown) => e instanceof DefinitionError && message.test(e.message),
      )
    refused({ format: 'an id', example: '1', parse: (text) => ({ id: text }) }, /import id format an id is not <part> placeholders/)
    refused({ format: '<a>:<b>/<c>', example: '1:2/3', parse: (text) => ({ id: text }) }, /must declare its parts/)
    refused({ ...pair, separator: '' }, /several parts but no separator/)
    refused({ ...pair, parts: [pair.parts?.[0], pair.parts?.[0]] as never }, /identity part server_id is declared twice/)
    refused({ ...pair, parts: [{ name: 'Server', type: 'int64', description: 'x' }] }, /identity part Server is not snake_case/)
    refused({ ...pair, parts: [{ name: 'server', type: 'int64', description: '' }] }, /identity part server has no description/)
    assert.doesNotThrow(() => checkResource(boxWith(pair)))
  })
})

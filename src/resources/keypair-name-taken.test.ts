// A keypair name already taken in the pool (issue 25, case 8): the error names the other keypair (its
// id, name, origin and key fingerprint) and says whose it can be, another configuration or stack
// first, rather than blaming "an earlier run that was stopped"; one with the configured public key is
// still taken over.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ApiError, type Keypair, type KeypairApi } from '../api/index.js'
import { InputError } from '../core/index.js'
import { createOrAdopt } from './keypair-name-taken.js'

const OTHER: Keypair = {
  keypair_id: 31,
  name: 'deploy',
  origin: 'generated',
  public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq0cV0x2Yk4m4Zp5bL6C3mWnXQe8y1Q2m2Vw6sJ4Tq9 deploy',
}

function pool(keypairs: readonly Keypair[]): KeypairApi {
  return {
    listKeypairs: async () => [...keypairs],
    findKeypair: async (id) => keypairs.find((k) => k.keypair_id === id) ?? null,
    createKeypair: async () => assert.fail('not called'),
    importKeypair: async () => assert.fail('not called'),
    deleteKeypair: async () => undefined,
  }
}

const taken = async (): Promise<Keypair> => {
  throw new ApiError(409, 'keypair name already exists', [], { method: 'POST', path: '/lites/keypairs/' })
}
const what = { resource: 'provider_lite_keypair', signal: new AbortController().signal }

describe('a keypair name taken in the pool', () => {
  test("the error names the other keypair and says it may be another configuration's or stack's", async () => {
    const error = await createOrAdopt(pool([OTHER]), 'deploy', undefined, taken, what).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof InputError)
    assert.match(error.message, /keypair 31 "deploy"/, error.message)
    assert.match(error.message, /generated/, error.message)
    assert.match(error.message, /SHA256:[A-Za-z0-9+/]{43}/, error.message)
    assert.match(error.message, /another configuration or stack/, error.message)
    assert.doesNotMatch(error.message, /probably left by an earlier run/, error.message)
    assert.match(error.message, /terraform import <address of this provider_lite_keypair> 31/, error.message)
  })

  test('an imported key whose public key is the configured one is taken over', async () => {
    const kept = await createOrAdopt(
      pool([OTHER]),
      'deploy',
      `${OTHER.public_key.split(' ').slice(0, 2).join(' ')} other-comment`,
      taken,
      what,
    )
    assert.equal(kept.keypair_id, 31)
  })
})

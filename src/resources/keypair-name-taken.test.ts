// A keypair name already taken in the pool (issue 25, case 8): the error names the other keypair (its
// id, name, origin and key fingerprint) and says whose it can be, another configuration or stack
// first, rather than blaming "an earlier run that was stopped"; one with the configured public key is
// still taken over.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Harness } from '../../test/support/harness.js'
import { ApiError, type Keypair, type KeypairApi } from '../api/index.js'
import { checkPlanOnline, InputError } from '../core/index.js'
import { baremetalKeypair } from './baremetal-keypair.js'
import { lite } from './lite-family.js'
import { liteKeypair } from './lite-keypair.js'
import { createOrAdopt, nameFree } from './keypair-name-taken.js'

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
    keypairNamed: async (name) => keypairs.find((k) => k.name === name) ?? null,
    createKeypair: async () => assert.fail('not called'),
    importKeypair: async () => assert.fail('not called'),
    deleteKeypair: async () => undefined,
  }
}

const taken = async (): Promise<Keypair> => {
  throw new ApiError(409, 'keypair name already exists', [], { method: 'POST', path: '/lites/keypairs/' })
}
const what = { resource: 'provider_lite_keypair', signal: new AbortController().signal, takeOver: async () => true }

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

  test("the error names Terraform's create_before_destroy as a cause (a replacement that creates first) and what to do, without claiming the state holds no keypair", async () => {
    const error = await createOrAdopt(pool([OTHER]), 'deploy', undefined, taken, what).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof InputError)
    assert.match(error.message, /create_before_destroy = true \} \(Terraform\), that setting is the cause/, error.message)
    assert.match(error.message, /Remove create_before_destroy from this resource, which then deletes the old keypair first/, error.message)
    assert.doesNotMatch(error.message, /this resource has no keypair in its state/, error.message)
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

  test('one this run is deleting (the old half of a renamed resource) is not taken over: once its delete freed the name, the create is sent again', async () => {
    const keypairs = [OTHER]
    const publicKey = OTHER.public_key
    let creates = 0
    const create = async (): Promise<Keypair> => {
      creates++
      if (keypairs.length > 0) return taken()
      return { ...OTHER, keypair_id: 32 }
    }
    const asked: string[] = []
    const made = await createOrAdopt(pool(keypairs), 'deploy', publicKey, create, {
      ...what,
      takeOver: async (id) => {
        asked.push(id)
        keypairs.length = 0 // the delete it waited for removed it
        return false
      },
    })
    assert.equal(made.keypair_id, 32, 'a keypair of its own, not the one being deleted')
    assert.deepEqual(asked, ['31'])
    assert.equal(creates, 2)
  })

  test('one this run tried to delete and did not (its delete failed) is neither taken over nor reported as a bare 409', async () => {
    let creates = 0
    const error = await createOrAdopt(
      pool([OTHER]),
      'deploy',
      OTHER.public_key,
      async () => {
        creates++
        return taken()
      },
      { ...what, takeOver: async () => false },
    ).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.equal(creates, 3)
    assert.ok(error instanceof InputError, String(error))
    assert.match(error.message, /keypair 31 "deploy"/, error.message)
    assert.match(error.message, /delete of it in this same run/, error.message)
  })

  test('a name freed between the refusal and the lookup: the create is sent again, at most three times in all', async () => {
    let creates = 0
    const freed = await createOrAdopt(
      pool([]),
      'deploy',
      undefined,
      async () => (++creates === 1 ? taken() : { ...OTHER, keypair_id: 33 }),
      what,
    )
    assert.equal(freed.keypair_id, 33)
    creates = 0
    await assert.rejects(
      createOrAdopt(
        pool([]),
        'deploy',
        undefined,
        async () => {
          creates++
          return taken()
        },
        what,
      ),
      (e: unknown) => e instanceof ApiError && e.status === 409,
    )
    assert.equal(creates, 3)
  })
})

describe('the plan-time check of a new keypair name', () => {
  const signal = new AbortController().signal
  const resource = 'provider_lite_keypair'

  test('a free name passes', async () => {
    assert.equal(await nameFree(pool([OTHER]), { name: 'free-name' }, { resource, replacing: '7', signal }), null)
  })

  test('a plain create is not checked (it deletes nothing first; its create meets a taken name), and lists nothing', async () => {
    const listed: string[] = []
    const counting = {
      ...pool([OTHER]),
      keypairNamed: async (name: string) => {
        listed.push(name)
        return null
      },
    }
    assert.equal(await nameFree(counting, { name: 'deploy' }, { resource, signal }), null)
    assert.deepEqual(listed, [])
  })

  test('in a replacement, a taken name is refused at plan, naming the keypair that holds it and the import', async () => {
    const problem = await nameFree(pool([OTHER]), { name: 'deploy' }, { resource, replacing: '7', signal })
    assert.ok(problem !== null)
    assert.match(problem, /^is taken\. A keypair named "deploy" already exists in the pool: keypair 31 "deploy"/, problem)
    assert.match(problem, /terraform import <address of this provider_lite_keypair> 31/, problem)
    assert.doesNotMatch(problem, /\.$/, 'the plan adds the final period')
  })

  test('in a replacement, a taken name says the live keypair would be deleted first', async () => {
    const problem = await nameFree(pool([OTHER]), { name: 'deploy' }, { resource, replacing: '7', signal })
    assert.match(problem ?? '', /would delete keypair 7/, problem ?? '')
  })

  test('the name held by the keypair being replaced, or by one the create takes over, passes', async () => {
    assert.equal(await nameFree(pool([OTHER]), { name: 'deploy' }, { resource, replacing: '31', signal }), null)
    const same = `${OTHER.public_key.split(' ').slice(0, 2).join(' ')} other-comment`
    assert.equal(await nameFree(pool([OTHER]), { name: 'deploy', public_key: same }, { resource, replacing: '7', signal }), null)
    const other = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb x'
    assert.match(
      (await nameFree(pool([OTHER]), { name: 'deploy', public_key: other }, { resource, replacing: '7', signal })) ?? '',
      /not the configured one/,
    )
  })
})

describe('a keypair renamed to a name taken in the pool, against the emulator', () => {
  test('the plan refuses it on name (Lite and Metal), so no replacement deletes the live keypair first', async () => {
    const h = new Harness()
    for (const definition of [liteKeypair(lite), baremetalKeypair]) {
      const kept = await h.create(definition, { name: `kept-${definition.name}` })
      await h.create(definition, { name: `taken-${definition.name}` })
      const plan = h.plan(definition, kept, { name: `taken-${definition.name}` })
      assert.deepEqual(plan.replace, ['name'])
      const issues = await checkPlanOnline(definition, kept, plan, h.session)
      assert.deepEqual(
        issues.map((d) => [d.severity, d.summary, d.path]),
        [['error', 'Invalid name', ['name']]],
        definition.name,
      )
      assert.match(issues[0]?.detail ?? '', new RegExp(`would delete keypair ${String(kept.id)}`))
      // A new keypair of the free name, or the replaced keypair's own name (a Metal key re-imported), passes.
      assert.deepEqual(
        await checkPlanOnline(definition, kept, h.plan(definition, kept, { name: `free-${definition.name}` }), h.session),
        [],
      )
      assert.deepEqual(
        await checkPlanOnline(definition, null, h.plan(definition, null, { name: `kept-${definition.name}` }), h.session, String(kept.id)),
        [],
      )
    }
  })
})

describe('a generated keypair whose create got no answer, from a service that ignores Idempotency-Key', () => {
  test("the repeat refused as a taken name says this create's own first request most likely made it, and how to keep it or have another with its private key", async () => {
    const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
    // The first create is processed and its answer lost; its repeat is refused as a taken name.
    await h.control('POST', '/faults', { method: 'POST', path: '/lites/keypairs', mode: 'drop_after' })
    const outcome = await h.tryCreate(liteKeypair(lite), { name: 'deploy' })
    const error = outcome.diagnostics.find((d) => d.severity === 'error')
    const detail = error?.detail ?? ''
    const [made] = await h.client.lites.listKeypairs()
    assert.ok(made, 'the first request made the keypair')
    assert.equal((await h.client.lites.listKeypairs()).length, 1, 'one keypair')
    assert.deepEqual(error?.path, ['name'])
    assert.match(detail, new RegExp(`keypair ${made.keypair_id} "deploy"`), detail)
    assert.match(detail, /This create's first request got no answer and was sent again/, detail)
    assert.match(detail, /its private key was in the answer that never arrived/, detail)
    assert.match(detail, new RegExp(`terraform import <address of this lite_keypair> ${made.keypair_id}`), detail)
    assert.match(detail, /terraform destroy -target=<address>/, detail)
    assert.doesNotMatch(detail, /Otherwise most likely another configuration/, detail)
  })

  test('a taken name whose create was answered at once still says it may be another configuration or stack', async () => {
    const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
    await h.create(liteKeypair(lite), { name: 'deploy' })
    const outcome = await h.tryCreate(liteKeypair(lite), { name: 'deploy' })
    const detail = outcome.diagnostics.find((d) => d.severity === 'error')?.detail ?? ''
    assert.match(detail, /another configuration or stack/, detail)
    assert.doesNotMatch(detail, /first request got no answer/, detail)
  })
})

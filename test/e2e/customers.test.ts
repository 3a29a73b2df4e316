// One customer per API key under real Terraform (issue 28): two workspaces with two keys against one
// emulator each apply a Lite keypair of the same name. Neither sees the other's: both applies succeed
// (no name taken), each plan is empty, each refresh keeps its own id, each `terraform query` lists only
// its own keypair, the control API's ?customer= shows one each, and a destroy leaves the other's be.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { block, describeRun, PROVIDER_BLOCKS, type RunOptions, terraformClient, type Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const client = terraformClient()
const hasQuery = client.key.startsWith('terraform-') && client.tool.version.localeCompare('1.14', 'en', { numeric: true }) >= 0

/** The suite's workspace runs with the harness's key (Alice's); Bob's runs with his own. */
const BOB_KEY = 'bob-e2e-key-0002'
const NAME = 'shared-name'
const CONFIG = [PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: NAME })].join('\n')
const QUERY = 'list "provider_lite_keypair" "mine" {\n  provider = provider\n}\n'

interface Keypair {
  customer: string
  keypair_id: number
  name: string
}

describe('two customers, two workspaces, one emulator', () => {
  const e2e = useEmulatorWorkspace({ provisioningDelayMs: 0 })
  let alice: { ws: Workspace; options: RunOptions }
  let bob: { ws: Workspace; options: RunOptions }

  before(async () => {
    // Named customers, so that neither key shows whole as a customer's name.
    await e2e.emulator.control('PATCH', '/config', {
      api_keys: [
        { key: e2e.emulator.apiKey, scope: 'rw', customer: 'alice' },
        { key: BOB_KEY, scope: 'rw', customer: 'bob' },
      ],
    })
    alice = { ws: e2e.ws, options: {} }
    bob = { ws: await e2e.workspace(), options: { env: { PROVIDER_API_KEY: BOB_KEY } } }
  })

  const keypairsOf = (customer: string) => e2e.emulator.control<Keypair[]>('GET', `/keypairs?customer=${customer}`)
  const idIn = async (ws: Workspace) => Number((await ws.stateOf('provider_lite_keypair.k')).keypair_id)

  test('each applies a keypair of the same name; each plan is empty; each sees only its own', async () => {
    for (const { ws, options } of [alice, bob]) {
      await ws.write(CONFIG)
      const applied = await ws.apply([], options)
      assert.equal(applied.code, 0, describeRun(applied))
    }
    const aliceId = await idIn(alice.ws)
    const bobId = await idIn(bob.ws)
    assert.notEqual(aliceId, bobId, 'two keypairs, one per customer')

    for (const { ws, options } of [alice, bob]) {
      const plan = await ws.plan([], options)
      assert.equal(plan.code, 0, `the plan is not empty: ${describeRun(plan)}`)
      // A refresh reads the keypair by its id through the workspace's key: its own, unchanged.
      const before = await idIn(ws)
      const refreshed = await ws.apply(['-refresh-only'], options)
      assert.equal(refreshed.code, 0, describeRun(refreshed))
      assert.equal(await idIn(ws), before)
    }

    assert.deepEqual(
      (await keypairsOf('alice')).map((k) => [k.customer, k.keypair_id, k.name]),
      [['alice', aliceId, NAME]],
    )
    assert.deepEqual(
      (await keypairsOf('bob')).map((k) => [k.customer, k.keypair_id, k.name]),
      [['bob', bobId, NAME]],
    )
    const customers = await e2e.emulator.control<{ customer: string; keys: { key_masked: string }[] }[]>('GET', '/customers')
    assert.deepEqual(
      customers.map((c) => [c.customer, c.keys.map((k) => k.key_masked)]),
      [
        ['alice', ['…-key']],
        ['bob', ['…0002']],
      ],
    )
    // Every request Bob's runs sent is his in the log, under his masked key.
    type Entry = { customer: string; api_key: string; method: string; path: string }
    const bobLog = await e2e.emulator.control<Entry[]>('GET', '/requests?customer=bob')
    assert.ok(
      bobLog.every((e) => e.customer === 'bob' && e.api_key === '…0002'),
      JSON.stringify(bobLog),
    )
    assert.deepEqual(
      bobLog.filter((e) => e.method === 'POST').map((e) => e.path.replace(/\/$/, '')),
      ['/v1/lites/keypairs'],
      "Bob's one create",
    )
  })

  test('terraform query lists, through each key, only that customer’s keypair', {
    skip: hasQuery ? false : `${client.key} has no terraform query`,
  }, async () => {
    for (const [{ ws, options }, customer] of [
      [alice, 'alice'],
      [bob, 'bob'],
    ] as const) {
      await writeFile(join(ws.dir, 'mine.tfquery.hcl'), QUERY)
      const run = await ws.run(['query', '-no-color'], options)
      assert.equal(run.code, 0, describeRun(run))
      const listed = run.stdout.split('\n').filter((line) => line.startsWith('list.provider_lite_keypair.mine'))
      const [own] = await keypairsOf(customer)
      assert.equal(listed.length, 1, `one keypair through ${customer}'s key: ${run.stdout}`)
      assert.match(listed[0] ?? '', new RegExp(`\\b${own?.keypair_id}\\b`))
    }
  })

  test("a destroy through one key deletes that customer's keypair and leaves the other's", async () => {
    const destroyed = await alice.ws.destroy()
    assert.equal(destroyed.code, 0, describeRun(destroyed))
    assert.deepEqual(await keypairsOf('alice'), [])
    assert.equal((await keypairsOf('bob')).length, 1)
    const plan = await bob.ws.plan([], bob.options)
    assert.equal(plan.code, 0, `Bob's plan after Alice's destroy: ${describeRun(plan)}`)
  })
})

// Every resource the service bills as an account outputs its account id as a whole number (`account_id`),
// the type of the inputs that name an account, so a chain connects with no conversion (issue 26: Pulumi
// YAML has no string-to-number function). Read from the id by every read: a create, a refresh and an
// import all give it, and each reference input takes it as it is.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toSnake, type ValueMap } from '../core/index.js'
import { fixtures } from '../../test/fixtures/index.js'
import { Harness } from '../../test/support/harness.js'
import { resources } from './index.js'

/** The resource types that are accounts: their identity is one account id (keypairs and assignments are not). */
const ACCOUNTS = resources
  .filter((r) => r.importId.parts?.length === 1 && r.importId.parts[0]?.type === 'int64' && /account_id$/.test(r.importId.parts[0].name))
  .map((r) => r.name)

test('the accounts are every VM, restored VM, snapshot, disk, Metal server, additional IP and elastic storage', () => {
  assert.equal(ACCOUNTS.length, 10, ACCOUNTS.join(', '))
})

/** The value of `account_id` whichever case the definition spells its attributes in. */
function accountIdOf(state: ValueMap): unknown {
  const key = Object.keys(state).find((k) => toSnake(k) === 'account_id')
  return key === undefined ? undefined : state[key]
}

for (const name of ACCOUNTS) {
  test(`${name}: account_id is the id as a whole number after create, read and import`, async () => {
    const definition = resources.find((r) => r.name === name)
    const lifecycle = fixtures.find((f) => f.name === name)?.lifecycle
    assert.ok(definition && lifecycle, `${name} has a definition and a lifecycle fixture`)
    const declared = Object.entries(definition.attributes).find(([k]) => toSnake(k) === 'account_id')?.[1]
    assert.equal(declared?.type.kind, 'int64', `${name} declares an int64 account_id`)
    const h = new Harness()
    const deps = await lifecycle.setup(h)
    const state = await h.create(definition, lifecycle.create(deps) as ValueMap)
    const id = Number(state.id)
    assert.equal(accountIdOf(state), id, 'after create')
    assert.equal(accountIdOf((await h.read(definition, state)) ?? {}), id, 'after a read')
    assert.equal(accountIdOf((await h.import(definition, String(state.id))) ?? {}), id, 'after an import')
  })
}

test('a chain connects through account_id with no conversion: VM → snapshot → restored VM → disk', async () => {
  const h = new Harness()
  const byName = (name: string) => resources.find((r) => r.name === name) ?? assert.fail(name)
  // One setup (a keypair, VMs and snapshots the fixtures name); each step's other inputs are its fixture's.
  const deps = await (fixtures.find((f) => f.name === 'lite_vm_from_snapshot')?.lifecycle ?? assert.fail()).setup(h)
  /** The fixture's first configuration of `name`, with the given inputs instead. */
  const config = async (name: string, inputs: ValueMap) => {
    const lifecycle = fixtures.find((f) => f.name === name)?.lifecycle ?? assert.fail(name)
    return { ...(lifecycle.create(deps) as ValueMap), ...inputs }
  }
  const vm = await h.create(byName('lite_vm'), await config('lite_vm', {}))
  const snapshot = await h.create(byName('lite_snapshot'), await config('lite_snapshot', { lite_account_id: vm.account_id ?? null }))
  const restored = await h.create(
    byName('lite_vm_from_snapshot'),
    await config('lite_vm_from_snapshot', { snapshot_id: snapshot.account_id ?? null }),
  )
  const disk = await h.create(byName('lite_disk'), await config('lite_disk', { lite_account_id: restored.account_id ?? null }))
  // The disk's lite_account_id is read back from the service: it is on the restored VM.
  assert.equal(disk.lite_account_id, Number(restored.id))
})

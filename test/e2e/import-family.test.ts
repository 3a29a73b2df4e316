// Real terraform: an import takes only an id of its own resource type (a Lite Pro VM, migrated or not,
// is refused by provider_lite_vm with the type to use), and a Lite VM migrated with migrate_to_pro moves
// to provider_lite_pro_vm with a `moved` block: no order, no replacement, then an empty plan.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
}
const KEYPAIR = block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-import-family' })

describe('imports and moves that cannot mislead', () => {
  const e2e = useEmulatorWorkspace()
  let migrated = ''
  before(async () => {
    await e2e.ws.write([PROVIDER_BLOCKS, KEYPAIR, block('resource', 'provider_lite_vm', 'vm', VM)].join('\n'))
    const created = await e2e.ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    await e2e.ws.write([PROVIDER_BLOCKS, KEYPAIR, block('resource', 'provider_lite_vm', 'vm', { ...VM, migrate_to_pro: '201' })].join('\n'))
    const moved = await e2e.ws.apply()
    if (moved.code !== 0) throw new Error(describeRun(moved))
    migrated = String((await e2e.ws.stateOf('provider_lite_vm.vm')).id)
  })

  async function importInto(type: string, id: string, config: Record<string, HclValue>) {
    const other = await Workspace.create(e2e.emulator)
    try {
      await other.write([PROVIDER_BLOCKS, block('resource', type, 'imported', config)].join('\n'))
      const { value: run, mutations } = await e2e.emulator.effectsOf(() => other.import(`${type}.imported`, id))
      assert.deepEqual(mutations, [])
      return run
    } finally {
      await other.cleanup()
    }
  }

  test('a native Lite Pro VM is refused by provider_lite_vm, naming provider_lite_pro_vm', async () => {
    const key = await e2e.emulator.api<{ keypair_id: number }>('POST', '/lite-pros/keypairs/', { name: 'native-pro' })
    const order = await e2e.emulator.api<{ account_id: string }>('POST', '/lite-pros', {
      product_id: 201,
      cycle: 'm',
      select_os: 'Ubuntu-22.04',
      keypair_id: key.keypair_id,
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
    })
    const run = await importInto('provider_lite_vm', String(order.account_id), { ...VM, keypair_id: key.keypair_id })
    assert.equal(run.code, 1, describeRun(run))
    const errors = diagnostics(run.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.ok(
      errors.some((e) => e.includes(`VM ${order.account_id} is a Lite Pro VM`) && e.includes('import it as provider_lite_pro_vm')),
      describeRun(run),
    )
  })

  test('a Lite VM is refused by provider_lite_pro_vm, naming provider_lite_vm', async () => {
    const other = await Workspace.create(e2e.emulator)
    try {
      const key = block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-import-family-2' })
      await other.write([PROVIDER_BLOCKS, key, block('resource', 'provider_lite_vm', 'vm', VM)].join('\n'))
      const created = await other.apply()
      assert.equal(created.code, 0, describeRun(created))
      const id = String((await other.stateOf('provider_lite_vm.vm')).id)
      const run = await importInto('provider_lite_pro_vm', id, { ...VM, keypair_id: 1 })
      assert.equal(run.code, 1, describeRun(run))
      assert.match(run.stderr.replace(/\s+/g, ' '), new RegExp(`VM ${id} is a Lite VM, not a Lite Pro one: import it as provider_lite_vm`))
    } finally {
      await other.destroy()
      await other.cleanup()
    }
  })

  test('re-importing a migrated VM under provider_lite_vm is refused, naming provider_lite_pro_vm', async () => {
    const run = await importInto('provider_lite_vm', migrated, { ...VM, keypair_id: 1, migrate_to_pro: '201' })
    assert.equal(run.code, 1, describeRun(run))
    const text = run.stderr.replace(/\s+/g, ' ')
    assert.match(text, new RegExp(`VM ${migrated} is a Lite Pro VM .*import it as provider_lite_pro_vm`))
  })

  test('moved from provider_lite_vm to provider_lite_pro_vm after the migration: no order, then an empty plan', async () => {
    const pro = { ...VM, product_id: 201 }
    await e2e.ws.write(
      [
        PROVIDER_BLOCKS,
        KEYPAIR,
        block('resource', 'provider_lite_pro_vm', 'vm', pro),
        'moved {\n  from = provider_lite_vm.vm\n  to   = provider_lite_pro_vm.vm\n}\n',
      ].join('\n'),
    )
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /provider_lite_vm\.vm has moved to provider_lite_pro_vm\.vm/)
    assert.doesNotMatch(applied.stdout, /must be replaced|Destroying|Creating/)
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    const state = await e2e.ws.stateOf('provider_lite_pro_vm.vm')
    assert.equal(String(state.id), migrated)
    assert.equal(state.product_id, 201)
    const plan = await e2e.ws.plan()
    assert.equal(plan.code, 0, describeRun(plan))
  })
})

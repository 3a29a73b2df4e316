// Real terraform against the emulator launcher: importing a server or VM that rebuild_os reinstalled since its
// create. The service reports the OS it runs now, so the import reads select_os as the rebuilt OS; the
// configuration that made the object still says the OS it was created with. Importing into that configuration
// (with or without rebuild_os) must not replace the object (a delete and a second paid order, of it and of
// everything bound to it), nor reinstall it: the plan records select_os and rebuild_os, calling nothing, and the
// next is empty.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, changeOf, describeRun, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const KEYPAIRS = [
  block('resource', 'provider_lite_pro_keypair', 'k', { name: 'e2e-rebuilt-pro' }),
  block('resource', 'provider_baremetal_keypair', 'm', { name: 'e2e-rebuilt-metal' }),
]

const VM: Record<string, HclValue> = {
  product_id: 201,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_pro_keypair.k.keypair_id'),
  cycle: 'm',
  vm_name: 'e2e-rebuilt',
  ssh_and_console_user: 'deployer',
  console_password: 'Rebuilt2024pass',
}

// The Metal server leaves select_os to its default, "ubuntu-22".
const SERVER: Record<string, HclValue> = {
  product_id: 301,
  cycle: 'm',
  keypair_id: ref('provider_baremetal_keypair.m.keypair_id'),
  label: 'e2e-rebuilt',
}

const DISK: Record<string, HclValue> = { product_id: 61, cycle: 'm', lite_account_id: ref('provider_lite_pro_vm.vm.account_id') }

/** The configuration; `rebuildOs` adds rebuild_os to the VM and the server (each family's name of Debian 12). */
function config(imports = '', rebuildOs = false): string {
  return [
    PROVIDER_BLOCKS,
    imports,
    ...KEYPAIRS,
    block('resource', 'provider_lite_pro_vm', 'vm', rebuildOs ? { ...VM, rebuild_os: 'Debian-12' } : VM),
    block('resource', 'provider_lite_pro_disk', 'd', DISK),
    block('resource', 'provider_baremetal', 'srv', rebuildOs ? { ...SERVER, rebuild_os: 'debian-12' } : SERVER),
  ].join('\n')
}

/** Terraform wraps long warnings: the output with every run of white space made one space. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ')

describe('import of a rebuilt server and VM', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  const ids: Record<string, string> = {}
  /** An `import {}` block for each object the origin workspace made. */
  const importBlocks = () =>
    Object.entries(ids)
      .map(([address, id]) => `import {\n  to = ${address}\n  id = "${id}"\n}\n`)
      .join('\n')

  before(async () => {
    const origin = await e2e.workspace()
    await origin.write(config())
    const created = await origin.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    // Reinstalled through the configuration, as a user does it.
    await origin.write(config('', true))
    const rebuilt = await origin.apply()
    if (rebuilt.code !== 0) throw new Error(describeRun(rebuilt))
    for (const address of [
      'provider_lite_pro_keypair.k',
      'provider_baremetal_keypair.m',
      'provider_lite_pro_vm.vm',
      'provider_lite_pro_disk.d',
      'provider_baremetal.srv',
    ]) {
      ids[address] = String((await origin.stateOf(address)).id)
    }
    assert.equal((await e2e.emulator.account(ids['provider_baremetal.srv'] ?? ''))?.extra_details.select_os, 'debian-12')
  })

  test('import {} blocks into the configuration that made them plan no replacement, record select_os calling nothing, then an empty plan', async () => {
    const imports = importBlocks()
    const ws = await e2e.workspace()
    await ws.write(config(imports))
    const planned = await ws.planJson()
    assert.doesNotMatch(planned.run.stdout, /must be replaced|forces replacement/, describeRun(planned.run))
    assert.match(planned.run.stdout, /Plan: 5 to import, 0 to add, 2 to change, 0 to destroy\./, describeRun(planned.run))
    for (const address of ['provider_lite_pro_vm.vm', 'provider_baremetal.srv']) {
      const change = changeOf(planned.plan, address)
      assert.deepEqual(change.actions, ['update'], `${address} after import`)
      assert.deepEqual(change.replace_paths ?? [], [], `${address} is not replaced`)
    }
    assert.equal(changeOf(planned.plan, 'provider_lite_pro_disk.d').actions[0], 'no-op', 'the disk bound to the VM stays')
    assert.match(
      oneLine(planned.run.stdout),
      /Warning: select_os "Ubuntu-22\.04" is recorded, not a replacement: the object was imported with "Debian-12"/,
    )
    assert.match(
      oneLine(planned.run.stdout),
      /Warning: select_os "ubuntu-22" is recorded, not a replacement: the object was imported with "debian-12"/,
    )

    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual([mutations, orders], [[], []], 'recording select_os reinstalls nothing and orders nothing')
    assert.equal((await ws.stateOf('provider_lite_pro_vm.vm')).select_os, 'Ubuntu-22.04')
    assert.equal((await ws.stateOf('provider_baremetal.srv')).select_os, 'ubuntu-22')

    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
  })

  test('import {} blocks into the configuration that still names the rebuild: rebuild_os is recorded, nothing is reinstalled, then an empty plan', async () => {
    const imports = importBlocks()
    const ws = await e2e.workspace()
    await ws.write(config(imports, true))
    const planned = await ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    assert.doesNotMatch(planned.stdout, /must be replaced|forces replacement/, describeRun(planned))
    assert.match(
      oneLine(planned.stdout),
      /Warning: rebuild_os "Debian-12" is recorded, not run: the object was imported/,
      describeRun(planned),
    )
    assert.match(
      oneLine(planned.stdout),
      /Warning: rebuild_os "debian-12" is recorded, not run: the object was imported/,
      describeRun(planned),
    )

    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual([mutations, orders], [[], []], 'no disk is wiped: nothing is reinstalled, nothing ordered')
    assert.equal((await ws.stateOf('provider_lite_pro_vm.vm')).rebuild_os, 'Debian-12')
    assert.equal((await ws.stateOf('provider_baremetal.srv')).rebuild_os, 'debian-12')

    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
  })
})

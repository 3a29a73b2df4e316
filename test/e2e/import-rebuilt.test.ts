// Real terraform against the emulator launcher: importing a server or VM that rebuild_os reinstalled since its
// create. The service reports the OS it runs now, so the import reads select_os as the rebuilt OS, while the
// configuration that made the object still says the OS it was created with; and it cannot report a rebuild, so
// a rebuild_os left in that configuration is a change. The interface's rules hold (a create-only change
// replaces; a trigger fires after an import), and the plan says so before anything runs, naming what keeps the
// object: select_os set to the OS it runs, rebuild_os left out. Done so, nothing is ordered or reinstalled.
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

/**
 * The configuration; `rebuildOs` adds rebuild_os to the VM and the server, `runningOs` sets select_os to the OS
 * they run (each family's name of Debian 12).
 */
function config(imports = '', { rebuildOs = false, runningOs = false } = {}): string {
  const vm = { ...VM, ...(rebuildOs ? { rebuild_os: 'Debian-12' } : {}), ...(runningOs ? { select_os: 'Debian-12' } : {}) }
  const server = { ...SERVER, ...(rebuildOs ? { rebuild_os: 'debian-12' } : {}), ...(runningOs ? { select_os: 'debian-12' } : {}) }
  return [
    PROVIDER_BLOCKS,
    imports,
    ...KEYPAIRS,
    block('resource', 'provider_lite_pro_vm', 'vm', vm),
    block('resource', 'provider_lite_pro_disk', 'd', DISK),
    block('resource', 'provider_baremetal', 'srv', server),
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
    await origin.write(config('', { rebuildOs: true }))
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

  test('into the configuration that made them, the plan replaces the VM and the server and warns, naming the select_os that keeps each; with it, nothing is ordered and the next plan is empty', async () => {
    const ws = await e2e.workspace()
    await ws.write(config(importBlocks()))
    const planned = await ws.planJson()
    for (const address of ['provider_lite_pro_vm.vm', 'provider_baremetal.srv']) {
      assert.deepEqual(changeOf(planned.plan, address).actions, ['delete', 'create'], `${address}: create-only select_os replaces`)
    }
    const shown = oneLine(planned.run.stdout)
    assert.match(shown, /Warning: select_os "Ubuntu-22\.04" replaces the imported object, which has "Debian-12"/, describeRun(planned.run))
    assert.match(shown, /set select_os to "Debian-12" instead to keep the object/)
    assert.match(shown, /Warning: select_os "ubuntu-22" replaces the imported object, which has "debian-12"/)

    await ws.write(config(importBlocks(), { runningOs: true }))
    const kept = await ws.plan()
    assert.doesNotMatch(kept.stdout, /must be replaced|forces replacement|Warning: select_os/, describeRun(kept))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual([mutations, orders], [[], []], 'the import orders nothing and reinstalls nothing')
    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
  })

  test('into a configuration that still names the rebuild, the plan warns that rebuild_os runs; left out, nothing is reinstalled', async () => {
    const ws = await e2e.workspace()
    await ws.write(config(importBlocks(), { rebuildOs: true, runningOs: true }))
    const planned = await ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    assert.doesNotMatch(planned.stdout, /must be replaced|forces replacement/, describeRun(planned))
    const shown = oneLine(planned.stdout)
    assert.match(shown, /Warning: rebuild_os "Debian-12" runs on the imported object/, describeRun(planned))
    assert.match(shown, /Warning: rebuild_os "debian-12" runs on the imported object/, describeRun(planned))
    assert.match(shown, /leave rebuild_os out of the configuration/)

    await ws.write(config(importBlocks(), { runningOs: true }))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.doesNotMatch(applied.stdout, /Warning: rebuild_os/)
    assert.deepEqual([mutations, orders], [[], []], 'no disk is wiped: nothing is reinstalled, nothing ordered')
    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
  })
})

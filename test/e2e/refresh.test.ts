// Real terraform: a refresh that finds nothing changed leaves the state byte for byte as it was, and a
// drift check (`plan -refresh-only -detailed-exitcode`) exits 0, even an hour later and right after create.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, PROVIDER_BLOCKS, ref, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const KEYPAIR_ONLY = [PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'only', { name: 'e2e-refresh-only' })].join('\n')

const SERVERS = [
  PROVIDER_BLOCKS,
  block('resource', 'provider_lite_keypair', 'lite', { name: 'e2e-refresh' }),
  block('resource', 'provider_baremetal_keypair', 'metal', { name: 'e2e-refresh' }),
  block('resource', 'provider_lite_vm', 'vm', {
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    keypair_id: ref('provider_lite_keypair.lite.keypair_id'),
    cycle: 'm',
  }),
].join('\n')

type StateFile = { serial: number; resources: { type: string; name: string; instances: { attributes: unknown }[] }[] }

describe('a refresh with nothing changed', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })

  async function workspace(config: string): Promise<Workspace> {
    const ws = await Workspace.create(e2e.emulator)
    await ws.write(config)
    const created = await ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    return ws
  }
  const stateText = (ws: Workspace) => readFile(join(ws.dir, 'terraform.tfstate'), 'utf8')
  const attributes = (text: string) =>
    Object.fromEntries((JSON.parse(text) as StateFile).resources.map((r) => [`${r.type}.${r.name}`, r.instances.map((i) => i.attributes)]))

  test('a keypair: plan -refresh-only -detailed-exitcode exits 0, and apply -refresh-only writes nothing', async () => {
    const ws = await workspace(KEYPAIR_ONLY)
    try {
      const created = await stateText(ws)
      for (let i = 0; i < 2; i++) {
        const drift = await ws.plan(['-refresh-only'])
        assert.equal(drift.code, 0, describeRun(drift))
        assert.match(drift.stdout, /No changes/)
      }
      const refreshed = await ws.apply(['-refresh-only'])
      assert.equal(refreshed.code, 0, describeRun(refreshed))
      assert.equal(await stateText(ws), created)
    } finally {
      await ws.cleanup()
    }
  })

  test('after change-package an unset disk_size reports the current size, and the next plan is empty', async () => {
    const vm = SERVERS.replace('e2e-refresh', 'e2e-refresh-pkg').replace('e2e-refresh', 'e2e-refresh-pkg')
    const ws = await workspace(vm)
    try {
      const id = String((await ws.stateOf('provider_lite_vm.vm')).id)
      assert.equal((await ws.stateOf('provider_lite_vm.vm')).disk_size, 20)
      await ws.write(vm.replace('product_id = 101', 'product_id = 102'))
      const changed = await ws.apply()
      assert.equal(changed.code, 0, describeRun(changed))
      assert.equal(String((await e2e.emulator.account(id))?.extra_details.disk_size), '40', 'the package raised the disk')
      assert.equal((await ws.stateOf('provider_lite_vm.vm')).disk_size, 40)
      const plan = await ws.plan()
      assert.equal(plan.code, 0, describeRun(plan))
    } finally {
      await ws.destroy()
      await ws.cleanup()
    }
  })

  test('a running VM an hour later and a generated Metal keypair right after create: every attribute stays as it was', async () => {
    const ws = await workspace(SERVERS)
    try {
      const created = attributes(await stateText(ws))
      await e2e.emulator.control('POST', '/clock', { advance_ms: 3_600_000 }) // a running VM's uptime grows
      const refreshed = await ws.apply(['-refresh-only'])
      assert.equal(refreshed.code, 0, describeRun(refreshed))
      assert.deepEqual(attributes(await stateText(ws)), created)
      const plan = await ws.plan()
      assert.equal(plan.code, 0, describeRun(plan))
    } finally {
      await ws.cleanup()
    }
  })
})

// Real terraform against the emulator launcher: the Lite and Lite Pro flows of "Complete the interface on
// Terraform". Each apply makes exactly the mutating API calls the API contract lists for each Lite operation (request log, non-GET)
// and the orders it must (order counters), and the plan after it is empty. One emulator for the file,
// reset between the flows.
import assert from 'node:assert/strict'
import { before, beforeEach, describe, test } from 'node:test'
import { block, describeRun, type HclValue, type LogEntry, PROVIDER_BLOCKS, ref, type Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
}

const e2e = useEmulatorWorkspace({ workspace: false })
/** Applies `config` and fails with terraform's output unless it succeeds. */
async function applyOk(ws: Workspace, config: string): Promise<void> {
  await ws.write(config)
  const applied = await ws.apply()
  assert.equal(applied.code, 0, describeRun(applied))
}

async function assertEmptyPlan(ws: Workspace, after: string): Promise<void> {
  const next = await ws.plan()
  assert.equal(next.code, 0, `the plan after ${after} is not empty: ${describeRun(next)}`)
}

const idOf = async (ws: Workspace, address: string) => String((await ws.stateOf(address)).id)
const bodyOf = (log: LogEntry[], method: string, path: string) => log.find((e) => e.method === method && e.path === path)?.body

describe('Lite: VM, snapshot, VM restored from the snapshot, then the restored VM removed', () => {
  beforeEach(() => e2e.emulator.reset())

  test('removing the restored VM sends only DELETE /v1/lites/{restored}; the snapshot stays Active; the next plan is empty', async () => {
    const ws = await e2e.workspace()
    const base = [
      PROVIDER_BLOCKS,
      block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-flow-restore' }),
      block('resource', 'provider_lite_vm', 'vm', { ...VM, vm_name: 'e2e-source-vm' }),
      block('resource', 'provider_lite_snapshot', 'snap', {
        lite_account_id: ref('provider_lite_vm.vm.id'),
        cycle: 'm',
        name: 'e2e-snapshot',
      }),
    ]
    const restored = block('resource', 'provider_lite_vm_from_snapshot', 'restored', {
      snapshot_id: ref('provider_lite_snapshot.snap.id'),
      product_id: 102,
      cycle: 'm',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      name: 'e2e-restored',
      ssh_and_console_user: 'restorer',
      console_password: 'R3storedPass',
    })

    const {
      value: created,
      mutations,
      orders,
    } = await e2e.emulator.effectsOf(async () => {
      await ws.write([...base, restored].join('\n'))
      return ws.apply()
    })
    assert.equal(created.code, 0, describeRun(created))
    const vmId = await idOf(ws, 'provider_lite_vm.vm')
    const snapshotId = await idOf(ws, 'provider_lite_snapshot.snap')
    const restoredId = await idOf(ws, 'provider_lite_vm_from_snapshot.restored')
    assert.deepEqual(mutations, [
      'POST /v1/lites/keypairs/',
      'POST /v1/lites',
      `POST /v1/lites/accounts/${vmId}/snapshot`,
      `POST /v1/lites/snapshots/accounts/${snapshotId}/create`,
    ])
    assert.deepEqual(
      orders.map((o) => [o.kind, o.account_id]),
      [
        ['lite.vm.create', vmId],
        ['lite.snapshot.create', snapshotId],
        ['lite.snapshot.restore_vm', restoredId],
      ],
    )
    const restoredAccount = await e2e.emulator.account(restoredId)
    assert.equal(restoredAccount?.status, 'Active')
    assert.equal(String(restoredAccount?.extra_details.snapshot_id), snapshotId)
    assert.equal(restoredAccount?.product_id, 102)
    await assertEmptyPlan(ws, 'the create')

    const removed = await e2e.emulator.effectsOf(async () => {
      await ws.write(base.join('\n'))
      return ws.apply()
    })
    assert.equal(removed.value.code, 0, describeRun(removed.value))
    assert.match(removed.value.stdout, /Resources: 0 added, 0 changed, 1 destroyed\./)
    assert.deepEqual(removed.mutations, [`DELETE /v1/lites/${restoredId}`])
    assert.deepEqual(removed.orders, [])

    assert.equal((await e2e.emulator.account(restoredId))?.status, 'Terminated')
    assert.equal((await e2e.emulator.account(snapshotId))?.status, 'Active', 'the snapshot is never touched')
    assert.equal((await e2e.emulator.account(vmId))?.status, 'Active')
    assert.equal((await ws.stateOf('provider_lite_snapshot.snap')).status, 'Active')
    await assertEmptyPlan(ws, 'removing the restored VM')
  })
})

describe('disk growth sends the increment', () => {
  beforeEach(() => e2e.emulator.reset())

  test('provider_lite_disk 60 -> 75 and provider_lite_pro_disk 30 (default) -> 45 each send additional_size 15', async () => {
    const ws = await e2e.workspace()
    const config = (liteSize: number, proSize: number | undefined) =>
      [
        PROVIDER_BLOCKS,
        block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-flow-disk' }),
        block('resource', 'provider_lite_vm', 'vm', { ...VM, vm_name: 'e2e-disk-vm' }),
        block('resource', 'provider_lite_disk', 'd', {
          product_id: 60,
          cycle: 'm',
          lite_account_id: ref('provider_lite_vm.vm.id'),
          size: liteSize,
        }),
        block('resource', 'provider_lite_pro_keypair', 'k', { name: 'e2e-flow-pro-disk' }),
        block('resource', 'provider_lite_pro_vm', 'vm', {
          ...VM,
          product_id: 201,
          keypair_id: ref('provider_lite_pro_keypair.k.keypair_id'),
          vm_name: 'e2e-pro-disk-vm',
        }),
        block('resource', 'provider_lite_pro_disk', 'd', {
          product_id: 61,
          cycle: 'm',
          lite_account_id: ref('provider_lite_pro_vm.vm.id'),
          size: proSize,
        }),
      ].join('\n')

    await applyOk(ws, config(60, undefined))
    const liteDisk = await idOf(ws, 'provider_lite_disk.d')
    const proDisk = await idOf(ws, 'provider_lite_pro_disk.d')
    assert.equal((await ws.stateOf('provider_lite_pro_disk.d')).size, 30, 'the Pro disk defaults to 30 GB')
    assert.equal((await e2e.emulator.account(proDisk))?.extra_details.size, 30)
    assert.equal((await e2e.emulator.account(liteDisk))?.extra_details.size, 60)

    await ws.write(config(75, 45))
    const { value: grown, log, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(grown.code, 0, describeRun(grown))
    assert.match(grown.stdout, /Resources: 0 added, 2 changed, 0 destroyed\./)
    // The two disks are independent, so terraform may update them in either order.
    assert.deepEqual([...mutations].sort(), [`PUT /v1/lite-pros/disks/accounts/${proDisk}`, `PUT /v1/lites/disks/accounts/${liteDisk}`])
    assert.deepEqual(bodyOf(log, 'PUT', `/v1/lites/disks/accounts/${liteDisk}`), { additional_size: 15, pay_invoice_with_cc: true })
    assert.deepEqual(bodyOf(log, 'PUT', `/v1/lite-pros/disks/accounts/${proDisk}`), { additional_size: 15, pay_invoice_with_cc: true })
    assert.deepEqual(orders.map((o) => `${o.kind} ${o.account_id}`).sort(), [
      `lite.disk.upgrade ${liteDisk}`,
      `lite_pro.disk.upgrade ${proDisk}`,
    ])

    const lite = await e2e.emulator.account(liteDisk)
    const pro = await e2e.emulator.account(proDisk)
    assert.equal(lite?.status, 'Active')
    assert.equal(lite?.extra_details.size, 75)
    assert.equal(lite?.last_invoice?.status, 'Paid')
    assert.equal(pro?.status, 'Active')
    assert.equal(pro?.extra_details.size, 45)
    await assertEmptyPlan(ws, 'the disk growth')

    // The increment is taken from the size the service reports, not from the configuration's history.
    await ws.write(config(100, 45))
    const again = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(again.value.code, 0, describeRun(again.value))
    assert.deepEqual(again.mutations, [`PUT /v1/lites/disks/accounts/${liteDisk}`])
    assert.deepEqual(bodyOf(again.log, 'PUT', `/v1/lites/disks/accounts/${liteDisk}`), { additional_size: 25, pay_invoice_with_cc: true })
    assert.deepEqual(
      again.orders.map((o) => o.kind),
      ['lite.disk.upgrade'],
    )
    assert.equal((await e2e.emulator.account(liteDisk))?.extra_details.size, 100)
    await assertEmptyPlan(ws, 'the second disk growth')
  })
})

describe('Lite VM migrated to Lite Pro, then renamed and powered', () => {
  let ws: Workspace
  let id = ''
  let vm: Record<string, HclValue> = { ...VM, vm_name: 'e2e-migrating' }
  const config = () =>
    [
      PROVIDER_BLOCKS,
      block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-flow-migrate' }),
      block('resource', 'provider_lite_vm', 'vm', vm),
    ].join('\n')
  before(async () => {
    await e2e.emulator.reset()
    ws = await e2e.workspace()
    await applyOk(ws, config())
    id = await idOf(ws, 'provider_lite_vm.vm')
  })

  /** The requests about the VM (GETs included) made under `/v1/lites` (its keypair stays in the Lite pool). */
  const lites = (log: LogEntry[]) =>
    log.filter((e) => e.path.startsWith(`/v1/lites/`) && e.path.includes(`/${id}`)).map((e) => `${e.method} ${e.path}`)

  /** Applies a change of the VM: exactly `calls` are made, only under /lite-pros once migrated, and the next plan is empty. */
  async function step(change: Record<string, HclValue>, calls: string[], orderKinds: string[]): Promise<LogEntry[]> {
    vm = { ...vm, ...change }
    await ws.write(config())
    const { value: applied, log, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Resources: 0 added, 1 changed, 0 destroyed\./)
    assert.deepEqual(
      mutations,
      calls.map((c) => c.replace('{id}', id)),
    )
    assert.deepEqual(
      orders.map((o) => [o.kind, o.account_id]),
      orderKinds.map((kind) => [kind, id]),
    )
    const entry = (await e2e.emulator.accounts()).find((e) => String(e.account.account_id) === id)
    assert.equal(entry?.kind, 'lite_pro.vm')
    assert.equal(entry?.account.status, 'Active')
    await assertEmptyPlan(ws, JSON.stringify(change))
    return log
  }

  test('migrate_to_pro = "201" sends one migrate-to-pro order; the VM stays managed as the same id', async () => {
    const log = await step({ migrate_to_pro: '201' }, ['POST /v1/lites/accounts/{id}/migrate-to-pro'], ['lite.vm.migrate'])
    assert.deepEqual(bodyOf(log, 'POST', `/v1/lites/accounts/${id}/migrate-to-pro`), {
      lite_pro_product_id: 201,
      pay_invoice_with_cc: true,
    })
    // The wait for Active after the order polls the VM under its new group.
    assert.ok(log.some((e) => e.method === 'GET' && e.path === `/v1/lite-pros/accounts/${id}` && e.status === 200))
    const state = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(String(state.id), id)
    assert.equal(state.status, 'Active')
    assert.equal(state.product_id, 101, 'the Pro product is never copied into the Lite input')
    assert.equal(state.migrate_to_pro, '201')
    assert.equal((await e2e.emulator.account(id))?.product_id, 201)
  })

  test('vm_name and power_state "stop" after the migration go to /v1/lite-pros paths only', async () => {
    const log = await step(
      { vm_name: 'e2e-migrated', power_state: 'stop' },
      ['PUT /v1/lite-pros/accounts/{id}/change-vm-name', 'PUT /v1/lite-pros/accounts/{id}/vm-state/stop'],
      [],
    )
    assert.deepEqual(lites(log), [], 'no request for the VM goes to the /lites group once it has moved')
    assert.equal((await e2e.emulator.account(id))?.extra_details.name, 'e2e-migrated')
    const details = await e2e.emulator.api<{ status: string }>('GET', `/lite-pros/accounts/${id}/vm-details`)
    assert.equal(details.status, 'stopped')
  })

  test('power_state "start" then "suspend" and "resume" each send their one /lite-pros action', async () => {
    for (const action of ['start', 'suspend', 'resume']) {
      const log = await step({ power_state: action }, [`PUT /v1/lite-pros/accounts/{id}/vm-state/${action}`], [])
      assert.deepEqual(lites(log), [])
    }
    const details = await e2e.emulator.api<{ status: string }>('GET', `/lite-pros/accounts/${id}/vm-details`)
    assert.equal(details.status, 'running')
  })

  test('destroy deletes the migrated VM under /v1/lite-pros', async () => {
    const keypairId = await idOf(ws, 'provider_lite_keypair.k')
    const { value: destroyed, mutations, orders } = await e2e.emulator.effectsOf(() => ws.destroy())
    assert.equal(destroyed.code, 0, describeRun(destroyed))
    assert.deepEqual(mutations, [`DELETE /v1/lite-pros/${id}`, `DELETE /v1/lites/keypairs/${keypairId}`])
    assert.deepEqual(orders, [])
    assert.equal((await e2e.emulator.account(id))?.status, 'Terminated')
  })
})

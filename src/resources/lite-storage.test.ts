// Lite snapshots, the VMs restored from them and extra disks, in process against the emulator: ordering,
// restoring, the payment flag only recorded, and disks that only grow.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { liteVmConfigOn, liteVmOn } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import {
  applyUpdate,
  checkPlanOnline,
  hasErrors,
  importResource,
  planResource,
  pricePlan,
  readResource,
  UNKNOWN,
  type ValueMap,
} from '../core/index.js'
import { liteDisk } from './lite-disk.js'
import { type LiteFamily, lite, litePro } from './lite-family.js'
import { liteSnapshot } from './lite-snapshot.js'
import { liteVm } from './lite-vm.js'
import { liteVmFromSnapshot } from './lite-vm-from-snapshot.js'

async function withVm(family: LiteFamily) {
  const h = new Harness()
  const { key, vm } = await liteVmOn(h, family)
  await h.requests()
  return { h, key, vm: Number(vm.id) }
}

/** A restored VM's configuration: `snapshot` restored as `product_id`, with `key`. */
function restoreOf(snapshot: ValueMap, key: ValueMap, productId: number): ValueMap {
  return {
    snapshot_id: Number(snapshot.id),
    product_id: productId,
    cycle: 'm',
    keypair_id: key.keypair_id ?? null,
    name: 'restored-vm-01',
    ssh_and_console_user: 'restorer',
    console_password: 'An0therPass',
  }
}

describe('snapshots and restored VMs', () => {
  test('snapshot, restore it into a new VM, destroy the VM: the snapshot remains', async () => {
    const { h, key, vm } = await withVm(lite)
    const snapshots = liteSnapshot(lite)
    const restored = liteVmFromSnapshot(lite)
    const snapshot = await h.create(snapshots, { lite_account_id: vm, cycle: 'm', name: 'before-upgrade' })
    assert.equal(snapshot.status, 'Active')
    const restoreConfig = restoreOf(snapshot, key, 102)
    const copy = await h.create(restored, restoreConfig)
    assert.equal(copy.status, 'Active')
    assert.deepEqual(await h.mutations(), [
      `POST /v1/lites/accounts/${vm}/snapshot`,
      `POST /v1/lites/snapshots/accounts/${String(snapshot.id)}/create`,
    ])
    const imported = await h.import(restored, String(copy.id))
    const afterImport = h.plan(restored, imported, restoreConfig)
    assert.deepEqual([afterImport.changed, afterImport.replace], [['console_password'], []], 'an import only records the password')
    await h.delete(restored, copy)
    assert.deepEqual(await h.mutations(), [`DELETE /v1/lites/${String(copy.id)}`])
    assert.equal((await h.read(snapshots, snapshot))?.status, 'Active', 'the snapshot is untouched')
    const importedSnapshot = await h.import(snapshots, String(snapshot.id))
    assert.deepEqual(h.plan(snapshots, importedSnapshot, { lite_account_id: vm, cycle: 'm', name: 'before-upgrade' }).changed, [])
  })

  test('a restored VM migrated to Lite Pro outside stays managed: kept in state with its Lite product, no new order planned, and deleted under /lite-pros', async () => {
    const { h, key, vm } = await withVm(lite)
    const restored = liteVmFromSnapshot(lite)
    const snapshot = await h.create(liteSnapshot(lite), { lite_account_id: vm, cycle: 'm' })
    const restoreConfig = restoreOf(snapshot, key, 101)
    const copy = await h.create(restored, restoreConfig)
    // The portal (or the API) moves the restored VM to Lite Pro: it answers only under /lite-pros from now on.
    await h.client.lites.migrateToPro(String(copy.id), { lite_pro_product_id: 202, pay_invoice_with_cc: true })
    await h.requests()
    const read = await h.read(restored, copy)
    assert.ok(read, 'the VM still exists (a Lite Pro VM now): it is not dropped from state, which would order another restore')
    assert.equal(read.product_id, 101, 'the Pro product is never copied into the Lite input')
    const next = h.plan(restored, read, restoreConfig)
    assert.deepEqual([next.changed, next.replace], [[], []], 'no replacement, no second order')
    await assert.rejects(h.import(restored, String(copy.id)), /is a Lite Pro VM .*import it as lite_pro_vm/)
    assert.deepEqual(await h.mutations(), [])
    await h.delete(restored, read)
    assert.deepEqual(await h.mutations(), [`DELETE /v1/lites/${String(copy.id)}`, `DELETE /v1/lite-pros/${String(copy.id)}`])
    const gone = (await h.control('GET', '/accounts?kind=lite_pro.vm')) as { account: { account_id: number; status: string } }[]
    assert.equal(gone.find((a) => String(a.account.account_id) === String(copy.id))?.account.status, 'Terminated')
    assert.equal((await h.orders()).by_kind['lite.snapshot.restore_vm'], 1)
  })

  test('a product with no IP address to give refuses a new VM at plan, never a restore (the service refuses only the new VM order)', async () => {
    const { h, key, vm } = await withVm(lite)
    const snapshot = await h.create(liteSnapshot(lite), { lite_account_id: vm, cycle: 'm' })
    await h.control('PATCH', '/config', { ip_unavailable_product_ids: [102] })
    const common: ValueMap = {
      product_id: 102,
      cycle: 'm',
      keypair_id: key.keypair_id ?? null,
      ssh_and_console_user: 'restorer',
      console_password: 'An0therPass',
    }
    const restored = liteVmFromSnapshot(lite)
    const restoreConfig: ValueMap = { ...common, snapshot_id: Number(snapshot.id), name: 'restored-vm-01' }
    assert.deepEqual(await checkPlanOnline(restored, null, h.plan(restored, null, restoreConfig), h.session), [])
    assert.equal((await h.create(restored, restoreConfig)).status, 'Active', 'the service restores it')
    const fresh = liteVm(lite)
    const refused = await checkPlanOnline(fresh, null, h.plan(fresh, null, { ...common, select_os: 'Ubuntu-22.04' }), h.session)
    assert.match(refused.map((d) => d.detail).join('\n'), /product 102, which has no IP address to give now/)
  })

  test('changing the payment flag of a snapshot records it and orders nothing', async () => {
    const { h, vm } = await withVm(lite)
    const snapshots = liteSnapshot(lite)
    const snapshot = await h.create(snapshots, { lite_account_id: vm, cycle: 'm' })
    await h.requests()
    const outcome = await h.update(snapshots, snapshot, { lite_account_id: vm, cycle: 'm', pay_with_credit_card: false })
    assert.equal(outcome.state?.pay_with_credit_card, false)
    assert.deepEqual(await h.requests(), [])
  })
})

describe('extra disks', () => {
  for (const family of [lite, litePro]) {
    test(`${family.prefix}_disk: default size is the family minimum and growth sends the increment`, async () => {
      const { h, vm } = await withVm(family)
      const disks = liteDisk(family)
      const config: ValueMap = { product_id: family === lite ? 60 : 61, cycle: 'm', lite_account_id: vm }
      const disk = await h.create(disks, config)
      assert.equal(disk.size, family.diskMinimum)
      await h.requests()
      const grown = await h.update(disks, disk, { ...config, size: family.diskMinimum + 15 })
      assert.deepEqual(grown.diagnostics, [])
      const calls = (await h.requests()).filter((r) => r.method !== 'GET')
      const group = family === lite ? 'lites' : 'lite-pros'
      assert.deepEqual(
        calls.map((c) => `${c.method} ${c.path}`),
        [`PUT /v1/${group}/disks/accounts/${String(disk.id)}`],
      )
      assert.deepEqual(calls[0]?.body, { additional_size: 15, pay_invoice_with_cc: true })
      assert.equal(grown.state?.size, family.diskMinimum + 15)
      const shrink = h.plan(disks, grown.state, { ...config, size: family.diskMinimum })
      assert.deepEqual(
        shrink.diagnostics.map((d) => d.path),
        [['size']],
      )
      const tooSmall = h.plan(disks, null, { ...config, size: family.diskMinimum - 1 })
      assert.deepEqual(
        tooSmall.diagnostics.map((d) => d.path),
        [['size']],
      )
      const imported = await h.import(disks, String(disk.id))
      assert.deepEqual(h.plan(disks, imported, { ...config, size: family.diskMinimum + 15 }).changed, [])
    })
  }

  test('a disk grown outside (the portal) is no drift: the plan changes nothing, even with size unset; raised past it, the plan prices and the apply orders only what is missing', async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm }
    const disk = await h.create(disks, config)
    await h.control('PATCH', `/accounts/${String(disk.id)}`, { extra_details: { size: 90 } })
    const refreshed = (await h.read(disks, disk)) as ValueMap
    assert.equal(refreshed.size, 60, 'the state keeps the floor')
    const same = h.plan(disks, refreshed, config)
    assert.deepEqual([same.diagnostics, same.changed], [[], []], 'no shrink refused, nothing to do')
    const raised = h.plan(disks, refreshed, { ...config, size: 100 })
    assert.deepEqual(raised.diagnostics, [])
    const price = await pricePlan(disks, refreshed, raised, h.session)
    assert.deepEqual(
      price.orders.map((o) => o.what),
      ['upgrade from 90 to 100 GB'],
    )
    await h.requests()
    const grown = await h.update(disks, refreshed, { ...config, size: 100 })
    assert.deepEqual(grown.diagnostics, [])
    assert.deepEqual(
      (await h.requests()).filter((r) => r.method !== 'GET').map((r) => r.body),
      [{ additional_size: 10, pay_invoice_with_cc: true }],
    )
    // Raised to less than the disk has: nothing to order, nothing priced.
    const below = await pricePlan(disks, refreshed, h.plan(disks, refreshed, { ...config, size: 80 }), h.session)
    assert.deepEqual(below, { orders: [], unpriced: [] })
  })

  test("a disk grown outside, then imported (moved between configurations): the configuration's smaller size is recorded as its floor, with a warning, and nothing is sent", async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm }
    const disk = await h.create(disks, config)
    await h.control('PATCH', `/accounts/${String(disk.id)}`, { extra_details: { size: 90 } })
    const imported = await importResource(disks, String(disk.id), h.session)
    assert.equal(imported.state?.size, 90)
    const plan = h.plan(disks, imported.state, config, imported.private)
    assert.deepEqual(
      plan.diagnostics.map((d) => [d.severity, d.summary]),
      [['warning', 'size 60 is recorded as the floor of an object of 90']],
    )
    await h.requests()
    const applied = await applyUpdate(disks, imported.state as ValueMap, plan.planned, plan.private, h.session)
    assert.deepEqual(applied.diagnostics, [])
    assert.deepEqual(await h.mutations(), [], 'nothing shrinks, nothing is ordered')
    assert.equal(applied.state?.size, 60)
    // From then on it is a floor like any other: a refresh keeps it, and a plan of the same configuration changes nothing.
    const refreshed = (await h.read(disks, applied.state as ValueMap)) as ValueMap
    assert.deepEqual(h.plan(disks, refreshed, config, applied.private).changed, [])
    // Without the import's mark, a smaller value is a shrink, refused.
    assert.equal(h.plan(disks, imported.state, config).diagnostics[0]?.summary, 'Cannot shrink size')
  })

  test('an upgrade that waited for payment, paid, then the disk grown further outside: the refresh ends the wait (no stale "waits for payment")', async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm }
    const disk = await h.create(disks, config)
    const unpaid = await h.update(disks, disk, { ...config, size: 100, pay_with_credit_card: false })
    assert.ok(unpaid.private.waiting !== undefined, 'the upgrade waits for payment')
    await h.control('POST', `/accounts/${String(disk.id)}/pay`)
    h.emulator.advance(600_000)
    await h.control('PATCH', `/accounts/${String(disk.id)}`, { extra_details: { size: 120 } })
    const refreshed = await readResource(disks, unpaid.state as ValueMap, String(disk.id), unpaid.private, h.session)
    assert.equal(refreshed.private.waiting, undefined)
    assert.equal(refreshed.state?.size, 100, 'the floor the configuration set')
  })

  test('a disk on a VM that migrated to Lite Pro is refused at plan naming what the VM is now, not "there is none"', async () => {
    const h = new Harness()
    const { vm: state, config } = await liteVmOn(h, lite)
    const vm = Number(state.id)
    liteVm(litePro) // the Lite Pro VM's kind, as the provider's registry has it
    await h.update(liteVm(lite), state, { ...config, migrate_to_pro: '201' })
    const disks = liteDisk(lite)
    const issues = await checkPlanOnline(disks, null, h.plan(disks, null, { product_id: 60, cycle: 'm', lite_account_id: vm }), h.session)
    assert.match(
      issues.map((d) => d.detail).join('\n'),
      new RegExp(`lite_account_id must be a Lite VM of this account; account ${vm} is a Lite Pro VM, managed as lite_pro_vm`),
    )
  })

  test('a VM that is Suspended: a paid change is refused at plan, saying so, not by a 409 at apply; a rename is not', async () => {
    const h = new Harness()
    const { config, vm: state } = await liteVmOn(h, lite)
    const vms = liteVm(lite)
    await h.control('POST', `/accounts/${String(state.id)}/status`, { status: 'Suspended' })
    const suspended = (await h.read(vms, state)) as ValueMap
    assert.equal(suspended.status, 'Suspended')
    const grow = planResource(vms, suspended, { ...config, disk_size: 60 })
    const refused = (await checkPlanOnline(vms, suspended, grow, h.session)).filter((d) => d.severity === 'error')
    assert.deepEqual(
      refused.map((d) => d.path),
      [['disk_size']],
    )
    assert.match(
      refused[0]?.detail ?? '',
      /^disk_size cannot be changed now: Lite VM \d+ is Suspended, .*have its overdue invoices paid in the portal/,
    )
    const rename = planResource(vms, suspended, { ...config, vm_name: 'renamed-vm-9' })
    assert.deepEqual(
      (await checkPlanOnline(vms, suspended, rename, h.session)).filter((d) => d.severity === 'error'),
      [],
    )
  })

  test('growing a disk whose create invoice is still unpaid (Pending) is refused at plan, naming size and the invoice, not by a 409 at apply; once paid, it is not', async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm, pay_with_credit_card: false }
    const outcome = await h.tryCreate(disks, config)
    const disk = outcome.state as ValueMap
    assert.equal(disk.status, 'Pending')
    const plan = planResource(disks, disk, { ...config, size: 80 }, outcome.private)
    const online = await checkPlanOnline(disks, disk, plan, h.session)
    const issues = [...plan.diagnostics, ...online]
    assert.ok(hasErrors(issues), `no error at plan: ${JSON.stringify(issues)}`)
    const refused = online.find((d) => d.severity === 'error')
    assert.deepEqual(refused?.path, ['size'])
    assert.match(
      `${refused?.summary} ${refused?.detail}`,
      /lite_disk \d+ cannot be changed yet size cannot be changed now: .*Pending until invoice \d+ is paid.*pay the invoice in the portal, then plan again\. Nothing was ordered\./,
    )
    const orders = ((await h.control('GET', '/orders')) as { total: number }).total
    // Paid in the portal since: Pulumi plans from the saved outputs (still Pending), and the change goes ahead.
    await h.control('POST', `/accounts/${String(disk.id)}/pay`)
    h.emulator.advance(60_000)
    assert.deepEqual(await checkPlanOnline(disks, disk, plan, h.session), [])
    assert.equal(((await h.control('GET', '/orders')) as { total: number }).total, orders, 'nothing was ordered at plan')
  })

  test('each upgrade of a disk is told the change it makes (from the size in state to the planned one) while it orders, so a second +10 GB is not the first one repeated', async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm, size: 60 }
    let state = await h.create(disks, config)
    const told: (string | undefined)[] = []
    const ordered: (string | undefined)[] = []
    let current: string | undefined
    const session = {
      ...h.session,
      changingFrom: (from: string | undefined) => {
        current = from
        told.push(from)
      },
    }
    h.onWait = () => void ordered.push(current)
    for (const size of [70, 80]) {
      const plan = planResource(disks, state, { ...config, size }, {})
      const outcome = await applyUpdate(disks, state, plan.planned, plan.private, session)
      state = outcome.state as ValueMap
      assert.equal(state.size, size)
    }
    assert.deepEqual(told, ['[["size",60,70]]', undefined, '[["size",70,80]]', undefined])
    // The orders' waits ran inside each step, with its change.
    assert.deepEqual([...new Set(ordered)], ['[["size",60,70]]', '[["size",70,80]]'])
    const bodies = (await h.requests()).filter((r) => r.method === 'PUT').map((r) => r.body)
    assert.deepEqual(bodies, [
      { additional_size: 10, pay_invoice_with_cc: true },
      { additional_size: 10, pay_invoice_with_cc: true },
    ])
  })

  test('a create whose wait stopped: a refresh that finds the disk Active as asked ends the resume mark, and the plan shows nothing', async () => {
    const { h, vm } = await withVm(lite)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm, size: 70 }
    await h.control('POST', '/faults', { method: 'GET', path: '/lites/disks/accounts/*', mode: 'error', status: 503, count: -1 })
    const stopped = await h.tryCreate(disks, config)
    assert.equal(stopped.incomplete, true)
    assert.equal(stopped.private.resume, true)
    const state = stopped.state as ValueMap
    await h.control('DELETE', '/faults')
    // Still Pending: the mark stays, and the plan waits for it again.
    await h.control('POST', `/accounts/${String(state.id)}/status`, { status: 'Pending' })
    const pending = await readResource(disks, state, String(state.id), stopped.private, h.session)
    assert.equal(pending.private.resume, true)
    assert.deepEqual(h.plan(disks, pending.state as ValueMap, config, pending.private).changed, [])
    await h.control('POST', `/accounts/${String(state.id)}/status`, { status: 'Active' })
    const active = await readResource(disks, state, String(state.id), pending.private, h.session)
    assert.equal(active.state?.status, 'Active')
    assert.deepEqual(active.private, {})
    const plan = h.plan(disks, active.state as ValueMap, config, active.private)
    assert.deepEqual(plan.changed, [])
    assert.equal(plan.planned.status, 'Active', 'no status "known after apply"')
    assert.deepEqual(plan.diagnostics, [])
  })
})

describe('a Pending Lite VM at plan: what the service takes while Pending', () => {
  test('renaming a Lite VM whose create invoice is unpaid (Pending) is not refused at plan: the service takes a rename while Pending (a cosmetic update, by the status rules of the service)', async () => {
    const h = new Harness()
    const vms = liteVm(lite)
    const config: ValueMap = { ...(await liteVmConfigOn(h, lite)).config, vm_name: 'first-name', pay_with_credit_card: false }
    const outcome = await h.tryCreate(vms, config)
    const vm = outcome.state as ValueMap
    assert.equal(vm.status, 'Pending')
    const plan = planResource(vms, vm, { ...config, vm_name: 'second-name' }, outcome.private)
    assert.deepEqual(plan.changed, ['vm_name'])
    const online = await checkPlanOnline(vms, vm, plan, h.session)
    assert.deepEqual(
      online.filter((d) => d.severity === 'error').map((d) => `${d.summary}: ${d.detail}`),
      [],
      'a rename the service accepts while Pending is refused at plan',
    )
    // The service does take it: the same update applied without the plan check succeeds.
    const renamed = await h.update(vms, vm, { ...config, vm_name: 'second-name' }, outcome.private)
    assert.deepEqual(
      renamed.diagnostics.filter((d) => d.severity === 'error'),
      [],
    )
  })
})

test('a disk replaced because its VM is replaced (lite_account_id known only at apply) gets no warning that its new object is unchecked: the new VM is made for it', async () => {
  const { h, vm } = await withVm(lite)
  const disks = liteDisk(lite)
  const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: vm }
  const disk = await h.create(disks, config)
  const plan = planResource(disks, disk, { ...config, lite_account_id: UNKNOWN })
  assert.ok(plan.replace.includes('lite_account_id'))
  assert.deepEqual(await checkPlanOnline(disks, disk, plan, h.session), [])
  // A catalog value known only at apply is another matter: product_id from another resource is said.
  const unknownProduct = planResource(disks, disk, { ...config, product_id: UNKNOWN })
  const said = await checkPlanOnline(disks, disk, unknownProduct, h.session)
  assert.deepEqual(
    said.map((d) => [d.severity, d.path]),
    [['warning', ['product_id']]],
  )
})

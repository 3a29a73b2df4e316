// An order placed with pay_with_credit_card = false leaves the account Pending until its invoice is
// paid, and the service then refuses every other change (409). One apply that changes two paid
// things of one object (an elastic storage's size and product) sends the first, and does not send the
// second into the Pending account: it stops with an error naming what is left, keeps what was ordered
// in state, and the apply after the invoice is paid changes the rest, ordering nothing twice.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { baremetalServers, liteVmOn } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import { applyUpdate, checkPlanOnline, hasErrors, planResource, type ValueMap } from '../core/index.js'
import { baremetal } from './baremetal.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'
import { lite } from './lite-family.js'
import { liteVm } from './lite-vm.js'

/** An elastic storage ordered with pay_with_credit_card = false, its invoice paid: Active. Its size and product then changed at once. */
async function paidByInvoice() {
  const h = new Harness()
  const { server } = await baremetalServers(h)
  const config: ValueMap = {
    product_id: 501,
    cycle: 'm',
    storage_name: 'data-a',
    metal_account_id: server ?? 0,
    size: 100,
    pay_with_credit_card: false,
  }
  const volume = (await h.tryCreate(baremetalElasticStorage, config)).state as ValueMap
  await h.control('POST', `/accounts/${String(volume.id)}/pay`)
  h.emulator.advance(60_000)
  const fresh = (await h.read(baremetalElasticStorage, volume)) as ValueMap
  assert.equal(fresh.status, 'Active')
  return { h, volume, fresh, edited: { ...config, size: 200, product_id: 502 } }
}

test('elastic storage paid by invoice: size and product changed in one apply; the second is not sent while the first waits for payment, and follows once it is paid', async () => {
  const { h, volume, fresh, edited } = await paidByInvoice()
  await h.requests()
  const first = await h.update(baremetalElasticStorage, fresh, edited)
  const sent = (await h.requests()).filter((r) => r.method !== 'GET')
  assert.deepEqual(
    sent.map((r) => r.status),
    [200],
    `one change is ordered, nothing is sent into the Pending account: ${JSON.stringify(sent.map((r) => `${r.method} ${r.path} ${r.status}`))}`,
  )
  const errors = first.diagnostics.filter((d) => d.severity === 'error')
  assert.equal(errors.length, 1, JSON.stringify(first.diagnostics))
  assert.match(errors[0]?.summary ?? '', /^(product_id|size) of baremetal_elastic_storage \d+ is not changed yet$/)
  assert.match(errors[0]?.detail ?? '', /waits for payment \(invoice \d+ .*is unpaid\).*Pay the invoice in the portal, then apply again/)
  const reached = first.state as ValueMap
  const done = reached.size === 200 ? 'size' : 'product_id'
  assert.equal(reached[done], edited[done], 'what was ordered is recorded')
  const left = done === 'size' ? 'product_id' : 'size'
  assert.equal(reached[left], fresh[left], 'what was not sent is not')
  // Paid: the next apply changes the rest, with one more order.
  await h.control('POST', `/accounts/${String(volume.id)}/pay`)
  h.emulator.advance(60_000)
  const paid = (await h.read(baremetalElasticStorage, reached)) as ValueMap
  await h.requests()
  const second = await h.update(baremetalElasticStorage, paid, edited, first.private)
  assert.deepEqual(
    second.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  assert.equal((second.state as ValueMap)[left], edited[left])
  assert.equal((await h.requests()).filter((r) => r.method !== 'GET' && r.status === 200).length, 1)
})

test('what was ordered is recorded with the account as the service shows it (Pending): the next plan without a refresh (pulumi up, -refresh=false) refuses the rest while the invoice is unpaid', async () => {
  const { h, fresh, edited } = await paidByInvoice()
  const first = await h.update(baremetalElasticStorage, fresh, edited)
  const reached = first.state as ValueMap
  assert.equal(reached.status, 'Pending')
  const plan = planResource(baremetalElasticStorage, reached, edited, first.private)
  const online = await checkPlanOnline(baremetalElasticStorage, reached, plan, h.session)
  assert.ok(hasErrors(online), `the plan passes while the invoice is unpaid: ${JSON.stringify(online)}`)
  assert.match(online.map((d) => d.detail).join(' '), /Pending until invoice \d+ is paid/)
})

test('paid, then applied again at once while the service still makes the change (Pending, its invoice paid): the next order waits for Active instead of a 409', async () => {
  const h = new Harness()
  const vm = liteVm(lite)
  const { config, vm: created } = await liteVmOn(h, lite)
  const edited: ValueMap = { ...config, pay_with_credit_card: false, product_id: 102, disk_size: 60 }
  const first = await h.update(vm, created, edited)
  assert.match(first.diagnostics.map((d) => d.summary).join('\n'), /disk_size of lite_vm \d+ is not changed yet/)
  await h.control('POST', `/accounts/${String(created.id)}/pay`)
  await h.requests()
  // No time passes before the next apply: the account is Pending while the service makes the change.
  assert.equal((await h.read(vm, first.state as ValueMap))?.status, 'Pending')
  const second = await h.update(vm, first.state as ValueMap, edited, first.private)
  assert.deepEqual(
    second.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  const sent = (await h.requests()).filter((r) => r.method !== 'GET')
  assert.deepEqual(
    sent.map((r) => `${r.method} ${r.path} ${r.status}`),
    [`PUT /v1/lites/accounts/${String(created.id)}/storage 200`],
    'the storage order is sent once the change is made, never into the Pending account',
  )
  assert.equal(second.state?.disk_size, 60)
})

test('a VM created paid by invoice, then paid, then changed at once while the service still makes it: the change waits for Active instead of a 409', async () => {
  const h = new Harness()
  const vm = liteVm(lite)
  const { config } = await liteVmOn(h, lite)
  // A second VM, ordered unpaid with nothing asked beyond the order (no disk size, no power state): no mark is left.
  const unpaid = { ...config, vm_name: 'second-vm-01', pay_with_credit_card: false }
  const created = await h.tryCreate(vm, unpaid)
  const state = created.state as ValueMap
  await h.control('POST', `/accounts/${String(state.id)}/pay`)
  await h.requests()
  const changed = await h.update(vm, state, { ...unpaid, pay_with_credit_card: true, product_id: 102 }, created.private)
  assert.deepEqual(
    changed.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  assert.deepEqual(
    (await h.requests()).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path} ${r.status}`),
    [`POST /v1/lites/accounts/${String(state.id)}/change-package 200`],
  )
})

test('a create resumed after payment, with only the package changed in the same apply: no storage order the new package includes', async () => {
  const h = new Harness()
  const vm = liteVm(lite)
  const { config } = await liteVmOn(h, lite)
  const asked = { ...config, vm_name: 'second-vm-01', pay_with_credit_card: false, disk_size: 60 }
  const created = await h.tryCreate(vm, asked)
  assert.equal(created.private.resume, true, 'the disk size waits for payment')
  const state = created.state as ValueMap
  await h.control('POST', `/accounts/${String(state.id)}/pay`)
  // Product 103 comes with 80 GB: the 60 GB asked at create needs no storage order.
  const changed = await h.update(vm, state, { ...asked, pay_with_credit_card: true, product_id: 103 }, created.private)
  assert.deepEqual(
    changed.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  const kinds = (await h.orders()).by_kind
  assert.equal(kinds['lite.vm.storage'], undefined, `no storage paid for: ${JSON.stringify(kinds)}`)
  assert.equal(kinds['lite.vm.change_package'], 1)
  assert.equal(changed.state?.disk_size, 60, 'the floor asked is kept: the VM has 80 GB')
})

test("an update after a paid-by-invoice change never runs the create's leftovers again: a VM stopped outside is not started by a rename or a paid change", async () => {
  const h = new Harness()
  const vm = liteVm(lite)
  const { config, vm: running } = await liteVmOn(h, lite)
  const started = (await h.update(vm, running, { ...config, power_state: 'start' })).state as ValueMap
  const unpaid = { ...config, power_state: 'start', pay_with_credit_card: false, disk_size: 40 }
  const grown = await h.update(vm, started, unpaid)
  await h.control('POST', `/accounts/${String(running.id)}/pay`)
  h.emulator.advance(60_000)
  // Stopped outside (the portal): the refresh warns, and no plan starts it again.
  await lite.api(h.client).setVmState(String(running.id), 'stop')
  await h.requests()
  const renamed = await h.update(vm, grown.state as ValueMap, { ...unpaid, vm_name: 'renamed-vm-01', disk_size: 50 }, grown.private)
  assert.deepEqual(
    renamed.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  const sent = (await h.requests()).filter((r) => r.method !== 'GET').map((r) => r.path)
  assert.ok(!sent.some((path) => path.includes('vm-state')), `no power action: ${JSON.stringify(sent)}`)
})

test('a resumed create followed by a package change tells the step its change from the state (101 to 102), as a stopped run of that step told it, whatever the wait read meanwhile', async () => {
  const h = new Harness()
  const vm = liteVm(lite)
  const { config } = await liteVmOn(h, lite)
  const asked = { ...config, vm_name: 'second-vm-01', pay_with_credit_card: false, disk_size: 60 }
  const created = await h.tryCreate(vm, asked)
  const state = created.state as ValueMap
  const id = String(state.id)
  await h.control('POST', `/accounts/${id}/pay`)
  h.emulator.advance(60_000)
  // A run killed after its package change reached the service: the VM shows product 102 now.
  await lite.api(h.client).changePackage(id, { new_product_id: 102, pay_invoice_with_cc: true })
  const told: string[] = []
  const session = { ...h.session, changingFrom: (change: string | undefined) => void (change && told.push(change)) }
  const target = { ...asked, pay_with_credit_card: true, product_id: 102 }
  const plan = planResource(vm, state, target, created.private)
  await applyUpdate(vm, state, plan.planned, plan.private, session)
  assert.deepEqual(told[0], JSON.stringify([['product_id', 101, 102]]))
})

test('a Metal server resumed with a rebuild in the same apply only waits first: its power state is set once, last', async () => {
  const h = new Harness()
  const { keypair } = await baremetalServers(h)
  const unpaid: ValueMap = {
    product_id: 301,
    cycle: 'm',
    keypair_id: keypair ?? 0,
    label: 'host-c',
    power_state: 'off',
    pay_with_credit_card: false,
  }
  const created = await h.tryCreate(baremetal, unpaid)
  const state = created.state as ValueMap
  await h.control('POST', `/accounts/${String(state.id)}/pay`)
  await h.requests()
  const rebuilt = await h.update(baremetal, state, { ...unpaid, pay_with_credit_card: true, rebuild_os: 'debian-12' }, created.private)
  assert.deepEqual(
    rebuilt.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  const sent = (await h.requests()).filter((r) => r.method !== 'GET').map((r) => r.path.replace(/\/\d+/g, '/N'))
  assert.deepEqual(sent, ['/v1/baremetals/N/rebuild', '/v1/baremetals/accounts/N/state/off'])
})

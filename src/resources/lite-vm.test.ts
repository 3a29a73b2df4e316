// The Lite VM in process against the emulator: the create and what it applies after Active, the in-place
// steps in the contract order with their resumed waits, and reads, import, validation and plan checks;
// then the Lite keypair.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Harness } from '../../test/support/harness.js'
import {
  applyUpdate,
  checkPlanOnline,
  importResource,
  listResources,
  pricePlan,
  readResource,
  runMethod,
  UNKNOWN,
  type ValueMap,
  validateConfig,
} from '../core/index.js'
import { lite, litePro } from './lite-family.js'
import { liteKeypair } from './lite-keypair.js'
import { liteVm } from './lite-vm.js'

const vm = liteVm(lite)
const keypair = liteKeypair(lite)

async function setup(options: ConstructorParameters<typeof Harness>[0] = {}) {
  const h = new Harness(options)
  const key = await h.create(keypair, { name: 'deploy-key' })
  const config: ValueMap = {
    product_id: 101,
    cycle: 'm',
    select_os: 'Ubuntu-22.04',
    keypair_id: key.keypair_id ?? null,
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
    vm_name: 'web-server-01',
  }
  await h.requests()
  return { h, key, config }
}

describe('provider_lite_vm: create', () => {
  test('create orders once, waits for Active and fills every computed field', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    assert.equal(state.status, 'Active')
    assert.equal(state.id, '100001')
    assert.equal(state.order_id, '500001')
    assert.equal(state.disk_size, 20, 'an unset disk_size reports the current size')
    assert.equal(state.cpus, 1)
    assert.equal(state.osname, 'Ubuntu-22.04')
    assert.deepEqual((state.last_invoice as ValueMap).status, 'Paid')
    assert.doesNotMatch(String(state.raw), /S3cretPass9/, 'raw is redacted')
    assert.deepEqual(await h.mutations(), ['POST /v1/lites'])
    assert.deepEqual((await h.orders()).by_kind, { 'lite.vm.create': 1 })
  })

  test('power_state and disk_size given at create are applied after Active; rebuild_os and migrate_to_pro are only recorded', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, power_state: 'stop', disk_size: 40, rebuild_os: 'Debian-12', migrate_to_pro: '201' })
    const calls = (await h.requests()).map((r) => `${r.method} ${r.path}`)
    assert.deepEqual(
      calls.filter((c) => !c.startsWith('GET ')),
      ['POST /v1/lites', 'PUT /v1/lites/accounts/100001/storage', 'PUT /v1/lites/accounts/100001/vm-state/stop'],
    )
    assert.equal(state.disk_size, 40)
    assert.equal(state.power_state, 'stop')
    assert.equal(state.rebuild_os, 'Debian-12')
    assert.equal(state.osname, 'Ubuntu-22.04', 'no rebuild happened')
    const powered = calls.indexOf('PUT /v1/lites/accounts/100001/vm-state/stop')
    assert.ok(calls.lastIndexOf('GET /v1/lites/accounts/100001/vm-details') > powered, 'vm-details was read after the power action')
    assert.equal(state.cpus, 1)
  })

  test('a storage upgrade refused after the paid create: an error, the id kept, and the state holds the server size', async () => {
    const { h, config } = await setup()
    const outcome = await h.tryCreate(vm, { ...config, disk_size: 501 })
    assert.equal(outcome.state?.id, '100001', 'the paid VM stays in state')
    assert.equal(outcome.state?.disk_size, 20, 'the state records what the server has, never the refused 501')
    assert.equal(outcome.incomplete, true)
    assert.equal(outcome.failedAfterOrder, true, 'a failure, not an order left unfinished: Terraform reports it as an error')
    const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
    const text = errors.map((d) => `${d.summary}: ${d.detail}`).join('\n')
    assert.match(text, /was ordered, but a later step of its create failed/)
    assert.match(text, /100001 \(order 500001\)/, 'what was ordered')
    assert.match(text, /storage/, 'what failed')
    assert.match(text, /next apply changes only that/, 'what the next apply does')
    assert.deepEqual((await h.orders()).by_kind, { 'lite.vm.create': 1 })
  })

  test('an unpaid order ends the create with a warning and status Pending; what it skipped is finished after payment', async () => {
    const { h, config: base } = await setup()
    const config = { ...base, pay_with_credit_card: false, disk_size: 40, power_state: 'stop' }
    const orderedAt = h.client.now()
    const outcome = await h.tryCreate(vm, config)
    assert.equal(outcome.state?.status, 'Pending')
    assert.equal(outcome.incomplete, false)
    const warning = outcome.diagnostics.find((d) => d.severity === 'warning')
    assert.match(warning?.detail ?? '', /100001.*invoice 700001 is unpaid/)
    assert.deepEqual(await h.mutations(), ['POST /v1/lites'])
    assert.deepEqual(outcome.private, { resume: true, orderedAt }, 'the skipped disk size and power state are remembered')
    const state = outcome.state as ValueMap
    const stillUnpaid = await h.update(vm, state, config, outcome.private)
    assert.deepEqual(
      stillUnpaid.private,
      { resume: true, orderedAt, waiting: 'invoice 700001 for Lite VM 100001 is unpaid' },
      'still waiting for payment, and when the VM was ordered',
    )
    assert.deepEqual(await h.mutations(), [])
    await h.control('POST', '/accounts/100001/pay')
    // With the card flag still false, the storage upgrade is an unpaid order of its own.
    const upgraded = await h.update(vm, stillUnpaid.state as ValueMap, config, stillUnpaid.private)
    assert.deepEqual(upgraded.private, { resume: true, orderedAt, waiting: 'invoice 700002 of order 500002 for Lite VM 100001 is unpaid' })
    assert.deepEqual(await h.mutations(), ['PUT /v1/lites/accounts/100001/storage'])
    await h.control('POST', '/accounts/100001/pay')
    const finished = await h.update(vm, upgraded.state as ValueMap, config, upgraded.private)
    assert.deepEqual(finished.private, {})
    assert.deepEqual(await h.mutations(), ['PUT /v1/lites/accounts/100001/vm-state/stop'], 'no second storage order')
    assert.equal(finished.state?.maxdisk, 40 * 1024 ** 3)
    assert.equal((await h.orders()).by_kind['lite.vm.storage'], 1, 'the storage upgrade is ordered once')
    assert.equal((await h.orders()).by_kind['lite.vm.create'], 1, 'the VM is ordered once')
  })
})

describe('provider_lite_vm: in-place changes and resumed waits', () => {
  test('the in-place steps run in the contract order and each makes exactly its calls', async () => {
    const { h, config } = await setup()
    const second = await h.create(keypair, { name: 'second-key' })
    const state = await h.create(vm, config)
    await h.requests()
    const target: ValueMap = {
      ...config,
      vm_name: 'renamed-vm-01',
      keypair_id: second.keypair_id ?? null,
      product_id: 102,
      disk_size: 60,
      rebuild_os: 'Debian-12',
      power_state: 'stop',
    }
    const outcome = await h.update(vm, state, target)
    assert.deepEqual(outcome.diagnostics, [])
    assert.deepEqual(await h.mutations(), [
      'PUT /v1/lites/accounts/100001/change-vm-name',
      'PUT /v1/lites/accounts/100001/keypair',
      'POST /v1/lites/accounts/100001/change-package',
      'PUT /v1/lites/accounts/100001/storage',
      'PUT /v1/lites/accounts/100001/rebuild',
      'PUT /v1/lites/accounts/100001/vm-state/stop',
    ])
    const after = outcome.state as ValueMap
    assert.equal(after.product_name, 'S 2.2')
    assert.equal(after.osname, 'Debian-12')
    assert.equal(after.vm_name, 'renamed-vm-01')
    assert.deepEqual(h.plan(vm, after, target).changed, [])
  })

  test('unset, disk_size reports the current size after a package change; set, it is a floor and no drift', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const outcome = await h.update(vm, state, { ...config, product_id: 102 })
    const after = outcome.state as ValueMap
    assert.equal(after.disk_size, 40, 'the unset disk_size reports the size the package gave')
    const refreshed = await h.read(vm, after)
    assert.equal(refreshed?.disk_size, 40)
    assert.deepEqual(h.plan(vm, refreshed, { ...config, product_id: 102 }).changed, [])

    const pinned = await h.create(vm, { ...config, disk_size: 30 })
    const grown = (await h.update(vm, pinned, { ...config, disk_size: 30, product_id: 102 })).state as ValueMap
    assert.equal(grown.disk_size, 30, 'a set target is a floor: the package raising the disk is no drift')
    const reread = await h.read(vm, grown)
    assert.equal(reread?.disk_size, 30)
    assert.deepEqual(h.plan(vm, reread, { ...config, disk_size: 30, product_id: 102 }).changed, [])
  })

  test('raw is the unwrapped data as the service sent it, ids and figures typed as sent, secrets redacted', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const sent = (await h.emulator
      .fetch(new Request(`http://127.0.0.1/v1/lites/accounts/${String(state.id)}`, { headers: { 'x-token': h.emulator.apiKey } }))
      .then((r) => r.json())) as { data: Record<string, unknown> }
    const shown = JSON.parse(String((await h.read(vm, state))?.raw)) as Record<string, unknown>
    assert.equal(shown.account_id, sent.data.account_id, 'the id as the service typed it')
    assert.deepEqual(
      (shown.extra_details as Record<string, unknown>).disk_size,
      (sent.data.extra_details as Record<string, unknown>).disk_size,
      'disk_size as the service sent it',
    )
    assert.equal((shown.extra_details as Record<string, unknown>).cipassword, '***')
    assert.deepEqual(Object.keys(shown).sort(), Object.keys(sent.data).sort())
  })

  test('migrate_to_pro moves the VM to Lite Pro and it stays managed there', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    await h.requests()
    const migrated = (await h.update(vm, state, { ...config, migrate_to_pro: '201' })).state as ValueMap
    assert.deepEqual(await h.mutations(), ['POST /v1/lites/accounts/100001/migrate-to-pro'])
    assert.equal(migrated.product_id, 101, 'the Pro product is never copied into the Lite input')
    assert.equal(migrated.product_name, 'Pro S 2.4')
    const renamed = (await h.update(vm, migrated, { ...config, migrate_to_pro: '201', vm_name: 'pro-server-01', power_state: 'stop' }))
      .state
    assert.deepEqual(await h.mutations(), [
      'PUT /v1/lite-pros/accounts/100001/change-vm-name',
      'PUT /v1/lite-pros/accounts/100001/vm-state/stop',
    ])
    assert.equal(renamed?.vm_name, 'pro-server-01')
    assert.equal((await h.read(vm, renamed as ValueMap))?.status, 'Active')
    await h.delete(vm, renamed as ValueMap)
    assert.deepEqual(await h.mutations(), ['DELETE /v1/lite-pros/100001'])
  })

  test('a VM on Lite Pro already: another migrate_to_pro is refused at plan, saying how to change its Pro product; the product it has orders nothing', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const migrated = (await h.update(vm, state, { ...config, migrate_to_pro: '201' })).state as ValueMap
    await h.requests()
    const errorsOf = async (target: ValueMap) =>
      (await checkPlanOnline(vm, migrated, h.plan(vm, migrated, target), h.session)).filter((d) => d.severity === 'error')
    const refused = await errorsOf({ ...config, migrate_to_pro: '203' })
    assert.deepEqual(
      refused.map((d) => d.path),
      [['migrate_to_pro']],
      JSON.stringify(refused),
    )
    assert.match(refused[0]?.detail ?? '', /VM 100001 is a Lite Pro VM already \(product 201\).*change product_id/s)
    // Moved on in Lite Pro since (a package change in the portal): asking for the product it has runs nothing.
    await h.client.litePros.changePackage('100001', { new_product_id: 202, pay_invoice_with_cc: true })
    await h.control('POST', '/accounts/100001/status', { status: 'Active' })
    const refreshed = (await h.read(vm, migrated)) as ValueMap
    await h.requests()
    const same = { ...config, migrate_to_pro: '202' }
    assert.deepEqual(await errorsOf(same), [])
    const outcome = await h.update(vm, refreshed, same)
    assert.deepEqual(
      outcome.diagnostics.filter((d) => d.severity === 'error'),
      [],
    )
    assert.equal(outcome.state?.migrate_to_pro, '202')
    assert.deepEqual(await h.mutations(), [], 'no migration is sent for a VM on that product already')
    assert.deepEqual((await h.orders()).by_kind, { 'lite.vm.create': 1, 'lite.vm.migrate': 1, 'lite_pro.vm.change_package': 1 })
  })

  test('a wait that fails after the order keeps the id; the next apply resumes and orders nothing', async () => {
    const { h, config } = await setup()
    await h.control('POST', '/faults', { method: 'GET', path: '/lites/accounts/*', mode: 'error', status: 503, count: -1 })
    const orderedAt = h.client.now()
    const outcome = await h.tryCreate(vm, config)
    assert.equal(outcome.incomplete, true)
    assert.equal(outcome.state?.id, '100001')
    assert.equal(outcome.state?.order_id, '500001')
    assert.deepEqual(outcome.private, { resume: true, orderedAt })
    await h.control('DELETE', '/faults')
    const state = outcome.state as ValueMap
    const plan = h.plan(vm, state, config, outcome.private)
    assert.deepEqual(plan.replace, [])
    const resumed = await h.update(vm, state, config, outcome.private)
    assert.equal(resumed.state?.status, 'Active')
    assert.equal((await h.orders()).total, 1, 'no second order')
  })

  test('a resumed create leaves what this apply changes to its steps: the package before the disk, and no disk paid that the package includes', async () => {
    const { h, config: base } = await setup()
    const config = { ...base, pay_with_credit_card: false, disk_size: 30 }
    const created = await h.tryCreate(vm, config)
    assert.deepEqual(created.private, { resume: true, orderedAt: h.client.now() })
    await h.control('POST', '/accounts/100001/pay')
    await h.requests()
    // Paid; the next apply asks for the M package (80 GB included) and an 80 GB disk.
    const edited = { ...config, product_id: 103, disk_size: 80 }
    const first = await h.update(vm, created.state as ValueMap, edited, created.private)
    assert.deepEqual(await h.mutations(), ['POST /v1/lites/accounts/100001/change-package'], 'the package first, as the contract orders')
    const errors = first.diagnostics.filter((d) => d.severity === 'error')
    assert.equal(errors.length, 1, JSON.stringify(first.diagnostics))
    assert.equal(errors[0]?.summary, 'disk_size of lite_vm 100001 is not changed yet')
    await h.control('POST', '/accounts/100001/pay')
    const second = await h.update(vm, first.state as ValueMap, edited, first.private)
    assert.deepEqual(second.diagnostics, [])
    assert.deepEqual(await h.mutations(), [], 'the package brought the disk to 80 GB: no storage order')
    assert.equal(second.state?.disk_size, 80)
    assert.equal((await h.orders()).by_kind['lite.vm.storage'], undefined, 'no storage paid for')
  })

  test('the plan of a resumed create prices the disk it still grows, once, and priced nothing while the steps order it', async () => {
    const { h, config: base } = await setup()
    const config = { ...base, pay_with_credit_card: false, disk_size: 30 }
    const created = await h.tryCreate(vm, config)
    const state = created.state as ValueMap
    await h.control('POST', '/accounts/100001/pay')
    // Nothing changed in the configuration: the apply resumes the create, which grows the disk to 30 GB.
    const resumed = await pricePlan(vm, state, h.plan(vm, state, config, created.private), h.session)
    assert.deepEqual(resumed.unpriced, [])
    assert.deepEqual(
      resumed.orders.map((o) => o.what),
      ['storage upgrade from 20 to 30 GB'],
    )
    assert.ok((resumed.orders[0]?.amount ?? 0) > 0)
    // disk_size changed too: its own step orders it (priced there); the resume has no disk left to grow.
    const changed = await pricePlan(vm, state, h.plan(vm, state, { ...config, disk_size: 40 }, created.private), h.session)
    assert.deepEqual(
      changed.orders.map((o) => o.what),
      ['storage upgrade from 20 to 40 GB'],
    )
    // What the apply orders is what the plan priced.
    await h.requests()
    const outcome = await h.update(vm, state, config, created.private)
    assert.deepEqual(await h.mutations(), ['PUT /v1/lites/accounts/100001/storage'])
    // Its invoice unpaid too (pay_with_credit_card = false): paid, the next apply finishes and orders nothing.
    await h.control('POST', '/accounts/100001/pay')
    const paid = await pricePlan(vm, outcome.state as ValueMap, h.plan(vm, outcome.state as ValueMap, config, outcome.private), h.session)
    assert.deepEqual(paid, { orders: [], unpriced: [] }, 'the storage order in flight is not priced again')
    const done = await h.update(vm, outcome.state as ValueMap, config, outcome.private)
    assert.deepEqual(await h.mutations(), [])
    // Finished: nothing left to price.
    const after = await pricePlan(vm, done.state as ValueMap, h.plan(vm, done.state as ValueMap, config, done.private), h.session)
    assert.deepEqual(after.orders, [])
  })

  test('a 404 of a call about the VM, not of the VM itself, never drops it: a refresh keeps it, and so does a create', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    await h.control('POST', '/faults', { method: 'GET', path: '/lites/accounts/*/vm-details', mode: 'error', status: 404, count: 1 })
    assert.equal((await h.read(vm, state))?.status, 'Active', 'the account read found it: a refresh keeps it')
    await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/vm-state/stop', mode: 'error', status: 404, count: 1 })
    const outcome = await h.tryCreate(vm, { ...config, vm_name: 'web-server-02', power_state: 'stop' })
    assert.equal(outcome.state?.id, '100002', 'the paid VM stays in state')
    assert.ok(outcome.diagnostics.some((d) => d.severity === 'error'))
    assert.deepEqual((await h.orders()).by_kind, { 'lite.vm.create': 2 }, 'no order beyond the two creates')
  })

  test('a VM terminated while its create waits is a clear error, and nothing is kept in state', async () => {
    const { h, config } = await setup()
    h.onWait = async () => {
      h.onWait = undefined
      await h.control('POST', '/accounts/100001/status', { status: 'Terminated' })
    }
    const outcome = await h.tryCreate(vm, config)
    assert.equal(outcome.state, null)
    assert.equal(outcome.incomplete, false)
    assert.match(outcome.diagnostics.map((d) => d.detail).join('\n'), /100001.*Terminated/)
    assert.equal((await h.orders()).total, 1)
  })
})

describe('provider_lite_vm: reads, import, validation and plan checks', () => {
  test('a refresh that finds the VM stopped outside while power_state is start warns, and changes nothing', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, power_state: 'start' })
    await h.requests()
    const quiet = await readResource(vm, state, String(state.id), {}, h.session)
    assert.deepEqual(quiet.diagnostics, [], 'running as asked: no warning')
    await h.control('POST', '/portal', { method: 'PUT', path: `/lites/accounts/${String(state.id)}/vm-state/stop` })
    const read = await readResource(vm, state, String(state.id), {}, h.session)
    assert.equal(read.state?.power_state, 'start', 'the setting is kept: it is an action fired on change')
    assert.deepEqual(
      read.diagnostics.map((d) => `${d.severity}: ${d.summary}`),
      [`warning: Lite VM ${String(state.id)} is stopped, though power_state is "start"`],
    )
    const told = read.diagnostics[0]?.detail ?? ''
    assert.match(told, /changed outside this configuration/)
    // What works on each client: actions only from Terraform 1.14 on.
    assert.match(told, /with Terraform 1\.14 or later, invoke the action provider_lite_vm_power with state "start"/)
    assert.match(told, /in Pulumi, call the resource's power method/)
    assert.match(told, /with OpenTofu or an earlier Terraform, which have no actions, set power_state to "stop" .* then back to "start"/)
    assert.deepEqual(await h.mutations(), [], 'the provider changed nothing')
  })

  test('a rebuild or a migration with power_state stop leaves the VM running: the apply says that step did it, not someone outside', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, power_state: 'stop' })
    const id = String(state.id)
    await h.mutations()
    const rebuilt = await h.update(vm, state, { ...config, power_state: 'stop', rebuild_os: 'Debian-12' })
    assert.deepEqual(await h.mutations(), [`PUT /v1/lites/accounts/${id}/rebuild`], 'power_state did not change: no power call')
    assert.deepEqual(
      rebuilt.diagnostics.map((d) => `${d.severity}: ${d.summary}`),
      [`warning: Lite VM ${id} is running, though power_state is "stop"`],
    )
    const told = rebuilt.diagnostics[0]?.detail ?? ''
    assert.match(told, /The OS rebuild \(rebuild_os\) that this configuration ran left Lite VM \d+ running/)
    assert.doesNotMatch(told, /outside/)
    const refreshed = await readResource(vm, rebuilt.state as ValueMap, id, rebuilt.private, h.session)
    assert.match(refreshed.diagnostics[0]?.detail ?? '', /OS rebuild \(rebuild_os\) that this configuration ran/)
    const next = { ...config, power_state: 'stop', rebuild_os: 'Debian-12', migrate_to_pro: '201' }
    const migrated = await h.update(vm, rebuilt.state as ValueMap, next, refreshed.private)
    assert.match(
      migrated.diagnostics[0]?.detail ?? '',
      /The migration to Lite Pro \(migrate_to_pro\) that this configuration ran left Lite VM \d+ running/,
    )
  })

  test('a 404 or 410 of vm-details never reads as the VM gone: only its account read says that', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, power_state: 'start' })
    for (const status of [404, 410]) {
      await h.control('POST', '/faults', { method: 'GET', path: '/lites/accounts/*/vm-details', mode: 'error', status, count: 1 })
      const read = await readResource(vm, state, String(state.id), {}, h.session)
      assert.equal(read.state?.id, state.id, `a ${status} of the details keeps the VM in state`)
    }
  })

  test('out-of-band changes show as drift; an out-of-band deletion reads as gone', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    await h.control('PATCH', `/accounts/${String(state.id)}`, { extra_details: { name: 'renamed-oob' } })
    const drifted = await h.read(vm, state)
    assert.equal(drifted?.vm_name, 'renamed-oob')
    assert.deepEqual(h.plan(vm, drifted, config).changed, ['vm_name'])
    await h.control('POST', `/accounts/${String(state.id)}/status`, { status: 'Terminated' })
    assert.equal(await h.read(vm, state), null)
    await h.control('DELETE', `/accounts/${String(state.id)}`)
    assert.equal(await h.read(vm, state), null)
  })

  test('import recovers every input the API returns but the password, which the plan only records', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, power_state: 'stop', description: 'web tier' })
    const imported = await h.import(vm, String(state.id))
    assert.ok(imported)
    assert.equal(imported.select_os, 'Ubuntu-22.04')
    assert.equal(imported.power_state, 'stop')
    assert.equal(imported.pay_with_credit_card, true)
    // The form of the password is the configuration's to give (core withoutUnchosenForm).
    assert.deepEqual([imported.console_password, imported.cipassword], [null, null])
    const plan = h.plan(vm, imported, { ...config, power_state: 'stop', description: 'web tier' })
    assert.deepEqual([plan.changed, plan.replace], [['console_password'], []])
  })

  test('import of a rebuilt VM reads the OS it runs: the create-time OS replaces it (create-only), with a warning naming the value that keeps it', async () => {
    const { h, config } = await setup()
    const created = await h.create(vm, config)
    const rebuilt = await h.update(vm, created, { ...config, rebuild_os: 'Debian-12' })
    assert.equal(rebuilt.state?.osname, 'Debian-12')
    const imported = await importResource(vm, String(created.id), h.session)
    assert.equal(imported.state?.select_os, 'Debian-12', 'the service reports the OS the VM runs')
    const withPassword = { ...config, console_password: String(created.console_password) }
    const plan = h.plan(vm, imported.state, withPassword, imported.private)
    assert.deepEqual(plan.replace, ['select_os'], 'a change of a create-only input replaces, as the interface says')
    assert.deepEqual(
      plan.diagnostics.map((d) => [d.severity, d.summary, d.path]),
      [['warning', 'select_os "Ubuntu-22.04" replaces the imported object, which has "Debian-12"', ['select_os']]],
    )
    assert.match(plan.diagnostics[0]?.detail ?? '', /set select_os to "Debian-12" instead to keep the object/)
    // The value the import read keeps the VM: the plan records the password only, replacing nothing.
    const kept = h.plan(vm, imported.state, { ...withPassword, select_os: 'Debian-12' }, imported.private)
    assert.deepEqual([kept.changed, kept.replace, kept.diagnostics], [['console_password'], [], []])
  })

  test('import into a configuration with rebuild_os: the plan warns that it runs, and the apply runs it (a trigger fires after an import)', async () => {
    const { h, config } = await setup()
    const created = await h.create(vm, config)
    const imported = await importResource(vm, String(created.id), h.session)
    assert.equal(imported.state?.rebuild_os, null, 'the service does not report a rebuild')
    const withRebuild = { ...config, console_password: String(created.console_password), rebuild_os: 'Ubuntu-22.04' }
    const plan = h.plan(vm, imported.state, withRebuild, imported.private)
    assert.deepEqual(plan.replace, [])
    assert.deepEqual(
      plan.diagnostics.map((d) => [d.severity, d.summary, d.path]),
      [['warning', 'rebuild_os "Ubuntu-22.04" runs on the imported object', ['rebuild_os']]],
    )
    assert.match(plan.diagnostics[0]?.detail ?? '', /leave rebuild_os out of the configuration/)
    await h.mutations()
    await applyUpdate(vm, imported.state ?? {}, plan.planned, plan.private, h.session)
    assert.deepEqual(await h.mutations(), [`PUT /v1/lites/accounts/${String(created.id)}/rebuild`])
    // Left out, nothing runs, and nothing is said.
    const without = h.plan(vm, imported.state, { ...withRebuild, rebuild_os: null }, imported.private)
    assert.deepEqual(without.diagnostics, [])
  })

  test('validation refuses what the service would keep or refuse: control characters in text, a password above 255, a blank promocode', async () => {
    const { config } = await setup()
    const issues = validateConfig(vm.attributes, {
      ...config,
      vm_name: 'bad\nname1',
      description: 'one\u0000two',
      select_os: 'Ubuntu\t22',
      console_password: `Ab1${'c'.repeat(10_237)}`,
      promocode: '   ',
    })
    assert.deepEqual(
      issues.map((d) => [d.path, d.detail]),
      [
        // A sensitive value's issue points at no attribute (Terraform would quote its line): the message names it.
        [undefined, 'console_password must be 8 to 255 characters long (got 10240).'],
        [['select_os'], 'select_os must not contain control characters (line breaks, tabs, NUL): found U+0009 at character 7.'],
        [['vm_name'], 'vm_name must not contain control characters (line breaks, tabs, NUL): found U+000A at character 4.'],
        [['description'], 'description must not contain control characters (line breaks, tabs, NUL): found U+0000 at character 4.'],
        // Refused by the service only when it places the order (an unknown code): refused at plan instead.
        [['promocode'], 'promocode must not be spaces alone: leave it empty, or unset, for no code.'],
      ],
    )
    // The limits themselves are allowed, and letters beyond ASCII are not control characters.
    assert.deepEqual(
      validateConfig(vm.attributes, {
        ...config,
        vm_name: 'café-über',
        description: 'Größe — 20 GB',
        console_password: `Ab1${'c'.repeat(252)}`,
      }),
      [],
    )
  })

  test('a console password without an upper-case letter, a lower-case letter or a digit is refused naming what it lacks, not what it must be made of', async () => {
    const { config } = await setup()
    const details = (password: string) => validateConfig(vm.attributes, { ...config, console_password: password }).map((d) => d.detail)
    assert.deepEqual(details('nouppercase1'), [
      'console_password must contain at least one upper-case letter, one lower-case letter and one digit.',
    ])
    assert.deepEqual(details('Symbols!9a'), ['console_password must be letters and digits only.'])
    assert.deepEqual(details('Quickstart2024'), [])
  })

  test('rebuild_os with product_id not known until apply: no check against product 0 at plan; the apply plan checks it', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    // The package comes from another resource created in the same apply: unknown while planning.
    const unknownProduct = h.plan(vm, state, { ...config, product_id: UNKNOWN, rebuild_os: 'Debian-12' })
    assert.deepEqual(await checkPlanOnline(vm, state, unknownProduct, h.session), [])
    // Known (the apply's plan), a name the product's OS list lacks is refused on rebuild_os.
    const known = h.plan(vm, state, { ...config, product_id: 102, rebuild_os: 'Windows-95' })
    const refused = await checkPlanOnline(vm, state, known, h.session)
    assert.deepEqual(
      refused.map((d) => [d.severity, d.path]),
      [['error', ['rebuild_os']]],
    )
    assert.ok(!(await h.requests()).some((r) => r.path.includes('/products/0/')), 'no call names product 0')
  })

  test('migrate_to_pro beside a package change or a disk growth is checked against the disk those steps leave, before anything is paid', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    await h.requests()
    const errorsOf = async (target: ValueMap) =>
      (await checkPlanOnline(vm, state, h.plan(vm, state, target), h.session)).filter((d) => d.severity === 'error')
    // The M package's 80 GB disk, or a 60 GB disk, fits Pro M and Pro L, not Pro S (50 GB).
    for (const [change, tag] of [
      [{ product_id: 103 }, 'package'],
      [{ disk_size: 60 }, 'disk'],
    ] as const) {
      const refused = await errorsOf({ ...config, ...change, migrate_to_pro: '201' })
      assert.deepEqual(
        refused.map((d) => d.path),
        [['migrate_to_pro']],
        `${tag}: ${JSON.stringify(refused)}`,
      )
      assert.match(refused[0]?.detail ?? '', /GB disk the steps before the move leave it: 202, 203\.$/)
      assert.deepEqual(await errorsOf({ ...config, ...change, migrate_to_pro: '202' }), [], tag)
    }
    assert.deepEqual(await errorsOf({ ...config, migrate_to_pro: '201' }), [], 'alone, the 20 GB disk fits Pro S')
    assert.deepEqual(await h.mutations(), [], 'nothing ordered by a plan')
  })

  test('a replacement whose new inputs are known only at apply says the plan cannot check them before the delete', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const unknownOs = h.plan(vm, state, { ...config, select_os: UNKNOWN })
    assert.ok(unknownOs.replace.includes('select_os'))
    const said = await checkPlanOnline(vm, state, unknownOs, h.session)
    assert.deepEqual(
      said.map((d) => [d.severity, d.path, d.summary]),
      [['warning', ['select_os'], 'lite_vm 100001 is replaced by an object the plan cannot check']],
    )
    assert.match(said[0]?.detail ?? '', /deletes lite_vm 100001 before then.*create_before_destroy/)
    const known = await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, select_os: 'Debian-12' }), h.session)
    assert.deepEqual(known, [], 'a replacement the plan checks says nothing more')
  })

  test('an empty promocode is none, and an empty migrate_to_pro fires nothing: both are valid input', async () => {
    const { h, config } = await setup()
    assert.deepEqual(validateConfig(vm.attributes, { ...config, promocode: '', migrate_to_pro: '' }), [])
    const state = await h.create(vm, { ...config, promocode: '', migrate_to_pro: '' })
    const order = (await h.requests()).find((r) => r.method === 'POST' && r.path === '/v1/lites')
    assert.equal((order?.body as { promocode?: unknown } | undefined)?.promocode, undefined, 'no code sent')
    assert.deepEqual(h.plan(vm, state, { ...config, promocode: '', migrate_to_pro: '' }).changed, [])
  })

  test('a new VM in an account with no VM of its family: a disk_size above the base warns that its maximum is checked only after the order', async () => {
    const { h, config } = await setup()
    const issues = await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, disk_size: 9999 }), h.session)
    assert.deepEqual(
      issues.map((d) => [d.severity, d.path, d.summary]),
      [['warning', ['disk_size'], 'Cannot check disk_size before the VM is ordered']],
    )
    assert.match(issues[0]?.detail ?? '', /this account has no Lite VM/)
    // The product's base disk asks for no storage order: nothing to warn about.
    assert.deepEqual(await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, disk_size: 20 }), h.session), [])
    // Below it, nothing is ordered: the VM has 20 GB, and the plan says so (a warning: Pulumi carries an
    // unset disk_size over from the VM a replacement replaces).
    const below = await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, disk_size: 10 }), h.session)
    assert.deepEqual(
      below.map((d) => [d.severity, d.path, d.summary]),
      [['warning', ['disk_size'], 'disk_size is below the base disk of product 101']],
    )
    assert.match(below[0]?.detail ?? '', /the new VM has 20 GB/)
    // Once a VM of the family exists, its storage options state the maximum: an error, as before.
    await h.create(vm, config)
    const refused = await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, disk_size: 9999 }), h.session)
    assert.deepEqual(
      refused.map((d) => [d.severity, d.path]),
      [['error', ['disk_size']]],
    )
    assert.deepEqual(await h.mutations(), ['POST /v1/lites'])
  })

  test('a package change to a cheaper product from one that allows no downgrade is refused at plan saying so', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, product_id: 103 })
    const issues = await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, product_id: 101 }), h.session)
    assert.match(issues.map((d) => d.detail).join('\n'), /its product 103 allows no downgrade, and product 101 costs less/)
  })

  test('a change of package with disk_size unset is priced as the one order it places: no unpriced disk order beside it', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const plan = h.plan(vm, state, { ...config, product_id: 102 })
    const price = await pricePlan(vm, state, plan, h.session)
    assert.deepEqual(price.unpriced, [], 'disk_size only follows the service: it orders nothing')
    assert.deepEqual(
      price.orders.map((o) => o.what),
      [price.orders[0]?.what],
    )
    assert.match(price.orders[0]?.what ?? '', /102/)
    // Set from a value not known yet, it may order: priced as unknown.
    const unknownSize = await pricePlan(vm, state, h.plan(vm, state, { ...config, product_id: 102, disk_size: UNKNOWN }), h.session)
    assert.equal(unknownSize.unpriced.length, 1)
  })

  test('after a migration, a package change and a disk upgrade are priced from the Lite Pro catalog and the product the VM has there', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const migrated = (await h.update(vm, state, { ...config, migrate_to_pro: '201' })).state as ValueMap
    const pro = { ...config, migrate_to_pro: '201' }
    const change = await pricePlan(vm, migrated, h.plan(vm, migrated, { ...pro, product_id: 202 }), h.session)
    assert.deepEqual(change.unpriced, [])
    assert.match(change.orders[0]?.what ?? '', /202/)
    const disk = await pricePlan(vm, migrated, h.plan(vm, migrated, { ...pro, disk_size: 150 }), h.session)
    assert.deepEqual(disk.unpriced, [])
    assert.match(disk.orders[0]?.what ?? '', /storage upgrade from \d+ to 150 GB/)
  })

  test('after a migration, a Lite keypair for keypair_id is refused naming the Lite Pro pool the VM takes keypairs from', async () => {
    const { h, config, key } = await setup()
    const state = await h.create(vm, config)
    const pro = { ...config, migrate_to_pro: '201' }
    const migrated = (await h.update(vm, state, pro)).state as ValueMap
    const proKey = await h.create(liteKeypair(litePro), { name: 'pro-key' })
    const same = await checkPlanOnline(vm, migrated, h.plan(vm, migrated, { ...pro, keypair_id: key.keypair_id ?? null }), h.session)
    // The state's keypair is the Lite one it had: set anew to it, the plan changes nothing; set to another Lite keypair, it is refused.
    const other = await h.create(keypair, { name: 'other-lite-key' })
    const wrong = await checkPlanOnline(vm, migrated, h.plan(vm, migrated, { ...pro, keypair_id: other.keypair_id ?? null }), h.session)
    assert.deepEqual(same, [])
    assert.match(wrong.map((d) => d.detail).join('\n'), /keypair_id must be a keypair of lite_pro_keypair's pool, which has no keypair \d+/)
    const right = await checkPlanOnline(vm, migrated, h.plan(vm, migrated, { ...pro, keypair_id: proKey.keypair_id ?? null }), h.session)
    assert.deepEqual(right, [])
  })

  test('a disk already grown outside to the planned size prices no storage upgrade, as the step orders none', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    // Grown to 40 GB outside (support, the portal): the state's floor stays at 20.
    await h.control('PATCH', `/accounts/${String(state.id)}`, { extra_details: { disk_size: '40' } })
    const price = await pricePlan(vm, state, h.plan(vm, state, { ...config, disk_size: 30 }), h.session)
    assert.deepEqual([price.orders, price.unpriced], [[], []])
    const outcome = await h.update(vm, state, { ...config, disk_size: 30 })
    assert.deepEqual(outcome.diagnostics, [])
    assert.deepEqual(await h.orders().then((o) => Object.keys(o.by_kind)), ['lite.vm.create'], 'no storage order')
  })

  test('a listing matches status as the service compares it, in any case', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const listed: string[] = []
    for await (const event of listResources(vm, { status: 'active' }, h.session)) if ('listed' in event) listed.push(event.listed.id)
    assert.deepEqual(listed, [String(state.id)])
  })

  test('rebuild_os and migrate_to_pro are checked against the service at plan time', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, config)
    const plan = h.plan(vm, state, { ...config, rebuild_os: 'Windows-11', migrate_to_pro: '999' })
    const issues = await checkPlanOnline(vm, state, plan, h.session)
    assert.deepEqual(
      issues.map((d) => d.path),
      [['rebuild_os'], ['migrate_to_pro']],
    )
    assert.match(issues[1]?.detail ?? '', /201, 202, 203/)
    await h.control('POST', '/faults', { method: 'GET', path: '/lites/products/*/oss', mode: 'error', status: 503, count: -1 })
    const unreachable = await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, rebuild_os: 'Debian-12' }), h.session)
    assert.deepEqual(
      unreachable.map((d) => d.severity),
      ['warning'],
      'an unreachable service only warns',
    )
  })

  test('keypair_id is checked against the pool at plan time: a new VM and a change of key, a Lite Pro key refused, an unknown one skipped', async () => {
    const { h, key, config } = await setup()
    const pro = await h.create(liteKeypair(litePro), { name: 'pro-key' })
    const refusal = (issues: Awaited<ReturnType<typeof checkPlanOnline>>) => issues.map((d) => [d.severity, d.path, d.detail])
    const missing = await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, keypair_id: 4242 }), h.session)
    assert.deepEqual(refusal(missing), [
      ['error', ['keypair_id'], "keypair_id must be a keypair of lite_keypair's pool, which has no keypair 4242."],
    ])
    const otherPool = await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, keypair_id: pro.keypair_id ?? 0 }), h.session)
    assert.deepEqual(
      otherPool.map((d) => d.path),
      [['keypair_id']],
      'a Lite Pro key cannot go on a Lite VM',
    )
    assert.deepEqual(await checkPlanOnline(vm, null, h.plan(vm, null, { ...config, keypair_id: UNKNOWN }), h.session), [])
    const state = await h.create(vm, config)
    const changed = await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, keypair_id: pro.keypair_id ?? 0 }), h.session)
    assert.deepEqual(
      changed.map((d) => d.path),
      [['keypair_id']],
      'a change of key is checked before any step runs',
    )
    const second = await h.create(keypair, { name: 'second-key' })
    assert.deepEqual(await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, keypair_id: second.keypair_id ?? 0 }), h.session), [])
    // Deleted since the VM was made: the VM keeps its key, and a plan that does not change it is not refused.
    await h.delete(keypair, key)
    assert.deepEqual(await checkPlanOnline(vm, state, h.plan(vm, state, { ...config, vm_name: 'web-server-02' }), h.session), [])
    assert.deepEqual(await h.mutations(), [
      'POST /v1/lite-pros/keypairs/',
      'POST /v1/lites',
      'POST /v1/lites/keypairs/',
      'DELETE /v1/lites/keypairs/1',
    ])
  })

  test('a package the VM already has passes the plan check, so a state saved before the change (a killed run) can finish it', async () => {
    const { h, config } = await setup()
    const stale = await h.create(vm, config)
    const changed = await h.update(vm, stale, { ...config, product_id: 102 })
    assert.equal(changed.state?.product_id, 102)
    // Planned from the state saved before the change, as Pulumi's `up` plans after a killed run.
    assert.deepEqual(await checkPlanOnline(vm, stale, h.plan(vm, stale, { ...config, product_id: 102 }), h.session), [])
    const refused = await checkPlanOnline(vm, stale, h.plan(vm, stale, { ...config, product_id: 999 }), h.session)
    assert.deepEqual(
      refused.map((d) => d.path),
      [['product_id']],
    )
  })

  test('an import id that is not an account id names the format', async () => {
    const { h } = await setup()
    await assert.rejects(h.import(vm, 'web-01'), /<account_id>/)
  })

  test('shrinking disk_size is refused at plan time', async () => {
    const { h, config } = await setup()
    const state = await h.create(vm, { ...config, disk_size: 40 })
    const plan = h.plan(vm, state, { ...config, disk_size: 30 })
    assert.deepEqual(
      plan.diagnostics.map((d) => d.path),
      [['disk_size']],
    )
    // One mistake, one error: 0 breaks the value rule, and is not also reported as a shrink.
    const zero = h.plan(vm, state, { ...config, disk_size: 0 })
    assert.deepEqual(
      zero.diagnostics.map((d) => [d.path, d.summary.startsWith('Cannot shrink')]),
      [[['disk_size'], false]],
    )
  })
})

describe('provider_lite_keypair', () => {
  test('a refresh keeps the private key returned at create; an import recovers all but it', async () => {
    const h = new Harness()
    const key = await h.create(keypair, { name: 'deploy-key' })
    assert.match(String(key.private_key), /^-----BEGIN OPENSSH PRIVATE KEY-----/)
    assert.equal((await h.read(keypair, key))?.private_key, key.private_key)
    const imported = await h.import(keypair, String(key.id))
    assert.deepEqual(imported, { ...key, private_key: null })
  })
  test('a name change is a replacement, never an update', async () => {
    const h = new Harness()
    const key = await h.create(keypair, { name: 'deploy-key' })
    assert.deepEqual(h.plan(keypair, key, { name: 'other-key' }).replace, ['name'])
  })
})

describe('provider_lite_vm: methods', () => {
  test('a method on a VM Pending with its invoice unpaid: the failure names the invoice and what to do, then how to run it again', async () => {
    const { h, config } = await setup()
    const created = await h.tryCreate(vm, { ...config, pay_with_credit_card: false })
    const id = String(created.state?.id)
    const power = vm.methods?.find((m) => m.name === 'power')
    assert.ok(power)
    const again = 'run the action again: `terraform apply -invoke=action.provider_lite_vm_power.<name>`'
    const outcome = await runMethod(vm, power, id, { state: 'stop' }, h.session, () => {}, again)
    const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
    assert.equal(errors.length, 1, JSON.stringify(outcome.diagnostics))
    const detail = errors[0]?.detail ?? ''
    assert.match(detail, /is Pending; this action needs Active/, 'the service refusal is kept')
    assert.match(
      detail,
      new RegExp(
        `Lite VM ${id} is Pending until invoice 700001 is paid, .*pay the invoice in the portal, then run the action again: \`terraform apply -invoke=action.provider_lite_vm_power.<name>\``,
      ),
      detail,
    )
    // Paid, the same method runs.
    await h.control('POST', `/accounts/${id}/pay`)
    h.emulator.advance(600_000)
    const paid = await runMethod(vm, power, id, { state: 'stop' }, h.session, () => {}, again)
    assert.deepEqual(paid.diagnostics, [])
  })

  test('a method the service failed (5xx) or left unanswered ends there: no read after it, which could only add the time of a failing service', async () => {
    const { h, config } = await setup()
    const id = String((await h.create(vm, config)).id)
    const power = vm.methods?.find((m) => m.name === 'power')
    assert.ok(power)
    for (const fault of [{ status: 503, mode: 'error' }, { mode: 'drop_after' }]) {
      await h.control('DELETE', '/faults')
      await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/vm-state/*', count: -1, ...fault })
      await h.requests()
      const outcome = await runMethod(vm, power, id, { state: 'stop' }, h.session, () => {})
      assert.ok(
        outcome.diagnostics.some((d) => d.severity === 'error'),
        JSON.stringify(outcome.diagnostics),
      )
      const calls = (await h.requests()).map((e) => `${e.method} ${e.path}`)
      const last = calls.findLastIndex((call) => call.startsWith('PUT '))
      assert.ok(last >= 0, JSON.stringify(calls))
      assert.deepEqual(calls.slice(last + 1), [], `${fault.mode}: nothing is read after the failed call`)
    }
  })

  test('the power method on an id that neither group has reports the Lite path, not the Lite Pro fallback', async () => {
    const h = new Harness()
    const power = vm.methods?.find((m) => m.name === 'power')
    assert.ok(power)
    const outcome = await runMethod(vm, power, '999999', { state: 'stop' }, h.session, () => {})
    const detail = outcome.diagnostics.map((d) => `${d.summary}: ${d.detail ?? ''}`).join('\n')
    assert.match(detail, /\/lites\/accounts\/999999\/vm-state\/stop/, detail)
    assert.doesNotMatch(detail, /lite-pros/, detail)
  })
})

// The `remote` profile answers 1 % of calls 502 after processing them; a power action, a rename and a
// keypair change set a value, so sending one again changes nothing more, and the apply goes on.
describe('Lite VM calls whose answer is lost or refused by a gateway are sent again, so the apply goes on', () => {
  const cases = [
    { step: 'power_state stop', path: '/lites/accounts/*/vm-state/*', change: { power_state: 'stop' } },
    { step: 'vm_name', path: '/lites/accounts/*/change-vm-name', change: { vm_name: 'web-server-02' } },
    { step: 'keypair_id', path: '/lites/accounts/*/keypair', change: 'keypair' },
  ] as const
  for (const ignoresKeys of [false, true]) {
    const service = ignoresKeys ? 'a service that ignores Idempotency-Key' : 'a service that honours Idempotency-Key'
    for (const { step, path, change } of cases) {
      for (const mode of ['error_after', 'error'] as const) {
        test(`${step}, a 502 ${mode === 'error_after' ? 'after processing' : 'before processing'}, ${service}`, async () => {
          const { h, config } = await setup()
          await h.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: ignoresKeys } })
          const state = await h.create(vm, config)
          const values: ValueMap =
            change === 'keypair' ? { keypair_id: (await h.create(keypair, { name: 'other-key' })).keypair_id ?? null } : change
          await h.control('POST', '/faults', { method: 'PUT', path, mode, status: 502, count: 1 })
          const outcome = await h.update(vm, state, { ...config, ...values })
          assert.deepEqual(
            outcome.diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail),
            [],
            `the ${step} step failed on one 502`,
          )
          const account = await h.client.lites.getVm(String(state.id))
          if ('vm_name' in values) assert.equal(account.extra_details.name, values.vm_name)
          if ('keypair_id' in values) assert.equal(account.extra_details.keypair_id, values.keypair_id)
          if ('power_state' in values) assert.equal((await h.client.lites.getVmDetails(String(state.id))).status, 'stopped')
        })
      }
    }
  }
})

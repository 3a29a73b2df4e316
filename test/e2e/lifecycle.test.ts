// Real terraform against the emulator launcher: the quickstart flow (init, apply, outputs, an empty second
// plan), destroy, a VM that disappears out of band, and an order left unpaid.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, changeOf, describeRun, diagnostics, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

function keypairAndVm(keypairName: string, vm: Record<string, string | number | boolean> = {}): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'k', { name: keypairName }),
    block('resource', 'provider_lite_vm', 'vm', {
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      vm_name: 'e2e-lifecycle',
      ...vm,
    }),
  ].join('\n')
}

describe('quickstart flow', () => {
  // An emulator of its own, so that "every account" after destroy means exactly this configuration's.
  const e2e = useEmulatorWorkspace()
  before(async () => {
    await e2e.ws.writeFixture('quickstart')
  })

  test('init and apply create the keypair and an Active VM, the outputs are set, and a second plan is empty', async () => {
    const init = await e2e.ws.init()
    assert.match(init.stdout, /Installing provider\/provider v0\.1\.0/)
    assert.match(init.stdout, /(Terraform|OpenTofu) has been successfully initialized!/)
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Apply complete! Resources: 2 added, 0 changed, 0 destroyed\./)

    const out = await e2e.ws.outputs()
    assert.equal(out.product_name, 'XS 1.1')
    assert.deepEqual(out.os_names, ['Ubuntu-22.04', 'Ubuntu-24.04', 'Debian-12', 'Rocky-9'])
    assert.equal(out.vm_status, 'Active')
    assert.equal(out.vm_os, 'Ubuntu-22.04')
    assert.match(String(out.public_key), /^ssh-ed25519 AAAA/)
    assert.match(String(out.vm_id), /^\d+$/)
    assert.equal(typeof out.keypair_id, 'number')

    // The outputs describe what the service really holds.
    const account = await e2e.emulator.account(String(out.vm_id))
    assert.equal(account?.status, 'Active')
    assert.equal(account?.product_id, 101)
    assert.equal(account?.extra_details.keypair_id, out.keypair_id)
    assert.equal(account?.extra_details.name, 'e2e-quickstart')
    assert.deepEqual((await e2e.emulator.orders()).by_kind, { 'lite.vm.create': 1 })

    const second = await e2e.ws.plan()
    assert.equal(second.code, 0, `the second plan is not empty: ${describeRun(second)}`)
    assert.match(second.stdout, /No changes\./)
  })

  test('destroy leaves every account Terminated and every keypair deleted', async () => {
    const vmId = String((await e2e.ws.outputs()).vm_id)
    const keypairId = String((await e2e.ws.outputs()).keypair_id)
    const { value: destroyed, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.destroy())
    assert.equal(destroyed.code, 0, describeRun(destroyed))
    assert.match(destroyed.stdout, /Destroy complete! Resources: 2 destroyed\./)
    assert.deepEqual(mutations.sort(), [`DELETE /v1/lites/${vmId}`, `DELETE /v1/lites/keypairs/${keypairId}`].sort())
    assert.deepEqual(orders, [])

    const accounts = await e2e.emulator.accounts()
    assert.ok(accounts.length > 0, 'the emulator lists the cancelled VM while it is retained')
    for (const { kind, account } of accounts) assert.equal(account.status, 'Terminated', `${kind} ${account.account_id}`)
    assert.deepEqual(await e2e.emulator.api('GET', '/lites/keypairs/'), [])
  })
})

describe('drift and billing', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  test('a VM deleted out of band (purged, then forced Terminated) is planned for re-creation, without error', async () => {
    const ws = await e2e.workspace()
    await ws.write(keypairAndVm('e2e-drift-key'))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    const firstId = String((await ws.stateOf('provider_lite_vm.vm')).id)

    await e2e.emulator.control('DELETE', `/accounts/${firstId}`)
    const purged = await ws.planJson()
    assert.equal(purged.run.code, 2, describeRun(purged.run))
    assert.doesNotMatch(purged.run.stderr, /Error/)
    assert.match(purged.run.stdout, /# provider_lite_vm\.vm will be created/)
    assert.deepEqual(changeOf(purged.plan, 'provider_lite_vm.vm').actions, ['create'])
    assert.deepEqual(changeOf(purged.plan, 'provider_lite_keypair.k').actions, ['no-op'])

    const recreated = await ws.apply()
    assert.equal(recreated.code, 0, describeRun(recreated))
    assert.match(recreated.stdout, /Resources: 1 added, 0 changed, 0 destroyed\./)
    const secondId = String((await ws.stateOf('provider_lite_vm.vm')).id)
    assert.notEqual(secondId, firstId)

    await e2e.emulator.control('POST', `/accounts/${secondId}/status`, { status: 'Terminated' })
    const terminated = await ws.planJson()
    assert.equal(terminated.run.code, 2, describeRun(terminated.run))
    assert.doesNotMatch(terminated.run.stderr, /Error/)
    assert.deepEqual(changeOf(terminated.plan, 'provider_lite_vm.vm').actions, ['create'])
  })

  test('a VM renamed out of band shows the drift in the plan, and the apply renames it back with one call', async () => {
    const ws = await e2e.workspace()
    await ws.write(keypairAndVm('e2e-rename-oob-key', { vm_name: 'e2e-name-kept' }))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    const id = String((await ws.stateOf('provider_lite_vm.vm')).id)

    await e2e.emulator.control('PATCH', `/accounts/${id}`, { extra_details: { name: 'renamed-oob' } })
    const planned = await ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    assert.match(planned.stdout, /~ vm_name\s+= "renamed-oob" -> "e2e-name-kept"/)

    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual(mutations, [`PUT /v1/lites/accounts/${id}/change-vm-name`])
    assert.deepEqual(orders, [])
    assert.equal((await e2e.emulator.account(id))?.extra_details.name, 'e2e-name-kept')
  })

  test('pay_with_credit_card = false: a warning names the account and the unpaid invoice, the VM stays Pending, no second order', async () => {
    const ws = await e2e.workspace()
    await ws.write(keypairAndVm('e2e-unpaid-key', { pay_with_credit_card: false, vm_name: 'e2e-unpaid' }))
    const { value: applied, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.equal(orders.length, 1)
    const [order] = orders
    assert.equal(order?.kind, 'lite.vm.create')
    assert.equal(order?.invoice_status, 'Unpaid')

    const warnings = diagnostics(applied.stdout + applied.stderr, 'Warning')
    const named = warnings.filter((w) => w.includes(String(order?.account_id)) && w.includes(String(order?.invoice_id)))
    assert.equal(
      named.length,
      1,
      `one warning names account ${order?.account_id} and invoice ${order?.invoice_id}:\n${describeRun(applied)}`,
    )

    const state = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(state.id, String(order?.account_id))
    assert.equal(state.status, 'Pending')
    assert.equal((await e2e.emulator.account(String(order?.account_id)))?.status, 'Pending')

    const { value: again, orders: more, mutations } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(again.code, 0, describeRun(again))
    assert.match(again.stdout, /Resources: 0 added, 0 changed, 0 destroyed\./)
    assert.deepEqual(more, [], 'the second apply placed an order')
    assert.deepEqual(mutations, [])
  })

  // Waiting for Active skips the rest of a create while its invoice is unpaid; the power state asked for
  // is remembered and applied by the first apply after payment.
  test('a power_state given with an unpaid order is applied once the invoice is paid', async () => {
    const ws = await e2e.workspace()
    await ws.write(keypairAndVm('e2e-unpaid-power-key', { pay_with_credit_card: false, vm_name: 'e2e-unpaid-pow', power_state: 'stop' }))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    const id = String((await ws.stateOf('provider_lite_vm.vm')).id)
    await e2e.emulator.control('POST', `/accounts/${id}/pay`)
    const deadline = Date.now() + 10_000
    while ((await e2e.emulator.account(id))?.status !== 'Active') {
      assert.ok(Date.now() < deadline, `account ${id} did not become Active after payment`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const plan = await ws.plan()
    assert.match(plan.stdout + plan.stderr, /left this resource unfinished/, 'the plan says what the apply will do')
    const applied = await ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
    const details = await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)
    assert.equal(details.status, 'stopped', 'the configuration asks for power_state "stop"')
  })

  test('fail_on_unfinished = true: an unpaid create exits 1 with the id kept; without untaint nothing is deleted or ordered; untaint, pay, apply finishes it with no second order', async () => {
    const ws = await e2e.workspace()
    const config = keypairAndVm('e2e-strict-key', { pay_with_credit_card: false, vm_name: 'e2e-strict-vm' }).replace(
      'poll_interval = "100ms"',
      'poll_interval = "100ms"\n  fail_on_unfinished = true',
    )
    await ws.write(config)
    const { value: applied, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 1, describeRun(applied))
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['lite.vm.create'],
    )
    const errors = diagnostics(applied.stdout + applied.stderr).join('\n')
    assert.match(errors, /fail_on_unfinished/)
    assert.match(errors, /terraform untaint/)
    const id = String((await ws.stateOf('provider_lite_vm.vm')).id)
    assert.equal(id, String(orders[0]?.account_id))

    // Terraform tainted it and plans a replacement; its delete is refused, so nothing is cancelled or ordered.
    const { value: replaced, mutations: calls, orders: reordered } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(replaced.code, 1, describeRun(replaced))
    assert.match(replaced.stdout, /must be replaced/)
    assert.deepEqual(calls, [], 'the tainted VM was deleted or something was ordered')
    assert.deepEqual(reordered, [])
    const refusal = diagnostics(replaced.stdout + replaced.stderr).join('\n')
    assert.match(refusal, new RegExp(`Not deleting provider_lite_vm ${id}`))
    assert.match(refusal, /terraform untaint provider_lite_vm\./)
    assert.match(refusal, /fail_on_unfinished = false/)
    assert.equal((await e2e.emulator.account(id))?.status, 'Pending')
    assert.equal(String((await ws.stateOf('provider_lite_vm.vm')).id), id)
    // A destroy is refused while planning (plan_destroy), before anything is applied; without the setting it is not.
    const destroyPlan = await ws.plan(['-destroy'])
    assert.equal(destroyPlan.code, 1, describeRun(destroyPlan))
    assert.match(diagnostics(destroyPlan.stdout + destroyPlan.stderr).join('\n'), new RegExp(`Not deleting provider_lite_vm ${id}`))
    await ws.write(config.replace('\n  fail_on_unfinished = true', ''))
    const lenient = await ws.plan(['-destroy'])
    assert.equal(lenient.code, 2, describeRun(lenient))
    await ws.write(config)

    await ws.ok(['untaint', 'provider_lite_vm.vm'])
    await e2e.emulator.control('POST', `/accounts/${id}/pay`)
    const { value: again, orders: more } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(again.code, 0, describeRun(again))
    assert.deepEqual(more, [], 'a second VM was ordered')
    assert.equal(String((await ws.stateOf('provider_lite_vm.vm')).id), id)
    assert.equal((await e2e.emulator.account(id))?.status, 'Active')
    // Finished, it is an ordinary resource again: a destroy plans normally, and a replacement deletes it.
    const finished = await ws.plan(['-destroy'])
    assert.equal(finished.code, 2, describeRun(finished))
    await ws.write(config.replace('pay_with_credit_card = false', 'pay_with_credit_card = true\n  description = "replaced"'))
    const { value: replacement, mutations, orders: replacing } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(replacement.code, 0, describeRun(replacement))
    assert.deepEqual(
      replacing.map((o) => o.kind),
      ['lite.vm.create'],
    )
    assert.ok(mutations.includes(`DELETE /v1/lites/${id}`), mutations.join(', '))
  })

  test('a create whose later step fails after the paid order: exit 1 naming the order, the failure and the next step; the tainted replacement is refused; untaint and apply finish it with no second order', async () => {
    const ws = await e2e.workspace()
    const config = keypairAndVm('e2e-step-key', { vm_name: 'e2e-step-vm', disk_size: 40 })
    await ws.write(config)
    await e2e.emulator.control('POST', '/faults', {
      method: 'PUT',
      path: '/lites/accounts/*/storage',
      mode: 'error',
      status: 409,
      count: 1,
      detail: 'storage pool busy',
    })
    const { value: applied, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 1, `a create that failed after its order must not end as a success: ${describeRun(applied)}`)
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['lite.vm.create'],
    )
    const id = String(orders[0]?.account_id)
    const errors = diagnostics(applied.stdout + applied.stderr).join('\n')
    assert.match(errors, /was ordered, but a later step of its create failed/)
    assert.match(errors, new RegExp(`${id}.*storage pool busy`, 's'), 'what was ordered and what failed')
    assert.match(errors, /terraform untaint/, 'what to do before the next apply')
    const state = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(String(state.id), id)
    assert.equal(state.disk_size, 20, 'the state records what the server has, never the size that failed')

    // Terraform tainted it; the replacement it plans is refused before anything is deleted or ordered.
    const { value: replaced, mutations: calls, orders: reordered } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(replaced.code, 1, describeRun(replaced))
    assert.match(replaced.stdout, /must be replaced/)
    assert.deepEqual(calls, [], 'the tainted VM was deleted or something was ordered')
    assert.deepEqual(reordered, [])
    const refusal = diagnostics(replaced.stdout + replaced.stderr).join('\n')
    assert.match(refusal, new RegExp(`Not replacing provider_lite_vm ${id}`))
    assert.match(refusal, /terraform untaint\s+provider_lite_vm\./)
    assert.equal((await e2e.emulator.account(id))?.status, 'Active')

    await ws.ok(['untaint', 'provider_lite_vm.vm'])
    const { value: again, mutations, orders: more } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(again.code, 0, describeRun(again))
    assert.deepEqual(
      more.map((o) => o.kind).filter((k) => k === 'lite.vm.create'),
      [],
      'a second VM was ordered',
    )
    assert.ok(mutations.includes(`PUT /v1/lites/accounts/${id}/storage`), mutations.join(', '))
    const finished = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(String(finished.id), id)
    assert.equal(finished.disk_size, 40)
    // Finished, it is an ordinary resource again: tainted by the user, it is replaced as Terraform says.
    await ws.ok(['taint', 'provider_lite_vm.vm'])
    const { value: retaint, mutations: replacing } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(retaint.code, 0, describeRun(retaint))
    assert.ok(replacing.includes(`DELETE /v1/lites/${id}`), replacing.join(', '))
  })

  test('an unpaid disk upgrade behaves as an unpaid create: the next apply calls nothing and warns with the invoice', async () => {
    const ws = await e2e.workspace()
    await ws.write(keypairAndVm('e2e-unpaid-upgrade-key', { vm_name: 'e2e-unpaid-upg' }))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    const id = String((await ws.stateOf('provider_lite_vm.vm')).id)
    await ws.write(keypairAndVm('e2e-unpaid-upgrade-key', { vm_name: 'e2e-unpaid-upg', disk_size: 40, pay_with_credit_card: false }))
    const { value: upgraded, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(upgraded.code, 0, describeRun(upgraded))
    assert.deepEqual(
      orders.map((o) => [o.kind, o.invoice_status]),
      [['lite.vm.storage', 'Unpaid']],
    )
    const invoice = String(orders[0]?.invoice_id)

    const { value: again, mutations, orders: more } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(again.code, 0, describeRun(again))
    assert.deepEqual(mutations, [], 'the unpaid upgrade was sent again')
    assert.deepEqual(more, [])
    assert.match(again.stdout, /Resources: 0 added, 0 changed, 0 destroyed\./)
    const warned = diagnostics(again.stdout + again.stderr, 'Warning').filter((w) => w.includes(invoice))
    assert.equal(warned.length, 1, `one warning names invoice ${invoice}:\n${describeRun(again)}`)

    await e2e.emulator.control('POST', `/accounts/${id}/pay`)
    const deadline = Date.now() + 10_000
    while ((await e2e.emulator.account(id))?.status !== 'Active') {
      assert.ok(Date.now() < deadline, `account ${id} did not become Active after payment`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(String((await e2e.emulator.account(id))?.extra_details.disk_size), '40')
    const paid = await ws.plan()
    assert.equal(paid.code, 0, describeRun(paid))
    assert.doesNotMatch(paid.stdout + paid.stderr, /waits for payment/)
  })
})

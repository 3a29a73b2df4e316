// An upgrade whose answer is unclear, on a service that ignores Idempotency-Keys, is settled by the
// account's last invoice (orderedOnSince): never by an invoice that is not the order's own, however far
// apart the clocks of client and service are, and always by its own.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createClient } from '../api/index.js'
import { hasErrors, silentLogger, type ValueMap } from '../core/index.js'
import { liteVmOn } from '../../test/support/fixtures.js'
import { BASE, Harness } from '../../test/support/harness.js'
import { lite } from './lite-family.js'
import { liteVm } from './lite-vm.js'

/** A harness whose client's clock is `skewMs` behind the service's (the service's clock is ahead). */
function skewedHarness(skewMs: number) {
  const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
  const emulator = h.emulator
  const client = createClient({
    baseUrl: `${BASE}/v1`,
    apiKey: emulator.apiKey,
    userAgent: 'provider-test/0',
    fetch: (request) => emulator.fetch(request),
    now: () => emulator.now() - skewMs,
    sleep: async (ms) => {
      emulator.advance(ms)
    },
    random: () => 0.5,
    pollIntervalMs: 1000,
  })
  const mutable = h as unknown as { client: unknown; session: unknown }
  mutable.client = client
  mutable.session = { client, log: silentLogger, signal: new AbortController().signal, now: () => client.now() }
  return h
}

describe("an unclear upgrade on a service that ignores keys, beside other orders' invoices and clocks apart", () => {
  test("service clock 60 s ahead: a disk upgrade answered 502 without being processed does not take the previous upgrade's invoice as its own: an error, and state keeps 30 GB", async () => {
    const h = skewedHarness(60_000)
    const vms = liteVm(lite)
    const { config, vm } = await liteVmOn(h, lite)
    // The previous apply: 30 GB, ordered and answered normally.
    const first = await h.update(vms, vm, { ...config, disk_size: 30 })
    assert.ok(!hasErrors(first.diagnostics), JSON.stringify(first.diagnostics))
    const at30 = first.state as ValueMap
    // Some time passes (the VM is Active again long before).
    h.emulator.advance(20_000)
    // The next apply: 40 GB. The gateway answers 502 and the service never sees the order.
    await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/storage', mode: 'error', status: 502 })
    const second = await h.update(vms, at30, { ...config, disk_size: 40 })
    const orders = await h.orders()
    assert.equal(orders.by_kind['lite.vm.storage'], 1, 'only the 30 GB upgrade was ever placed')
    const server = await h.read(vms, second.state as ValueMap)
    // No evidence of this order (the only upgrade invoice is from before it), so the step is not recorded as
    // done: Pulumi's `up` plans from the saved state without reading first, and would never order it.
    assert.equal(second.state?.disk_size, 30)
    assert.ok(
      hasErrors(second.diagnostics),
      `the 40 GB upgrade was never placed, yet the update succeeded and recorded disk_size ${String(second.state?.disk_size)} ` +
        `(the VM has ${String(server?.disk_size)} GB); diagnostics: ${second.diagnostics.map((d) => d.summary).join(' | ')}`,
    )
  })

  test("same clocks: a storage upgrade sent within 2 s of the previous one's payment (provisioning delay 0) does not take that invoice as its own", async () => {
    const h = new Harness({ provisioningDelayMs: 0, quirks: { ignore_idempotency_keys: true } })
    const vms = liteVm(lite)
    const { config, vm } = await liteVmOn(h, lite)
    const first = await h.update(vms, vm, { ...config, disk_size: 30 })
    const at30 = first.state as ValueMap
    await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/storage', mode: 'error', status: 502 })
    const second = await h.update(vms, at30, { ...config, disk_size: 40 })
    const orders = await h.orders()
    assert.equal(orders.by_kind['lite.vm.storage'], 1, 'only the 30 GB upgrade was ever placed')
    assert.ok(hasErrors(second.diagnostics), 'the 40 GB upgrade was never placed, yet the update succeeded')
  })

  test('client clock 3 s ahead of the service: a disk upgrade that was placed (502 after processing) is recognised by its invoice and taken as answered', async () => {
    const h = skewedHarness(-3_000)
    const vms = liteVm(lite)
    const { config, vm } = await liteVmOn(h, lite)
    await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/storage', mode: 'error_after', status: 502 })
    const outcome = await h.update(vms, vm, { ...config, disk_size: 30 })
    const orders = await h.orders()
    assert.equal(orders.by_kind['lite.vm.storage'], 1, 'the upgrade was placed once')
    assert.ok(
      !hasErrors(outcome.diagnostics),
      `placed and paid, yet: ${outcome.diagnostics.map((d) => `${d.summary}: ${d.detail}`).join(' | ')}`,
    )
  })

  test("an unpaid upgrade placed outside (the portal) after the plan: this run's upgrade is refused (409) but the answer is lost (502): the other order's unpaid invoice is not taken as this one's", async () => {
    const h = new Harness({ quirks: { ignore_idempotency_keys: true } })
    const vms = liteVm(lite)
    const { config, vm } = await liteVmOn(h, lite)
    // The portal: 35 GB, invoice unpaid; the VM turns Pending.
    await h.client.lites.upgradeStorage(String(vm.id), { disk_size: 35, pay_invoice_with_cc: false })
    await h.control('POST', '/faults', { method: 'PUT', path: '/lites/accounts/*/storage', mode: 'error_after', status: 502 })
    const outcome = await h.update(vms, vm, { ...config, disk_size: 40 })
    const orders = await h.orders()
    assert.equal(orders.by_kind['lite.vm.storage'], 1, "only the portal's 35 GB upgrade exists")
    assert.ok(
      hasErrors(outcome.diagnostics),
      'the 40 GB upgrade was refused, yet the update is recorded as ordered and waiting for payment',
    )
  })
})

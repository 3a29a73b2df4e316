// timeouts.update bounds the whole update, as a user reads it: the wait after one step's order takes
// from what the next step gets, and a step is not sent once under a tenth of the timeout is left.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { baremetalServers, liteVmConfigOn } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import type { ValueMap } from '../core/index.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'
import { lite } from './lite-family.js'
import { liteVm } from './lite-vm.js'

async function activeStorage(h: Harness) {
  const { server } = await baremetalServers(h)
  const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'data-a', metal_account_id: server ?? 0, size: 100 }
  const volume = (await h.create(baremetalElasticStorage, config)) as ValueMap
  assert.equal(volume.status, 'Active')
  return { volume, config }
}

test('an update whose first order took over nine tenths of timeouts.update does not send the next one, records the first, and the next apply sends the rest', async () => {
  const h = new Harness()
  const { volume, config } = await activeStorage(h)
  await h.control('PATCH', '/config', { provisioning_delay_ms: 95_000 })
  const edited: ValueMap = { ...config, size: 200, product_id: 502, timeouts: { update: '100s' } }
  await h.requests()
  const first = await h.update(baremetalElasticStorage, volume, edited)
  const sent = (await h.requests()).filter((r) => r.method !== 'GET')
  assert.equal(sent.length, 1, `one change sent: ${JSON.stringify(sent.map((r) => `${r.method} ${r.path} ${r.status}`))}`)
  const errors = first.diagnostics.filter((d) => d.severity === 'error')
  assert.equal(errors.length, 1, JSON.stringify(first.diagnostics))
  assert.match(errors[0]?.summary ?? '', /^(product_id|size) of baremetal_elastic_storage \d+ not changed yet$/)
  assert.match(
    errors[0]?.detail ?? '',
    /took \d+ s of the update timeout, .*less than a tenth of it left: apply again, or raise timeouts\.update/,
  )
  const reached = first.state as ValueMap
  const done = reached.size === 200 ? 'size' : 'product_id'
  const left = done === 'size' ? 'product_id' : 'size'
  assert.equal(reached[done], edited[done], 'the first change is recorded')
  assert.equal(reached[left], volume[left], 'the one not sent is not')
  // The next apply, with its own timeout, sends the rest and nothing twice.
  await h.control('PATCH', '/config', { provisioning_delay_ms: 1_000 })
  const second = await h.update(baremetalElasticStorage, reached, edited, first.private)
  assert.deepEqual(
    second.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  assert.equal((second.state as ValueMap)[left], edited[left])
  assert.equal((await h.requests()).filter((r) => r.method !== 'GET' && r.status === 200).length, 1)
})

test('the wait after an order gets what is left of timeouts.update, not the whole of it again', async () => {
  const h = new Harness()
  const { volume, config } = await activeStorage(h)
  await h.control('PATCH', '/config', { provisioning_delay_ms: 100_000 })
  const edited: ValueMap = { ...config, size: 200, product_id: 502, timeouts: { update: '200s' } }
  await h.requests()
  // The first order's wait takes 100 s and more (it polls); the second's would take 100 s more: past the 200 s of the update.
  const outcome = await h.update(baremetalElasticStorage, volume, edited)
  const sent = (await h.requests()).filter((r) => r.method !== 'GET' && r.status === 200)
  assert.equal(sent.length, 2, 'both changes are ordered: the first wait left more than a tenth')
  const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
  assert.ok(errors.length > 0, `the second wait is cut at the update's deadline: ${JSON.stringify(outcome.diagnostics)}`)
  assert.match(errors.map((d) => `${d.summary}: ${d.detail}`).join('\n'), /order was placed and is recorded/i)
})

async function liteVmAt(h: Harness, extra: ValueMap = {}) {
  return { ...(await liteVmConfigOn(h, lite)).config, ...extra }
}

test('a free, instant step (a power change) after a long order is still sent: the rule is for orders', async () => {
  const h = new Harness()
  const config = await liteVmAt(h)
  const created = await h.create(liteVm(lite), config)
  await h.control('PATCH', '/config', { provisioning_delay_ms: 95_000 })
  await h.requests()
  const outcome = await h.update(liteVm(lite), created, { ...config, product_id: 102, power_state: 'stop', timeouts: { update: '100s' } })
  assert.deepEqual(
    outcome.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  assert.deepEqual(
    (await h.mutations()).map((m) => m.replace(/\d+/g, 'N')),
    ['POST /vN/lites/accounts/N/change-package', 'PUT /vN/lites/accounts/N/vm-state/stop'],
  )
})

test("what a resumed create left (its disk) is not ordered with under a tenth of the update's timeout left: the next apply finishes it", async () => {
  const h = new Harness()
  const config = await liteVmAt(h, { pay_with_credit_card: false, disk_size: 60 })
  const created = await h.tryCreate(liteVm(lite), config)
  assert.equal(created.private.resume, true)
  await h.control('POST', `/accounts/${String(created.state?.id)}/pay`)
  h.emulator.advance(5_000)
  await h.control('PATCH', '/config', { provisioning_delay_ms: 95_000 })
  const edited = { ...config, product_id: 102, pay_with_credit_card: true, timeouts: { update: '100s' } }
  await h.requests()
  const outcome = await h.update(liteVm(lite), created.state as ValueMap, edited, created.private)
  const sent = (await h.requests()).filter((r) => r.method !== 'GET').map((r) => r.path)
  assert.ok(!sent.some((path) => path.endsWith('/storage')), `no storage order at the deadline: ${JSON.stringify(sent)}`)
  assert.match(outcome.diagnostics.map((d) => `${d.summary}: ${d.detail}`).join('\n'), /is not finished yet: .*less than a tenth/s)
  assert.equal(outcome.private.resume, true, 'the next apply finishes it')
  await h.control('PATCH', '/config', { provisioning_delay_ms: 1_000 })
  const next = await h.update(liteVm(lite), outcome.state as ValueMap, edited, outcome.private)
  assert.deepEqual(
    next.diagnostics.filter((d) => d.severity === 'error'),
    [],
  )
  assert.deepEqual((await h.orders()).by_kind['lite.vm.storage'], 1, 'the disk, once')
})

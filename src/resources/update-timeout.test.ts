// timeouts.update bounds the whole update, as a user reads it: the wait after one step's order takes
// from what the next step gets, and a step is not sent once under a tenth of the timeout is left.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { baremetalServers } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import type { ValueMap } from '../core/index.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'

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

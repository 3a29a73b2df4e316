// The payment flag is an order-time input: changed alone, it is only recorded, with a warning that
// nothing is sent. Changed with a paid change of the same object (an elastic storage's size), the
// resize order is placed with the new flag: the warning says this plan's order uses it, and the state
// records the flag the order was sent with, even when the apply stops after it (the invoice unpaid).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { baremetalServers } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import type { ValueMap } from '../core/index.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'

/** An Active elastic storage of 100 GB, paid with the card. */
async function volume() {
  const h = new Harness()
  const { server } = await baremetalServers(h)
  const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'data-a', metal_account_id: server ?? 0, size: 100 }
  const state = await h.create(baremetalElasticStorage, config)
  return { h, config, state }
}

const flagWarnings = (plan: { diagnostics: readonly { severity: string; summary: string; detail: string }[] }) =>
  plan.diagnostics.filter((d) => d.severity === 'warning' && d.summary.startsWith('pay_with_credit_card'))

test('pay_with_credit_card changed with a resize: the warning says the resize order uses it, and the order is placed with it', async () => {
  const { h, config, state } = await volume()
  const alone = flagWarnings(h.plan(baremetalElasticStorage, state, { ...config, pay_with_credit_card: false }))
  assert.equal(alone.length, 1)
  assert.match(alone[0]?.detail ?? '', /is only recorded: nothing is sent to the service/, 'changed alone, nothing is sent')

  const edited = { ...config, size: 200, pay_with_credit_card: false }
  const warned = flagWarnings(h.plan(baremetalElasticStorage, state, edited))
  assert.equal(warned.length, 1, JSON.stringify(warned))
  assert.equal(warned[0]?.summary, "pay_with_credit_card is used by this plan's order of size")
  assert.match(
    warned[0]?.detail ?? '',
    /This plan changes size of baremetal_elastic_storage \d+, and the order it places for that change is placed with the new value/,
  )
  assert.doesNotMatch(warned[0]?.detail ?? '', /nothing is sent/)

  const outcome = await h.update(baremetalElasticStorage, state, edited)
  const invoices = (await h.control('GET', '/invoices')) as { account_id: string | number; invoice_type: string; status: string }[]
  const upgrade = invoices.filter((i) => String(i.account_id) === String(state.id) && i.invoice_type !== 'new')
  assert.deepEqual(
    upgrade.map((i) => i.status),
    ['Unpaid'],
    'the resize was ordered with the new flag: its invoice is left unpaid',
  )
  assert.equal(outcome.state?.pay_with_credit_card, false)
})

test('size and product changed with pay_with_credit_card = false: the resize is ordered unpaid and the update stops, recording the flag it was sent with', async () => {
  const { h, config, state } = await volume()
  const edited = { ...config, size: 200, product_id: 502, pay_with_credit_card: false }
  const warned = flagWarnings(h.plan(baremetalElasticStorage, state, edited))
  assert.equal(warned[0]?.summary, "pay_with_credit_card is used by this plan's orders of size and product_id")

  const first = await h.update(baremetalElasticStorage, state, edited)
  assert.match(first.diagnostics.map((d) => d.summary).join('\n'), /product_id of baremetal_elastic_storage \d+ is not changed yet/)
  const reached = first.state as ValueMap
  assert.equal(reached.size, 200, 'the resize was ordered')
  assert.equal(reached.pay_with_credit_card, false, 'the state records the flag the resize order was sent with')
  // The next plan warns of the invoice still unpaid, and no longer that the flag takes effect later.
  assert.deepEqual(flagWarnings(h.plan(baremetalElasticStorage, reached, edited, first.private)), [])
})

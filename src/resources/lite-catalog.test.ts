// The Lite and Lite Pro catalog lookups against the emulator: the nested product catalog and the OS list
// of a product, a bad product id refused before any call.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Harness } from '../../test/support/harness.js'
import { readDataSource, type ValueMap } from '../core/index.js'
import { lite, litePro } from './lite-family.js'
import { liteChangePackageOptions } from './lite-lookups.js'
import { liteOsList } from './lite-os-list.js'
import { liteProducts } from './lite-products.js'

test('provider_lite_products returns the full nested catalog, allow_downgrade as a bool', async () => {
  const h = new Harness()
  const state = await h.data(liteProducts(lite), {})
  const products = state.products as ValueMap[]
  assert.deepEqual(
    products.map((p) => p.product_id),
    [101, 102, 103],
  )
  const m44 = products[2] as ValueMap
  assert.deepEqual(m44.options, { type: 'vps', cores: 4, memory: 4096, disk: 80, allow_downgrade: false })
  const monthly = (m44.billing as ValueMap[]).find((b) => b.cycle === 'm') as ValueMap
  assert.equal(monthly.price, 240000)
  const steps = ((monthly.components as ValueMap[])[0] as ValueMap).prices as ValueMap[]
  assert.deepEqual(steps[1], { qty_min: 101, qty_max: null, price: 800 })
  assert.equal((m44.billing as ValueMap[]).length, 8, 'every Lite cycle is offered')
})

test('provider_lite_pro_products reads the Pro catalog', async () => {
  const h = new Harness()
  const state = await h.data(liteProducts(litePro), {})
  assert.deepEqual(
    (state.products as ValueMap[]).map((p) => p.product_id),
    [201, 202, 203],
  )
})

test('provider_lite_os_list lists the templates of a product; a bad product id is refused before any call', async () => {
  const h = new Harness()
  const os = liteOsList(lite)
  const state = await h.data(os, { product_id: 102 })
  assert.deepEqual(
    (state.oss as ValueMap[]).map((o) => o.name),
    ['Ubuntu-22.04', 'Ubuntu-24.04', 'Debian-12', 'Rocky-9'],
  )
  assert.deepEqual((state.oss as ValueMap[])[0], { vmid: 9001, node: 'node-01', name: 'Ubuntu-22.04', maxmem: 2147483648, maxcpu: 2 })
  await assert.rejects(h.data(os, { product_id: 0 }), /product_id must be at least 1/)
  assert.deepEqual(await h.requests().then((r) => r.length), 1)
})

test('a product the catalog does not have, or a Lite Pro one on the Lite OS list: an error on product_id naming the catalog', async () => {
  const h = new Harness()
  for (const product of [999, 201]) {
    const outcome = await readDataSource(liteOsList(lite), { product_id: product }, h.session)
    assert.equal(outcome.state, null)
    assert.deepEqual(
      outcome.diagnostics.map((d) => [d.severity, d.summary, d.path]),
      [['error', 'Invalid product_id', ['product_id']]],
    )
    assert.match(
      outcome.diagnostics[0]?.detail ?? '',
      new RegExp(`^product_id must be a product of lite_products; the service has none with id ${product} \\(`),
    )
  }
  // A VM of the other family on a Lite lookup by account id: the same, on account_id.
  const vmLookup = await readDataSource(liteChangePackageOptions(lite), { account_id: 424242 }, h.session)
  assert.deepEqual(
    vmLookup.diagnostics.map((d) => [d.summary, d.path]),
    [['Invalid account_id', ['account_id']]],
  )
  assert.match(vmLookup.diagnostics[0]?.detail ?? '', /account_id must be a Lite VM of this account/)
})

// In-process tests of the elastic-storage family: orders, reads, catalog (E1-E3, E6, E7), resizes and
// product changes (E4, E5).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import { type AccountView, DELAY, issueLocs, TestClient } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 2, 6, 12, 0, 0)
const setup = () => new TestClient(createEmulator({ clock: 'manual', startTime: START }))
const P = '/baremetal-elastic-storages'

interface OrderCounters {
  total: number
  by_kind: Record<string, number>
  orders: { kind: string; account_id: string; invoice_status: string }[]
}

const read = (c: TestClient, id: number) => c.ok<AccountView>('GET', `${P}/${id}`)

async function storage(c: TestClient, server: number, body: Record<string, unknown> = {}): Promise<number> {
  const order = await c.ok<{ account_id: string }>('POST', P, {
    product_id: 501,
    cycle: 'm',
    storage_name: 'db-volume',
    metal_account_id: server,
    ...body,
  })
  await c.advance(DELAY)
  return Number(order.account_id)
}

describe('elastic storage (E1-E3, E6, E7)', () => {
  test('E1: Pending, then Active bound to the server; default size 100, priced per GB', async () => {
    const c = setup()
    const server = await c.server()
    const order = await c.ok<{ order_id: string; account_id: string }>('POST', P, {
      product_id: 501,
      cycle: 'm',
      storage_name: 'db-volume',
      metal_account_id: server,
    })
    const id = Number(order.account_id)
    assert.equal((await read(c, id)).status, 'Pending')
    await c.advance(DELAY)
    const volume = await read(c, id)
    assert.deepEqual(
      [volume.status, volume.recurring_amount, volume.product_name, volume.description, volume.order_id, volume.last_invoice.invoice_type],
      ['Active', 100_000, 'Elastic Storage Standard', '', order.order_id, 'new'],
    )
    assert.deepEqual(volume.extra_details, {
      storage_name: 'db-volume',
      size: 100,
      metal_account_id: server,
      region: 'wjv-1',
      region_label: 'West Java 1',
    })
    const annual = await storage(c, server, { product_id: 502, cycle: 'a', size: 10_240 })
    assert.equal((await read(c, annual)).recurring_amount, 10_240 * 24_000)
    const smallest = await storage(c, server, { size: 1 })
    assert.equal((await read(c, smallest)).extra_details.size, 1)
    const list = await c.ok<AccountView[]>('GET', P)
    assert.deepEqual(
      list.map((a) => a.account_id),
      [id, annual, smallest],
    )
    assert.deepEqual((await c.control<OrderCounters>('GET', '/orders')).by_kind, { 'baremetal.create': 1, 'elastic_storage.create': 3 })
    await c.fails(404, 'GET', `${P}/${server}`)
  })

  test('E1: every bad field in one 422; the server must be a Metal server and Active', async () => {
    const c = setup()
    assert.deepEqual(issueLocs(await c.fails(422, 'POST', P, {})), [
      'body.cycle',
      'body.metal_account_id',
      'body.product_id',
      'body.storage_name',
    ])
    const ip = await c.ip()
    const bad = await c.fails(422, 'POST', P, {
      product_id: 401,
      cycle: 'q',
      storage_name: '',
      metal_account_id: ip,
      size: 0,
      promocode: 'NOPE',
    })
    assert.deepEqual(issueLocs(bad), [
      'body.cycle',
      'body.metal_account_id',
      'body.product_id',
      'body.promocode',
      'body.size',
      'body.storage_name',
    ])
    const body = { product_id: 501, cycle: 'm', storage_name: 'vol', metal_account_id: 99999 }
    await c.fails(422, 'POST', P, body)
    const server = await c.server({ active: false })
    await c.fails(422, 'POST', P, { ...body, metal_account_id: server, size: 10_241 })
    await c.fails(409, 'POST', P, { ...body, metal_account_id: server })
    await c.advance(DELAY)
    await c.control('POST', `/accounts/${server}/status`, { status: 'Suspended' })
    await c.fails(409, 'POST', P, { ...body, metal_account_id: server })
    await c.control('POST', `/accounts/${server}/status`, { status: 'Terminated' })
    await c.fails(409, 'POST', P, { ...body, metal_account_id: server })
    assert.deepEqual((await c.control<OrderCounters>('GET', '/orders')).by_kind, {
      'additional_ip.create': 1,
      'baremetal.create': 1,
    })
  })

  test('E6 and M10: deleting the storage terminates it; deleting the server leaves it alone', async () => {
    const c = setup()
    const server = await c.server()
    const id = await storage(c, server)
    const kept = await storage(c, server)
    assert.equal(await c.ok('DELETE', `${P}/${id}`), 'cancellation scheduled')
    assert.equal((await read(c, id)).status, 'Terminated')
    await c.ok('DELETE', `/baremetals/${server}`)
    const volume = await read(c, kept)
    assert.deepEqual([volume.status, volume.extra_details.metal_account_id], ['Active', server])
    await c.fails(404, 'DELETE', `${P}/99999`)
  })

  test('E7: storage products with options and per-GB m/a prices', async () => {
    const c = setup()
    const standard = {
      product_id: 501,
      name: 'Elastic Storage Standard',
      description: '5,000 IOPS',
      options: { iops: 5000, min_size: 1, max_size: 10240 },
      billing: [
        { label: 'Monthly', cycle: 'm', price: 1000 },
        { label: 'Annually', cycle: 'a', price: 12000 },
      ],
    }
    const products = await c.ok<{ product_id: number }[]>('GET', `${P}/products`)
    assert.deepEqual(products[0], standard)
    assert.deepEqual(
      products.map((p) => p.product_id),
      [501, 502],
    )
    assert.deepEqual(await c.ok('GET', `${P}/products/501`), standard)
    await c.fails(404, 'GET', `${P}/products/401`)
  })
})

describe('elastic storage orders (E4, E5)', () => {
  test('E4: absolute grow-only resize, applied at Active, billed as an upgrade', async () => {
    const c = setup()
    const server = await c.server()
    const id = await storage(c, server)
    const same = await c.fails(422, 'PUT', `${P}/${id}`, { size: 100 })
    assert.deepEqual(same, [{ loc: ['body', 'size'], msg: 'must be greater than current size 100', type: 'value_error' }])
    await c.fails(422, 'PUT', `${P}/${id}`, { size: 50 })
    await c.fails(422, 'PUT', `${P}/${id}`, { size: 10_241 })
    assert.deepEqual(issueLocs(await c.fails(422, 'PUT', `${P}/${id}`, { pay_invoice_with_cc: 3 })), [
      'body.pay_invoice_with_cc',
      'body.size',
    ])
    await c.fails(404, 'PUT', `${P}/99999`, { size: 200 })
    await c.fails(404, 'PUT', `${P}/${server}`, { size: 200 })

    const order = await c.ok<{ account_id: string }>('PUT', `${P}/${id}`, { size: 250 })
    assert.equal(order.account_id, String(id))
    const pending = await read(c, id)
    assert.deepEqual(
      [pending.status, pending.extra_details.size, pending.recurring_amount, pending.last_invoice.invoice_type],
      ['Pending', 100, 100_000, 'upgrade'],
    )
    await c.fails(409, 'PUT', `${P}/${id}`, { size: 300 })
    await c.fails(409, 'POST', `${P}/${id}`, { new_product_id: 502 })
    await c.advance(DELAY)
    const grown = await read(c, id)
    assert.deepEqual([grown.status, grown.extra_details.size, grown.recurring_amount], ['Active', 250, 250_000])
    await c.ok('PUT', `${P}/${id}`, { size: 10_240 })
    await c.advance(DELAY)
    assert.equal((await read(c, id)).extra_details.size, 10_240)
    const orders = await c.control<OrderCounters>('GET', '/orders')
    assert.equal(orders.by_kind['elastic_storage.resize'], 2)
  })

  test('E4 unpaid: stays Pending until the invoice is paid', async () => {
    const c = setup()
    const server = await c.server()
    const id = await storage(c, server)
    await c.ok('PUT', `${P}/${id}`, { size: 150, pay_invoice_with_cc: false })
    await c.advance(DELAY * 3)
    const unpaid = await read(c, id)
    assert.deepEqual([unpaid.status, unpaid.last_invoice.status, unpaid.extra_details.size], ['Pending', 'Unpaid', 100])
    await c.control('POST', `/accounts/${id}/pay`)
    await c.advance(DELAY)
    assert.equal((await read(c, id)).extra_details.size, 150)
  })

  test('E5: change-package to another product, applied at Active', async () => {
    const c = setup()
    const server = await c.server()
    const id = await storage(c, server, { size: 40 })
    await c.fails(422, 'POST', `${P}/${id}`, { new_product_id: 501 })
    await c.fails(422, 'POST', `${P}/${id}`, { new_product_id: 401 })
    await c.fails(422, 'POST', `${P}/${id}`, {})
    await c.fails(404, 'POST', `${P}/99999`, { new_product_id: 502 })
    await c.control('POST', `/accounts/${id}/status`, { status: 'Suspended' })
    await c.fails(409, 'POST', `${P}/${id}`, { new_product_id: 502 })
    await c.control('POST', `/accounts/${id}/status`, { status: 'Active' })

    const order = await c.ok<{ account_id: string }>('POST', `${P}/${id}`, { new_product_id: 502 })
    assert.equal(order.account_id, String(id))
    const pending = await read(c, id)
    assert.deepEqual([pending.status, pending.product_id, pending.last_invoice.invoice_type], ['Pending', 501, 'change_package'])
    await c.advance(DELAY)
    const changed = await read(c, id)
    assert.deepEqual(
      [changed.status, changed.product_id, changed.product_name, changed.recurring_amount, changed.extra_details.size],
      ['Active', 502, 'Elastic Storage UltraFast', 80_000, 40],
    )
    await c.ok('POST', `${P}/${id}`, { new_product_id: 501 })
    await c.advance(DELAY)
    assert.equal((await read(c, id)).product_id, 501)
    const orders = await c.control<OrderCounters>('GET', '/orders')
    assert.equal(orders.by_kind['elastic_storage.change_package'], 2)
    await c.ok('DELETE', `${P}/${id}`)
    await c.fails(409, 'POST', `${P}/${id}`, { new_product_id: 502 })
    await c.fails(409, 'PUT', `${P}/${id}`, { size: 500 })
  })
})

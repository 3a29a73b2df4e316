// In-process tests of the Metal server family (M1-M13), and of Metal accounts in the control API and
// in state files.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import type { Json } from './json.js'
import { type AccountView, DELAY, issueLocs, TestClient } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 2, 4, 7, 30, 0)
const setup = (options: Parameters<typeof createEmulator>[0] = {}) =>
  new TestClient(createEmulator({ clock: 'manual', startTime: START, ...options }))

interface OrderCounters {
  total: number
  by_kind: Record<string, number>
  orders: { kind: string; account_id: string; invoice_status: string }[]
}

const read = (c: TestClient, id: number) => c.ok<AccountView>('GET', `/baremetals/accounts/${id}`)
const power = async (c: TestClient, id: number) => (await c.ok<{ state: string }>('GET', `/baremetals/accounts/${id}/state`)).state

describe('Metal servers: orders (M1-M3)', () => {
  test('M1: Pending without an address, then Active with the first server IP and power on', async () => {
    const c = setup()
    const keypair = await c.keypair('/baremetals', 'metal-key')
    const order = await c.ok<{ order_id: string; account_id: string }>('POST', '/baremetals', {
      product_id: 301,
      cycle: 'm',
      keypair_id: keypair,
      label: 'db-primary',
    })
    assert.match(order.order_id, /^\d+$/)
    const id = Number(order.account_id)
    const pending = await read(c, id)
    assert.equal(pending.status, 'Pending')
    assert.equal(pending.extra_details.ip_address, null)
    await c.fails(409, 'GET', `/baremetals/accounts/${id}/state`)
    await c.advance(DELAY)
    const server = await read(c, id)
    assert.deepEqual(
      [
        server.status,
        server.billingcycle,
        server.date_created,
        server.next_due,
        server.recurring_amount,
        server.product_name,
        server.description,
      ],
      ['Active', 'Monthly', '2025-03-04', '2025-04-04', 1_500_000, 'Metal S', ''],
    )
    assert.equal(server.order_id, order.order_id)
    assert.deepEqual([server.last_invoice.status, server.last_invoice.invoice_type], ['Paid', 'new'])
    assert.deepEqual(server.extra_details, {
      label: 'db-primary',
      select_os: 'ubuntu-22',
      keypair_id: keypair,
      public_ip: 1,
      ip_address: '203.0.113.10',
      region: 'wjv-1',
      region_label: 'West Java 1',
    })
    assert.equal(await power(c, id), 'on')

    const second = await c.server({ product: 302 })
    assert.equal((await read(c, second)).extra_details.ip_address, '203.0.113.11')
    const annual = await c.ok<{ account_id: string }>('POST', '/baremetals', {
      product_id: 302,
      cycle: 'a',
      select_os: 'rocky-9',
      keypair_id: keypair,
      label: 'annual',
      public_ip: 1,
      promocode: 'PROMO10',
    })
    const yearly = await read(c, Number(annual.account_id))
    assert.deepEqual([yearly.billingcycle, yearly.recurring_amount, yearly.extra_details.select_os], ['Annually', 30_000_000, 'rocky-9'])

    const list = await c.ok<AccountView[]>('GET', '/baremetals/accounts')
    assert.deepEqual(
      list.map((a) => a.account_id),
      [id, second, Number(annual.account_id)],
    )
    const orders = await c.control<OrderCounters>('GET', '/orders')
    assert.deepEqual(orders.by_kind, { 'baremetal.create': 3 })
  })

  test('M1: every bad field in one 422; out of stock is a 409 and places no order; stock is informative', async () => {
    const c = setup()
    const liteKey = await c.keypair('/lites', 'lite-key')
    const detail = await c.fails(422, 'POST', '/baremetals', {})
    assert.deepEqual(issueLocs(detail), ['body.cycle', 'body.keypair_id', 'body.label', 'body.product_id'])
    const bad = await c.fails(422, 'POST', '/baremetals', {
      product_id: 101,
      cycle: 'q',
      select_os: 'Ubuntu-22.04',
      keypair_id: liteKey,
      label: '',
      public_ip: 2,
      promocode: 'NOPE',
      pay_invoice_with_cc: 'maybe',
    })
    assert.deepEqual(issueLocs(bad), [
      'body.cycle',
      'body.keypair_id',
      'body.label',
      'body.pay_invoice_with_cc',
      'body.product_id',
      'body.promocode',
      'body.public_ip',
      'body.select_os',
    ])
    const types = await c.fails(422, 'POST', '/baremetals', { product_id: '301', cycle: 'm', keypair_id: 1.5, label: 'x' })
    assert.deepEqual(
      (types as { type: string }[]).map((i) => i.type),
      ['type_error', 'type_error'],
    )
    await c.fails(422, 'POST', '/baremetals', undefined)

    const key = await c.keypair('/baremetals', 'metal-key')
    await c.fails(409, 'POST', '/baremetals', { product_id: 303, cycle: 'm', keypair_id: key, label: 'big-one' })
    for (let i = 0; i < 3; i++) await c.ok('POST', '/baremetals', { product_id: 302, cycle: 'm', keypair_id: key, label: `m-${i}` })
    const products = await c.ok<{ product_id: number; stock: number }[]>('GET', '/baremetals/products')
    assert.equal(products.find((p) => p.product_id === 302)?.stock, 2)
    const orders = await c.control<OrderCounters>('GET', '/orders')
    assert.equal(orders.total, 3)
  })

  test('M1: IP availability config is for Lite C4 only', async () => {
    const c = setup({ ipUnavailableProductIds: [301] })
    const server = await c.server()
    assert.equal((await read(c, server)).status, 'Active')
  })

  test('M1 unpaid: stays Pending until the invoice is paid, then provisions', async () => {
    const c = setup()
    const id = await c.server({ pay: false })
    await c.advance(DELAY * 5)
    const unpaid = await read(c, id)
    assert.deepEqual([unpaid.status, unpaid.last_invoice.status, unpaid.last_invoice.paid_id], ['Pending', 'Unpaid', null])
    await c.control('POST', `/accounts/${id}/pay`)
    assert.equal((await read(c, id)).status, 'Pending')
    await c.advance(DELAY)
    const active = await read(c, id)
    assert.deepEqual([active.status, active.last_invoice.status, active.extra_details.ip_address], ['Active', 'Paid', '203.0.113.10'])
  })

  test('M1 with an Idempotency-Key: a repeat is replayed and places no second order', async () => {
    const c = setup()
    const key = await c.keypair('/baremetals', 'metal-key')
    const body = { product_id: 301, cycle: 'm', keypair_id: key, label: 'idem' }
    const headers = { 'Idempotency-Key': 'metal-order-1' }
    const first = await c.request('POST', '/v1/baremetals', { body, headers })
    const again = await c.request('POST', '/v1/baremetals', { body, headers })
    assert.deepEqual(again.body, first.body)
    assert.equal(again.headers.get('idempotency-replayed'), 'true')
    assert.equal((await c.control<OrderCounters>('GET', '/orders')).total, 1)
  })
})

describe('Metal servers: power, label, rebuild (M4-M9)', () => {
  test('M4/M5: on, off, reset; repeats accepted; unknown state 422; status rules', async () => {
    const c = setup()
    const id = await c.server({ active: false })
    await c.fails(409, 'PUT', `/baremetals/accounts/${id}/state/on`)
    await c.advance(DELAY)
    assert.equal(await c.ok('PUT', `/baremetals/accounts/${id}/state/off`), 'off accepted')
    assert.equal(await power(c, id), 'off')
    assert.equal(await c.ok('PUT', `/baremetals/accounts/${id}/state/off`), 'off accepted')
    assert.equal(await power(c, id), 'off')
    assert.equal(await c.ok('PUT', `/baremetals/accounts/${id}/state/reset`), 'reset accepted')
    assert.equal(await power(c, id), 'on')
    assert.equal(await c.ok('PUT', `/baremetals/accounts/${id}/state/on`), 'on accepted')
    assert.equal(await c.ok('PUT', `/baremetals/accounts/${id}/state/reset`), 'reset accepted')
    assert.equal(await power(c, id), 'on')
    const detail = await c.fails(422, 'PUT', `/baremetals/accounts/${id}/state/reboot`)
    assert.deepEqual(detail, [{ loc: ['path', 'state'], msg: 'must be one of on, off, reset', type: 'value_error' }])
    await c.fails(404, 'PUT', `/baremetals/accounts/99999/state/reboot`)
    await c.fails(404, 'GET', '/baremetals/accounts/99999/state')

    await c.control('POST', `/accounts/${id}/status`, { status: 'Suspended' })
    assert.equal(await power(c, id), 'off')
    await c.fails(409, 'PUT', `/baremetals/accounts/${id}/state/on`)
    await c.control('POST', `/accounts/${id}/status`, { status: 'Active' })
    assert.equal(await power(c, id), 'on')
    await c.ok('DELETE', `/baremetals/${id}`)
    await c.fails(409, 'GET', `/baremetals/accounts/${id}/state`)
    await c.fails(409, 'PUT', `/baremetals/accounts/${id}/state/on`)
  })

  test('M6: the state list', async () => {
    const c = setup()
    assert.deepEqual(await c.ok('GET', '/baremetals/states'), ['on', 'off', 'reset'])
  })

  test('M7: label changes at once while Pending, Active or Suspended; 409 once Terminated', async () => {
    const c = setup()
    const id = await c.server({ pay: false })
    assert.equal(await c.ok('PUT', `/baremetals/${id}`, { label: 'while-pending' }), true)
    assert.equal((await read(c, id)).extra_details.label, 'while-pending')
    await c.control('POST', `/accounts/${id}/status`, { status: 'Suspended' })
    await c.ok('PUT', `/baremetals/${id}`, { label: 'while-suspended' })
    assert.equal((await read(c, id)).extra_details.label, 'while-suspended')
    assert.deepEqual(issueLocs(await c.fails(422, 'PUT', `/baremetals/${id}`, {})), ['body.label'])
    await c.fails(422, 'PUT', `/baremetals/${id}`, { label: 'x'.repeat(256) })
    await c.ok('PUT', `/baremetals/${id}`, { label: 'x'.repeat(255) })
    await c.ok('DELETE', `/baremetals/${id}`)
    await c.fails(409, 'PUT', `/baremetals/${id}`, { label: 'too-late' })
    await c.fails(404, 'PUT', '/baremetals/99999', { label: 'nobody' })
  })

  test('M8/M9: rebuild goes Pending, then Active with the new select_os and power on; no order', async () => {
    const c = setup()
    const id = await c.server()
    assert.deepEqual(await c.ok('GET', `/baremetals/${id}/rebuild/oss`), ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'])
    await c.ok('PUT', `/baremetals/accounts/${id}/state/off`)
    assert.deepEqual(issueLocs(await c.fails(422, 'PUT', `/baremetals/${id}/rebuild`, { os: 'windows' })), ['body.os'])
    await c.fails(422, 'PUT', `/baremetals/${id}/rebuild`, {})
    assert.equal(await c.ok('PUT', `/baremetals/${id}/rebuild`, { os: 'debian-12' }), 'rebuild scheduled')
    const pending = await read(c, id)
    assert.deepEqual([pending.status, pending.extra_details.select_os], ['Pending', 'ubuntu-22'])
    await c.fails(409, 'PUT', `/baremetals/${id}/rebuild`, { os: 'rocky-9' })
    await c.fails(409, 'GET', `/baremetals/accounts/${id}/state`)
    await c.advance(DELAY)
    const rebuilt = await read(c, id)
    assert.deepEqual(
      [rebuilt.status, rebuilt.extra_details.select_os, rebuilt.extra_details.ip_address],
      ['Active', 'debian-12', '203.0.113.10'],
    )
    assert.equal(await power(c, id), 'on')
    assert.equal((await c.control<OrderCounters>('GET', '/orders')).total, 1)
    await c.control('POST', `/accounts/${id}/status`, { status: 'Suspended' })
    await c.fails(409, 'PUT', `/baremetals/${id}/rebuild`, { os: 'rocky-9' })
    await c.fails(404, 'PUT', '/baremetals/99999/rebuild', { os: 'rocky-9' })
    await c.fails(404, 'GET', '/baremetals/99999/rebuild/oss')
  })

  test('a Lite VM id is not a Metal server (404), and literal segments win', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.fails(404, 'GET', `/baremetals/accounts/${vm}`)
    await c.fails(404, 'PUT', `/baremetals/${vm}`, { label: 'nope' })
    await c.fails(404, 'DELETE', `/baremetals/${vm}`)
    await c.fails(404, 'GET', '/baremetals/accounts/abc')
    await c.fails(405, 'GET', `/baremetals/${vm}`)
    assert.deepEqual(await c.ok('GET', '/baremetals/keypairs/'), [])
    const server = await c.server()
    await c.fails(404, 'GET', `/lites/accounts/${server}`)
  })
})

describe('Metal servers: delete, catalog, openvpn (M10-M13)', () => {
  test('M10: Terminated at once, same answer when repeated, listed only on request, 404 after retention', async () => {
    const c = setup({ retentionMs: 10_000 })
    const id = await c.server()
    assert.equal(await c.ok('DELETE', `/baremetals/${id}`), 'cancellation scheduled')
    assert.equal(await c.ok('DELETE', `/baremetals/${id}/`), 'cancellation scheduled')
    assert.equal((await read(c, id)).status, 'Terminated')
    assert.deepEqual(await c.ok('GET', '/baremetals/accounts'), [])
    const terminated = await c.ok<AccountView[]>('GET', '/baremetals/accounts?status=terminated')
    assert.deepEqual(
      terminated.map((a) => a.account_id),
      [id],
    )
    await c.fails(422, 'GET', '/baremetals/accounts?status=Gone')
    await c.advance(10_000)
    await c.fails(404, 'GET', `/baremetals/accounts/${id}`)
    await c.fails(404, 'DELETE', `/baremetals/${id}`)
  })

  test('M10 of an unpaid order cancels its invoice', async () => {
    const c = setup()
    const id = await c.server({ pay: false })
    await c.ok('DELETE', `/baremetals/${id}`)
    assert.equal((await read(c, id)).last_invoice.status, 'Cancelled')
  })

  test('M11/M12: products with stock flags and m/a billing; OS families', async () => {
    const c = setup()
    const products = await c.ok<Json[]>('GET', '/baremetals/products')
    assert.deepEqual(products[0], {
      product_id: 301,
      name: 'Metal S',
      description: '4 cores, 32 GB RAM, 2x480 GB SSD',
      out_of_stock: false,
      stock: 5,
      billing: [
        { label: 'Monthly', cycle: 'm', price: 1_500_000 },
        { label: 'Annually', cycle: 'a', price: 18_000_000 },
      ],
    })
    assert.deepEqual(
      products.map((p) => [(p as { product_id: number }).product_id, (p as { out_of_stock: boolean }).out_of_stock]),
      [
        [301, false],
        [302, false],
        [303, true],
      ],
    )
    assert.equal((await c.ok<{ name: string }>('GET', '/baremetals/products/303')).name, 'Metal L')
    await c.fails(404, 'GET', '/baremetals/products/401')
    await c.fails(404, 'GET', '/baremetals/products/101')
    assert.deepEqual(await c.ok('GET', '/baremetals/products/302/oss'), {
      linux: [
        { label: 'Ubuntu 22.04', value: 'ubuntu-22' },
        { label: 'Ubuntu 24.04', value: 'ubuntu-24' },
        { label: 'Debian 12', value: 'debian-12' },
        { label: 'Rocky Linux 9', value: 'rocky-9' },
      ],
    })
    await c.fails(404, 'GET', '/baremetals/products/999/oss')
  })

  test('M13: the OpenVPN profile is a text config', async () => {
    const c = setup()
    const data = await c.ok<{ config: string }>('GET', '/baremetals/openvpn')
    assert.match(data.config, /^client\ndev tun\n/)
    assert.match(data.config, /<ca>\n[\s\S]*\n<\/ca>\n$/)
  })

  test('ids_as_strings quirk covers server fields', async () => {
    const c = setup({ quirks: { ids_as_strings: true } })
    const id = await c.server()
    const server = await read(c, id)
    assert.equal(server.account_id, String(id) as unknown as number)
    assert.equal(typeof server.extra_details.keypair_id, 'string')
  })
})

describe('Metal families in the control API and state files', () => {
  test('_emulator/accounts?kind= lists each Metal kind; forcing statuses follows the status model', async () => {
    const c = setup()
    const server = await c.server()
    const ip = await c.ip()
    await c.ok('POST', '/baremetal-elastic-storages', { product_id: 501, cycle: 'm', storage_name: 'vol', metal_account_id: server })
    for (const kind of ['baremetal', 'additional_ip', 'elastic_storage']) {
      const items = await c.control<{ kind: string }[]>('GET', `/accounts?kind=${kind}`)
      assert.equal(items.length, 1, kind)
      assert.equal(items[0]?.kind, kind)
    }
    const forced = await c.server({ active: false })
    const active = await c.control<AccountView>('POST', `/accounts/${forced}/status`, { status: 'Active' })
    assert.equal(active.extra_details.ip_address, '203.0.113.11')
    assert.equal(await power(c, forced), 'on')
    await c.control('POST', `/accounts/${ip}/status`, { status: 'Terminated' })
    assert.equal((await c.ok<AccountView>('GET', `/baremetal-additional-ips/${ip}`)).status, 'Terminated')
  })

  test('snapshot/restore keeps servers, IPs, assignments, storage and the address sequences', async () => {
    const c = setup()
    const server = await c.server()
    const ip = await c.ip()
    await c.ok('PUT', `/baremetal-additional-ips/${ip}/assigns`, { metal_account_id: server })
    await c.ok('POST', '/baremetal-elastic-storages', {
      product_id: 502,
      cycle: 'a',
      storage_name: 'vol',
      metal_account_id: server,
      size: 20,
    })
    await c.ok('PUT', `/baremetals/accounts/${server}/state/off`)
    const saved = JSON.parse(JSON.stringify(c.emulator.snapshot())) as unknown

    const other = setup()
    other.emulator.restore(saved)
    assert.deepEqual(await read(other, server), await read(c, server))
    assert.equal(await power(other, server), 'off')
    const assignment = await other.ok<{ metal_account_id: number; assigned_at: string }>(
      'GET',
      `/baremetal-additional-ips/${ip}/assigns/${server}`,
    )
    assert.deepEqual(assignment, await c.ok('GET', `/baremetal-additional-ips/${ip}/assigns/${server}`))
    assert.equal((await other.ok<Json[]>('GET', '/baremetal-elastic-storages')).length, 1)
    const next = await other.server()
    assert.equal((await read(other, next)).extra_details.ip_address, '203.0.113.11')
    const nextIp = await other.ip()
    assert.equal((await other.ok<AccountView>('GET', `/baremetal-additional-ips/${nextIp}`)).extra_details.ip_address, '198.51.100.3')

    // A state file written before the address sequences existed (Lite only) still restores.
    const lite = setup()
    await lite.vm()
    const old = JSON.parse(JSON.stringify(lite.emulator.snapshot())) as { seq: Record<string, number> }
    delete old.seq.server_ip
    delete old.seq.additional_ip
    const third = setup()
    third.emulator.restore(old)
    const fresh = await third.server()
    assert.equal((await read(third, fresh)).extra_details.ip_address, '203.0.113.10')
  })
})

describe('Metal servers: activations across a restart', () => {
  test('accounts due at once take their addresses in the order they fell due, as reads before a restart saw them', async () => {
    const c = setup()
    const keypair = await c.keypair('/baremetals', 'metal-key')
    const body = { product_id: 301, cycle: 'm', keypair_id: keypair }
    // A is ordered first but paid later, so it falls due after B.
    const a = Number(
      (await c.ok<{ account_id: string }>('POST', '/baremetals', { ...body, label: 'a', pay_invoice_with_cc: false })).account_id,
    )
    const b = Number((await c.ok<{ account_id: string }>('POST', '/baremetals', { ...body, label: 'b' })).account_id)
    await c.advance(DELAY / 2)
    await c.control('POST', `/accounts/${a}/pay`)
    // The last write of a state file: reads are not written.
    const saved = JSON.parse(JSON.stringify(c.emulator.snapshot())) as unknown
    await c.advance(DELAY / 2)
    const seen = (await read(c, b)).extra_details.ip_address
    assert.equal(seen, '203.0.113.10')

    // A restart once both are due: B keeps the address a read gave it before.
    const restarted = setup()
    restarted.emulator.restore(saved)
    await restarted.advance(DELAY)
    assert.equal((await read(restarted, b)).extra_details.ip_address, seen)
    assert.equal((await read(restarted, a)).extra_details.ip_address, '203.0.113.11')
  })
})

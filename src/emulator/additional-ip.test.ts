// In-process tests of the additional-IP family: orders, reads, catalog (I1-I6) and assignments (A1-A5).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import type { Json } from './json.js'
import { type AccountView, DELAY, issueLocs, TestClient } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 2, 5, 10, 20, 0)
const setup = () => new TestClient(createEmulator({ clock: 'manual', startTime: START }))
const P = '/baremetal-additional-ips'

interface Assignment {
  additional_ip_id: number
  metal_account_id: number
  ip_address: string
  status: string
  assigned_at: string
}

const readIp = (c: TestClient, id: number) => c.ok<AccountView>('GET', `${P}/${id}`)

describe('additional IPs (I1-I6)', () => {
  test('I1-I3: Pending without an address, Active with 198.51.100.2 up; region and cycle', async () => {
    const c = setup()
    const order = await c.ok<{ order_id: string; account_id: string }>('POST', P, { product_id: 401, cycle: 'm' })
    const id = Number(order.account_id)
    const pending = await readIp(c, id)
    assert.equal(pending.status, 'Pending')
    assert.equal(pending.extra_details.ip_address, null)
    await c.advance(DELAY)
    const ip = await readIp(c, id)
    assert.deepEqual(
      [ip.status, ip.billingcycle, ip.recurring_amount, ip.product_id, ip.product_name, ip.description, ip.order_id],
      ['Active', 'Monthly', 75_000, 401, 'Additional IPv4', '', order.order_id],
    )
    assert.deepEqual(ip.extra_details, { ip_address: '198.51.100.2', region: 'wjv-1', region_label: 'West Java 1', metal_account_id: null })
    assert.equal(ip.last_invoice.invoice_type, 'new')

    const annual = Number(
      (await c.ok<{ account_id: string }>('POST', P, { product_id: 401, cycle: 'a', region: 'cjv-1', pay_invoice_with_cc: 'YES' }))
        .account_id,
    )
    await c.advance(DELAY)
    const second = await readIp(c, annual)
    assert.deepEqual(
      [second.recurring_amount, second.extra_details.ip_address, second.extra_details.region, second.extra_details.region_label],
      [900_000, '198.51.100.3', 'cjv-1', 'Central Java 1'],
    )
    // A server's address comes from its own sequence.
    const server = await c.server()
    assert.equal((await c.ok<AccountView>('GET', `/baremetals/accounts/${server}`)).extra_details.ip_address, '203.0.113.10')

    const list = await c.ok<AccountView[]>('GET', P)
    assert.deepEqual(
      list.map((a) => a.account_id),
      [id, annual],
    )
    const orders = await c.control<{ by_kind: Record<string, number> }>('GET', '/orders')
    assert.deepEqual(orders.by_kind, { 'additional_ip.create': 2, 'baremetal.create': 1 })
    await c.fails(404, 'GET', `${P}/${server}`)
    await c.fails(404, 'GET', `${P}/99999`)
  })

  test('I1: every bad field in one 422', async () => {
    const c = setup()
    assert.deepEqual(issueLocs(await c.fails(422, 'POST', P, {})), ['body.cycle', 'body.product_id'])
    const detail = await c.fails(422, 'POST', P, { product_id: 301, cycle: 'q', region: 'sby-1', promocode: 'NOPE' })
    assert.deepEqual(issueLocs(detail), ['body.cycle', 'body.product_id', 'body.promocode', 'body.region'])
    for (const inherited of ['constructor', 'toString', '__proto__']) {
      const unknown = await c.fails(422, 'POST', P, { product_id: 401, cycle: 'm', promocode: inherited })
      assert.deepEqual(issueLocs(unknown), ['body.promocode'], inherited)
    }
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 0)
  })

  test('I1 unpaid stays Pending with no address until paid', async () => {
    const c = setup()
    const id = await c.ip({ pay: false })
    await c.advance(DELAY * 3)
    const ip = await readIp(c, id)
    assert.deepEqual([ip.status, ip.last_invoice.status, ip.extra_details.ip_address], ['Pending', 'Unpaid', null])
  })

  test('I4: Terminated at once; repeat is the same answer', async () => {
    const c = setup()
    const id = await c.ip()
    assert.equal(await c.ok('DELETE', `${P}/${id}`), 'cancellation scheduled')
    assert.equal(await c.ok('DELETE', `${P}/${id}`), 'cancellation scheduled')
    assert.equal((await readIp(c, id)).status, 'Terminated')
    assert.deepEqual(await c.ok('GET', P), [])
    await c.fails(404, 'DELETE', `${P}/99999`)
  })

  test('I5/I6: the IP product and the regions; literal segments win over ids', async () => {
    const c = setup()
    const product = {
      product_id: 401,
      name: 'Additional IPv4',
      description: 'One public IPv4 address',
      billing: [
        { label: 'Monthly', cycle: 'm', price: 75_000 },
        { label: 'Annually', cycle: 'a', price: 900_000 },
      ],
    }
    assert.deepEqual(await c.ok('GET', `${P}/products`), [product])
    assert.deepEqual(await c.ok('GET', `${P}/products/401`), product)
    await c.fails(404, 'GET', `${P}/products/301`)
    assert.deepEqual(await c.ok('GET', `${P}/regions`), ['wjv-1', 'cjv-1'])
    assert.deepEqual(await c.ok('GET', `${P}/regions/`), ['wjv-1', 'cjv-1'])
  })
})

describe('assignments (A1-A5)', () => {
  test('assign, repeat (200, same object), read, list, conflict, unassign', async () => {
    const c = setup()
    const server = await c.server()
    const other = await c.server()
    const ip = await c.ip()
    const assignment = await c.ok<Assignment>('PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    assert.deepEqual(assignment, {
      additional_ip_id: ip,
      metal_account_id: server,
      ip_address: '198.51.100.2',
      status: 'Active',
      assigned_at: '2025-03-05 10:20:06',
    })
    await c.advance(60_000)
    assert.deepEqual(await c.ok('PUT', `${P}/${ip}/assigns`, { metal_account_id: server }), assignment)
    assert.equal((await readIp(c, ip)).extra_details.metal_account_id, server)
    assert.deepEqual(await c.ok('GET', `${P}/${ip}/assigns`), [assignment])
    assert.deepEqual(await c.ok('GET', `${P}/${ip}/assigns/${server}`), assignment)
    await c.fails(404, 'GET', `${P}/${ip}/assigns/${other}`)
    await c.fails(404, 'GET', `${P}/${ip}/assigns/99999`)
    assert.deepEqual(await c.ok('GET', `${P}/assignments-by-metal-account-id/${server}`), [assignment])
    assert.deepEqual(await c.ok('GET', `${P}/assignments-by-metal-account-id/${other}`), [])

    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: other })
    await c.fails(404, 'DELETE', `${P}/${ip}/assigns/${other}`)
    assert.equal(await c.ok('DELETE', `${P}/${ip}/assigns/${server}`), true)
    await c.fails(404, 'DELETE', `${P}/${ip}/assigns/${server}`)
    await c.fails(404, 'GET', `${P}/${ip}/assigns/${server}`)
    assert.deepEqual(await c.ok('GET', `${P}/${ip}/assigns`), [])
    assert.equal((await readIp(c, ip)).extra_details.metal_account_id, null)

    const moved = await c.ok<Assignment>('PUT', `${P}/${ip}/assigns`, { metal_account_id: other })
    assert.deepEqual([moved.metal_account_id, moved.assigned_at], [other, '2025-03-05 10:21:06'])
    // A server may hold several IPs, listed by IP id.
    const second = await c.ip()
    await c.ok('PUT', `${P}/${second}/assigns`, { metal_account_id: other })
    const held = await c.ok<Assignment[]>('GET', `${P}/assignments-by-metal-account-id/${other}`)
    assert.deepEqual(
      held.map((a) => [a.additional_ip_id, a.ip_address]),
      [
        [ip, '198.51.100.2'],
        [second, '198.51.100.3'],
      ],
    )
    // Assignments are not orders.
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 4)
  })

  test('A1 errors: 404 IP, 422 body and unknown server, 409 status of either side', async () => {
    const c = setup()
    const server = await c.server()
    const ip = await c.ip()
    await c.fails(404, 'PUT', `${P}/99999/assigns`, { metal_account_id: 'x' })
    await c.fails(404, 'PUT', `${P}/${server}/assigns`, { metal_account_id: server })
    assert.deepEqual(issueLocs(await c.fails(422, 'PUT', `${P}/${ip}/assigns`, {})), ['body.metal_account_id'])
    const typed = (await c.fails(422, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: String(server) })) as { type: string }[]
    assert.equal(typed[0]?.type, 'type_error')
    await c.fails(422, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: 99999 })
    await c.fails(422, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: ip })
    const vm = await c.vm()
    await c.fails(422, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: vm })

    const pendingIp = await c.ip({ active: false })
    await c.fails(409, 'PUT', `${P}/${pendingIp}/assigns`, { metal_account_id: server })
    const pendingServer = await c.server({ active: false })
    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: pendingServer })
    await c.advance(DELAY)
    await c.control('POST', `/accounts/${server}/status`, { status: 'Suspended' })
    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    await c.control('POST', `/accounts/${server}/status`, { status: 'Active' })
    await c.control('POST', `/accounts/${ip}/status`, { status: 'Suspended' })
    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    await c.control('POST', `/accounts/${ip}/status`, { status: 'Active' })
    await c.ok('DELETE', `/baremetals/${pendingServer}`)
    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: pendingServer })
    await c.ok('PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 5)
  })

  test('A2-A5 path errors', async () => {
    const c = setup()
    const server = await c.server()
    const ip = await c.ip()
    await c.fails(404, 'GET', `${P}/99999/assigns`)
    await c.fails(404, 'GET', `${P}/${server}/assigns`)
    await c.fails(404, 'GET', `${P}/${ip}/assigns/abc`)
    await c.fails(404, 'DELETE', `${P}/99999/assigns/${server}`)
    await c.fails(404, 'GET', `${P}/assignments-by-metal-account-id/99999`)
    await c.fails(404, 'GET', `${P}/assignments-by-metal-account-id/${ip}`)
    await c.fails(405, 'POST', `${P}/${ip}/assigns`, { metal_account_id: server })
  })

  test('M10: deleting the server removes its assignments; the IPs stay and can be reassigned', async () => {
    const c = setup()
    const server = await c.server()
    const other = await c.server()
    const a = await c.ip()
    const b = await c.ip()
    await c.ok('PUT', `${P}/${a}/assigns`, { metal_account_id: server })
    await c.ok('PUT', `${P}/${b}/assigns`, { metal_account_id: server })
    await c.ok('DELETE', `/baremetals/${server}`)
    assert.deepEqual(await c.ok('GET', `${P}/assignments-by-metal-account-id/${server}`), [])
    await c.fails(404, 'GET', `${P}/${a}/assigns/${server}`)
    const ip = await readIp(c, a)
    assert.deepEqual([ip.status, ip.extra_details.metal_account_id], ['Active', null])
    await c.ok('PUT', `${P}/${a}/assigns`, { metal_account_id: other })
    assert.deepEqual(await c.ok('GET', `${P}/${b}/assigns`), [])
  })

  test('I4: deleting the IP removes its assignment', async () => {
    const c = setup()
    const server = await c.server()
    const ip = await c.ip()
    await c.ok('PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    await c.ok('DELETE', `${P}/${ip}`)
    assert.deepEqual(await c.ok('GET', `${P}/assignments-by-metal-account-id/${server}`), [])
    assert.deepEqual(await c.ok('GET', `${P}/${ip}/assigns`), [])
    await c.fails(404, 'GET', `${P}/${ip}/assigns/${server}`)
    await c.fails(409, 'PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
  })

  test('a purged server leaves no assignment behind; drift of metal_account_id is read back', async () => {
    const c = setup()
    const server = await c.server()
    const other = await c.server()
    const ip = await c.ip()
    await c.ok('PUT', `${P}/${ip}/assigns`, { metal_account_id: server })
    await c.control('DELETE', `/accounts/${server}`)
    assert.deepEqual(await c.ok('GET', `${P}/${ip}/assigns`), [])
    await c.control('PATCH', `/accounts/${ip}`, { extra_details: { metal_account_id: other } })
    const drifted = await c.ok<Json[]>('GET', `${P}/${ip}/assigns`)
    assert.equal((drifted[0] as unknown as Assignment).metal_account_id, other)
  })
})

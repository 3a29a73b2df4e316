// The Metal, additional-IP and elastic-storage calls against the in-process emulator, on its manual
// clock: the client's waits move that clock through the control API instead of sleeping.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Client, createClient } from '../src/api/client.js'
import { ApiError } from '../src/api/errors.js'
import { createEmulator } from '../src/emulator/index.js'

const BASE = 'http://emulator.invalid'

function setup() {
  const emulator = createEmulator({ clock: 'manual', provisioningDelayMs: 2000 })
  const control = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      init.headers = { 'content-type': 'application/json' }
    }
    const response = await emulator.fetch(new Request(`${BASE}/_emulator${path}`, init))
    assert.ok(response.ok, `${method} ${path} answered ${response.status}`)
    return ((await response.json()) as { data: unknown }).data
  }
  const client: Client = createClient({
    baseUrl: `${BASE}/v1`,
    apiKey: 'emulator-key',
    userAgent: 'provider-test/0.1.0',
    fetch: (request) => emulator.fetch(request),
    now: () => emulator.now(),
    sleep: async (ms) => {
      await control('POST', '/clock', { advance_ms: ms })
    },
    pollIntervalMs: 1000,
  })
  return { client, control }
}

const failsWith = (status: number) => (error: unknown) => error instanceof ApiError && error.status === status

async function activeServer(client: Client, label = 'db-primary') {
  const keypair = await client.baremetals.createKeypair({ name: `key-${label}` })
  const order = await client.baremetals.createServer({ product_id: 301, cycle: 'm', keypair_id: keypair.keypair_id, label })
  const { account } = await client.waitForActive(() => client.baremetals.getServer(order.account_id), {
    timeoutMs: 600_000,
    orderedAt: client.now(),
    orderId: order.order_id,
  })
  return { order, account, keypair }
}

describe('Metal servers against the emulator', () => {
  test('M1-M10 and the Metal keypair pool', async () => {
    const { client, control } = setup()
    const api = client.baremetals
    const imported = await api.importKeypair({
      name: 'imported',
      public_key: (await api.createKeypair({ name: 'donor' })).public_key,
    })
    assert.equal((await api.findKeypair(imported.keypair_id))?.origin, 'imported')

    const { order, account, keypair } = await activeServer(client)
    assert.match(order.account_id, /^\d+$/)
    assert.equal(account.status, 'Active')
    assert.equal(account.order_id, order.order_id)
    assert.deepEqual(
      [account.extra_details.label, account.extra_details.select_os, account.extra_details.keypair_id, account.extra_details.public_ip],
      ['db-primary', 'ubuntu-22', keypair.keypair_id, 1],
    )
    assert.equal(account.extra_details.ip_address, '203.0.113.10')
    assert.equal(account.extra_details.region, 'wjv-1')
    const id = order.account_id

    assert.deepEqual((await api.getPowerState(id)).state, 'on')
    await api.setPowerState(id, 'off')
    assert.equal((await api.getPowerState(id)).state, 'off')
    await api.setPowerState(id, 'reset')
    assert.equal((await api.getPowerState(id)).state, 'on')
    assert.deepEqual(await api.listPowerStates(), ['on', 'off', 'reset'])

    await api.setLabel(id, { label: 'db-renamed' })
    assert.equal((await api.getServer(id)).extra_details.label, 'db-renamed')

    assert.deepEqual(await api.listRebuildOss(id), ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'])
    await api.rebuildServer(id, { os: 'debian-12' })
    assert.equal((await api.getServer(id)).status, 'Pending')
    await assert.rejects(api.getPowerState(id), failsWith(409))
    const rebuilt = await client.waitForActive(() => api.getServer(id), { timeoutMs: 600_000 })
    assert.equal(rebuilt.account.extra_details.select_os, 'debian-12')

    const listed = await api.listServers()
    assert.deepEqual(
      listed.map((s) => s.account_id),
      [id],
    )
    await api.deleteServer(id)
    assert.equal((await api.getServer(id)).status, 'Terminated')
    assert.deepEqual(await api.listServers(), [])
    assert.equal((await api.listServers({ status: ['Terminated'] })).length, 1)

    const orders = (await control('GET', '/orders')) as { by_kind: Record<string, number>; orders: { idempotency_key: string | null }[] }
    assert.deepEqual(orders.by_kind, { 'baremetal.create': 1 })
    assert.ok(orders.orders.every((o) => typeof o.idempotency_key === 'string' && o.idempotency_key.length > 0))
  })

  test('M11-M13 and decoded errors', async () => {
    const { client } = setup()
    const api = client.baremetals
    const products = await api.listProducts()
    assert.deepEqual(
      products.map((p) => [p.product_id, p.stock, p.out_of_stock]),
      [
        [301, 5, false],
        [302, 2, false],
        [303, 0, true],
      ],
    )
    assert.deepEqual(
      products[0]?.billing.map((b) => [b.cycle, b.price]),
      [
        ['m', 1_500_000],
        ['a', 18_000_000],
      ],
    )
    assert.equal((await api.getProduct(302)).name, 'Metal M')
    const oss = await api.listProductOss(301)
    assert.deepEqual(
      oss.linux?.map((o) => o.value),
      ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'],
    )
    assert.match((await api.getOpenvpn()).config, /^client\n/)
    await assert.rejects(api.getProduct(999), (error: unknown) => error instanceof ApiError && error.notFound)

    const keypair = await api.createKeypair({ name: 'k' })
    await assert.rejects(api.createServer({ product_id: 303, cycle: 'm', keypair_id: keypair.keypair_id, label: 'big' }), failsWith(409))
    await assert.rejects(
      api.createServer({ product_id: 301, cycle: 'q', keypair_id: keypair.keypair_id, label: '', public_ip: 2 }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError)
        assert.equal(error.status, 422)
        assert.deepEqual(error.fields.map((f) => f.field).sort(), ['cycle', 'label', 'public_ip'])
        return true
      },
    )
    await assert.rejects(api.getServer('999999'), (error: unknown) => error instanceof ApiError && error.notFound)
  })
})

describe('additional IPs and assignments against the emulator', () => {
  test('I1-I6 and A1-A5', async () => {
    const { client } = setup()
    const ips = client.additionalIps
    const server = (await activeServer(client)).order.account_id

    assert.deepEqual(await ips.listRegions(), ['wjv-1', 'cjv-1'])
    const products = await ips.listProducts()
    assert.deepEqual(
      products.map((p) => p.product_id),
      [401],
    )
    assert.equal((await ips.getProduct(401)).billing.length, 2)

    const order = await ips.createIp({ product_id: 401, cycle: 'm', region: 'cjv-1' })
    const { account } = await client.waitForActive(() => ips.getIp(order.account_id), { timeoutMs: 600_000 })
    assert.deepEqual(
      [account.extra_details.ip_address, account.extra_details.region, account.extra_details.metal_account_id],
      ['198.51.100.2', 'cjv-1', null],
    )
    const ip = order.account_id

    const assignment = await ips.assign(ip, { metal_account_id: server })
    assert.deepEqual(
      [assignment.additional_ip_id, assignment.metal_account_id, assignment.ip_address, assignment.status],
      [ip, server, '198.51.100.2', 'Active'],
    )
    assert.deepEqual(await ips.assign(ip, { metal_account_id: server }), assignment)
    assert.deepEqual(await ips.getAssignment(ip, server), assignment)
    assert.deepEqual(await ips.listAssignments(ip), [assignment])
    assert.deepEqual(await ips.listAssignmentsOfServer(server), [assignment])
    assert.equal((await ips.getIp(ip)).extra_details.metal_account_id, server)

    const other = (await activeServer(client, 'other')).order.account_id
    await assert.rejects(ips.assign(ip, { metal_account_id: other }), failsWith(409))
    await assert.rejects(ips.assign(ip, { metal_account_id: '999999' }), failsWith(422))
    await assert.rejects(ips.getAssignment(ip, other), (error: unknown) => error instanceof ApiError && error.notFound)

    await ips.unassign(ip, server)
    assert.deepEqual(await ips.listAssignments(ip), [])
    await ips.assign(ip, { metal_account_id: other })
    await client.baremetals.deleteServer(other)
    assert.deepEqual(await ips.listAssignmentsOfServer(other), [])

    assert.deepEqual(
      (await ips.listIps()).map((a) => a.account_id),
      [ip],
    )
    await ips.deleteIp(ip)
    assert.equal((await ips.getIp(ip)).status, 'Terminated')
  })
})

describe('elastic storage against the emulator', () => {
  test('E1-E7', async () => {
    const { client, control } = setup()
    const storages = client.elasticStorages
    const server = (await activeServer(client)).order.account_id

    const products = await storages.listProducts()
    assert.deepEqual(
      products.map((p) => [p.product_id, p.options.iops, p.options.min_size, p.options.max_size]),
      [
        [501, 5000, 1, 10240],
        [502, 10000, 1, 10240],
      ],
    )
    assert.equal((await storages.getProduct(502)).name, 'Elastic Storage UltraFast')

    const order = await storages.createStorage({ product_id: 501, cycle: 'm', storage_name: 'db-volume', metal_account_id: server })
    const { account } = await client.waitForActive(() => storages.getStorage(order.account_id), { timeoutMs: 600_000 })
    assert.deepEqual(
      [account.extra_details.storage_name, account.extra_details.size, account.extra_details.metal_account_id, account.recurring_amount],
      ['db-volume', 100, server, 100_000],
    )
    const id = order.account_id

    await assert.rejects(storages.resizeStorage(id, { size: 100 }), (error: unknown) => {
      assert.ok(error instanceof ApiError)
      assert.equal(error.status, 422)
      assert.deepEqual(
        error.fields.map((f) => f.field),
        ['size'],
      )
      return true
    })
    const resize = await storages.resizeStorage(id, { size: 200 })
    assert.equal(resize.account_id, id)
    const resized = await client.waitForActive(() => storages.getStorage(id), { timeoutMs: 600_000 })
    assert.equal(resized.account.extra_details.size, 200)

    const change = await storages.changeStorageProduct(id, { new_product_id: 502 })
    assert.equal(change.account_id, id)
    const changed = await client.waitForActive(() => storages.getStorage(id), { timeoutMs: 600_000 })
    assert.deepEqual([changed.account.product_id, changed.account.recurring_amount], [502, 400_000])

    const unpaid = await storages.resizeStorage(id, { size: 300, pay_invoice_with_cc: false })
    assert.equal(unpaid.account_id, id)
    const waited = await client.waitForActive(() => storages.getStorage(id), { timeoutMs: 600_000 })
    assert.equal(waited.unpaidInvoice?.status, 'Unpaid')

    assert.deepEqual(
      (await storages.listStorages({ status: ['Pending'] })).map((s) => s.account_id),
      [id],
    )
    await storages.deleteStorage(id)
    assert.equal((await storages.getStorage(id)).status, 'Terminated')

    const orders = (await control('GET', '/orders')) as { by_kind: Record<string, number> }
    assert.deepEqual(orders.by_kind, {
      'baremetal.create': 1,
      'elastic_storage.create': 1,
      'elastic_storage.resize': 2,
      'elastic_storage.change_package': 1,
    })
  })
})

describe('Metal families with ids as strings and bare lists (quirks)', () => {
  test('decode the same', async () => {
    const { client, control } = setup()
    await control('PATCH', '/config', { quirks: { ids_as_strings: true, bare_lists: true } })
    const { order, keypair } = await activeServer(client)
    assert.equal(typeof keypair.keypair_id, 'number')
    const servers = await client.baremetals.listServers()
    assert.equal(servers[0]?.account_id, order.account_id)
    assert.equal(servers[0]?.product_id, 301)
    assert.equal(servers[0]?.extra_details.keypair_id, keypair.keypair_id)
    assert.equal((await client.baremetals.listProducts())[0]?.product_id, 301)

    const ip = await client.additionalIps.createIp({ product_id: 401, cycle: 'a' })
    await client.waitForActive(() => client.additionalIps.getIp(ip.account_id), { timeoutMs: 600_000 })
    const assignment = await client.additionalIps.assign(ip.account_id, { metal_account_id: order.account_id })
    assert.deepEqual([assignment.additional_ip_id, assignment.metal_account_id], [ip.account_id, order.account_id])
    assert.equal((await client.additionalIps.listAssignmentsOfServer(order.account_id)).length, 1)

    const storage = await client.elasticStorages.createStorage({
      product_id: 502,
      cycle: 'a',
      storage_name: 'vol',
      metal_account_id: order.account_id,
      size: 10,
    })
    const { account } = await client.waitForActive(() => client.elasticStorages.getStorage(storage.account_id), {
      timeoutMs: 600_000,
    })
    assert.deepEqual([account.product_id, account.extra_details.metal_account_id], [502, order.account_id])
  })
})

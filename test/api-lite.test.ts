// The Lite calls against the in-process emulator, on its manual clock: the client's waits move that
// clock through the control API instead of sleeping.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from '../src/emulator/index.js'
import { type Client, createClient } from '../src/api/client.js'
import { ApiError } from '../src/api/errors.js'

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
    baseUrl: `${BASE}/v1/`,
    apiKey: 'emulator-key',
    userAgent: 'provider-terraform/0.1.0',
    fetch: (request) => emulator.fetch(request),
    now: () => emulator.now(),
    sleep: async (ms) => {
      await control('POST', '/clock', { advance_ms: ms })
    },
    pollIntervalMs: 1000,
  })
  return { client, control }
}

const VM = {
  product_id: 101,
  cycle: 'm',
  select_os: 'Ubuntu-22.04',
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  vm_name: 'web-server-01',
}

for (const [group, product] of [
  ['lites', 101],
  ['litePros', 201],
] as const) {
  describe(`${group} against the emulator`, () => {
    test('keypair, VM, wait, details, rename, storage upgrade, delete', async () => {
      const { client, control } = setup()
      const api = client[group]
      const keypair = await api.createKeypair({ name: 'deploy-key' })
      assert.match(keypair.private_key ?? '', /^-----BEGIN OPENSSH PRIVATE KEY-----/)
      assert.equal((await api.findKeypair(keypair.keypair_id))?.name, 'deploy-key')

      const order = await api.createVm({ ...VM, product_id: product, keypair_id: keypair.keypair_id })
      assert.match(order.account_id, /^\d+$/)
      const orderedAt = client.now()
      const { account, unpaidInvoice } = await client.waitForActive(() => api.getVm(order.account_id), {
        timeoutMs: 600_000,
        orderedAt,
        orderId: order.order_id,
      })
      assert.equal(unpaidInvoice, undefined)
      assert.equal(account.status, 'Active')
      assert.equal(account.order_id, order.order_id)
      assert.equal(account.extra_details.keypair_id, keypair.keypair_id)
      assert.equal(typeof account.extra_details.disk_size, 'number')

      const details = await api.getVmDetails(order.account_id)
      assert.equal(details.name, 'web-server-01')
      await api.renameVm(order.account_id, { name: 'web-server-02' })
      assert.equal((await api.getVm(order.account_id)).extra_details.name, 'web-server-02')

      const target = account.extra_details.disk_size + 10
      const upgrade = await api.upgradeStorage(order.account_id, { disk_size: target })
      assert.equal(upgrade.account_id, order.account_id)
      const upgraded = await client.waitForActive(() => api.getVm(order.account_id), { timeoutMs: 600_000 })
      assert.equal(upgraded.account.extra_details.disk_size, target)

      const orders = (await control('GET', '/orders')) as { orders: { idempotency_key: string | null }[] }
      const keys = orders.orders.map((o) => o.idempotency_key)
      assert.equal(keys.length, 2)
      assert.ok(keys.every((k) => typeof k === 'string' && k.length > 0))
      assert.notEqual(keys[0], keys[1])

      await api.deleteVm(order.account_id)
      assert.equal((await api.getVm(order.account_id)).status, 'Terminated')
      await api.deleteKeypair(keypair.keypair_id)
      assert.equal(await api.findKeypair(keypair.keypair_id), null)
    })

    test('an unpaid order stops the wait with the invoice', async () => {
      const { client } = setup()
      const api = client[group]
      const keypair = await api.createKeypair({ name: 'deploy-key' })
      const order = await api.createVm({
        ...VM,
        product_id: product,
        keypair_id: keypair.keypair_id,
        pay_invoice_with_cc: false,
      })
      const result = await client.waitForActive(() => api.getVm(order.account_id), { timeoutMs: 600_000 })
      assert.equal(result.account.status, 'Pending')
      assert.equal(result.unpaidInvoice?.status, 'Unpaid')
    })

    test('catalog and validation errors decode', async () => {
      const { client } = setup()
      const api = client[group]
      const products = await api.listProducts()
      assert.ok(products.some((p) => p.product_id === product))
      assert.equal(typeof products[0]?.options.allow_downgrade, 'boolean')
      const oss = await api.listOss(product)
      assert.ok(oss.some((os) => os.name === 'Ubuntu-22.04'))
      await assert.rejects(
        api.createVm({ ...VM, product_id: product, keypair_id: 999, console_password: 'weak', cycle: 'x' }),
        (error: unknown) => {
          assert.ok(error instanceof ApiError)
          assert.equal(error.status, 422)
          const fields = error.fields.map((f) => f.field)
          assert.ok(fields.includes('console_password'), fields.join())
          assert.ok(fields.includes('cycle'), fields.join())
          assert.ok(error.requestId !== undefined)
          return true
        },
      )
      await assert.rejects(api.getVm('999999'), (error: unknown) => error instanceof ApiError && error.notFound)
    })
  })
}

describe('Lite ids as strings and bare lists (quirks)', () => {
  test('decode the same', async () => {
    const { client, control } = setup()
    await control('PATCH', '/config', { quirks: { ids_as_strings: true, bare_lists: true } })
    const keypair = await client.lites.createKeypair({ name: 'deploy-key' })
    assert.equal(typeof keypair.keypair_id, 'number')
    const order = await client.lites.createVm({ ...VM, keypair_id: keypair.keypair_id })
    const vms = await client.lites.listVms({ status: ['Pending', 'Active'] })
    assert.equal(vms[0]?.account_id, order.account_id)
    assert.equal(vms[0]?.product_id, 101)
    assert.equal(vms[0]?.extra_details.keypair_id, keypair.keypair_id)
  })
})

// The Metal families' calls against a recording fetch: each Metal server, additional-IP and
// elastic-storage call sends its method, path and body as the API describes them, and their answers
// decode leniently (ids as numbers or strings, a null ip_address kept).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Client } from './client.js'
import { ok, testClient } from '../../test/support/fake-fetch.js'

const ORDER = { order_id: '500030', account_id: '100070' }
const ASSIGNMENT = {
  additional_ip_id: 100080,
  metal_account_id: '100070',
  ip_address: '198.51.100.7',
  status: 'Active',
  assigned_at: '2025-03-05 10:25:00',
}

type Call = {
  call: (c: Client) => Promise<unknown>
  method: string
  path: string
  body?: unknown
  order?: boolean
  /** A one-shot destructive action: sent with an Idempotency-Key through the order journal. */
  oneShot?: boolean
  /** Safe to send again (RequestSpec.repeatable): a key of its own, so that it may be retried. */
  repeatable?: boolean
  /** An order on an account: the account's path, read just before the order is sent. */
  before?: string
  reply?: unknown
}

// One row per Metal, additional IP and elastic storage call: path, wire body, order or not.
const CALLS: Record<string, Call> = {
  M1: {
    call: (c) => c.baremetals.createServer({ product_id: 301, cycle: 'm', keypair_id: 9, label: 'db-primary', pay_invoice_with_cc: true }),
    method: 'POST',
    path: '/baremetals',
    body: { product_id: 301, cycle: 'm', keypair_id: 9, label: 'db-primary', pay_invoice_with_cc: true },
    order: true,
  },
  M2: {
    call: (c) => c.baremetals.listServers({ status: ['Terminated'] }),
    method: 'GET',
    path: '/baremetals/accounts?status=Terminated',
    reply: [],
  },
  M4: {
    call: (c) => c.baremetals.getPowerState('100070'),
    method: 'GET',
    path: '/baremetals/accounts/100070/state',
    reply: { state: 'on' },
  },
  M5: {
    call: (c) => c.baremetals.setPowerState('100070', 'reset'),
    method: 'PUT',
    path: '/baremetals/accounts/100070/state/reset',
    oneShot: true,
  },
  M6: { call: (c) => c.baremetals.listPowerStates(), method: 'GET', path: '/baremetals/states', reply: ['on', 'off', 'reset'] },
  M7: {
    call: (c) => c.baremetals.setLabel('100070', { label: 'db' }),
    method: 'PUT',
    path: '/baremetals/100070',
    body: { label: 'db' },
    repeatable: true,
  },
  'M5 off': {
    call: (c) => c.baremetals.setPowerState('100070', 'off'),
    method: 'PUT',
    path: '/baremetals/accounts/100070/state/off',
    repeatable: true,
  },
  M8: {
    call: (c) => c.baremetals.rebuildServer('100070', { os: 'debian-12' }),
    method: 'PUT',
    path: '/baremetals/100070/rebuild',
    body: { os: 'debian-12' },
    oneShot: true,
  },
  M9: { call: (c) => c.baremetals.listRebuildOss('100070'), method: 'GET', path: '/baremetals/100070/rebuild/oss', reply: ['ubuntu-22'] },
  M10: { call: (c) => c.baremetals.deleteServer('100070'), method: 'DELETE', path: '/baremetals/100070' },
  M11: {
    call: (c) => c.baremetals.getProduct(301),
    method: 'GET',
    path: '/baremetals/products/301',
    reply: { product_id: 301, name: 'Metal S', description: '', out_of_stock: false, stock: 5, billing: [] },
  },
  M12: {
    call: (c) => c.baremetals.listProductOss(301),
    method: 'GET',
    path: '/baremetals/products/301/oss',
    reply: { linux: [{ label: 'Ubuntu 22.04', value: 'ubuntu-22' }] },
  },
  M13: { call: (c) => c.baremetals.getOpenvpn(), method: 'GET', path: '/baremetals/openvpn', reply: { config: 'client' } },
  MK: { call: (c) => c.baremetals.listKeypairs(), method: 'GET', path: '/baremetals/keypairs/', reply: [] },
  I1: {
    call: (c) => c.additionalIps.createIp({ product_id: 401, cycle: 'a', region: 'cjv-1' }),
    method: 'POST',
    path: '/baremetal-additional-ips',
    body: { product_id: 401, cycle: 'a', region: 'cjv-1' },
    order: true,
  },
  I2: { call: (c) => c.additionalIps.listIps(), method: 'GET', path: '/baremetal-additional-ips', reply: [] },
  I4: { call: (c) => c.additionalIps.deleteIp('100080'), method: 'DELETE', path: '/baremetal-additional-ips/100080' },
  I6: { call: (c) => c.additionalIps.listRegions(), method: 'GET', path: '/baremetal-additional-ips/regions', reply: ['wjv-1'] },
  A1: {
    call: (c) => c.additionalIps.assign('100080', { metal_account_id: '100070' }),
    method: 'PUT',
    path: '/baremetal-additional-ips/100080/assigns',
    body: { metal_account_id: 100070 },
    reply: ASSIGNMENT,
    repeatable: true,
  },
  A3: {
    call: (c) => c.additionalIps.getAssignment('100080', '100070'),
    method: 'GET',
    path: '/baremetal-additional-ips/100080/assigns/100070',
    reply: ASSIGNMENT,
  },
  A4: {
    call: (c) => c.additionalIps.unassign('100080', 100070),
    method: 'DELETE',
    path: '/baremetal-additional-ips/100080/assigns/100070',
  },
  A5: {
    call: (c) => c.additionalIps.listAssignmentsOfServer('100070'),
    method: 'GET',
    path: '/baremetal-additional-ips/assignments-by-metal-account-id/100070',
    reply: [ASSIGNMENT],
  },
  E1: {
    call: (c) =>
      c.elasticStorages.createStorage({ product_id: 501, cycle: 'm', storage_name: 'db-volume', metal_account_id: '100070', size: 100 }),
    method: 'POST',
    path: '/baremetal-elastic-storages',
    body: { product_id: 501, cycle: 'm', storage_name: 'db-volume', metal_account_id: 100070, size: 100 },
    order: true,
  },
  E4: {
    call: (c) => c.elasticStorages.resizeStorage('100090', { size: 200 }),
    method: 'PUT',
    path: '/baremetal-elastic-storages/100090',
    body: { size: 200 },
    order: true,
    before: '/baremetal-elastic-storages/100090',
  },
  E5: {
    call: (c) => c.elasticStorages.changeStorageProduct('100090', { new_product_id: 502, pay_invoice_with_cc: false }),
    method: 'POST',
    path: '/baremetal-elastic-storages/100090',
    body: { new_product_id: 502, pay_invoice_with_cc: false },
    order: true,
    before: '/baremetal-elastic-storages/100090',
  },
  E6: { call: (c) => c.elasticStorages.deleteStorage('100090'), method: 'DELETE', path: '/baremetal-elastic-storages/100090' },
  E7: {
    call: (c) => c.elasticStorages.listProducts(),
    method: 'GET',
    path: '/baremetal-elastic-storages/products',
    reply: [{ product_id: 501, name: 'Std', description: '', options: { iops: 5000, min_size: 1, max_size: 10240 }, billing: [] }],
  },
}

describe('Metal, additional IP and elastic storage calls', () => {
  for (const [name, spec] of Object.entries(CALLS)) {
    test(`${name}: ${spec.method} ${spec.path}`, async () => {
      // An order on an account reads it first: its last invoice tells the order's apart if the answer is lost.
      const { client, requests } = testClient([...(spec.before ? [ok({})] : []), ok(spec.order ? ORDER : (spec.reply ?? true))])
      const result = await spec.call(client)
      if (spec.before) assert.deepEqual([requests[0]?.method, requests[0]?.path], ['GET', spec.before])
      const request = requests[spec.before ? 1 : 0]
      assert.equal(request?.method, spec.method)
      assert.equal(request?.path, spec.path)
      assert.deepEqual(request?.body, spec.body)
      // Orders and one-shot actions carry a key for exactly-once; a delete or a repeatable call one of its own, so that it may be retried.
      assert.equal(
        request?.headers.get('idempotency-key') !== null,
        spec.order === true || spec.oneShot === true || spec.repeatable === true || spec.method === 'DELETE',
      )
      if (spec.order) assert.deepEqual(result, ORDER)
    })
  }

  test('assignment ids are account ids, as strings', async () => {
    const { client } = testClient([ok(ASSIGNMENT)])
    const assignment = await client.additionalIps.assign('100080', { metal_account_id: 100070 })
    assert.equal(assignment.additional_ip_id, '100080')
    assert.equal(assignment.metal_account_id, '100070')
  })

  test('a server account decodes ids leniently and keeps a null ip_address', async () => {
    const { client } = testClient([
      ok({
        account_id: '100070',
        status: 'Pending',
        billingcycle: 'Monthly',
        date_created: '2025-03-04',
        next_due: '2025-04-04',
        recurring_amount: 1500000,
        product_id: '301',
        product_name: 'Metal S',
        description: '',
        order_id: '500030',
        last_invoice: null,
        extra_details: { label: 'db', select_os: 'ubuntu-22', keypair_id: '9', public_ip: 1, ip_address: null },
      }),
    ])
    const server = await client.baremetals.getServer(100070)
    assert.equal(server.extra_details.keypair_id, 9)
    assert.equal(server.extra_details.ip_address, null)
    assert.equal(server.product_id, 301)
  })
})

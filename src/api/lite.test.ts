// The Lite and Lite Pro calls against a recording fetch: each call of both groups sends its method,
// path and body as the API describes them, migration exists only under /lites, and answers decode
// leniently (ids, plans, snapshot and disk accounts, keypairs kept byte for byte).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Client } from './client.js'
import { fail, ok, type RecordedRequest, testClient } from '../../test/support/fake-fetch.js'

const ORDER = { order_id: 500017, account_id: 100042 }
const PLAN = {
  product_id: '101',
  name: 'XS 1.1',
  description: '1 vCPU',
  category_id: '10',
  category_name: 'Lite',
  options: { type: 'vps', cores: 1, memory: 1024, disk: 20, allow_downgrade: 1 },
  billing: [{ label: 'Monthly', cycle: 'm', price: 60000, components: null }],
}

type Call = {
  call: (c: Client, group: 'lites' | 'litePros') => Promise<unknown>
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

// One row per Lite call: the path under the group, the wire body, and whether it is an order.
const CALLS: Record<string, Call> = {
  L1: {
    call: (c, g) =>
      c[g].createVm({
        product_id: 101,
        cycle: 'm',
        select_os: 'Ubuntu-22.04',
        keypair_id: 7,
        ssh_and_console_user: 'deployer',
        console_password: 'S3cretPass9',
        vm_name: 'web-server-01',
        pay_invoice_with_cc: false,
      }),
    method: 'POST',
    path: '',
    body: {
      product_id: 101,
      cycle: 'm',
      select_os: 'Ubuntu-22.04',
      keypair_id: 7,
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      vm_name: 'web-server-01',
      pay_invoice_with_cc: false,
    },
    order: true,
  },
  L2: {
    call: (c, g) => c[g].listVms({ status: ['Active', 'Pending'] }),
    method: 'GET',
    path: '/accounts?status=Active&status=Pending',
    reply: [],
  },
  L4: {
    call: (c, g) => c[g].getVmDetails('100042'),
    method: 'GET',
    path: '/accounts/100042/vm-details',
    reply: { vmid: 1042, name: 'web', status: 'running', uptime: 1, maxdisk: 2, maxmem: 3, mem: 4, cpus: 1 },
  },
  L5: {
    call: (c, g) => c[g].setVmState('100042', 'shutdown'),
    method: 'PUT',
    path: '/accounts/100042/vm-state/shutdown',
    repeatable: true,
  },
  L6: {
    call: (c, g) => c[g].rebuildVm('100042', { select_os: 'Debian-12' }),
    method: 'PUT',
    path: '/accounts/100042/rebuild',
    body: { select_os: 'Debian-12' },
    oneShot: true,
  },
  L7: {
    call: (c, g) => c[g].renameVm(100042, { name: 'web-server-02' }),
    method: 'PUT',
    path: '/accounts/100042/change-vm-name',
    body: { name: 'web-server-02' },
    repeatable: true,
  },
  L8: {
    call: (c, g) => c[g].changeVmKeypair('100042', { keypair_id: 9 }),
    method: 'PUT',
    path: '/accounts/100042/keypair',
    body: { keypair_id: 9 },
    repeatable: true,
  },
  L9: {
    call: (c, g) => c[g].getChangePackageOptions('100042'),
    method: 'GET',
    path: '/accounts/100042/change-package',
    reply: { account_id: '100042', current_product_id: 101, billingcycle: 'Monthly', packages: [] },
  },
  L10: {
    call: (c, g) => c[g].changePackage('100042', { new_product_id: 102, pay_invoice_with_cc: true }),
    method: 'POST',
    path: '/accounts/100042/change-package',
    body: { new_product_id: 102, pay_invoice_with_cc: true },
    order: true,
    before: '/accounts/100042',
  },
  L11: {
    call: (c, g) => c[g].getStorageOptions('100042'),
    method: 'GET',
    path: '/accounts/100042/storage',
    reply: { account_id: '100042', disk_size: 20, max_disk_size: 500, unit: 'GB', billingcycle: 'Monthly', price_per_gb: 1000 },
  },
  L12: {
    call: (c, g) => c[g].upgradeStorage('100042', { disk_size: 40 }),
    method: 'PUT',
    path: '/accounts/100042/storage',
    body: { disk_size: 40 },
    order: true,
    before: '/accounts/100042',
  },
  L15: { call: (c, g) => c[g].deleteVm('100042'), method: 'DELETE', path: '/100042' },
  S1: {
    call: (c, g) => c[g].createSnapshot('100042', { cycle: 'm', name: 'snap-before-up' }),
    method: 'POST',
    path: '/accounts/100042/snapshot',
    body: { cycle: 'm', name: 'snap-before-up' },
    order: true,
  },
  S2: { call: (c, g) => c[g].listSnapshots(), method: 'GET', path: '/snapshots/accounts', reply: [] },
  S4: {
    call: (c, g) =>
      c[g].createVmFromSnapshot('100051', {
        product_id: 102,
        cycle: 'm',
        keypair_id: 7,
        name: 'restored-01',
        ssh_and_console_user: 'deployer',
        console_password: 'S3cretPass9',
        promocode: 'PROMO10',
      }),
    method: 'POST',
    path: '/snapshots/accounts/100051/create',
    body: {
      product_id: 102,
      cycle: 'm',
      keypair_id: 7,
      name: 'restored-01',
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      promocode: 'PROMO10',
    },
    order: true,
  },
  S5: { call: (c, g) => c[g].restoreSnapshot('100051'), method: 'PUT', path: '/snapshots/accounts/100051/restore', oneShot: true },
  S6: { call: (c, g) => c[g].deleteSnapshot('100051'), method: 'DELETE', path: '/snapshots/100051' },
  S7: { call: (c, g) => c[g].getSnapshotProduct(70), method: 'GET', path: '/snapshots/products/70', reply: PLAN },
  D1: {
    call: (c, g) => c[g].createDisk({ product_id: 60, cycle: 'm', lite_account_id: '100042', size: 80 }),
    method: 'POST',
    path: '/disks',
    body: { product_id: 60, cycle: 'm', lite_account_id: 100042, size: 80 },
    order: true,
    oneShot: true,
  },
  D2: { call: (c, g) => c[g].listDisks(), method: 'GET', path: '/disks/accounts', reply: [] },
  D4: {
    call: (c, g) => c[g].upgradeDisk('100060', { additional_size: 20 }),
    method: 'PUT',
    path: '/disks/accounts/100060',
    body: { additional_size: 20 },
    order: true,
    before: '/disks/accounts/100060',
  },
  D5: { call: (c, g) => c[g].deleteDisk('100060'), method: 'DELETE', path: '/disks/100060' },
  D6: { call: (c, g) => c[g].listDiskProducts(), method: 'GET', path: '/disks/products', reply: [PLAN] },
  K1: { call: (c, g) => c[g].listKeypairs(), method: 'GET', path: '/keypairs/', reply: [] },
  K2: {
    call: (c, g) => c[g].createKeypair({ name: 'deploy-key' }),
    method: 'POST',
    path: '/keypairs/',
    body: { name: 'deploy-key' },
    reply: { keypair_id: 1, name: 'deploy-key', public_key: 'ssh-ed25519 AAAA', private_key: 'PK' },
    repeatable: true,
  },
  K3: {
    call: (c, g) => c[g].importKeypair({ name: 'mine', public_key: 'ssh-ed25519 AAAA me' }),
    method: 'POST',
    path: '/keypairs/import',
    body: { name: 'mine', public_key: 'ssh-ed25519 AAAA me' },
    reply: { keypair_id: 2, name: 'mine', public_key: 'ssh-ed25519 AAAA me' },
    repeatable: true,
  },
  K4: { call: (c, g) => c[g].deleteKeypair(2), method: 'DELETE', path: '/keypairs/2' },
  C1: { call: (c, g) => c[g].listProducts(), method: 'GET', path: '/products', reply: [PLAN] },
  C2: { call: (c, g) => c[g].getProduct(101), method: 'GET', path: '/products/101', reply: PLAN },
  C3: {
    call: (c, g) => c[g].listOss(101),
    method: 'GET',
    path: '/products/101/oss',
    reply: [{ vmid: 9001, node: 'node-01', name: 'Ubuntu-22.04', maxmem: 1073741824, maxcpu: 1 }],
  },
  C4: { call: (c, g) => c[g].getIpAvailability(101), method: 'GET', path: '/products/101/ip-availability', reply: { available: true } },
}

for (const [group, prefix] of [
  ['lites', '/lites'],
  ['litePros', '/lite-pros'],
] as const) {
  describe(`${prefix} calls`, () => {
    for (const [name, spec] of Object.entries(CALLS)) {
      test(`${name}: ${spec.method} ${prefix}${spec.path}`, async () => {
        const reply = spec.order ? ORDER : (spec.reply ?? true)
        // An order on an account reads it first: its last invoice tells the order's apart if the answer is lost.
        const { client, requests } = testClient([...(spec.before ? [ok({})] : []), ok(reply)])
        const result = await spec.call(client, group)
        if (spec.before) assert.deepEqual([requests[0]?.method, requests[0]?.path], ['GET', `${prefix}${spec.before}`])
        const request = requests[spec.before ? 1 : 0]
        assert.equal(request?.method, spec.method)
        assert.equal(request?.path, `${prefix}${spec.path}`)
        assert.deepEqual(request?.body, spec.body)
        // Orders and one-shot actions carry a key for exactly-once; a delete or a repeatable call one of its own, so that it may be retried.
        assert.equal(
          request?.headers.get('idempotency-key') !== null,
          spec.order === true || spec.oneShot === true || spec.repeatable === true || spec.method === 'DELETE',
        )
        if (spec.order) assert.deepEqual(result, { order_id: '500017', account_id: '100042' })
      })
    }
  })
}

describe('migration (Lite only)', () => {
  test('L13 and L14 live under /lites; Lite Pro has no such calls', async () => {
    // The migration reads the VM first (in Lite Pro, where a placed one moves it, then in Lite).
    const { client, requests } = testClient([ok([PLAN]), fail(404, 'not found'), ok({}), ok(ORDER)])
    await client.lites.listMigrateToProProducts('100042')
    const order = await client.lites.migrateToPro('100042', { lite_pro_product_id: 201 })
    assert.deepEqual(order, { order_id: '500017', account_id: '100042' })
    assert.deepEqual(
      requests.map((r) => r.path),
      [
        '/lites/accounts/100042/migrate-to-pro/products',
        '/lite-pros/accounts/100042',
        '/lites/accounts/100042',
        '/lites/accounts/100042/migrate-to-pro',
      ],
    )
    assert.deepEqual(requests[3]?.body, { lite_pro_product_id: 201 })
    assert.ok(requests[3]?.headers.get('idempotency-key'))
    assert.equal('migrateToPro' in client.litePros, false)
  })
})

describe('lenient decoding', () => {
  test('ids as numbers or numeric strings: account and order ids become strings, others numbers', async () => {
    const account = {
      account_id: '100042',
      status: 'ACTIVE',
      billingcycle: 'Monthly',
      date_created: '2025-03-01',
      next_due: '2025-04-01',
      recurring_amount: '60000',
      product_id: '101',
      product_name: 'XS 1.1',
      description: null,
      order_id: 500017,
      last_invoice: {
        id: '700017',
        paid_id: '880017',
        status: 'paid',
        date: '2025-03-01',
        duedate: '2025-03-01',
        paybefore: '2025-03-04',
        datepaid: '2025-03-01 09:15:02',
        invoice_type: 'new',
      },
      extra_details: {
        region: 'wjv-1',
        region_label: 'West Java 1',
        name: 'web-server-01',
        ciuser: 'deployer',
        cipassword: 'S3cretPass9',
        keypair_id: '7',
        osname: 'Ubuntu-22.04',
        disk_size: '20',
        snapshot_id: 100051,
        added_later: 'kept',
      },
      unknown_field: { kept: true },
    }
    const { client } = testClient([ok(account)])
    const vm = await client.lites.getVm(100042)
    assert.equal(vm.account_id, '100042')
    assert.equal(vm.order_id, '500017')
    assert.equal(vm.status, 'Active')
    assert.equal(vm.product_id, 101)
    assert.equal(vm.recurring_amount, 60000)
    assert.equal(vm.description, '')
    assert.equal(vm.last_invoice?.id, 700017)
    assert.equal(vm.last_invoice?.paid_id, 880017)
    assert.equal(vm.last_invoice?.status, 'Paid')
    assert.equal(vm.extra_details.keypair_id, 7)
    assert.equal(vm.extra_details.disk_size, 20)
    assert.equal(vm.extra_details.snapshot_id, '100051')
    assert.equal((vm.extra_details as unknown as Record<string, unknown>).added_later, 'kept')
    assert.deepEqual((vm as unknown as Record<string, unknown>).unknown_field, { kept: true })
  })

  test('plans: numeric strings and allow_downgrade 0/1/bool', async () => {
    const plans = [
      PLAN,
      { ...PLAN, product_id: 103, options: { ...PLAN.options, allow_downgrade: 0 } },
      { ...PLAN, product_id: 104, options: { ...PLAN.options, allow_downgrade: true } },
      { ...PLAN, product_id: 105, options: { type: 'disk', min_size: '60', max_size: 2000 }, billing: null },
    ]
    const { client } = testClient([ok(plans)])
    const [a, b, c, d] = await client.lites.listProducts()
    assert.equal(a?.product_id, 101)
    assert.equal(a?.category_id, 10)
    assert.equal(a?.options.allow_downgrade, true)
    assert.equal(b?.options.allow_downgrade, false)
    assert.equal(c?.options.allow_downgrade, true)
    assert.equal(d?.options.allow_downgrade, undefined)
    assert.equal(d?.options.min_size, 60)
    assert.deepEqual(d?.billing, [])
  })

  test('snapshot and disk accounts: source ids become strings, sizes numbers', async () => {
    const base = {
      account_id: 100060,
      status: 'Active',
      billingcycle: 'Monthly',
      date_created: '2025-03-03',
      next_due: '2025-04-03',
      recurring_amount: 30000,
      product_id: 60,
      product_name: 'Lite Extra Disk',
      description: '',
      order_id: '500023',
      last_invoice: null,
    }
    const { client } = testClient([
      ok({ ...base, extra_details: { service_name: 'data-disk-01', size: '60', lite_account_id: 100042 } }),
      ok({ ...base, extra_details: { name: 'snap-before-up', lite_account_id: '100042' } }),
    ])
    const disk = await client.lites.getDisk('100060')
    assert.equal(disk.extra_details.size, 60)
    assert.equal(disk.extra_details.lite_account_id, '100042')
    const snapshot = await client.lites.getSnapshot('100060')
    assert.equal(snapshot.extra_details.lite_account_id, '100042')
  })

  test('keypairs keep the private key byte for byte, and findKeypair searches the list', async () => {
    const privateKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n'
    const { client, requests, clock } = testClient([
      ok({ keypair_id: '1', name: 'deploy', public_key: 'ssh-ed25519 AAAA', private_key: privateKey }),
      ok([{ keypair_id: '1', name: 'deploy', public_key: 'ssh-ed25519 AAAA', origin: 'generated' }]),
      ok([]),
      ok([]),
    ])
    const created = await client.lites.createKeypair({ name: 'deploy' })
    assert.equal(created.keypair_id, 1)
    assert.equal(created.private_key, privateKey)
    assert.equal((await client.lites.findKeypair(1))?.origin, 'generated')
    assert.equal((await client.lites.findKeypair(1))?.origin, 'generated')
    assert.equal(requests.length, 2, 'the second search used the same listing')
    await clock.sleep(2_000)
    assert.equal(await client.lites.findKeypair(1), null, 'a listing 2 s old is not used')
    assert.equal(requests.length, 4, 'and a keypair missing from a listing is looked for in a new one before it is called gone')
  })

  test('a keypair another process made after the listing is found: a miss is never answered from a kept listing', async () => {
    const listing = (ids: number[]) => ok(ids.map((id) => ({ keypair_id: String(id), name: `k${id}`, public_key: 'ssh-ed25519 AAAA' })))
    const { client, requests } = testClient([listing([1]), listing([1, 2])])
    assert.equal((await client.lites.findKeypair(1))?.keypair_id, 1)
    assert.equal((await client.lites.findKeypair(2))?.keypair_id, 2, 'not called gone, which would drop it from its state')
    assert.equal(requests.length, 2)
  })

  test('a search whose only caller cancels stops its listing, which is not kept: the next search lists anew', async () => {
    const listing = (ids: number[]) => ok(ids.map((id) => ({ keypair_id: String(id), name: `k${id}`, public_key: 'ssh-ed25519 AAAA' })))
    const stopped = (r: RecordedRequest) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason)))
    const { client, requests } = testClient([stopped, listing([1])])
    const controller = new AbortController()
    const search = client.lites.findKeypair(1, { signal: controller.signal })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await assert.rejects(search)
    assert.equal(requests[0]?.signal.aborted, true, 'the listing in flight was stopped')
    assert.equal((await client.lites.findKeypair(1))?.keypair_id, 1)
    assert.equal(requests.length, 2)
  })

  test('a refresh of many keypairs lists the pool once, but never reuses a listing from before its own change', async () => {
    const listing = (ids: number[]) => ok(ids.map((id) => ({ keypair_id: String(id), name: `k${id}`, public_key: 'ssh-ed25519 AAAA' })))
    const { client, requests } = testClient([listing([1, 2, 3]), ok(null), listing([1, 3]), listing([1, 3])])
    const found = await Promise.all([1, 2, 3, 1, 2, 3].map((id) => client.lites.findKeypair(id)))
    assert.deepEqual(
      found.map((k) => k?.keypair_id),
      [1, 2, 3, 1, 2, 3],
    )
    for (const id of [1, 2, 3]) assert.equal((await client.lites.findKeypair(id))?.keypair_id, id)
    assert.equal(requests.length, 1, 'one listing for nine reads')
    const [first] = found
    assert.ok(first)
    first.name = 'changed by its caller'
    assert.equal((await client.lites.findKeypair(1))?.name, 'k1', 'each caller gets its own copy')
    await client.lites.deleteKeypair(2)
    assert.equal(await client.lites.findKeypair(2), null, 'after its own delete, the pool is listed again')
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path}`),
      ['GET /lites/keypairs/', 'DELETE /lites/keypairs/2', 'GET /lites/keypairs/', 'GET /lites/keypairs/'],
      'a keypair missing from a listing is looked for in a new one before it is called gone',
    )
  })
})

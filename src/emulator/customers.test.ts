// In-process tests of one customer per API key: each key's customer sees only its own objects through the
// service API (another customer's id is an unknown id), a read-only key reads its customer's, ids stay
// global, the request log names the customer with the key masked, the control API lists the customers and
// filters by one, and a state file written before customers existed loads with its objects owned.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { DELAY, TestClient, VM_BODY } from '../../test/support/emulator-client.js'
import { maskKey, ownCustomer, parseApiKeys, resolveKeys } from './customers.js'
import { createEmulator, type Emulator, type EmulatorOptions } from './index.js'
import type { Json } from './json.js'

const START = Date.UTC(2026, 0, 5, 10, 0, 0)
const emulatorOf = (options: EmulatorOptions = {}) => createEmulator({ clock: 'manual', startTime: START, ...options })
/** A client that sends `key` as its `x-token`. */
const as = (emulator: Emulator, key: string) => new TestClient({ ...emulator, apiKey: key })

interface Entry {
  customer: string
  kind: string
  account: { account_id: number }
}
interface LogEntry {
  path: string
  status: number
  customer: string | null
  api_key: string | null
}

/** The customers of Alice's and Bob's keys, which name none: never the keys themselves. */
const ALICE = ownCustomer('alice-key-0001')
const BOB = ownCustomer('bob-key-0002')

/** Alice and Bob, one key each, and a read-only key of Alice's (its default customer). */
function twoCustomers() {
  const emulator = emulatorOf({ apiKeys: ['alice-key-0001', 'bob-key-0002', 'alice-viewer:ro'] })
  return { emulator, alice: as(emulator, 'alice-key-0001'), bob: as(emulator, 'bob-key-0002'), viewer: as(emulator, 'alice-viewer') }
}

describe('customers through the service API', () => {
  test('two keys each see only their own keypairs, VMs, servers, IPs and orders; a same-named keypair is fine', async () => {
    const { alice, bob } = twoCustomers()
    const aliceKey = await alice.keypair('/lites', 'deploy')
    const bobKey = await bob.keypair('/lites', 'deploy')
    assert.notEqual(aliceKey, bobKey, 'keypair ids stay global')
    const aliceVm = await alice.vm({ keypair: aliceKey })
    const bobVm = await bob.vm({ keypair: bobKey })
    const aliceServer = await alice.server()
    const bobIp = await bob.ip()
    assert.equal(new Set([aliceVm, bobVm, aliceServer, bobIp]).size, 4, 'account ids stay global')

    const names = (list: { name: string; keypair_id: number }[]) => list.map((k) => [k.keypair_id, k.name])
    assert.deepEqual(names(await alice.ok('GET', '/lites/keypairs')), [[aliceKey, 'deploy']])
    assert.deepEqual(names(await bob.ok('GET', '/lites/keypairs')), [[bobKey, 'deploy']])
    const ids = (list: { account_id: number }[]) => list.map((a) => a.account_id)
    assert.deepEqual(ids(await alice.ok('GET', '/lites/accounts')), [aliceVm])
    assert.deepEqual(ids(await bob.ok('GET', '/lites/accounts')), [bobVm])
    assert.deepEqual(ids(await alice.ok('GET', '/baremetals/accounts')), [aliceServer])
    assert.deepEqual(ids(await bob.ok('GET', '/baremetals/accounts')), [])
    assert.deepEqual(ids(await bob.ok('GET', '/baremetal-additional-ips')), [bobIp])
    assert.deepEqual(ids(await alice.ok('GET', '/baremetal-additional-ips')), [])
    // A name is free again in Alice's pool once she deletes hers, whatever Bob holds.
    assert.equal(await alice.ok('DELETE', `/lites/keypairs/${aliceKey}`), true)
    assert.deepEqual(names(await bob.ok('GET', '/lites/keypairs')), [[bobKey, 'deploy']])
  })

  test("another customer's id answers exactly as an unknown id: 404 in a path, unknown in a body", async () => {
    const { alice, bob } = twoCustomers()
    const aliceKey = await alice.keypair('/lites', 'mine')
    const aliceVm = await alice.vm({ keypair: aliceKey })
    const aliceServer = await alice.server()
    // Each path with Alice's id answers Bob exactly as with an id nobody has, but for the id in the detail.
    const unknown = 999_999
    for (const [method, pathOf, id] of [
      ['GET', (n: number) => `/v1/lites/accounts/${n}`, aliceVm],
      ['GET', (n: number) => `/v1/lites/accounts/${n}/vm-details`, aliceVm],
      ['DELETE', (n: number) => `/v1/lites/${n}`, aliceVm],
      ['GET', (n: number) => `/v1/baremetals/accounts/${n}`, aliceServer],
    ] as const) {
      const theirs = await bob.request(method, pathOf(id))
      const none = await bob.request(method, pathOf(unknown))
      assert.equal(theirs.status, 404, `${method} ${pathOf(id)}`)
      assert.deepEqual(theirs.body, JSON.parse(JSON.stringify(none.body).replaceAll(String(unknown), String(id))))
    }
    const keypairGone = await bob.request('DELETE', `/v1/lites/keypairs/${aliceKey}`)
    assert.equal(keypairGone.status, 404)
    assert.deepEqual(keypairGone.body, { success: false, code: 404, detail: `keypair ${aliceKey} not found in /lites` })
    // Alice's keypair and VM in an order body: unknown to Bob, as a missing one.
    const order = await bob.request('POST', '/v1/lites', { body: { ...VM_BODY, product_id: 101, keypair_id: aliceKey } })
    assert.equal(order.status, 422, JSON.stringify(order.body))
    assert.match(JSON.stringify(order.body), /keypair_id/)
    const disk = await bob.request('POST', '/v1/lites/disks', { body: { product_id: 60, cycle: 'm', lite_account_id: aliceVm } })
    assert.equal(disk.status, 422, JSON.stringify(disk.body))
    assert.match(JSON.stringify(disk.body), new RegExp(`unknown VM ${aliceVm}`))
    // Nothing of Alice's changed.
    assert.equal((await alice.ok<{ status: string }>('GET', `/lites/accounts/${aliceVm}`)).status, 'Active')
  })

  test("a read-only key without a customer reads the first read-write key's customer and cannot write", async () => {
    const { alice, bob, viewer } = twoCustomers()
    const aliceVm = await alice.vm()
    await bob.vm()
    assert.deepEqual(
      (await viewer.ok<{ account_id: number }[]>('GET', '/lites/accounts')).map((a) => a.account_id),
      [aliceVm],
    )
    assert.equal((await viewer.ok<{ account_id: number }>('GET', `/lites/accounts/${aliceVm}`)).account_id, aliceVm)
    const denied = await viewer.request('POST', '/v1/lites/keypairs', { body: { name: 'nope' } })
    assert.deepEqual([denied.status, (denied.body as { detail: string }).detail], [403, 'API token is read-only'])
    assert.equal((await viewer.request('GET', '/v1/lites/keypairs', { token: 'stranger' })).status, 401)
  })

  test('KEY:ro@CUSTOMER reads that customer; KEY@CUSTOMER shares it, with Idempotency-Keys of its own', async () => {
    const emulator = emulatorOf({ apiKeys: ['ops-1@ops', 'ops-2@ops', 'bob-key@bob', 'bob-viewer:ro@bob'] })
    const [one, two, bob, bobViewer] = ['ops-1', 'ops-2', 'bob-key', 'bob-viewer'].map((k) => as(emulator, k)) as TestClient[]
    const bobVm = await bob!.vm()
    const opsKey = await one!.keypair('/lites', 'shared')
    assert.deepEqual(
      (await two!.ok<{ keypair_id: number }[]>('GET', '/lites/keypairs')).map((k) => k.keypair_id),
      [opsKey],
    )
    assert.deepEqual(
      (await bobViewer!.ok<{ account_id: number }[]>('GET', '/lites/accounts')).map((a) => a.account_id),
      [bobVm],
    )
    const body = { ...VM_BODY, product_id: 101, keypair_id: opsKey }
    const headers = { 'Idempotency-Key': 'same-key' }
    const first = await one!.ok<{ account_id: string }>('POST', '/lites', body, headers)
    const second = await two!.ok<{ account_id: string }>('POST', '/lites', body, headers)
    assert.notEqual(first.account_id, second.account_id, 'each key has its own Idempotency-Keys')
    const customers = await one!.control<{ customer: string; accounts: number }[]>('GET', '/customers')
    assert.deepEqual(
      customers.map((c) => [c.customer, c.accounts]),
      [
        ['ops', 2],
        ['bob', 1],
      ],
    )
  })

  test('the same Idempotency-Key from two customers places two orders, one each', async () => {
    const { alice, bob } = twoCustomers()
    const headers = { 'Idempotency-Key': 'shared-name' }
    const a = await alice.ok<{ account_id: string }>('POST', '/lites/keypairs', { name: 'k' }, headers)
    const b = await bob.ok<{ account_id: string }>('POST', '/lites/keypairs', { name: 'k' }, headers)
    assert.notDeepEqual(a, b)
    const replay = await bob.request('POST', '/v1/lites/keypairs', { body: { name: 'k' }, headers })
    assert.equal(replay.headers.get('idempotency-replayed'), 'true')
    assert.deepEqual((replay.body as { data: Json }).data, b)
  })
})

describe('customers in the request log and the control API', () => {
  test("each log entry names the key's customer and the key masked; a 401 has no customer", async () => {
    const { emulator, alice, viewer } = twoCustomers()
    await alice.ok('GET', '/lites/keypairs')
    await viewer.ok('GET', '/lites/keypairs')
    await alice.request('GET', '/v1/lites/keypairs', { token: 'wrong-token-9999' })
    await alice.request('GET', '/v1/lites/keypairs', { token: null })
    await alice.request('GET', '/v1/no-such-route')
    const log = await alice.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(
      log.map((e) => [e.status, e.customer, e.api_key]),
      [
        [200, ALICE, '…0001'],
        [200, ALICE, '…ewer'],
        [401, null, '…9999'],
        [401, null, null],
        [404, ALICE, '…0001'],
      ],
    )
    assert.equal(JSON.stringify(log).includes('alice-viewer'), false, 'a key is never logged whole')
    assert.equal(JSON.stringify(log).includes('alice-key'), false, 'nor as the name of the customer it is: the API key is never logged')
    assert.match(ALICE, /^customer-[0-9a-f]{8}$/)
    assert.equal(JSON.stringify(log).includes('wrong-token'), false)
    assert.deepEqual(
      (await alice.control<LogEntry[]>('GET', `/requests?customer=${BOB}`)).map((e) => e.path),
      [],
    )
    assert.equal((await alice.control<LogEntry[]>('GET', `/requests?customer=${ALICE}&since=2`)).length, 1)
    assert.equal(emulator.apiKey, 'alice-key-0001')
  })

  test("DELETE /requests?customer= removes that customer's entries only; without it the whole log goes", async () => {
    const { alice, bob } = twoCustomers()
    await alice.request('GET', '/v1/lites/products')
    await bob.request('GET', '/v1/lites/products')
    await bob.request('GET', '/v1/lite-pros/products')
    await alice.control('DELETE', `/requests?customer=${BOB}`)
    const left = await alice.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(
      left.map((e) => e.customer),
      [ALICE],
    )
    assert.equal((await alice.request('DELETE', '/_emulator/requests?customer=nobody')).status, 404)
    await alice.control('DELETE', '/requests')
    assert.deepEqual(await alice.control<LogEntry[]>('GET', `/requests?customer=${ALICE}`), [])
  })

  test('the mask shows at most 4 characters and never more than a third of the key', () => {
    assert.deepEqual(['emulator-key', 'abcdef', 'ab', 'a-very-long-secret-key'].map(maskKey), ['…-key', '…ef', '…', '…-key'])
  })

  test('GET /customers lists every customer with its masked keys and account count', async () => {
    const { alice, bob } = twoCustomers()
    await alice.vm()
    await alice.server()
    await bob.vm()
    assert.deepEqual(await alice.control('GET', '/customers'), [
      {
        customer: ALICE,
        keys: [
          { key_masked: '…0001', scope: 'rw' },
          { key_masked: '…ewer', scope: 'ro' },
        ],
        accounts: 2,
      },
      { customer: BOB, keys: [{ key_masked: '…0002', scope: 'rw' }], accounts: 1 },
    ])
  })

  test('every listing read takes ?customer=; absent lists all, each item naming its customer; unknown is a 404', async () => {
    const { alice, bob } = twoCustomers()
    const aliceVm = await alice.vm()
    const bobVm = await bob.vm({ pay: false })
    const byCustomer = async <T extends { customer: string }>(path: string, pick: (item: T) => Json) => {
      const all = await alice.control<T[]>('GET', path)
      const sep = path.includes('?') ? '&' : '?'
      const onlyBob = await alice.control<T[]>('GET', `${path}${sep}customer=${BOB}`)
      return { all: all.map((i) => [i.customer, pick(i)]), bob: onlyBob.map((i) => [i.customer, pick(i)]) }
    }
    const accounts = await byCustomer<Entry>('/accounts?kind=lite.vm', (e) => e.account.account_id)
    assert.deepEqual(accounts.all, [
      [ALICE, aliceVm],
      [BOB, bobVm],
    ])
    assert.deepEqual(accounts.bob, [[BOB, bobVm]])
    const keypairs = await byCustomer<{ customer: string; pool: string }>('/keypairs', (k) => k.pool)
    assert.deepEqual(keypairs.bob, [[BOB, '/lites']])
    assert.equal(keypairs.all.length, 2)
    const invoices = await byCustomer<{ customer: string; account_id: number; status: string }>('/invoices', (i) => [
      i.account_id,
      i.status,
    ])
    assert.deepEqual(invoices.all, [
      [ALICE, [aliceVm, 'Paid']],
      [BOB, [bobVm, 'Unpaid']],
    ])
    assert.deepEqual(invoices.bob, [[BOB, [bobVm, 'Unpaid']]])
    const orders = await alice.control<{ total: number; by_kind: Json; orders: { customer: string }[] }>('GET', `/orders?customer=${BOB}`)
    assert.deepEqual([orders.total, orders.by_kind, orders.orders.map((o) => o.customer)], [1, { 'lite.vm.create': 1 }, [BOB]])
    assert.equal((await alice.control<{ total: number }>('GET', '/orders')).total, 2)

    for (const path of ['/accounts', '/keypairs', '/invoices', '/orders', '/requests']) {
      const unknown = await alice.request('GET', `/_emulator${path}?customer=nobody`)
      assert.deepEqual(
        [path, unknown.status, (unknown.body as { detail: string }).detail],
        [path, 404, 'customer nobody not found (GET /_emulator/customers lists them)'],
      )
      assert.equal((await alice.request('GET', `/_emulator${path}?customer=`)).status, 422)
    }
  })

  test('control writes go by global id: paying the other customer’s invoice works; reset clears every customer', async () => {
    const { alice, bob } = twoCustomers()
    const bobVm = await bob.vm({ pay: false })
    const [invoice] = await alice.control<{ id: number }[]>('GET', `/invoices?customer=${BOB}`)
    assert.equal((await alice.control<{ status: string }>('POST', `/invoices/${invoice!.id}/pay`)).status, 'Paid')
    await alice.advance(DELAY)
    assert.equal((await bob.ok<{ status: string }>('GET', `/lites/accounts/${bobVm}`)).status, 'Active')
    await alice.control('POST', '/reset')
    const customers = await alice.control<{ customer: string; accounts: number }[]>('GET', '/customers')
    assert.deepEqual(
      customers.map((c) => c.accounts),
      [0, 0],
    )
  })

  test('a customer whose key was removed still lists, with no key, what it left; its key answers 401', async () => {
    const { alice, bob } = twoCustomers()
    const aliceVm = await alice.vm()
    await alice.control('PATCH', '/config', { api_keys: [{ key: 'bob-key-0002', scope: 'rw' }] })
    assert.equal((await alice.request('GET', '/v1/lites/accounts')).status, 401)
    assert.deepEqual(await bob.ok('GET', '/lites/accounts'), [])
    assert.deepEqual(await alice.control('GET', '/customers'), [
      { customer: BOB, keys: [{ key_masked: '…0002', scope: 'rw' }], accounts: 0 },
      { customer: ALICE, keys: [], accounts: 1 },
    ])
    const left = await alice.control<Entry[]>('GET', `/accounts?customer=${ALICE}`)
    assert.deepEqual(
      left.map((e) => e.account.account_id),
      [aliceVm],
    )
  })

  test('a named snapshot saves and restores every customer', async () => {
    const { alice, bob } = twoCustomers()
    const aliceVm = await alice.vm()
    const bobVm = await bob.vm()
    await alice.control('POST', '/snapshots', { name: 'both' })
    await alice.control('POST', '/reset')
    await alice.control('POST', '/snapshots/both/restore')
    assert.deepEqual(
      (await alice.ok<{ account_id: number }[]>('GET', '/lites/accounts')).map((a) => a.account_id),
      [aliceVm],
    )
    assert.deepEqual(
      (await bob.ok<{ account_id: number }[]>('GET', '/lites/accounts')).map((a) => a.account_id),
      [bobVm],
    )
  })
})

describe('customers and the portal', () => {
  test("a portal change acts for the customer it names, on that customer's account only; without one, for the default", async () => {
    const { alice, bob } = twoCustomers()
    const aliceVm = await alice.vm()
    const bobVm = await bob.vm()
    const rename = (vm: number, name: string, customer?: string) =>
      alice.request('POST', '/_emulator/portal', {
        body: { method: 'PUT', path: `/lites/accounts/${vm}/change-vm-name`, body: { name }, ...(customer ? { customer } : {}) },
      })
    const first = await rename(bobVm, 'by-bob', BOB)
    assert.equal(first.status, 200, JSON.stringify(first.body))
    assert.equal((await rename(bobVm, 'by-alice', ALICE)).status, 404, "another customer's account is unknown to it")
    assert.equal((await rename(bobVm, 'by-default')).status, 404, "the default customer is Alice's")
    assert.equal((await rename(aliceVm, 'by-default')).status, 200)
    assert.equal((await rename(aliceVm, 'x', 'nobody')).status, 404, 'an unknown customer')
    const names = async (c: TestClient, vm: number) =>
      (await c.ok<{ extra_details: { name: string } }>('GET', `/lites/accounts/${vm}`)).extra_details.name
    assert.deepEqual([await names(alice, aliceVm), await names(bob, bobVm)], ['by-default', 'by-bob'])
  })
})

describe('key configuration', () => {
  test('the key syntax and its defaults', () => {
    assert.deepEqual(parseApiKeys(' viewer:ro , main , other@team , audit:ro@team ', 'EMULATOR_API_KEYS'), [
      { key: 'viewer', scope: 'ro', customer: ownCustomer('main') },
      { key: 'main', scope: 'rw', customer: ownCustomer('main') },
      { key: 'other', scope: 'rw', customer: 'team' },
      { key: 'audit', scope: 'ro', customer: 'team' },
    ])
    assert.deepEqual(resolveKeys([{ key: 'solo', scope: 'ro' }]), [{ key: 'solo', scope: 'ro', customer: ownCustomer('solo') }])
    assert.throws(() => parseApiKeys('a,b@bad name', '--api-keys'), {
      message: '--api-keys item 2: the customer after @ must be 1 to 64 characters of A-Z a-z 0-9 . _ -',
    })
    assert.throws(() => parseApiKeys(':ro@team', 'EMULATOR_API_KEYS'), {
      message: 'EMULATOR_API_KEYS item 1: the key must be non-empty, without spaces',
    })
    assert.throws(() => parseApiKeys(' , ', '--api-keys'), { message: '--api-keys names no key (give at least one, e.g. emulator-key)' })
    assert.throws(() => parseApiKeys('a,a:ro', 'EMULATOR_API_KEYS'), {
      message: 'EMULATOR_API_KEYS item 2: the key is given twice (a key belongs to one customer)',
    })
    assert.throws(() => emulatorOf({ apiKeys: ['k@'] }), { message: /^apiKeys\[0\]: the customer after @/ })
  })

  test('the api_keys patch takes {key, scope, customer?}; every bad item is named by index and field', async () => {
    const c = new TestClient(emulatorOf())
    const config = await c.control<{ api_keys: Json }>('PATCH', '/config', {
      api_keys: [
        { key: 'main', scope: 'rw' },
        { key: 'look', scope: 'ro' },
        { key: 'guest', scope: 'rw', customer: 'guests' },
      ],
    })
    assert.deepEqual(config.api_keys, [
      { key: 'main', scope: 'rw', customer: ownCustomer('main') },
      { key: 'look', scope: 'ro', customer: ownCustomer('main') },
      { key: 'guest', scope: 'rw', customer: 'guests' },
    ])
    const bad = await c.request('PATCH', '/_emulator/config', {
      body: {
        api_keys: [
          { key: '', scope: 'rw' },
          { key: 'x', scope: 'admin' },
          { key: 'y', scope: 'rw', customer: 'a b' },
          'z',
          { key: 'x', scope: 'rw' },
        ],
      },
    })
    assert.equal(bad.status, 422)
    assert.deepEqual(
      (bad.body as { detail: { loc: (string | number)[]; msg: string }[] }).detail.map((i) => [i.loc.join('.'), i.msg]),
      [
        ['body.api_keys.0.key', 'must be a non-empty string'],
        ['body.api_keys.1.scope', 'must be "rw" or "ro"'],
        ['body.api_keys.2.customer', 'must be 1 to 64 characters of A-Z a-z 0-9 . _ -'],
        ['body.api_keys.3', 'must be an object {key, scope: "rw" | "ro", customer?}'],
        ['body.api_keys.4.key', 'is given twice (a key belongs to one customer)'],
      ],
    )
    assert.equal((await c.control<{ api_keys: Json[] }>('GET', '/config')).api_keys.length, 3, 'nothing applied')
  })
})

describe('state files written before customers existed', () => {
  // Written by the emulator of the commit before this change: a main key and a read-only key, a Lite VM
  // (ordered with an Idempotency-Key), an unpaid Metal server, two keypairs and a request log.
  const OLD = new URL('../../../src/emulator/fixtures/state-before-customers.json', import.meta.url)

  test("load with every object owned by the first read-write key's customer", async () => {
    const emulator = emulatorOf({ apiKeys: ['someone-else'] })
    emulator.restore(JSON.parse(readFileSync(OLD, 'utf8')))
    const main = as(emulator, 'main-key')
    const viewer = as(emulator, 'viewer-key')
    assert.deepEqual(
      (await main.ok<{ account_id: number }[]>('GET', '/lites/accounts')).map((a) => a.account_id),
      [100001],
    )
    assert.deepEqual(
      (await viewer.ok<{ account_id: number }[]>('GET', '/baremetals/accounts')).map((a) => a.account_id),
      [100002],
    )
    assert.deepEqual(
      (await main.ok<{ name: string }[]>('GET', '/baremetals/keypairs')).map((k) => k.name),
      ['old-metal-key'],
    )
    assert.deepEqual(await main.control('GET', '/customers'), [
      {
        customer: ownCustomer('main-key'),
        keys: [
          { key_masked: '…ey', scope: 'rw' },
          { key_masked: '…key', scope: 'ro' },
        ],
        accounts: 2,
      },
    ])
    assert.equal((await main.control<{ total: number }>('GET', `/orders?customer=${ownCustomer('main-key')}`)).total, 2)
    // The file's 5 requests were logged before the log named a key; those made since name theirs.
    const log = await main.control<(LogEntry & { seq: number })[]>('GET', '/requests')
    assert.deepEqual(
      log.filter((e) => e.seq <= 5).map((e) => [e.customer, e.api_key]),
      Array(5).fill([null, null]),
    )
    assert.ok(log.filter((e) => e.seq > 5).every((e) => e.customer === ownCustomer('main-key')))
    // The VM's order was placed with an Idempotency-Key: its repeat still replays, now as the customer's.
    const repeat = await main.request('POST', '/v1/lites', {
      body: {
        product_id: 101,
        cycle: 'm',
        select_os: 'Ubuntu-22.04',
        ssh_and_console_user: 'deployer',
        console_password: 'S3cretPass9',
        vm_name: 'old-vm',
        keypair_id: 1,
        pay_invoice_with_cc: true,
      },
      headers: { 'Idempotency-Key': 'old-order-1' },
    })
    assert.equal(repeat.headers.get('idempotency-replayed'), 'true')
    assert.equal((await main.ok<{ account_id: number }[]>('GET', '/lites/accounts')).length, 1)
  })
})

// In-process tests of the control API: faults, the request log and order counters, config, clock,
// payments, forced statuses and drift, changes made through the portal, the keypairs.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import { type AccountView, BASE, DELAY, TestClient, VM_BODY } from '../../test/support/emulator-client.js'

const setup = () => new TestClient(createEmulator({ clock: 'manual', startTime: Date.UTC(2025, 2, 1, 9, 15, 2) }))

interface FaultObject {
  fault_id: string
  remaining: number
  count: number
  mode: string
  status: number | null
}
interface LogEntry {
  seq: number
  method: string
  path: string
  query: Record<string, unknown>
  body: unknown
  status: number | null
  fault_id: string | null
  idempotency_key: string | null
  customer: string | null
  api_key: string | null
}

describe('faults', () => {
  test('error answers without processing, before auth, counting down remaining', async () => {
    const c = setup()
    const fault = await c.control<FaultObject>('POST', '/faults', { method: 'POST', path: '/lites/keypairs/', status: 503, count: 2 })
    assert.deepEqual(
      { ...fault },
      {
        fault_id: 'f1',
        method: 'POST',
        path: '/lites/keypairs/',
        mode: 'error',
        status: 503,
        count: 2,
        remaining: 2,
        delay_ms: 0,
        retry_after_s: null,
        detail: 'Service Unavailable',
      },
    )
    const first = await c.request('POST', '/v1/lites/keypairs', { body: { name: 'k' }, token: null })
    assert.deepEqual([first.status, first.body], [503, { success: false, code: 503, detail: 'Service Unavailable' }])
    assert.equal((await c.request('GET', '/v1/lites/keypairs/')).status, 200, 'other methods are not matched')
    assert.equal((await c.request('POST', '/v1/lites/keypairs/', { body: { name: 'k' } })).status, 503)
    assert.equal((await c.control<FaultObject[]>('GET', '/faults'))[0]?.remaining, 0)
    assert.equal((await c.request('POST', '/v1/lites/keypairs/', { body: { name: 'k' } })).status, 200)
    assert.deepEqual((await c.ok<unknown[]>('GET', '/lites/keypairs/')).length, 1, 'the faulted requests created nothing')
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(
      log.map((e) => [e.status, e.fault_id]),
      [
        [503, 'f1'],
        [200, null],
        [503, 'f1'],
        [200, null],
        [200, null],
      ],
    )
  })

  test('429 gets Retry-After 1 unless retry_after_s says otherwise; * matches one segment', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.control('POST', '/faults', { path: '/lites/accounts/*/storage', status: 429, count: -1 })
    await c.control('POST', '/faults', { path: '/lites/accounts/*', status: 503, retry_after_s: 7 })
    for (let i = 0; i < 3; i++) {
      const limited = await c.request('GET', `/v1/lites/accounts/${vm}/storage`)
      assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '1'])
    }
    assert.equal((await c.control<FaultObject[]>('GET', '/faults'))[0]?.remaining, -1)
    const unavailable = await c.request('GET', `/v1/lites/accounts/${vm}/`)
    assert.deepEqual([unavailable.status, unavailable.headers.get('retry-after')], [503, '7'])
    assert.equal((await c.request('GET', `/v1/lites/accounts/${vm}/vm-details`)).status, 200)
    assert.equal(await c.control('DELETE', '/faults/f1'), true)
    assert.equal((await c.request('DELETE', '/_emulator/faults/f1')).status, 404)
    assert.equal((await c.request('GET', `/v1/lites/accounts/${vm}/storage`)).status, 200)
  })

  test('error_after processes fully and then answers the fault status', async () => {
    const c = setup()
    const keypair = await c.keypair()
    await c.control('POST', '/faults', { method: 'POST', path: '/lites', mode: 'error_after', status: 502 })
    const reply = await c.request('POST', '/v1/lites', { body: { ...VM_BODY, product_id: 101, keypair_id: keypair } })
    assert.equal(reply.status, 502)
    assert.equal((await c.ok<AccountView[]>('GET', '/lites/accounts?status=Pending')).length, 1)
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 1)
  })

  test('error_after loses a replayed answer too: the retry of a key the service already answered', async () => {
    const c = setup()
    const keypair = await c.keypair()
    const order = { body: { ...VM_BODY, product_id: 101, keypair_id: keypair }, headers: { 'idempotency-key': 'replayed-key-1' } }
    assert.equal((await c.request('POST', '/v1/lites', order)).status, 200)
    await c.control('POST', '/faults', { method: 'POST', path: '/lites', mode: 'error_after', status: 503 })
    const replay = await c.request('POST', '/v1/lites', order)
    assert.equal(replay.status, 503, 'the replay is answered by the fault, not used up by it')
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 1, 'still one order')
    assert.equal((await c.request('POST', '/v1/lites', order)).status, 200, 'the next repeat gets the stored answer')
  })

  test('drop_after processes fully and rejects the fetch with a TypeError; logged with status null', async () => {
    const c = setup()
    await c.control('POST', '/faults', { path: '/lites/keypairs', mode: 'drop_after' })
    await assert.rejects(c.request('POST', '/v1/lites/keypairs/', { body: { name: 'lost-answer' } }), TypeError)
    assert.deepEqual(
      (await c.ok<{ name: string }[]>('GET', '/lites/keypairs/')).map((k) => k.name),
      ['lost-answer'],
    )
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual([log[0]?.status, log[0]?.fault_id], [null, 'f1'])
  })

  test('delay waits real time and then processes normally', async () => {
    const c = setup()
    await c.control('POST', '/faults', { path: '/lites/products', mode: 'delay', delay_ms: 40 })
    const started = performance.now()
    const reply = await c.request('GET', '/v1/lites/products')
    assert.ok(performance.now() - started >= 35)
    assert.equal(reply.status, 200)
  })

  test('bad fault specs are refused with every reason', async () => {
    const c = setup()
    const bad = await c.request('POST', '/_emulator/faults', { body: { mode: 'explode', count: 0 } })
    assert.equal(bad.status, 422)
    assert.deepEqual(
      (bad.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc[1]),
      ['path', 'mode', 'count'],
    )
    const after429 = await c.request('POST', '/_emulator/faults', { body: { path: '/lites', mode: 'error_after', status: 429 } })
    assert.equal(after429.status, 422)
    const noStatus = await c.request('POST', '/_emulator/faults', { body: { path: '/lites' } })
    assert.equal(noStatus.status, 422)
  })
})

describe('request log and order counters', () => {
  test('secrets are redacted at any depth; x-token is never logged; since filters by seq', async () => {
    // A named customer: a key without one names its customer after itself (customers.ts), which the log shows.
    const c = new TestClient(createEmulator({ clock: 'manual', apiKeys: ['emulator-key@team'] }))
    await c.request('POST', '/v1/lites/keypairs/', {
      body: { name: 'k', nested: { Console_Password: 'x', list: [{ api_token: 't', client_secret: 's', private_key: 'p', keep: 1 }] } },
      headers: { 'Idempotency-Key': 'log-key' },
    })
    await c.request('GET', '/v1/lites/accounts?status=Active&status=Pending&x=1')
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.equal(log.length, 2)
    assert.deepEqual(log[0]?.body, {
      name: 'k',
      nested: { Console_Password: '***', list: [{ api_token: '***', client_secret: '***', private_key: '***', keep: 1 }] },
    })
    assert.equal(log[0]?.idempotency_key, 'log-key')
    assert.deepEqual(log[1]?.query, { status: ['Active', 'Pending'], x: '1' })
    assert.equal(JSON.stringify(log).includes('emulator-key'), false)
    assert.deepEqual(
      log.map((e) => [e.customer, e.api_key]),
      [
        ['team', '…-key'],
        ['team', '…-key'],
      ],
    )
    const since = await c.control<LogEntry[]>('GET', `/requests?since=${log[0]?.seq}`)
    assert.deepEqual(
      since.map((e) => e.seq),
      [log[1]?.seq],
    )
    await c.control('DELETE', '/requests')
    await c.request('GET', '/v1/lites/products')
    const after = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(
      after.map((e) => e.seq),
      [3],
      'seq keeps counting after a clear',
    )
  })

  test('after: a poller gets each entry once, a slow request logged late included, and the whole log again after a clear or a reset', async () => {
    const c = new TestClient(createEmulator({ clock: 'manual', apiKeys: ['alice-key@alice', 'bob-key@bob'] }))
    interface Read {
      cursor: string
      whole: boolean
      entries: LogEntry[]
    }
    const poll = (after: string, query = '') => c.control<Read>('GET', `/requests?after=${encodeURIComponent(after)}${query}`)
    const get = (path: string, token = 'alice-key') => c.request('GET', `/v1${path}`, { token })
    await get('/lites/products')
    const first = await poll('')
    assert.deepEqual([first.whole, first.entries.map((e) => e.seq)], [true, [1]])
    assert.deepEqual(await poll(first.cursor), { cursor: first.cursor, whole: false, entries: [] }, 'nothing new, nothing sent')

    // Request 2 hangs until its client gives up; request 3 is logged meanwhile and seen first.
    await c.control('POST', '/faults', { method: 'GET', path: '/lites/keypairs', mode: 'hang' })
    const gone = new AbortController()
    const hanging = c.emulator.fetch(
      new Request('http://emulator.invalid/v1/lites/keypairs', { headers: { 'x-token': 'alice-key' }, signal: gone.signal }),
    )
    hanging.catch(() => undefined)
    await new Promise((resolve) => setImmediate(resolve))
    await get('/lite-pros/products', 'bob-key')
    const second = await poll(first.cursor)
    assert.deepEqual([second.whole, second.entries.map((e) => e.seq)], [false, [3]])
    gone.abort()
    await assert.rejects(hanging)
    // A poll by `since` from the newest seq seen would miss it: it came after 3, with seq 2.
    assert.deepEqual(await c.control<LogEntry[]>('GET', '/requests?since=3'), [])
    const third = await poll(second.cursor)
    assert.deepEqual([third.whole, third.entries.map((e) => [e.seq, e.status])], [false, [[2, null]]])
    // `customer` filters what a poll answers, not what the cursor counts.
    await get('/lites/products', 'bob-key')
    await get('/lites/products')
    const alices = await poll(third.cursor, '&customer=alice')
    assert.deepEqual([alices.whole, alices.entries.map((e) => [e.seq, e.customer])], [false, [[5, 'alice']]])
    assert.deepEqual(await poll(alices.cursor), { cursor: alices.cursor, whole: false, entries: [] })

    // The log emptied: the old cursor answers the whole log (empty, then what came next).
    await c.control('DELETE', '/requests')
    const cleared = await poll(alices.cursor)
    assert.deepEqual([cleared.whole, cleared.entries], [true, []])
    await get('/lites/products')
    assert.deepEqual(
      (await poll(cleared.cursor)).entries.map((e) => e.seq),
      [6],
    )
    // A reset restarts `seq`: an old cursor must not be taken for one of the new log.
    const before = await poll('')
    await c.control('POST', '/reset')
    await c.request('GET', '/v1/lites/products', { token: c.emulator.apiKey })
    const reset = await poll(before.cursor)
    assert.deepEqual([reset.whole, reset.entries.map((e) => e.seq)], [true, [1]])
    // A cursor that is none (a typo, another emulator's) answers the whole log too; `since` still filters.
    for (const other of ['x', `${reset.cursor}0`, '0.0']) assert.equal((await poll(other)).whole, true, other)
    assert.deepEqual((await poll('', '&since=1')).entries, [])
  })

  test('the cipassword of a VM is returned by the API but never logged', async () => {
    const c = setup()
    const vm = await c.vm()
    const account = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.equal(account.extra_details.cipassword, 'S3cretPass9')
    const log = JSON.stringify(await c.control('GET', '/requests'))
    assert.equal(log.includes('S3cretPass9'), false)
  })

  test('a secret in a query string is redacted in the log as in a body; other parameters are kept', async () => {
    const c = setup()
    await c.request('GET', '/v1/lites/products?password=hunter2&api_token=zz9&cycle=m', { token: c.emulator.apiKey })
    const [entry] = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(entry?.query, { password: '***', api_token: '***', cycle: 'm' })
  })

  test('order counters list one item per order with its kind and invoice status', async () => {
    const c = setup()
    const vm = await c.vm({ pay: false })
    await c.control('POST', `/accounts/${vm}/pay`)
    await c.advance(DELAY)
    await c.ok('POST', `/lites/accounts/${vm}/change-package`, { new_product_id: 102 }, { 'Idempotency-Key': 'cp-1' })
    await c.ok('POST', `/lites/accounts/${vm}/change-package`, { new_product_id: 102 }, { 'Idempotency-Key': 'cp-1' })
    const counters = await c.control('GET', '/orders')
    assert.deepEqual(counters, {
      total: 2,
      by_kind: { 'lite.vm.create': 1, 'lite.vm.change_package': 1 },
      orders: [
        {
          order_id: '500001',
          customer: 'customer-4dd960ab',
          kind: 'lite.vm.create',
          account_id: String(vm),
          invoice_id: 700001,
          invoice_status: 'Paid',
          invoice_amount: 60000,
          idempotency_key: null,
          created_at: '2025-03-01 09:15:02',
        },
        {
          order_id: '500002',
          customer: 'customer-4dd960ab',
          kind: 'lite.vm.change_package',
          account_id: String(vm),
          invoice_id: 700002,
          invoice_status: 'Paid',
          invoice_amount: 60000,
          idempotency_key: 'cp-1',
          created_at: '2025-03-01 09:15:04',
        },
      ],
    })
  })
})

describe('control API', () => {
  test('a GET answers with an ETag; asked again with it, an unchanged answer is a 304 without a body, a changed one a 200', async () => {
    const c = setup()
    await c.vm()
    const get = (ifNoneMatch?: string) =>
      c.emulator.fetch(new Request(`${BASE}/_emulator/accounts`, { headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {} }))
    const first = await get()
    const etag = first.headers.get('etag') ?? ''
    assert.match(etag, /^"[\w-]+"$/)
    assert.equal(first.headers.get('cache-control'), 'no-cache', 'a browser asks again each time, never reuses it unasked')
    const unchanged = await get(`"other", ${etag}`)
    assert.equal(unchanged.status, 304)
    assert.equal(await unchanged.text(), '')
    assert.equal(unchanged.headers.get('etag'), etag)
    await c.vm()
    const changed = await get(etag)
    assert.equal(changed.status, 200, 'a new account is a new answer')
    assert.notEqual(changed.headers.get('etag'), etag)
    assert.ok(((await changed.json()) as { data: unknown[] }).data.length > 0)
    const post = await c.emulator.fetch(
      new Request(`${BASE}/_emulator/clock`, { method: 'POST', body: '{}', headers: { 'if-none-match': etag } }),
    )
    assert.equal(post.headers.get('etag'), null, 'only a GET has a validator')
  })

  test('reset clears state and restarts sequences, but never moves the clock back', async () => {
    const c = setup()
    await c.vm()
    await c.control('POST', '/faults', { path: '/lites', status: 500 })
    await c.control('PATCH', '/config', { provisioning_delay_ms: 5 })
    const before = c.emulator.now()
    assert.equal(await c.control('POST', '/reset'), true)
    assert.equal(c.emulator.now(), before)
    assert.deepEqual(await c.control('GET', '/faults'), [])
    assert.deepEqual(await c.control('GET', '/requests'), [])
    assert.deepEqual(await c.control('GET', '/accounts'), [])
    assert.equal((await c.control<{ provisioning_delay_ms: number }>('GET', '/config')).provisioning_delay_ms, 2000)
    assert.equal(await c.vm(), 100001)
    assert.equal(await c.keypair('/lites', 'again'), 2)
  })

  test('config GET and PATCH, validated all at once', async () => {
    const c = setup()
    assert.deepEqual(await c.control('GET', '/config'), {
      provisioning_delay_ms: 2000,
      retention_ms: 300000,
      idempotency_ttl_ms: 86400000,
      api_keys: [{ key: 'emulator-key', scope: 'rw', customer: 'customer-4dd960ab' }],
      ip_unavailable_product_ids: [],
      quirks: { ids_as_strings: false, bare_lists: false, ignore_idempotency_keys: false },
    })
    const bad = await c.request('PATCH', '/_emulator/config', { body: { retention_ms: -1, api_keys: [{ key: 'k' }] } })
    assert.equal(bad.status, 422)
    assert.equal((bad.body as { detail: unknown[] }).detail.length, 2)
    const merged = await c.control<{ retention_ms: number; quirks: unknown }>('PATCH', '/config', {
      retention_ms: 5,
      quirks: { bare_lists: true },
    })
    assert.deepEqual([merged.retention_ms, merged.quirks], [5, { ids_as_strings: false, bare_lists: true, ignore_idempotency_keys: false }])
  })

  test('the clock answers the new time; forced statuses follow the control API', async () => {
    const c = setup()
    assert.deepEqual(await c.advance(5000), { now: '2025-03-01 09:15:07' })
    const vm = await c.vm({ pay: false })
    const forced = await c.control<AccountView>('POST', `/accounts/${vm}/status`, { status: 'Active' })
    assert.deepEqual([forced.status, forced.last_invoice.status], ['Active', 'Unpaid'], 'forcing Active does not pay')
    const pending = await c.control<AccountView>('POST', `/accounts/${vm}/status`, { status: 'Pending' })
    assert.equal(pending.status, 'Pending')
    await c.control('POST', `/accounts/${vm}/pay`)
    await c.advance(DELAY)
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Active')
    const terminated = await c.control<AccountView>('POST', `/accounts/${vm}/status`, { status: 'Terminated' })
    assert.equal(terminated.status, 'Terminated')
    const bad = await c.request('POST', `/_emulator/accounts/${vm}/status`, { body: { status: 'Sleeping' } })
    assert.equal(bad.status, 422)
    assert.equal((await c.request('POST', '/_emulator/accounts/999/status', { body: { status: 'Active' } })).status, 404)
  })

  test('forcing Active on an account suspended while Pending completes its provisioning and applies its paid change', async () => {
    const c = setup()
    // A server suspended before its first Active: unsuspended, it is provisioned (an address, power on).
    const server = await c.server({ active: false })
    await c.control('POST', `/accounts/${server}/status`, { status: 'Suspended' })
    const unsuspended = await c.control<AccountView>('POST', `/accounts/${server}/status`, { status: 'Active' })
    assert.equal(unsuspended.status, 'Active')
    assert.equal(unsuspended.extra_details.ip_address, '203.0.113.10', 'the address is handed out at the first Active')
    assert.deepEqual(await c.ok('GET', `/baremetals/accounts/${server}/state`), { state: 'on' })
    // A VM suspended while its paid change of package waits: unsuspended, the change is applied, not lost.
    const vm = await c.vm()
    await c.ok('POST', `/lites/accounts/${vm}/change-package`, { new_product_id: 102 })
    await c.control('POST', `/accounts/${vm}/status`, { status: 'Suspended' })
    const active = await c.control<AccountView>('POST', `/accounts/${vm}/status`, { status: 'Active' })
    assert.deepEqual([active.status, active.product_id, active.recurring_amount], ['Active', 102, 120000])
    assert.equal((await c.ok<{ status: string }>('GET', `/lites/accounts/${vm}/vm-details`)).status, 'running')
    // An Active account suspended and unsuspended keeps what it had.
    const plain = await c.vm()
    await c.control('POST', `/accounts/${plain}/status`, { status: 'Suspended' })
    const back = await c.control<AccountView>('POST', `/accounts/${plain}/status`, { status: 'Active' })
    assert.deepEqual([back.status, back.product_id], ['Active', 101])
  })

  test('out-of-band PATCH deep-merges; fixed fields are refused; purge makes 404', async () => {
    const c = setup()
    const vm = await c.vm()
    const drifted = await c.control<AccountView>('PATCH', `/accounts/${vm}`, {
      description: 'changed',
      extra_details: { name: 'renamed-oob' },
    })
    assert.deepEqual(
      [drifted.description, drifted.extra_details.name, drifted.extra_details.ciuser],
      ['changed', 'renamed-oob', 'deployer'],
    )
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).extra_details.name, 'renamed-oob')
    const fixed = await c.request('PATCH', `/_emulator/accounts/${vm}`, { body: { order_id: '1', account_id: 5 } })
    assert.equal(fixed.status, 422)
    const kinds = await c.control<{ kind: string }[]>('GET', '/accounts?kind=lite.vm')
    assert.deepEqual(
      kinds.map((k) => k.kind),
      ['lite.vm'],
    )
    assert.deepEqual(await c.control('GET', '/accounts?kind=lite_pro.vm'), [])
    assert.equal((await c.request('GET', '/_emulator/accounts?kind=nope')).status, 422)
    assert.equal(await c.control('DELETE', `/accounts/${vm}`), true)
    await c.fails(404, 'GET', `/lites/accounts/${vm}`)
    await c.fails(404, 'DELETE', `/lites/${vm}`)
  })

  test('control requests need no token and are not logged', async () => {
    const c = setup()
    await c.request('GET', '/_emulator/config', { token: null })
    assert.deepEqual(await c.control('GET', '/requests'), [])
    assert.equal((await c.request('PUT', '/_emulator/config')).status, 405)
    assert.equal((await c.request('GET', '/_emulator/nothing')).status, 404)
  })

  test('snapshot and restore carry every record and sequence to a new emulator', async () => {
    const c = setup()
    const vm = await c.vm()
    const saved = JSON.parse(JSON.stringify(c.emulator.snapshot())) as unknown
    const other = new TestClient(createEmulator({ clock: 'manual', startTime: Date.UTC(2024, 0, 1) }))
    other.emulator.restore(saved)
    assert.ok(other.emulator.now() >= c.emulator.now(), 'the clock never moves back')
    assert.equal((await other.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Active')
    assert.equal(await other.vm(), vm + 1)
    assert.throws(() => other.emulator.restore({ nope: true }))
  })

  test("keypairs are listed with the public key's SHA256 fingerprint, as ssh-keygen -l prints it", async () => {
    const c = setup()
    // Made by `ssh-keygen -t ed25519 -C 'ops@example host'`; `ssh-keygen -lf` printed the fingerprint.
    const line = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPWLG34WhmBgb2ns5dUOHg9QaGPYx5MqmSOszbapg8OY ops@example host'
    await c.ok('POST', '/lites/keypairs/import', { name: 'imported', public_key: line })
    await c.keypair('/baremetals', 'generated')
    const keypairs = await c.control<{ name: string; public_key: string; fingerprint: string }[]>('GET', '/keypairs')
    assert.deepEqual(
      keypairs.map((k) => [k.name, k.fingerprint]),
      [
        ['imported', 'SHA256:AY6BqKS5c37D9qUEb0Daw6RPKz8ZydvuCN/QM/nKk1k'],
        ['generated', keypairs[1]?.fingerprint],
      ],
    )
    assert.match(keypairs[1]?.fingerprint ?? '', /^SHA256:[A-Za-z0-9+/]{43}$/)
    assert.notEqual(keypairs[1]?.fingerprint, keypairs[0]?.fingerprint)
    assert.ok(!JSON.stringify(keypairs).includes('PRIVATE'), 'no private key is listed')
  })

  test('the clock reads its time and mode; keypairs are listed with their pool', async () => {
    const c = setup()
    assert.deepEqual(await c.control('GET', '/clock'), { now: '2025-03-01 09:15:02', mode: 'manual' })
    await c.keypair('/lites', 'lite-key')
    await c.keypair('/baremetals', 'metal-key')
    const keypairs = await c.control<{ keypair_id: number; pool: string; name: string; origin: string }[]>('GET', '/keypairs')
    assert.deepEqual(
      keypairs.map((k) => [k.keypair_id, k.pool, k.name, k.origin]),
      [
        [1, '/lites', 'lite-key', 'generated'],
        [2, '/baremetals', 'metal-key', 'generated'],
      ],
    )
  })

  test('out-of-band PATCH refuses a field the account does not have, naming the fields it has', async () => {
    const c = setup()
    const server = await c.server()
    const before = await c.control<AccountView>('GET', `/accounts?kind=baremetal`)
    // A Metal server's label is extra_details.label: a top-level `label` would change nothing a client reads.
    const top = await c.request('PATCH', `/_emulator/accounts/${server}`, { body: { label: 'x' } })
    assert.equal(top.status, 422)
    const topText = JSON.stringify(top.body)
    assert.match(topText, /"label"/)
    assert.match(topText, /unknown field; the account has: .*extra_details/)
    const nested = await c.request('PATCH', `/_emulator/accounts/${server}`, { body: { extra_details: { lable: 'x' } } })
    assert.equal(nested.status, 422)
    assert.match(JSON.stringify(nested.body), /unknown field; extra_details has: .*label/)
    assert.deepEqual(await c.control<AccountView>('GET', `/accounts?kind=baremetal`), before, 'nothing changed')
    const renamed = await c.control<AccountView>('PATCH', `/accounts/${server}`, { extra_details: { label: 'x' } })
    assert.equal(renamed.extra_details.label, 'x')
  })

  test("the accounts list gives each account's power and portal changes; the portal makes them out of band", async () => {
    const c = setup()
    const vm = await c.vm()
    await c.server()
    await c.ip()
    type Entry = {
      kind: string
      family: string
      power: string | null
      portal: Record<string, { method: string; path: string; input?: { field: string } }>
    }
    const byKind = async () => Object.fromEntries((await c.control<Entry[]>('GET', '/accounts')).map((e) => [e.kind, e]))
    const before = await byKind()
    assert.deepEqual([before['lite.vm']?.power, before.baremetal?.power], ['running', 'on'])
    assert.deepEqual(Object.keys(before['lite.vm']?.portal ?? {}), ['rename', 'stop', 'start', 'resize'])
    assert.deepEqual(Object.keys(before.baremetal?.portal ?? {}), ['rename', 'stop', 'start'])
    assert.deepEqual(before['lite.vm']?.portal.stop, { method: 'PUT', path: `/lites/accounts/${vm}/vm-state/stop` })
    assert.deepEqual([before.additional_ip?.power, before.additional_ip?.portal], [null, {}], 'a kind without power or portal changes')
    // Each kind's family, by the name the docs give it (the console's headings).
    assert.deepEqual(
      Object.values(before).map((e) => [e.kind, e.family]),
      [
        ['lite.vm', 'Lite'],
        ['baremetal', 'Metal servers'],
        ['additional_ip', 'Additional IPs'],
      ],
    )

    // Each change through the portal: its effect, and no log entry, key or order beyond what the API's route does.
    const call = (kind: string, change: string, value?: Record<string, unknown>) => {
      const offered = before[kind]?.portal[change]
      assert.ok(offered, `${kind} offers ${change}`)
      return c.request('POST', '/_emulator/portal', {
        body: { method: offered.method, path: offered.path, ...(value ? { body: value } : {}) },
      })
    }
    assert.equal((await call('lite.vm', 'stop')).status, 200)
    assert.equal((await call('baremetal', 'stop')).status, 200)
    assert.equal((await call('lite.vm', 'rename', { name: 'portal-name' })).status, 200)
    const after = await byKind()
    assert.deepEqual([after['lite.vm']?.power, after.baremetal?.power], ['stopped', 'off'])
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).extra_details.name, 'portal-name')
    const resized = await call('lite.vm', 'resize', { new_product_id: 102, pay_invoice_with_cc: false })
    assert.equal(resized.status, 200, JSON.stringify(resized.body))
    const orders = await c.control<{ orders: { kind: string; invoice_status: string; idempotency_key: string | null }[] }>('GET', '/orders')
    assert.deepEqual(orders.orders.at(-1), {
      ...orders.orders.at(-1),
      kind: 'lite.vm.change_package',
      invoice_status: 'Unpaid',
      idempotency_key: null,
    })
    const logged = await c.control<LogEntry[]>('GET', '/requests')
    assert.ok(
      !logged.some((e) => e.path.includes('vm-state') || e.path.includes('change-package') || e.path.includes('/state/')),
      'portal calls are not logged',
    )

    // The route's own errors, and the portal's: its fields named.
    const refused = await call('lite.vm', 'rename', { name: 'x' })
    assert.equal(refused.status, 422)
    const bad = await c.request('POST', '/_emulator/portal', { body: { method: 'TRACE', path: 'lites' } })
    assert.equal(bad.status, 422)
    assert.deepEqual(
      (bad.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.')),
      ['body.method', 'body.path'],
    )
    assert.equal((await c.request('POST', '/_emulator/portal', { body: { method: 'GET', path: '/nowhere' } })).status, 404)
    assert.equal((await c.request('POST', '/_emulator/portal', { body: { method: 'DELETE', path: '/lites/products' } })).status, 405)
    const products = await c.request('POST', '/_emulator/portal', { body: { method: 'GET', path: '/lites/products?x=1' } })
    assert.equal(products.status, 200)

    // A terminated account is offered nothing: every change would be refused.
    await c.control('POST', `/accounts/${vm}/status`, { status: 'Terminated' })
    assert.deepEqual((await byKind())['lite.vm']?.portal, {})
  })
})

describe('the control API and a page of another site', () => {
  // A page of any other origin the user has open may send "simple" requests (text/plain, no preflight) to
  // 127.0.0.1: the browser sends them with an Origin header and lets them through; only the answer is hidden.
  // The console's own calls are same-origin, and curl sends no Origin: both still change the state.
  test('a cross-origin text/plain POST neither adds a fault nor resets the state', async () => {
    const c = setup()
    await c.ok('POST', '/lites/keypairs/', { name: 'kept' })
    const headers = { origin: 'http://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' }
    const fault = await c.request('POST', '/_emulator/faults', { raw: '{"path":"/**","status":503,"count":-1}', headers })
    assert.ok(fault.status >= 400, `a foreign origin's fault rule was accepted: ${fault.status}`)
    assert.deepEqual(await c.control<unknown[]>('GET', '/faults'), [])
    const reset = await c.request('POST', '/_emulator/reset', { headers })
    assert.ok(reset.status >= 400, `a foreign origin reset the emulator: ${reset.status}`)
    assert.match(JSON.stringify(reset.body), /from a page of http:\/\/evil\.example/)
    // An older browser sends the Origin alone.
    const bare = await c.request('POST', '/_emulator/reset', { headers: { origin: 'http://127.0.0.2:8080', host: '127.0.0.1:8080' } })
    assert.equal(bare.status, 403)
    assert.equal((await c.ok<unknown[]>('GET', '/lites/keypairs/')).length, 1)
    const own = { origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080', 'sec-fetch-site': 'same-origin' }
    const fromConsole = await c.request('POST', '/_emulator/faults', { body: { path: '/**', status: 503 }, headers: own })
    assert.equal(fromConsole.status, 200, 'the console, same-origin, adds its rule')
    assert.equal((await c.request('POST', '/_emulator/reset')).status, 200, 'curl, with no Origin, resets')
    assert.equal((await c.ok<unknown[]>('GET', '/lites/keypairs/')).length, 0)
  })
})

describe('fault paths and the clock', () => {
  test('a fault path given with /v1 (as the request log shows paths) is refused or matches, never silently dead', async () => {
    const c = setup()
    const reply = await c.request('POST', '/_emulator/faults', { body: { method: 'POST', path: '/v1/lites/keypairs/', status: 503 } })
    if (reply.status === 200) {
      const hit = await c.request('POST', '/v1/lites/keypairs/', { body: { name: 'k' } })
      assert.equal(hit.status, 503, 'the rule was accepted but never fires: paths are relative to /v1')
    } else {
      assert.equal(reply.status, 422)
      assert.match(JSON.stringify(reply.body), /v1/, 'the error says the path is relative to /v1')
    }
  })

  test('the clock cannot be advanced past the dates the API can write (YYYY-MM-DD)', async () => {
    const c = setup()
    const keypair = await c.ok<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'k' })
    const moved = await c.request('POST', '/_emulator/clock', { body: { advance_ms: 1e15 } })
    if (moved.status === 200) {
      const order = await c.ok<{ account_id: string }>('POST', '/lites', { ...VM_BODY, product_id: 101, keypair_id: keypair.keypair_id })
      const account = await c.ok<AccountView>('GET', `/lites/accounts/${order.account_id}`)
      const invoice = account.last_invoice
      for (const value of [invoice.date, invoice.paybefore]) assert.match(value, /^\d{4}-\d{2}-\d{2}$/, JSON.stringify(invoice))
      assert.match(String(account.date_created), /^\d{4}-\d{2}-\d{2}$/, 'date_created')
    } else assert.equal(moved.status, 422)
  })
})

describe('the console itself, as a browser may send its calls', () => {
  // The console is served with `Referrer-Policy: no-referrer` (console/serve.ts). A browser that applies it
  // to the page's own POST sends `Origin: null`; `Sec-Fetch-Site: same-origin` (which no page can forge)
  // still says the call came from the console's own origin.
  test('a same-origin change with Origin: null (the console under no-referrer) is taken', async () => {
    const c = setup()
    const headers = { origin: 'null', host: '127.0.0.1:8080', 'sec-fetch-site': 'same-origin' }
    const reply = await c.request('POST', '/_emulator/faults', { body: { path: '/**', status: 503 }, headers })
    assert.equal(reply.status, 200, `the console's own change was refused: ${JSON.stringify(reply.body)}`)
  })
})

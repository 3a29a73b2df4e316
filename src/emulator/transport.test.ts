// In-process tests of the shared request pipeline: envelopes and headers, authentication, routing,
// validation, idempotency and quirks.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator, type EmulatorOptions } from './index.js'
import { type AccountView, TestClient, VM_BODY } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 2, 1, 9, 15, 0)
const setup = (options: EmulatorOptions = {}) => new TestClient(createEmulator({ clock: 'manual', startTime: START, ...options }))

describe('envelopes and headers', () => {
  test('success wraps data; errors carry a string detail; JSON content type and request id always', async () => {
    const c = setup()
    const ok = await c.request('GET', '/v1/lites/products')
    assert.equal(ok.status, 200)
    assert.equal(ok.headers.get('content-type'), 'application/json')
    assert.equal(ok.headers.get('x-request-id'), '1')
    const body = ok.body as { success: boolean; code: number; data: unknown[] }
    assert.equal(body.success, true)
    assert.equal(body.code, 200)
    assert.equal(body.data.length, 3)
    const missing = await c.request('GET', '/v1/lites/accounts/999')
    assert.deepEqual(missing.body, { success: false, code: 404, detail: 'account 999 not found' })
    assert.equal(missing.headers.get('x-request-id'), '2')
    const string = await c.ok('DELETE', `/lites/${await c.vm()}`)
    assert.equal(string, 'cancellation scheduled')
  })
})

describe('authentication', () => {
  test('missing, empty and unknown keys answer 401; a read-only key may only GET', async () => {
    const c = setup({ apiKeys: ['rw-key', { key: 'ro-key', scope: 'ro' }] })
    for (const token of [null, '', 'nope']) {
      const reply = await c.request('GET', '/v1/lites/products', { token })
      assert.equal(reply.status, 401)
      assert.deepEqual(reply.body, { success: false, code: 401, detail: 'Invalid or missing API token' })
    }
    assert.equal((await c.request('GET', '/v1/lites/products', { token: 'ro-key' })).status, 200)
    const denied = await c.request('POST', '/v1/lites/keypairs/', { token: 'ro-key', body: { name: 'k' } })
    assert.equal(denied.status, 403)
    assert.equal((denied.body as { detail: string }).detail, 'API token is read-only')
    assert.equal((await c.request('POST', '/v1/lites/keypairs/', { token: 'rw-key', body: { name: 'k' } })).status, 200)
  })

  test('keys changed through the config take effect on the next request', async () => {
    const c = setup()
    await c.control('PATCH', '/config', { api_keys: [{ key: 'fresh', scope: 'rw' }] })
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 401)
    assert.equal((await c.request('GET', '/v1/lites/products', { token: 'fresh' })).status, 200)
  })
})

describe('routing', () => {
  test('unknown paths, non-digit ids and unknown ids answer 404; a wrong method 405', async () => {
    const c = setup()
    assert.equal((await c.request('GET', '/v1/nothing-here')).status, 404)
    assert.equal((await c.request('GET', '/v1/lites/accounts/abc')).status, 404)
    assert.equal((await c.request('GET', '/v1/lites/accounts/12a')).status, 404)
    assert.equal((await c.request('GET', '/v1/lites/products/999')).status, 404)
    assert.equal((await c.request('GET', '/elsewhere')).status, 404)
    const wrong = await c.request('DELETE', '/v1/lites/products')
    assert.equal(wrong.status, 405)
    assert.equal(wrong.headers.get('allow'), 'GET')
  })

  test('a route answers 404 for an unknown route before auth, and 401 before an unknown id', async () => {
    const c = setup()
    assert.equal((await c.request('GET', '/v1/lites/accounts/abc', { token: null })).status, 404)
    assert.equal((await c.request('GET', '/v1/lites/accounts/999', { token: null })).status, 401)
  })

  test('one trailing slash is the same route, never a redirect; two are not', async () => {
    const c = setup()
    await c.keypair()
    for (const path of ['/v1/lites/keypairs/', '/v1/lites/keypairs', '/v1/lites/products/']) {
      assert.equal((await c.request('GET', path)).status, 200, path)
    }
    assert.equal((await c.request('GET', '/v1/lites/products//')).status, 404)
  })

  test('an id of another kind or family is unknown in a path', async () => {
    const c = setup()
    const vm = await c.vm()
    const disk = await c.ok<{ account_id: string }>('POST', '/lites/disks', {
      product_id: 60,
      cycle: 'm',
      lite_account_id: vm,
    })
    await c.fails(404, 'GET', `/lites/accounts/${disk.account_id}`)
    await c.fails(404, 'GET', `/lite-pros/accounts/${vm}`)
    await c.fails(404, 'GET', `/lites/snapshots/accounts/${vm}`)
    await c.fails(404, 'POST', `/lite-pros/accounts/${vm}/migrate-to-pro`, { lite_pro_product_id: 201 })
  })
})

describe('validation', () => {
  test('one 422 reports every failing field with loc, msg and type', async () => {
    const c = setup()
    const detail = (await c.fails(422, 'POST', '/lites', {
      product_id: '101',
      cycle: 'weekly',
      select_os: 'Windows',
      keypair_id: 42,
      ssh_and_console_user: 'ab',
      console_password: 'alllowercase1',
      vm_name: 'x',
      pay_invoice_with_cc: 'maybe',
      promocode: 'FREE',
    })) as { loc: string[]; type: string; msg: string }[]
    const byField = Object.fromEntries(detail.map((d) => [d.loc.join('.'), d.type]))
    assert.deepEqual(byField, {
      'body.product_id': 'type_error',
      'body.cycle': 'value_error',
      'body.select_os': 'value_error',
      'body.keypair_id': 'value_error',
      'body.ssh_and_console_user': 'value_error',
      'body.console_password': 'value_error',
      'body.vm_name': 'value_error',
      'body.pay_invoice_with_cc': 'type_error',
      'body.promocode': 'value_error',
    })
    assert.ok(detail.every((d) => d.msg.length > 0))
  })

  test('missing fields are `missing`; a missing or broken body is loc ["body"]', async () => {
    const c = setup()
    const missing = (await c.fails(422, 'POST', '/lites', {})) as { loc: string[]; type: string }[]
    assert.deepEqual(
      missing.map((d) => d.loc[1]),
      ['product_id', 'cycle', 'select_os', 'keypair_id', 'ssh_and_console_user', 'console_password'],
    )
    assert.ok(missing.every((d) => d.type === 'missing'))
    const broken = await c.request('POST', '/v1/lites', { raw: '{"product_id": 1' })
    assert.deepEqual((broken.body as { detail: unknown }).detail, [{ loc: ['body'], msg: 'body is not valid JSON', type: 'json_invalid' }])
    const none = await c.request('POST', '/v1/lites/keypairs/')
    assert.equal(((none.body as { detail: { type: string }[] }).detail[0] ?? { type: '' }).type, 'missing')
  })

  test('an unknown power action is a 422 on the path; a bad status query on the query', async () => {
    const c = setup()
    const vm = await c.vm()
    const action = (await c.fails(422, 'PUT', `/lites/accounts/${vm}/vm-state/explode`)) as { loc: string[] }[]
    assert.deepEqual(action[0]?.loc, ['path', 'action'])
    const query = (await c.fails(422, 'GET', '/lites/accounts?status=Active&status=Sleeping')) as { loc: string[] }[]
    assert.deepEqual(query[0]?.loc, ['query', 'status'])
  })

  test('a malformed percent escape in a path parameter is the 422 of an unknown value, not a failure', async () => {
    const c = setup()
    const vm = await c.vm()
    const action = (await c.fails(422, 'PUT', `/lites/accounts/${vm}/vm-state/%E0%A4%A`)) as { loc: string[] }[]
    assert.deepEqual(action[0]?.loc, ['path', 'action'])
    const log = await c.control<{ path: string; status: number | null }[]>('GET', '/requests')
    assert.equal(log.at(-1)?.status, 422)
    // The control API's own parameters too: a snapshot name breaking the rule is its 422.
    assert.equal((await c.request('GET', '/_emulator/snapshots/%ZZ')).status, 422)
  })

  test('"yes"/"no" are accepted for the payment flag', async () => {
    const c = setup()
    const keypair = await c.keypair()
    const order = await c.ok<{ account_id: string }>('POST', '/lites', {
      ...VM_BODY,
      product_id: 101,
      keypair_id: keypair,
      pay_invoice_with_cc: 'NO',
    })
    const account = await c.ok<AccountView>('GET', `/lites/accounts/${order.account_id}`)
    assert.equal(account.last_invoice.status, 'Unpaid')
  })
})

describe('idempotency', () => {
  const order = (keypair: number) => ({ ...VM_BODY, product_id: 101, keypair_id: keypair })

  test('quirk ignore_idempotency_keys: a service without the extension neither echoes nor honours keys', async () => {
    const c = setup({ quirks: { ignore_idempotency_keys: true } })
    const body = order(await c.keypair())
    const headers = { 'Idempotency-Key': 'order-1' }
    const first = await c.request('POST', '/v1/lites', { body, headers })
    const second = await c.request('POST', '/v1/lites', { body, headers })
    assert.equal(first.headers.get('idempotency-key'), null)
    assert.equal(second.headers.get('idempotency-replayed'), null)
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 2)
  })

  test('the key is echoed on a GET too, so a client can ask whether the extension is there', async () => {
    const c = setup()
    const answer = await c.request('GET', '/v1/lites/products', { headers: { 'Idempotency-Key': 'probe-1' } })
    assert.equal(answer.headers.get('idempotency-key'), 'probe-1')
  })

  test('a repeat replays the stored answer, places no second order, and echoes the key', async () => {
    const c = setup()
    const body = order(await c.keypair())
    const headers = { 'Idempotency-Key': 'order-1' }
    const first = await c.request('POST', '/v1/lites', { body, headers })
    assert.equal(first.headers.get('idempotency-key'), 'order-1')
    assert.equal(first.headers.get('idempotency-replayed'), null)
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const second = await c.request('POST', '/v1/lites', { body: reordered, headers })
    assert.equal(second.status, 200)
    assert.equal(second.headers.get('idempotency-replayed'), 'true')
    assert.equal(second.headers.get('idempotency-key'), 'order-1')
    assert.deepEqual(second.body, first.body)
    // One trailing slash is the same route, so the same request: replayed, not a 409.
    const slashed = await c.request('POST', '/v1/lites/', { body, headers })
    assert.equal(slashed.status, 200)
    assert.equal(slashed.headers.get('idempotency-replayed'), 'true')
    const orders = await c.control<{ total: number }>('GET', '/orders')
    assert.equal(orders.total, 1)
    const log = await c.control<{ replayed: boolean }[]>('GET', '/requests')
    assert.deepEqual(
      log.map((e) => e.replayed),
      [false, false, true, true],
    )
  })

  test('the same key with another body or path is a 409; keys are per API key', async () => {
    const c = setup({ apiKeys: ['a@a', 'b@a'] }) // two keys of one customer: its keypair, their own Idempotency-Keys
    const keypair = await c.ok<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'k' })
    const headers = { 'Idempotency-Key': 'shared' }
    await c.ok('POST', '/lites', order(keypair.keypair_id), headers)
    const other = await c.request('POST', '/v1/lites', { body: { ...order(keypair.keypair_id), vm_name: 'other-name' }, headers })
    assert.equal(other.status, 409)
    assert.equal(other.headers.get('retry-after'), null)
    const path = await c.request('POST', '/v1/lite-pros', { body: order(keypair.keypair_id), headers })
    assert.equal(path.status, 409)
    const otherKey = await c.request('POST', '/v1/lites', { body: order(keypair.keypair_id), headers, token: 'b' })
    assert.equal(otherKey.status, 200)
    assert.equal(otherKey.headers.get('idempotency-replayed'), null)
  })

  test('a repeat while the first is in progress is a 409 with Retry-After: 1', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let holding = true
    const c = setup({
      beforeEffect: () => {
        if (holding) {
          holding = false
          return held
        }
      },
    })
    const body = order(await c.keypair())
    const headers = { 'Idempotency-Key': 'slow' }
    const first = c.request('POST', '/v1/lites', { body, headers })
    await new Promise((resolve) => setImmediate(resolve))
    const second = await c.request('POST', '/v1/lites', { body, headers })
    assert.equal(second.status, 409)
    assert.equal(second.headers.get('retry-after'), '1')
    release()
    assert.equal((await first).status, 200)
    const third = await c.request('POST', '/v1/lites', { body, headers })
    assert.equal(third.headers.get('idempotency-replayed'), 'true')
  })

  test('stored 4xx answers replay too; error_after stores the real answer for the retry', async () => {
    const c = setup()
    const headers = { 'Idempotency-Key': 'bad' }
    const bad = await c.request('POST', '/v1/lites', { body: {}, headers })
    assert.equal(bad.status, 422)
    const again = await c.request('POST', '/v1/lites', { body: {}, headers })
    assert.equal(again.status, 422)
    assert.equal(again.headers.get('idempotency-replayed'), 'true')

    const body = order(await c.keypair())
    await c.control('POST', '/faults', { path: '/lites', mode: 'error_after', status: 500 })
    // error_after processed the order and stored the real answer: the retry replays it.
    const lost = await c.request('POST', '/v1/lites', { body, headers: { 'Idempotency-Key': 'k2' } })
    assert.equal(lost.status, 500)
    const retry = await c.request('POST', '/v1/lites', { body, headers: { 'Idempotency-Key': 'k2' } })
    assert.equal(retry.status, 200)
    assert.equal(retry.headers.get('idempotency-replayed'), 'true')
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 1)
  })

  test('records expire after the TTL, on the emulator clock', async () => {
    const c = setup({ idempotencyTtlMs: 10_000 })
    const body = order(await c.keypair())
    const headers = { 'Idempotency-Key': 'ttl' }
    await c.ok('POST', '/lites', body, headers)
    await c.advance(10_000)
    const fresh = await c.request('POST', '/v1/lites', { body, headers })
    assert.equal(fresh.headers.get('idempotency-replayed'), null)
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 2)
  })

  test('a malformed Idempotency-Key is a 422 on the header', async () => {
    const c = setup()
    const reply = await c.request('POST', '/v1/lites/keypairs/', {
      body: { name: 'k' },
      headers: { 'Idempotency-Key': 'x'.repeat(256) },
    })
    assert.equal(reply.status, 422)
    assert.deepEqual((reply.body as { detail: { loc: string[] }[] }).detail[0]?.loc, ['header', 'Idempotency-Key'])
  })
})

describe('quirks', () => {
  test('ids_as_strings sends ids as numeric strings; bare_lists drops the list envelope', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.control('PATCH', '/config', { quirks: { ids_as_strings: true } })
    const account = await c.ok<Record<string, unknown>>('GET', `/lites/accounts/${vm}`)
    assert.equal(account.account_id, String(vm))
    assert.equal(account.product_id, '101')
    assert.equal((account.last_invoice as { id: unknown }).id, '700001')
    assert.equal(typeof (account.extra_details as { keypair_id: unknown }).keypair_id, 'string')
    const keys = await c.ok<{ keypair_id: unknown }[]>('GET', '/lites/keypairs/')
    assert.equal(typeof keys[0]?.keypair_id, 'string')

    await c.control('PATCH', '/config', { quirks: { bare_lists: true } })
    const list = await c.request('GET', '/v1/lites/products')
    assert.ok(Array.isArray(list.body))
    const config = await c.control<{ quirks: unknown }>('GET', '/config')
    assert.deepEqual(config.quirks, { ids_as_strings: true, bare_lists: true, ignore_idempotency_keys: false })
    const single = await c.request('GET', `/v1/lites/accounts/${vm}`)
    assert.equal((single.body as { success: boolean }).success, true)
  })
})

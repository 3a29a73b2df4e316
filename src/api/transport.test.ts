// The HTTP transport through the client, against a scripted fetch: headers and bodies, the success
// and error envelopes, retries (backoff, Retry-After, 429, timeouts, cancellation), what an order's
// retries keep (its Idempotency-Key), and secrets that never leave their origin or reach an error.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { accountId } from './decode.js'
import { ApiError, DecodeError, TransportError } from './errors.js'
import { BASE_URL, fail, fakeClock, fakeFetch, json, ok, type Reply, testClient } from '../../test/support/fake-fetch.js'
import { Transport } from './transport.js'

/**
 * A change sent without an Idempotency-Key and not marked repeatable, straight through a transport:
 * every change the client's calls make is an order, a one-shot action, a delete or safe to send again.
 */
function keyless(replies: readonly Reply[], { requestTimeoutMs = 30_000, timeoutMs = 600_000 } = {}) {
  const server = fakeFetch(replies)
  const clock = fakeClock()
  const transport = new Transport({
    baseUrl: BASE_URL,
    apiKey: 'secret-key',
    userAgent: 'provider-terraform/0.1.0',
    fetch: server.fetch,
    requestTimeoutMs,
    maxAttempts: 4,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0.5,
    log: () => {},
    deadline: () => clock.now() + timeoutMs,
  })
  const change = (path = '/lites/accounts/1/change-vm-name', body: unknown = { name: 'abcdef' }, accountId = '1') =>
    transport.send('PUT', path, body, () => undefined, undefined, accountId)
  return { change, requests: server.requests }
}

const VM = {
  account_id: 100042,
  status: 'Active',
  billingcycle: 'Monthly',
  date_created: '2025-03-01',
  next_due: '2025-04-01',
  recurring_amount: 60000,
  product_id: 101,
  product_name: 'XS 1.1',
  description: 'web tier',
  order_id: '500017',
  last_invoice: null,
  extra_details: {
    region: 'wjv-1',
    region_label: 'West Java 1',
    name: 'web-server-01',
    ciuser: 'deployer',
    cipassword: 'S3cretPass9',
    keypair_id: 7,
    osname: 'Ubuntu-22.04',
    disk_size: '20',
    snapshot_id: null,
  },
}

const ORDER = { order_id: '500017', account_id: '100042' }

const rejects = async <E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> => {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`)
    return error
  }
  assert.fail('expected a rejection')
}

describe('requests', () => {
  test('send x-token, User-Agent, no body and no Content-Type on GET, to the base URL without its slash', async () => {
    const { client, requests } = testClient([ok(VM)])
    await client.lites.getVm('100042')
    const [request] = requests
    assert.equal(request?.path, '/lites/accounts/100042')
    assert.equal(request?.headers.get('x-token'), 'secret-key')
    assert.equal(request?.headers.get('user-agent'), 'provider-terraform/0.1.0')
    assert.equal(request?.headers.get('content-type'), null)
    assert.equal(request?.headers.get('idempotency-key'), null)
    assert.equal(request?.body, undefined)
  })

  test('send JSON with Content-Type when there is a body', async () => {
    const { client, requests } = testClient([ok(true)])
    await client.lites.renameVm(100042, { name: 'web-server-02' })
    assert.equal(requests[0]?.method, 'PUT')
    assert.equal(requests[0]?.path, '/lites/accounts/100042/change-vm-name')
    assert.equal(requests[0]?.headers.get('content-type'), 'application/json')
    assert.deepEqual(requests[0]?.body, { name: 'web-server-02' })
  })

  test('reject malformed ids before any request', async () => {
    const { client, requests } = testClient([])
    await assert.rejects(client.lites.getVm('../etc'), TypeError)
    assert.equal(requests.length, 0)
  })

  test('log method, path, status, request id and duration, never the key or bodies', async () => {
    // A change of package reads the VM first (its last invoice: see PlacedOn); the order is the second request.
    const { client, logs } = testClient([ok({}), ok(ORDER, { 'x-request-id': '12' })])
    await client.lites.changePackage('100042', { new_product_id: 102 })
    const line = logs.find((l) => l.fields?.status === 200 && l.fields?.method === 'POST')
    assert.ok(line)
    assert.equal(line.fields?.method, 'POST')
    assert.equal(line.fields?.path, '/lites/accounts/100042/change-package')
    assert.equal(line.fields?.request_id, '12')
    assert.equal(typeof line.fields?.duration_ms, 'number')
    const text = JSON.stringify(logs)
    assert.ok(!text.includes('secret-key'))
    assert.ok(!text.includes('new_product_id'))
  })

  test('a read answered 404 (a gone check, an import of a missing id) and a keypair create answered 409 (a taken name, looked up next) log at debug; other failures at info', async () => {
    const { client, logs } = testClient([fail(404, 'no such account'), fail(409, 'Pending'), fail(409, 'name taken')])
    await rejects(client.lites.getVm('1'), ApiError)
    await rejects(client.lites.renameVm('1', { name: 'abcdef' }), ApiError)
    await rejects(client.lites.createKeypair({ name: 'taken' }), ApiError)
    assert.deepEqual(
      logs.filter((l) => typeof l.fields?.status === 'number').map((l) => `${l.level} ${l.fields?.status}`),
      ['debug 404', 'info 409', 'debug 409'],
    )
  })
})

describe('success envelopes', () => {
  test('an enveloped object gives data', async () => {
    const { client } = testClient([ok(ORDER)])
    assert.deepEqual(await client.lites.createVm(createBody()), ORDER)
  })

  test('an enveloped array gives the array', async () => {
    const { client } = testClient([ok([VM])])
    const vms = await client.lites.listVms()
    assert.equal(vms.length, 1)
    assert.equal(vms[0]?.account_id, '100042')
  })

  test('a bare array is the payload itself', async () => {
    const { client } = testClient([json(200, [{ keypair_id: 7, name: 'k', public_key: 'ssh-ed25519 AAAA k' }])])
    const keys = await client.lites.listKeypairs()
    assert.equal(keys[0]?.keypair_id, 7)
  })

  test('a bare object without the success flag is the payload, even with a data key', async () => {
    const { client } = testClient([json(200, { available: true, data: 'x' })])
    assert.equal((await client.lites.getIpAvailability(101)).available, true)
  })

  test('a primitive data is fine, and an empty body is null', async () => {
    const { client } = testClient([ok('cancellation scheduled'), new Response('', { status: 200 })])
    assert.equal(await client.lites.deleteVm('100042'), undefined)
    assert.equal(await client.lites.setVmState('100042', 'start'), undefined)
  })

  test('success is decided on the HTTP status, not on the success flag', async () => {
    const { client } = testClient([json(200, { success: false, code: 200, data: ORDER })])
    assert.deepEqual(await client.lites.createVm(createBody()), ORDER)
  })

  test('a 2xx that is not JSON, or has the wrong shape, is a DecodeError naming the request', async () => {
    const { client } = testClient([new Response('<html>', { status: 200 }), ok({ order_id: 'x' })])
    const notJson = await rejects(client.lites.getVm('1'), DecodeError)
    assert.match(notJson.message, /GET \/lites\/accounts\/1/)
    const shape = await rejects(client.lites.createVm(createBody()), DecodeError)
    assert.match(shape.message, /order_id/)
  })

  test('an answer that cannot be read never shows its content: a key or a VPN profile cut short stays out of the message', async () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU'
    const cut = `{"success":true,"code":200,"data":{"private_key":"${key}`
    const { client } = testClient([
      new Response(cut, { status: 200 }),
      new Response('<html><body>Bad gateway</body></html>', { status: 200 }),
    ])
    const truncated = await rejects(client.lites.getVm('1'), DecodeError)
    assert.match(truncated.message, /not JSON \(\d+ characters, not shown/)
    assert.ok(!truncated.message.includes('BEGIN OPENSSH'), truncated.message)
    const page = await rejects(client.lites.getVm('1'), DecodeError)
    assert.match(page.message, /web page: check that base_url/)
    assert.ok(!page.message.includes('Bad gateway'), page.message)
  })

  test('a field of the wrong type is named; a long or secret-named text in it is not shown', async () => {
    const { client } = testClient([
      ok({ order_id: 'x' }),
      ok({ ...ORDER, order_id: { private_key: 'PRIVATE-KEY-MATERIAL-0123456789', n: 1 } }),
    ])
    const short = await rejects(client.lites.createVm(createBody()), DecodeError)
    assert.match(short.message, /order_id should be an id \(digits\), got "x"/)
    const nested = await rejects(client.lites.createVm(createBody()), DecodeError)
    assert.match(nested.message, /order_id should be an id \(digits\), got \{"private_key":"\*\*\*","n":1\}/)
    assert.ok(!nested.message.includes('PRIVATE-KEY-MATERIAL'), nested.message)
    assert.throws(
      () => accountId('hunter22', 'data.root_password'),
      /data\.root_password should be an id \(digits\), got a string of 8 characters$/,
    )
    assert.throws(() => accountId('x'.repeat(40), 'data.order_id'), /got a string of 40 characters$/)
  })
})

describe('error decoding', () => {
  test('a 422 joins every field and exposes them', async () => {
    const detail = [
      { loc: ['body', 'console_password'], msg: 'must contain an upper-case letter', type: 'value_error' },
      { loc: ['body', 'cycle'], msg: 'field required', type: 'missing' },
      { loc: ['body', 'items', 0, 'name'], msg: 'too long', type: 'value_error' },
    ]
    const { client } = testClient([fail(422, detail, { 'x-request-id': '31' })])
    const error = await rejects(client.lites.createVm(createBody()), ApiError)
    assert.equal(error.status, 422)
    assert.deepEqual(error.fields, [
      { field: 'console_password', message: 'must contain an upper-case letter' },
      { field: 'cycle', message: 'field required' },
      { field: 'items.0.name', message: 'too long' },
    ])
    assert.equal(error.apiMessage, 'console_password: must contain an upper-case letter; cycle: field required; items.0.name: too long')
    assert.equal(error.requestId, '31')
    assert.equal(error.method, 'POST')
    assert.equal(error.path, '/lites')
    assert.equal(error.fault, 'client')
    assert.match(error.message, /422/)
    assert.match(error.message, /cycle: field required/)
    assert.match(error.message, /request id 31/)
  })

  test('a string detail is the message; the account id and request id are named', async () => {
    const { client } = testClient([ok({}), fail(409, 'account 100042 is Pending; this action needs Active', { 'x-request-id': '7' })])
    const error = await rejects(client.lites.upgradeStorage('100042', { disk_size: 40 }), ApiError)
    assert.equal(error.apiMessage, 'account 100042 is Pending; this action needs Active')
    assert.equal(error.accountId, '100042')
    assert.deepEqual(error.fields, [])
    assert.match(error.message, /409.*Pending.*account 100042.*request id 7/)
  })

  test('a 404 or a 410 is notFound and a 5xx is the server fault; an order says its outcome is unknown', async () => {
    const { client } = testClient([fail(404, 'no such account'), fail(410, 'gone'), ...[1, 2, 3, 4].map(() => fail(500, 'boom'))])
    const missing = await rejects(client.lites.getVm('9'), ApiError)
    assert.equal(missing.notFound, true)
    const gone = await rejects(client.lites.deleteVm('9'), ApiError)
    assert.equal(gone.notFound, true, 'a 410 Gone is as definite as a 404')
    const broken = await rejects(client.lites.renameVm('9', { name: 'abcdef' }), ApiError)
    assert.equal(broken.notFound, false)
    assert.equal(broken.fault, 'server')
    assert.equal(broken.outcomeUnknown, true)
    assert.match(broken.message, /may have been processed/)
  })

  test('a non-JSON body gives its text; message or error keys are used without detail', async () => {
    const { client } = testClient([
      new Response('Bad Gateway from the proxy', { status: 404 }),
      json(404, { message: 'gone away' }),
      json(404, { error: 'nope' }),
      new Response('', { status: 404, statusText: 'Not Found' }),
      new Response('x'.repeat(2000), { status: 404 }),
    ])
    assert.equal((await rejects(client.lites.getVm('1'), ApiError)).apiMessage, 'Bad Gateway from the proxy')
    assert.equal((await rejects(client.lites.getVm('1'), ApiError)).apiMessage, 'gone away')
    assert.equal((await rejects(client.lites.getVm('1'), ApiError)).apiMessage, 'nope')
    assert.equal((await rejects(client.lites.getVm('1'), ApiError)).apiMessage, 'Not Found')
    assert.equal((await rejects(client.lites.getVm('1'), ApiError)).apiMessage.length, 500)
  })

  test('without X-Request-Id the message simply has none', async () => {
    const { client } = testClient([fail(409, 'duplicate name')])
    const error = await rejects(client.lites.createKeypair({ name: 'k' }), ApiError)
    assert.equal(error.requestId, undefined)
    assert.doesNotMatch(error.message, /request id/)
  })
})

describe('retries', () => {
  test('a GET answered 503 is retried with backoff, then succeeds', async () => {
    const { client, requests, clock } = testClient([fail(503, 'busy'), fail(502, 'busy'), ok(VM)])
    const vm = await client.lites.getVm('100042')
    assert.equal(vm.account_id, '100042')
    assert.equal(requests.length, 3)
    assert.deepEqual(clock.sleeps, [500, 1000])
  })

  test('backoff has jitter', async () => {
    const { client, clock } = testClient([fail(500, 'x'), ok(VM)], { random: () => 0 })
    await client.lites.getVm('1')
    assert.deepEqual(clock.sleeps, [375])
  })

  test('at most 4 attempts in all, then the last error, saying what every attempt got', async () => {
    const { client, requests, clock } = testClient([fail(503, 'a'), fail(503, 'b'), fail(503, 'c'), fail(504, 'd')])
    const error = await rejects(client.lites.getVm('1'), ApiError)
    assert.equal(error.status, 504)
    assert.equal(requests.length, 4)
    assert.deepEqual(clock.sleeps, [500, 1000, 2000])
    assert.match(error.message, /The service answered 503, 503, 503, 504 to 4 attempts over \d+s; the request was given up/)
    const once = testClient([fail(503, 'busy')], { maxAttempts: 1 })
    assert.doesNotMatch((await rejects(once.client.lites.getVm('1'), ApiError)).message, /attempts/, 'one attempt has no history')
  })

  test('a 5xx not asked again because the operation has no time left says so, not "to all 1 attempts"', async () => {
    const frame = { timeoutMs: 100, onFinish: () => undefined }
    const { client, requests } = testClient([fail(503, 'busy'), ok(VM)], { operation: () => frame })
    const error = await rejects(client.lites.getVm('1'), ApiError)
    assert.equal(requests.length, 1)
    assert.doesNotMatch(error.message, /all 1 attempts/, error.message)
    assert.match(
      error.message,
      /The service answered 503 to the one attempt the operation's timeout left time for; the request was given up/,
    )
  })

  test('a 429 with Retry-After: 0 is asked again ever less often, never at once; without Retry-After after 1 s', async () => {
    const zero = () => fail(429, 'slow down', { 'retry-after': '0' })
    const { client, clock } = testClient([zero(), zero(), zero(), zero(), ok(VM)], { random: () => 0 })
    await client.lites.getVm('1')
    assert.deepEqual(clock.sleeps, [250, 500, 1000, 2000])
    const absent = testClient([fail(429, 'slow down'), ok(VM)], { random: () => 0 })
    await absent.client.lites.getVm('1')
    assert.deepEqual(absent.clock.sleeps, [1000])
  })

  test('a read outside an operation waits the Retry-After of a 429 even past four short request timeouts', async () => {
    const { client, clock, requests } = testClient([fail(429, 'slow down', { 'retry-after': '10' }), ok(VM)], {
      random: () => 0,
      requestTimeoutMs: 2_000,
    })
    await client.lites.getVm('1')
    assert.deepEqual(clock.sleeps, [10_000])
    assert.equal(requests.length, 2)
  })

  test('a 503 that says when to come back is asked again no sooner', async () => {
    const { client, clock } = testClient([fail(503, 'maintenance', { 'retry-after': '7' }), ok(VM)], { random: () => 0 })
    await client.lites.getVm('1')
    assert.deepEqual(clock.sleeps, [7_000])
  })

  test("an attempt waits for its answer no longer than the operation's time left (not a whole request_timeout)", async () => {
    const hang = (r: { signal: AbortSignal }) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason)))
    const { change } = keyless([hang], { requestTimeoutMs: 60_000, timeoutMs: 1_000 })
    const started = Date.now()
    const error = await rejects(change(), TransportError)
    assert.equal(error.reason, 'timeout')
    assert.match(error.message, /no answer within 1s \(the operation's timeout\)/)
    assert.ok(Date.now() - started < 30_000, 'aborted at the deadline')
  })

  test('a change without a key is not retried on 502', async () => {
    const { change, requests } = keyless([fail(502, 'Bad Gateway')])
    assert.equal((await rejects(change(), ApiError)).status, 502)
    assert.equal(requests.length, 1)
  })

  test('a change safe to send again (a keypair create, a power state, a name or label) is retried on 5xx with one key of its own', async () => {
    const { client, requests } = testClient([
      fail(502, 'Bad Gateway'),
      ok({ keypair_id: 1, name: 'k', public_key: 'ssh-ed25519 AAAA', private_key: 'PK' }),
      fail(502, 'Bad Gateway'),
      ok('off accepted'),
      fail(503, 'Service Unavailable'),
      ok(true),
    ])
    assert.equal((await client.lites.createKeypair({ name: 'k' })).private_key, 'PK')
    await client.baremetals.setPowerState('100070', 'off')
    await client.baremetals.setLabel('100070', { label: 'db' })
    assert.equal(requests.length, 6)
    const keys = requests.map((r) => r.headers.get('idempotency-key'))
    for (const pair of [0, 2, 4]) {
      assert.match(keys[pair] ?? '', /^[0-9a-f-]{36}$/)
      assert.equal(keys[pair + 1], keys[pair])
    }
  })

  test('a refusal of a repeat says how many earlier attempts reached the service unanswered (a lost answer, a 5xx), not those that never connected', async () => {
    const refusal = () => fail(409, 'keypair name already exists')
    const reset = () => new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) })
    const unreachable = () => new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })
    for (const [replies, expected] of [
      [[refusal()], 0],
      [[reset(), refusal()], 1],
      [[fail(502, 'Bad Gateway'), reset(), refusal()], 2],
      [[unreachable(), refusal()], 0],
    ] as const) {
      const { client } = testClient([...replies])
      const error = await rejects(client.lites.createKeypair({ name: 'k' }), ApiError)
      assert.equal(error.status, 409)
      assert.equal(error.unansweredBefore, expected, JSON.stringify(replies))
    }
  })

  test('a delete is retried on 5xx and on no answer with one key of its own, as a repeat of it is harmless', async () => {
    const { client, requests } = testClient([
      fail(502, 'Bad Gateway'),
      new TypeError('fetch failed', { cause: new Error('ECONNRESET') }),
      ok('cancellation scheduled'),
    ])
    await client.baremetals.deleteServer('100035')
    assert.equal(requests.length, 3)
    const keys = requests.map((r) => r.headers.get('idempotency-key'))
    assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/)
    assert.deepEqual(keys, [keys[0], keys[0], keys[0]])
    const keypair = testClient([fail(503, 'Service Unavailable'), ok(true)])
    await keypair.client.lites.deleteKeypair(2)
    assert.equal(keypair.requests.length, 2)
    const failing = testClient(Array.from({ length: 4 }, () => fail(503, 'Service Unavailable')))
    const error = await rejects(failing.client.lites.deleteVm('100035'), ApiError)
    assert.equal(failing.requests.length, 4)
    assert.match(error.message, /503 to all 4 attempts/)
  })

  test('an order is retried on 5xx keeping its Idempotency-Key, once the service has echoed keys', async () => {
    const echo = (r: { headers: Headers }) => fail(503, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
    const { client, requests } = testClient([echo, new TypeError('fetch failed'), ok(ORDER)])
    assert.deepEqual(await client.lites.createVm(createBody()), ORDER)
    assert.equal(requests.length, 3)
    const keys = requests.map((r) => r.headers.get('idempotency-key'))
    assert.deepEqual(keys, ['key-1', 'key-1', 'key-1'])
    assert.deepEqual(requests[2]?.body, requests[0]?.body)
  })

  test('each new order gets a fresh key; a caller-given key is used as is', async () => {
    // The change of package reads the VM first; the repeat with a saved key does not (nothing new to tell apart).
    const { client, requests } = testClient([ok(ORDER), ok({}), ok(ORDER), ok(ORDER)])
    await client.lites.createVm(createBody())
    await client.lites.changePackage('100042', { new_product_id: 102 })
    await client.lites.upgradeStorage('100042', { disk_size: 40 }, { idempotencyKey: 'saved-key' })
    assert.deepEqual(
      requests.map((r) => r.headers.get('idempotency-key')),
      ['key-1', null, 'key-2', 'saved-key'],
    )
  })

  test('a default client sends UUID keys', async () => {
    const { client, requests } = testClient([ok(ORDER)], { idempotencyKey: undefined })
    await client.lites.createVm(createBody())
    assert.match(requests[0]?.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/)
  })

  test('429 on any method waits Retry-After seconds', async () => {
    const { client, requests, clock } = testClient([fail(429, 'slow down', { 'retry-after': '7' }), ok(true)])
    await client.lites.renameVm('1', { name: 'abcdef' })
    assert.equal(requests.length, 2)
    assert.deepEqual(clock.sleeps, [7875])
  })

  test('a read answered 429 for 5 minutes gives up before a 20-minute operation timeout, saying nothing was processed', async () => {
    const frame = { timeoutMs: 20 * 60_000, onFinish: () => undefined }
    const replies = Array.from({ length: 1_000 }, () => fail(429, 'slow down', { 'retry-after': '2' }))
    const { client, clock, requests } = testClient(replies, { operation: () => frame })
    const started = clock.now()
    const error = await client.lites.getVm('1').then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ApiError)
    assert.ok(clock.now() - started <= 5 * 60_000 + 60_000, `gave up after ${clock.now() - started} ms`)
    assert.match(error.message, new RegExp(`all ${requests.length} attempts over`), error.message)
    assert.match(error.message, /nothing was processed/, error.message)
  })

  test('Retry-After is capped at 60 s and defaults to 1 s', async () => {
    const { client, clock } = testClient([fail(429, 'slow', { 'retry-after': '3600' }), fail(429, 'slow'), ok(VM)])
    await client.lites.getVm('1')
    assert.deepEqual(clock.sleeps, [60000, 1125])
  })

  test('a 409 with Retry-After (order in progress) is retried with the same key', async () => {
    const { client, requests, clock } = testClient([
      fail(409, 'request with this Idempotency-Key is in progress', { 'retry-after': '1' }),
      ok(ORDER),
    ])
    await client.lites.createDisk({ product_id: 60, cycle: 'm', lite_account_id: '100042' })
    assert.equal(requests.length, 2)
    assert.equal(requests[0]?.headers.get('idempotency-key'), requests[1]?.headers.get('idempotency-key'))
    assert.deepEqual(clock.sleeps, [1125])
  })

  test('a 409 without Retry-After, a 404 and a 422 are never retried', async () => {
    for (const reply of [fail(409, 'Pending'), fail(404, 'missing'), fail(422, [])]) {
      const { client, requests } = testClient([ok({}), reply])
      await rejects(client.lites.changePackage('1', { new_product_id: 2 }), ApiError)
      assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    }
    const { client, requests } = testClient([fail(404, 'missing')])
    await rejects(client.lites.getVm('1'), ApiError)
    assert.equal(requests.length, 1)
  })

  test('a transport failure on GET is retried; without a key on a mutation it is a TransportError', async () => {
    const get = testClient([new TypeError('fetch failed', { cause: new Error('ECONNRESET') }), ok(VM)])
    await get.client.lites.getVm('1')
    assert.equal(get.requests.length, 2)
    const put = keyless([new TypeError('fetch failed', { cause: new Error('ECONNRESET') })])
    const error = await rejects(put.change('/lites/accounts/5/vm-state/stop', undefined, '5'), TransportError)
    assert.equal(error.reason, 'network')
    assert.equal(error.method, 'PUT')
    assert.equal(error.path, '/lites/accounts/5/vm-state/stop')
    assert.equal(error.accountId, '5')
    assert.match(error.message, /ECONNRESET/)
    assert.equal(put.requests.length, 1)
  })

  test('a read that does not answer in time is aborted and asked again, up to the attempts; then it fails as a timeout', async () => {
    const hang = (r: { signal: AbortSignal }) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason)))
    const { client, requests } = testClient([hang, hang, hang, hang], { requestTimeoutMs: 5 })
    const error = await rejects(client.lites.getVm('1'), TransportError)
    assert.equal(error.reason, 'timeout')
    assert.equal(requests.length, 4, 'a GET is asked again after a timeout, as after any transport failure (backend-api 1.10)')
    assert.ok(requests.every((r) => r.signal.aborted))
    // The message says it was every attempt, not one slow call, and what to do.
    assert.match(
      error.message,
      /no answer within 5ms \(request_timeout\) \(account 1\)\. None of 4 attempts over \S+ was answered; the request was given up\./,
    )
    assert.match(error.message, /raise request_timeout if it is only slow\.$/)
    const slowOnce = testClient([hang, ok(VM)], { requestTimeoutMs: 5 })
    assert.equal((await slowOnce.client.lites.getVm('1')).account_id, String(VM.account_id), 'one slow answer is no failure')
  })

  test('a read whose every attempt could not connect says so, and does not advise a longer request_timeout', async () => {
    const refused = () =>
      new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) })
    const { client, requests } = testClient([refused(), refused(), refused(), refused()])
    const error = await rejects(client.lites.getVm('1'), TransportError)
    assert.equal(error.refused, true)
    assert.equal(requests.length, 4)
    assert.match(error.message, /None of 4 attempts over \S+ could connect; the request was given up\.$/)
    assert.doesNotMatch(error.message, /request_timeout/, 'a longer wait for an answer does not help a connection nobody accepts')
  })

  test('a change without a key that does not answer in time is not sent again', async () => {
    const hang = (r: { signal: AbortSignal }) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason)))
    const { change, requests } = keyless([hang, hang], { requestTimeoutMs: 5 })
    assert.equal((await rejects(change(), TransportError)).reason, 'timeout')
    assert.equal(requests.length, 1)
  })

  test('a fetch that ignores its signal still times out', async () => {
    const never = () => new Promise<Response>(() => undefined)
    const { change } = keyless([never], { requestTimeoutMs: 5 })
    const error = await rejects(change(), TransportError)
    assert.equal(error.reason, 'timeout')
  })

  test('a caller signal cancels the request and its retries', async () => {
    const controller = new AbortController()
    const { client, requests } = testClient([
      () => {
        controller.abort()
        return fail(503, 'busy')
      },
      ok(VM),
    ])
    const error = await rejects(client.lites.getVm('1', { signal: controller.signal }), TransportError)
    assert.equal(error.reason, 'cancelled')
    assert.equal(requests.length, 1)
    const already = testClient([ok(VM)])
    await rejects(already.client.lites.getVm('1', { signal: controller.signal }), TransportError)
    assert.equal(already.requests.length, 0)
  })

  test('a delete cancelled while on its way says the service may have processed it; one cancelled before it left does not', async () => {
    const controller = new AbortController()
    const never = () => {
      controller.abort()
      return new Promise<Response>(() => undefined)
    }
    const sent = await rejects(testClient([never]).client.lites.deleteVm('100035', { signal: controller.signal }), TransportError)
    assert.equal(sent.reason, 'cancelled')
    assert.match(
      sent.message,
      /may already have been on its way, so the service may have processed it: the next plan or refresh reads what it did/,
    )
    const unsent = await rejects(testClient([ok(true)]).client.lites.deleteVm('100035', { signal: controller.signal }), TransportError)
    assert.doesNotMatch(unsent.message, /may have processed/)
  })
})

function createBody() {
  return {
    product_id: 101,
    cycle: 'm',
    select_os: 'Ubuntu-22.04',
    keypair_id: 7,
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
  }
}

describe('secrets never leave their origin (issue 8, cases 8 and 9)', () => {
  test('a redirect is refused: nothing is sent to the other origin, and the error names only its origin', async () => {
    for (const status of [301, 302, 307, 308]) {
      const redirect = new Response('moved', { status, headers: { location: 'https://user:pw@evil.example.invalid/v1/lites?x=1' } })
      const { client, requests } = testClient([redirect])
      const error = await rejects(client.lites.createVm(createBody()), ApiError)
      assert.equal(requests.length, 1, 'no request follows the redirect')
      assert.match(error.message, /redirect to https:\/\/evil\.example\.invalid;/)
      assert.doesNotMatch(error.message, /pw|user:|x=1/)
    }
  })

  test('whatever the server echoes, the API key and the console password never appear in an error', async () => {
    const body = createBody()
    const echo = JSON.stringify({ headers: { 'x-token': 'secret-key' }, body })
    for (const reply of [
      new Response(`<pre>debug: x-token=secret-key ${echo}</pre>`, { status: 500 }),
      fail(422, `console_password ${body.console_password} is weak; key secret-key`),
      json(400, { message: `bad ${body.console_password}` }),
    ]) {
      const { client } = testClient([reply])
      const error = await client.lites.createVm(body).then(
        () => assert.fail('expected an error'),
        (e: Error) => e,
      )
      assert.doesNotMatch(error.message, /secret-key/)
      assert.ok(!error.message.includes(body.console_password), error.message)
    }
    const again = testClient([fail(404, 'see http://admin:hunter2@10.0.0.1/x')])
    const missing = await rejects(again.client.lites.getVm('1'), ApiError)
    assert.doesNotMatch(missing.message, /hunter2|admin:/)
  })
})

describe('messages of requests that never left', () => {
  test('a port fetch refuses: nothing was sent, so nothing "may have been processed", one full stop, and no attempt repeated', async () => {
    let attempts = 0
    const { client } = testClient([], {
      baseUrl: 'http://127.0.0.1:6000/v1/',
      fetch: (request) => {
        attempts++
        return fetch(request)
      },
    })
    const error = await client.lites.createKeypair({ name: 'never-sent' }).then(
      () => assert.fail('a request to a refused port succeeded'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof TransportError, String(error))
    assert.equal(error.refused, true)
    assert.match(error.message, /fetch refuses this port/)
    assert.doesNotMatch(error.message, /may have been processed/)
    assert.doesNotMatch(error.message, /\.\./)
    // Every attempt would be refused alike: none is repeated, and nothing says the service is not answering.
    assert.equal(attempts, 1)
    assert.doesNotMatch(error.message, /not answering|try again later/)
    const read = await client.lites.listVms().then(
      () => assert.fail('a read from a refused port succeeded'),
      (e: unknown) => e,
    )
    assert.equal(attempts, 2, 'a read is not asked again either')
    assert.doesNotMatch(String(read), /not answering|try again later/)
  })
})

describe('identical reads in flight', () => {
  /** A fetch whose GETs wait until released, and whose other requests answer at once. */
  function gatedFetch() {
    const seen: string[] = []
    const gates: (() => void)[] = []
    const fetch = async (request: Request): Promise<Response> => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`)
      if (request.method === 'GET') await new Promise<void>((release) => gates.push(release))
      return ok(request.method === 'GET' ? VM : true)
    }
    const release = () => {
      for (const open of gates.splice(0)) open()
    }
    return { fetch, seen, release }
  }

  test('share one request, each caller getting its own decoded answer', async () => {
    const gated = gatedFetch()
    const { client } = testClient([], { fetch: gated.fetch })
    const reads = Promise.all([client.lites.getVm('1'), client.lites.getVm('1'), client.lites.getVm('2')])
    await new Promise((resolve) => setImmediate(resolve))
    gated.release()
    const [a, b, c] = await reads
    assert.deepEqual(gated.seen, ['GET /v1/lites/accounts/1', 'GET /v1/lites/accounts/2'])
    assert.notEqual(a, b, 'each caller decodes for itself')
    assert.deepEqual(a, b)
    assert.equal(c.account_id, a.account_id)
  })

  test('a read never joins one sent before a change this transport saw answered', async () => {
    const gated = gatedFetch()
    const { client } = testClient([], { fetch: gated.fetch })
    const before = client.lites.getVm('1')
    await new Promise((resolve) => setImmediate(resolve))
    await client.lites.renameVm('1', { name: 'abcdef' })
    const after = client.lites.getVm('1')
    await new Promise((resolve) => setImmediate(resolve))
    gated.release()
    await Promise.all([before, after])
    assert.deepEqual(gated.seen, ['GET /v1/lites/accounts/1', 'PUT /v1/lites/accounts/1/change-vm-name', 'GET /v1/lites/accounts/1'])
  })

  test('a caller that cancels stops waiting; the others still get the answer', async () => {
    const gated = gatedFetch()
    const { client } = testClient([], { fetch: gated.fetch })
    const controller = new AbortController()
    const leaving = client.lites.getVm('1', { signal: controller.signal })
    const staying = client.lites.getVm('1')
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    const error = await leaving.then(
      () => assert.fail('expected a cancellation'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof TransportError && error.reason === 'cancelled')
    gated.release()
    assert.equal((await staying).account_id, String(VM.account_id))
    assert.equal(gated.seen.length, 1)
  })
})

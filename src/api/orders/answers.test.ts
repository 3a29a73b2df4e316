// What an order that never got a clear answer tells the user (issue 25, case 8): the last status the
// service gave and its message, "nothing was processed" where every answer says so (429, the 409 "in
// progress"), a warning per retry with the attempt and its answer, and a give-up within minutes while
// every answer says nothing was processed, well before a 20-minute create timeout. The clock is the
// fake one: a sleep moves it, nothing waits.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { fail, ORDER, ok, type RecordedRequest, type Reply, testClient, VM_BODY } from '../../../test/support/fake-fetch.js'
import type { OperationFrame } from '../operation.js'

const directories: string[] = []
function journal(): string {
  const dir = mkdtempSync(join(tmpdir(), 'answers-test-'))
  directories.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The states of the order journal's entries in `dir`. */
const entryStates = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { state: string }).state)

/** The create timeout every VM has by default. */
const CREATE_TIMEOUT_MS = 20 * 60_000
const frame = (timeoutMs = CREATE_TIMEOUT_MS): OperationFrame => ({ timeoutMs, onFinish: () => undefined })
const keyOf = (r: RecordedRequest) => r.headers.get('idempotency-key') ?? ''
/** A service that honours keys echoes them on every answer, errors included. */
const echo =
  (status: number, detail: string, headers: Record<string, string> = {}) =>
  (r: RecordedRequest) =>
    fail(status, detail, { 'idempotency-key': keyOf(r), ...headers })
/** The listing a fresh directory makes before its first order: no account. */
const listing = (r: RecordedRequest) => ok([], { 'idempotency-key': keyOf(r) })
const forever = (reply: Reply): Reply[] => Array.from({ length: 2_000 }, () => reply)

async function failure(promise: Promise<unknown>): Promise<Error & { outcomeUnknown?: boolean }> {
  return promise.then(
    () => assert.fail('expected the order to fail'),
    (error: unknown) => {
      assert.ok(error instanceof Error)
      return error
    },
  )
}

describe('what an order without a clear answer says', () => {
  test('500 on every POST: the error names the status and the service message, and it gives up within minutes', async () => {
    const { client, clock, requests } = testClient([listing, ...forever(echo(500, 'database unavailable'))], {
      journalDirectory: journal(),
      operation: () => frame(),
    })
    const started = clock.now()
    const error = await failure(client.lites.createVm(VM_BODY))
    const posts = requests.filter((r) => r.method === 'POST')
    assert.match(error.message, /500/, error.message)
    assert.match(error.message, /database unavailable/, error.message)
    assert.match(error.message, new RegExp(`all ${posts.length} attempts`), error.message)
    assert.doesNotMatch(error.message, /^No answer/, error.message)
    // The key is honoured: the next apply repeats it and cannot order twice; the error says so.
    assert.match(error.message, /same Idempotency-Key|Idempotency-Key is key-1/, error.message)
    const spent = clock.now() - started
    assert.ok(spent <= 5 * 60_000 + 10_000, `gave up after ${spent} ms, not within 5 minutes`)
  })

  test('429 on every POST: the error says that nothing was processed and the order was not placed', async () => {
    const { client, clock } = testClient([listing, ...forever(echo(429, 'rate limited', { 'retry-after': '2' }))], {
      journalDirectory: journal(),
      operation: () => frame(),
    })
    const started = clock.now()
    const error = await failure(client.lites.createVm(VM_BODY))
    assert.match(error.message, /429/, error.message)
    assert.match(error.message, /rate limited/, error.message)
    assert.match(error.message, /nothing was processed/, error.message)
    assert.match(error.message, /not placed/, error.message)
    assert.doesNotMatch(error.message, /may have been placed/, error.message)
    // Core reads the state back only when the outcome is unknown; here it is known.
    assert.notEqual(error.outcomeUnknown, true)
    const spent = clock.now() - started
    assert.ok(spent <= 5 * 60_000 + 60_000, `gave up after ${spent} ms, not within 5 minutes`)
  })

  test('429 on every POST: the journal keeps no open entry, so the next apply orders at once with a new key', async () => {
    const dir = journal()
    const first = testClient([listing, ...forever(echo(429, 'rate limited', { 'retry-after': '1' }))], {
      journalDirectory: dir,
      operation: () => frame(),
    })
    await failure(first.client.lites.createVm(VM_BODY))
    assert.deepEqual(entryStates(dir), ['failed'], 'an order that was never processed is not left for the next run to take over')
  })

  test('a 409 "in progress" on every repeat: it says this run processed nothing, and that an earlier request is still running', async () => {
    const { client, clock } = testClient(
      [listing, ...forever(echo(409, 'request with this Idempotency-Key is in progress', { 'retry-after': '1' }))],
      { journalDirectory: journal(), operation: () => frame() },
    )
    const started = clock.now()
    const error = await failure(client.lites.createVm(VM_BODY))
    assert.match(error.message, /409/, error.message)
    assert.match(error.message, /in progress/, error.message)
    assert.match(error.message, /none of them was processed|nothing was processed/, error.message)
    const spent = clock.now() - started
    assert.ok(spent <= 5 * 60_000 + 60_000, `gave up after ${spent} ms, not within 5 minutes`)
  })

  test('a 429 every second for 5 minutes is a warning every 10 seconds, not 300', async () => {
    const { client, logs } = testClient([listing, ...forever(echo(429, 'rate limited', { 'retry-after': '1' }))], {
      journalDirectory: journal(),
      operation: () => frame(),
    })
    await failure(client.lites.createVm(VM_BODY))
    const retries = logs.filter((l) => /trying again/.test(l.message))
    const warnings = retries.filter((l) => l.level === 'warn')
    assert.ok(retries.length > 200, `${retries.length} retries`)
    assert.ok(warnings.length >= 25 && warnings.length <= 31, `${warnings.length} warnings`)
  })

  test('a create timeout shorter than the give-up: the deadline error still names the last status', async () => {
    const { client } = testClient([listing, ...forever(echo(503, 'maintenance'))], {
      journalDirectory: journal(),
      operation: () => frame(30_000),
    })
    const error = await failure(client.lites.createVm(VM_BODY))
    assert.match(error.message, /503/, error.message)
    assert.match(error.message, /maintenance/, error.message)
    assert.match(error.message, /\d+ attempts/, error.message)
  })

  test('while it retries, each retry is logged naming the attempt and what the service answered; the first is a warning', async () => {
    const { client, logs } = testClient(
      [
        listing,
        echo(500, 'database unavailable'),
        echo(500, 'database unavailable'),
        echo(429, 'slow down'),
        (r) => ok(ORDER, { 'idempotency-key': keyOf(r) }),
      ],
      { journalDirectory: journal(), operation: () => frame() },
    )
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, ORDER.account_id)
    const retries = logs.filter((l) => /retrying|trying again/.test(l.message)).map((l) => l.message)
    assert.equal(retries.length, 3, retries.join('\n'))
    assert.equal(logs.find((l) => /trying again/.test(l.message))?.level, 'warn')
    assert.match(retries[0] ?? '', /attempt 1\b.*500.*database unavailable/, retries[0])
    assert.match(retries[1] ?? '', /attempt 2\b.*500/, retries[1])
    assert.match(retries[2] ?? '', /attempt 3\b.*429.*slow down/, retries[2])
  })
})

describe('an order and a stop (Ctrl-C, Cancel, SIGTERM)', () => {
  test('a stop while the order is on its way does not cut it off: its answer is awaited and the account handed back', async () => {
    const dir = journal()
    const stop = new AbortController()
    let cutOff = false
    const { client, requests } = testClient(
      [
        listing,
        async (r) => {
          stop.abort(new Error('interrupted'))
          // The stop lands while the service is still processing the order.
          await new Promise((settled) => setImmediate(settled))
          cutOff = r.signal.aborted
          return ok(ORDER, { 'idempotency-key': keyOf(r) })
        },
      ],
      { journalDirectory: dir, operation: () => frame() },
    )
    const order = await client.lites.createVm(VM_BODY, { signal: stop.signal })
    assert.equal(order.account_id, ORDER.account_id)
    assert.equal(cutOff, false, 'the request in flight was aborted')
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    assert.deepEqual(entryStates(dir), ['answered'])
  })

  test('a stop while a service that ignores keys is listed for an unanswered order: the error says it may be placed, names the key and the next apply', async () => {
    const dir = journal()
    const stop = new AbortController()
    const { client, requests } = testClient(
      [
        ok([]),
        fail(502, 'Bad Gateway'),
        fail(405, 'Method Not Allowed'),
        () => {
          // The account is not listed yet; the stop lands while the run waits to list again.
          stop.abort(new Error('interrupted'))
          return ok([])
        },
      ],
      { journalDirectory: dir, operation: () => frame() },
    )
    const error = await failure(client.lites.createVm(VM_BODY, { signal: stop.signal }))
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1, 'never sent again')
    const key = keyOf(requests.find((r) => r.method === 'POST') as RecordedRequest)
    assert.match(error.message, /cancelled/, error.message)
    assert.match(error.message, new RegExp(`Idempotency-Key ${key}`), error.message)
    assert.match(error.message, /may have been placed/, error.message)
    assert.match(error.message, /next apply .* takes it over/, error.message)
    assert.deepEqual(entryStates(dir), ['sent'], 'left for the next apply to take over')
  })

  test('a stop before the order leaves: nothing is sent, and no journal entry is left open', async () => {
    const dir = journal()
    const stop = new AbortController()
    const { client, requests } = testClient(
      [
        (r) => {
          stop.abort(new Error('interrupted'))
          return listing(r)
        },
      ],
      { journalDirectory: dir, operation: () => frame() },
    )
    const error = await failure(client.lites.createVm(VM_BODY, { signal: stop.signal }))
    assert.equal(requests.filter((r) => r.method === 'POST').length, 0)
    assert.match(error.message, /cancelled/, error.message)
    assert.deepEqual(
      entryStates(dir).filter((state) => state !== 'failed'),
      [],
    )
  })
})

describe('a stop while an order waits to be sent again', () => {
  test('every answer a 429 (nothing processed), then a stop: the entry is closed, not left for the next apply to wait on', async () => {
    const dir = journal()
    const stop = new AbortController()
    // A service that ignores Idempotency-Keys: an open entry would make the next apply wait for an
    // account that never comes, then stop until the entry is removed by hand.
    const { client, requests } = testClient(
      [
        () => ok([]),
        () => {
          // The stop lands while the service refuses the order.
          stop.abort(new Error('interrupted'))
          return fail(429, 'rate limited', { 'retry-after': '1' })
        },
      ],
      { journalDirectory: dir, operation: () => frame() },
    )
    const error = await failure(client.lites.createVm(VM_BODY, { signal: stop.signal }))
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    assert.match(error.message, /cancel|interrupt/i, error.message)
    assert.deepEqual(entryStates(dir), ['failed'], 'an order that was never processed is left open for the next apply')
  })
})

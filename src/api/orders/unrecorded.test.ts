// A new create that nothing else can recognise as a killed run's order: from a directory with no
// order to this service recorded (another machine, a fresh CI workspace, a lost journal), or against
// a service that ignores Idempotency-Keys. A recent matching account that no state names stops it.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { OrderUnresolvedError, UnrecordedMatchError } from '../errors.js'
import {
  BASE_URL,
  fail,
  fakeClock,
  ORDER,
  ok,
  paidInvoice,
  type RecordedRequest,
  testClient,
  VM_BODY,
  vmAccount,
} from '../../../test/support/fake-fetch.js'
import type { OperationFrame } from '../operation.js'
import { newJournalSession, OrderJournal, serviceOf } from './journal.js'

const NOW = Date.parse('2026-11-24T12:00:00Z')

const directories: string[] = []
function journalDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'unrecorded-test-'))
  directories.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A service that answers without echoing the key: the probe, then the listing, then (maybe) the order. */
const silent = (data: unknown) => (_r: RecordedRequest) => ok(data)
const echoing = (data: unknown) => (r: RecordedRequest) => ok(data, { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })

function client(replies: Parameters<typeof testClient>[0], dir: string, allowUnrecordedMatch = false) {
  return testClient(replies, { journalDirectory: dir, now: () => NOW, allowUnrecordedMatch })
}

/** A directory that has ordered from this service before (a settled order of another intent). */
async function withHistory(dir: string): Promise<void> {
  const journal = new OrderJournal(dir, () => NOW)
  const entry = await journal.open('another-intent', serviceOf(BASE_URL), 'old-key', 'POST', '/lites')
  entry.state = 'settled'
  await journal.write(entry)
}

describe('a new order that an unrecorded recent account matches', () => {
  test('a fresh directory, a matching account made 10 minutes ago that nothing names: nothing is ordered, the error names it and the import', async () => {
    const dir = journalDirectory()
    const { client: api, requests } = client([echoing([vmAccount('100007', 'web', '2026-11-24 11:50:00')])], dir)
    const error = await api.lites.createVm(VM_BODY).then(
      () => assert.fail('ordered although a killed run may have placed this order'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof UnrecordedMatchError, String(error))
    assert.deepEqual(error.candidates, ['100007'])
    assert.match(error.message, /100007/)
    assert.match(error.message, /terraform import <address> <id>/)
    assert.match(error.message, /PROVIDER_ALLOW_UNRECORDED_MATCH=1/)
    assert.match(error.summary, /Not ordered/)
    assert.match(error.message, /no record of orders to this service/)
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['GET /lites/accounts'],
      'no order was sent',
    )
  })

  test('a directory with history and a service that ignores keys: asked once, listed, and stopped the same way', async () => {
    const dir = journalDirectory()
    await withHistory(dir)
    const { client: api, requests } = client([silent({}), silent([vmAccount('100007', 'web', '2026-11-24 11:50:00')])], dir)
    const error = await api.lites.createVm(VM_BODY).then(
      () => assert.fail('ordered although a killed run may have placed this order'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof UnrecordedMatchError, String(error))
    assert.match(error.message, /does not confirm Idempotency-Keys/)
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['GET /lites', 'GET /lites/accounts'],
    )
  })

  test('an account a state named (a refresh in this directory) is managed: the order is placed', async () => {
    const dir = journalDirectory()
    await new OrderJournal(dir, () => NOW).accountInState('100007')
    const { client: api, requests } = client([silent([vmAccount('100007', 'web', '2026-11-24 11:50:00')]), silent(ORDER)], dir)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.equal(requests.at(-1)?.method, 'POST')
  })

  test("a matching account older than the keys' window, a terminated one, or another name: the order is placed", async () => {
    const dir = journalDirectory()
    const accounts = [
      vmAccount('100001', 'web', '2026-11-23 11:00:00'),
      vmAccount('100002', 'web', '2026-11-24 11:50:00', 'Terminated'),
      vmAccount('100003', 'db', '2026-11-24 11:50:00'),
    ]
    const { client: api } = client([silent(accounts), silent(ORDER)], dir)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
  })

  test('a recent account of the same name and product but another OS, cycle, description or keypair is not a match: ordered (issue 25)', async () => {
    const base = vmAccount('100011', 'web', '2026-11-24 11:50:00')
    const others = [
      { ...base, extra_details: { ...base.extra_details, osname: 'Debian-12' } },
      { ...base, billingcycle: 'Annually' },
      { ...base, description: 'another tier' },
      { ...base, extra_details: { ...base.extra_details, keypair_id: 8 } },
    ]
    for (const other of others) {
      const { client: api, requests } = client([echoing([other]), echoing(ORDER)], journalDirectory())
      assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER, JSON.stringify(other))
      assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    }
    // The same account with everything the order asks for is still a match, and stops.
    const { client: api } = client([echoing([base])], journalDirectory())
    await assert.rejects(api.lites.createVm(VM_BODY), UnrecordedMatchError)
  })

  test('a fresh directory on a machine whose other directory handed the matching account to its engine: ordered, no stop (issue 25)', async () => {
    const index = journalDirectory()
    const twin = journalDirectory()
    // The twin directory's run: ordered 100007 and handed it over (its call returned it).
    const first = testClient([echoing([]), echoing({ ...ORDER, account_id: '100007' })], {
      journalDirectory: twin,
      now: () => NOW,
      knownAccountsDirectory: index,
    })
    await first.client.lites.createVm(VM_BODY)
    const listing = () => echoing([vmAccount('100007', 'web', '2026-11-24 11:59:00')])
    const { client: api, requests } = testClient([listing(), echoing(ORDER)], {
      journalDirectory: journalDirectory(),
      now: () => NOW,
      knownAccountsDirectory: index,
    })
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    // Without the machine's index the same directory cannot tell, and stops.
    const alone = client([listing()], journalDirectory())
    await assert.rejects(alone.client.lites.createVm(VM_BODY), UnrecordedMatchError)
  })

  test("a twin directory's create answered and still waiting for Active, applied at the same time: this one orders, no stop; once that run is gone unsaved, it stops", async () => {
    const index = journalDirectory()
    const finishers: ((handedOver: boolean) => void | Promise<void>)[] = []
    const waiting: OperationFrame = { onFinish: (f) => finishers.push(f) }
    const owner = { pid: 990_001, token: 'twin-process', engine: 'twin-engine' }
    let twinRuns = true
    const journalOptions = { session: newJournalSession(owner), alive: (pid: number) => pid === owner.pid && twinRuns }
    const twin = testClient([echoing([]), echoing({ ...ORDER, account_id: '100007' })], {
      journalDirectory: journalDirectory(),
      now: () => NOW,
      knownAccountsDirectory: index,
      operation: () => waiting,
      journalOptions,
    })
    // Answered: the twin's operation now waits for Active and has handed nothing over yet.
    await twin.client.lites.createVm(VM_BODY)
    const pending = () => echoing([{ ...vmAccount('100007', 'web', '2026-11-24 11:59:50'), status: 'Pending' }])
    const here = {
      journalDirectory: journalDirectory(),
      now: () => NOW,
      knownAccountsDirectory: index,
      journalOptions: { alive: (pid: number) => pid === owner.pid && twinRuns },
    }
    const { client: api, requests } = testClient([pending(), echoing(ORDER)], here)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    // The twin's process is killed before it hands the account over: its account is nobody's, and stops a create.
    twinRuns = false
    const after = testClient([pending()], { ...here, journalDirectory: journalDirectory() })
    await assert.rejects(after.client.lites.createVm(VM_BODY), UnrecordedMatchError)
  })

  test("a twin configuration's account, Active and ordered hours ago, is no evidence of a killed run: ordered, with a warning naming it", async () => {
    const dir = journalDirectory()
    const twin = { ...vmAccount('100009', 'web', '2026-11-24 08:00:00'), status: 'Active' }
    const { client: api, requests, logs } = client([echoing([twin]), echoing(ORDER)], dir)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.equal(requests.at(-1)?.method, 'POST')
    assert.ok(logs.some((l) => l.level === 'warn' && /100009 matches this order/.test(l.message) && /import it/.test(l.message)))
  })

  test('a match still being provisioned is evidence whatever its age, and so is an Active one ordered within the hour', async () => {
    for (const account of [
      vmAccount('100010', 'web', '2026-11-24 08:00:00', 'Pending'),
      { ...vmAccount('100011', 'web', '2026-11-24 11:20:00'), status: 'Active' },
    ]) {
      const { client: api, requests } = client([echoing([account])], journalDirectory())
      await assert.rejects(
        api.lites.createVm(VM_BODY),
        (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === String(account.account_id),
      )
      assert.ok(!requests.some((r) => r.method === 'POST'), 'nothing ordered')
    }
  })

  // The API gives bare dates; a paid invoice's time, or an unpaid one's day, tells how old the order is.
  const unpaid = (date: string) => ({ ...paidInvoice(`${date} 00:00:00`), status: 'Unpaid', paid_id: null, datepaid: null })
  const twins = {
    'Active, ordered this morning, its package changed and paid at 09:00 (its last invoice a change_package)': {
      ...vmAccount('100012', 'web', '2026-11-24', 'Active'),
      last_invoice: { ...paidInvoice('2026-11-24 09:00:00'), id: 9, invoice_type: 'change_package' },
    },
    'Pending, waiting for the payment of its invoice of yesterday (ordered with pay_with_credit_card = false)': {
      ...vmAccount('100013', 'web', '2026-11-23', 'Pending'),
      last_invoice: unpaid('2026-11-23'),
    },
  }
  for (const [name, twin] of Object.entries(twins))
    test(`a twin configuration's account shown older than an hour is no evidence of a killed run: ${name}; ordered, with a warning`, async () => {
      const { client: api, requests, logs } = client([echoing([twin]), echoing(ORDER)], journalDirectory())
      assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
      assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
      assert.ok(logs.some((l) => l.level === 'warn' && new RegExp(`${twin.account_id} matches this order`).test(l.message)))
    })

  test('a Pending match waiting for the payment of an invoice of today may be an hour old or a minute: it stops, and says it may wait for payment', async () => {
    const account = { ...vmAccount('100014', 'web', '2026-11-24', 'Pending'), last_invoice: unpaid('2026-11-24') }
    const { client: api, requests } = client([echoing([account])], journalDirectory())
    await assert.rejects(
      api.lites.createVm(VM_BODY),
      /account 100014 matches this order, is still being provisioned \(or waiting for payment\)/,
    )
    assert.ok(!requests.some((r) => r.method === 'POST'), 'nothing ordered')
  })

  test('PROVIDER_ALLOW_UNRECORDED_MATCH orders anyway, without listing', async () => {
    const dir = journalDirectory()
    const { client: api, requests } = client([silent(ORDER)], dir, true)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.deepEqual(
      requests.map((r) => r.method),
      ['POST'],
    )
  })

  test('a directory with history and a service that echoes keys is not listed: the journal covers re-runs from it', async () => {
    const dir = journalDirectory()
    await withHistory(dir)
    const { client: api, requests } = client([echoing({}), echoing(ORDER)], dir)
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['GET /lites', 'POST /lites'],
    )
  })
})

describe("this process's own orders are not taken for a killed run's", () => {
  test('two identical creates at once in a fresh directory: the second lists only once the first has answered, and both are ordered', async () => {
    const accounts: unknown[] = []
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let posts = 0
    // A service whose first order exists at once but answers late: what a listing in between sees.
    const fetch = async (request: Request): Promise<Response> => {
      if (request.method === 'GET') return ok([...accounts])
      const id = String(100042 + posts++)
      accounts.push(vmAccount(id, 'web', '2026-11-24 11:59:59'))
      if (posts === 1) await gate
      return ok({ order_id: `5${id}`, account_id: id }, { 'idempotency-key': request.headers.get('idempotency-key') ?? '' })
    }
    const { client } = testClient([], { journalDirectory: journalDirectory(), now: () => NOW, fetch })
    const first = client.lites.createVm(VM_BODY)
    for (let tick = 0; tick < 1000 && posts === 0; tick++) await new Promise((resolve) => setImmediate(resolve))
    assert.equal(posts, 1, 'the first order was sent')
    const second = client.lites.createVm(VM_BODY)
    for (let tick = 0; tick < 50; tick++) await new Promise((resolve) => setImmediate(resolve))
    release()
    const ids = (await Promise.all([first, second])).map((o) => o.account_id)
    assert.deepEqual(ids, ['100042', '100043'])
  })

  test('bare dates, as the API gives them: an Active match ordered and paid this morning is no evidence (ordered, with a warning); one paid 20 minutes ago stops', async () => {
    const morning = { ...vmAccount('100012', 'web', '2026-11-24', 'Active'), last_invoice: paidInvoice('2026-11-24 06:00:00') }
    const { client: api, requests, logs } = client([echoing([morning]), echoing(ORDER)], journalDirectory())
    assert.deepEqual(await api.lites.createVm(VM_BODY), ORDER)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
    assert.ok(logs.some((l) => l.level === 'warn' && /100012 matches this order/.test(l.message)))
    const recent = { ...morning, account_id: 100013, last_invoice: paidInvoice('2026-11-24 11:40:00') }
    const again = client([echoing([recent])], journalDirectory())
    await assert.rejects(
      again.client.lites.createVm(VM_BODY),
      (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === '100013',
    )
  })

  test("a service that ignores keys, a 502, and a twin's account of the same day (a bare date, paid before the order was sent): never adopted", async () => {
    const dir = journalDirectory()
    await withHistory(dir)
    const clock = fakeClock(NOW)
    const twin = { ...vmAccount('100009', 'web', '2026-11-24', 'Active'), last_invoice: paidInvoice('2026-11-24 06:00:00') }
    const listing = silent([twin])
    const { client: api, requests } = testClient([silent({}), listing, () => fail(502, 'Bad Gateway'), ...Array(40).fill(listing)], {
      journalDirectory: dir,
      now: clock.now,
      sleep: clock.sleep,
    })
    const error = await api.lites.createVm(VM_BODY).then(
      () => assert.fail("adopted another configuration's account"),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError, String(error))
    assert.match(error.message, /No new matching account appeared/)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
  })

  test("another directory's run on this machine handed the matching account over and was killed before any state named it: a fresh workspace stops; had that run ended gracefully, it orders", async () => {
    const running = new Set<number>()
    let next = 810_000
    const processOptions = () => {
      const pid = next++
      running.add(pid)
      const owner = { pid, token: `process-${pid}`, engine: `engine-${pid}` }
      return { pid, journalOptions: { session: newJournalSession(owner), alive: (p: number) => running.has(p) } }
    }
    const listing = () => echoing([vmAccount('100007', 'web', '2026-11-24 11:59:00')])
    for (const ending of ['killed', 'graceful'] as const) {
      const index = journalDirectory()
      const twin = processOptions()
      const first = testClient([echoing([]), echoing({ ...ORDER, account_id: '100007' })], {
        journalDirectory: journalDirectory(),
        now: () => NOW,
        knownAccountsDirectory: index,
        journalOptions: twin.journalOptions,
      })
      await first.client.lites.createVm(VM_BODY)
      if (ending === 'graceful') await first.client.settlement?.delivered()
      running.delete(twin.pid)
      const fresh = testClient([listing(), echoing(ORDER)], {
        journalDirectory: journalDirectory(),
        now: () => NOW,
        knownAccountsDirectory: index,
        journalOptions: processOptions().journalOptions,
      })
      if (ending === 'killed') {
        // Its state may never have been saved (a CI job killed on a shared agent): ordering again could be a second order.
        await assert.rejects(
          fresh.client.lites.createVm(VM_BODY),
          (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === '100007',
        )
        assert.equal(fresh.requests.filter((r) => r.method === 'POST').length, 0)
      } else {
        assert.deepEqual(await fresh.client.lites.createVm(VM_BODY), ORDER)
      }
    }
  })
})

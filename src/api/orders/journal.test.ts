// The order journal through the client: a run killed before or after its order answered is taken
// over by the next run without ordering twice; against a service that ignores keys nothing is resent
// blindly; owners, temporaries, liveness and settling of entries shared by processes (issue 25); the
// directory read whole once while no process writes to it (issue 29).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, mock, test } from 'node:test'
import { JournalUnreadableError, OrderNotPlacedError, OrderUnresolvedError, UnrecordedMatchError } from '../errors.js'
import { fingerprints, newJournalSession, OrderJournal, serviceOf } from './journal.js'
import { placementInvoice } from './orders.js'
import { processAlive } from './journal-store.js'
import { KnownAccounts } from './known-accounts.js'
import {
  BASE_URL,
  fail,
  fakeClock,
  ORDER,
  ok,
  paidInvoice,
  type RecordedRequest,
  type Reply,
  testClient,
  VM_BODY,
  vmAccount,
} from '../../../test/support/fake-fetch.js'
import { directoryListings, fileReads } from '../../../test/support/file-reads.js'
import { keepCases } from '../../../test/support/journal-keep.js'
import type { OperationFrame } from '../operation.js'

const directories: string[] = []
function journal(): string {
  const dir = mkdtempSync(join(tmpdir(), 'journal-test-'))
  directories.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/**
 * Provider processes as the journal sees them: each its own owner (pid and token), alive until
 * `kill()`. Two clients of one process share what their operations hold, as in a real process.
 */
const running = new Set<number>()
let nextPid = 700_000
/** `engine`: the run it serves (two aliases of one provider in one `terraform apply` share it). */
function providerProcess(engine = `engine-${nextPid}`) {
  const pid = nextPid++
  running.add(pid)
  const owner = { pid, token: `process-${pid}`, engine }
  const journalOptions = { session: newJournalSession(owner), alive: (p: number) => running.has(p) }
  return { pid, owner, journalOptions, kill: () => running.delete(pid) }
}

/**
 * A provider process started by an engine process of its own (the journal owner's `enginePid`), both
 * alive until `killEngine()` and `kill()`: a provider that runs on for a moment after its engine is killed.
 */
function engineStartedProcess() {
  const engine = nextPid++
  running.add(engine)
  const pid = nextPid++
  running.add(pid)
  const owner = { pid, token: `process-${pid}`, engine: 'killed-run', enginePid: engine }
  const journalOptions = { session: newJournalSession(owner), alive: (p: number) => running.has(p) }
  return { journalOptions, killEngine: () => running.delete(engine), kill: () => running.delete(pid) }
}

/** An operation frame as core makes one; `finish()` hands the outcome over. */
function frame(scope?: string, timeoutMs?: number, scopeIsResource?: boolean) {
  const finishers: ((handedOver: boolean) => void | Promise<void>)[] = []
  const value: OperationFrame = { scope, scopeIsResource, timeoutMs, onFinish: (f) => finishers.push(f) }
  /** `handedOver` false: the engine's call is gone (Session.receiver), and nothing got the outcome. */
  const finish = async (handedOver = true) => {
    for (const f of finishers.splice(0)) await f(handedOver)
  }
  return { value, finish }
}

const echoing =
  (status: number, data: unknown) =>
  (r: RecordedRequest): Response =>
    (status === 200 ? ok : (s: unknown) => fail(status, s))(data, { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })

/**
 * The listing a process makes before its first new create from a directory with no order to this
 * service recorded (see the transport's unrecordedMatches): no account, so the order goes out.
 */
const probed = echoing(200, [])
/** The question whether keys are echoed, answered by a service that does not echo them. */
const unconfirmed = () => fail(405, 'Method Not Allowed')
/**
 * A run against a service that does not echo keys gets a 502 on a VM order, finds two new matching
 * accounts and stops (nothing adopted); its process is killed, and the user imports both accounts
 * (count = 2 of identical VMs), so that a state names each. The journal directory, the two accounts
 * and the stop.
 */
async function stoppedOnTwoMatchesThenImported() {
  const dir = journal()
  const killed = providerProcess()
  const op = frame(undefined, 60_000)
  const made = [vmAccount('100042', 'web', '2099-01-01 00:00:00'), vmAccount('100043', 'web', '2099-01-01 00:00:00')]
  const first = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok(made)], {
    journalDirectory: dir,
    operation: () => op.value,
    journalOptions: killed.journalOptions,
  })
  const stop = await first.client.lites.createVm(VM_BODY).then(
    () => assert.fail('two matches: nothing adopted'),
    (e: unknown) => e,
  )
  assert.ok(stop instanceof OrderUnresolvedError)
  killed.kill()
  const states = new OrderJournal(dir, () => 0)
  await states.accountInState('100042')
  await states.accountInState('100043')
  return { dir, made, stop }
}

const posts = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method === 'POST')

describe('order journal', () => {
  test('a run killed after the order answered: the next run gets the same account without a request', async () => {
    const dir = journal()
    const run1 = frame()
    const killed = providerProcess()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    assert.deepEqual(await first.client.lites.createVm(VM_BODY), ORDER)
    // The process dies here: the operation never hands its outcome over.
    killed.kill()
    const second = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: providerProcess().journalOptions })
    const run2 = frame()
    const order = await second.client.lites.createVm(VM_BODY)
    assert.equal(order.account_id, '100042')
    assert.equal(second.requests.length, 0)
    assert.ok(second.logs.some((l) => l.level === 'warn' && l.message.includes('100042')))
  })

  test('a delivered order is never reused, and two identical intents in one run get two keys', async () => {
    const dir = journal()
    const op = frame()
    // Each new create of a directory with no order recorded lists first: the two list at once and
    // share one listing (the transport's identical reads in flight), then both order.
    const { client, requests } = testClient([probed, echoing(200, ORDER), echoing(200, { ...ORDER, account_id: '100043' })], {
      journalDirectory: dir,
      operation: () => op.value,
    })
    await Promise.all([client.lites.createVm(VM_BODY), client.lites.createVm(VM_BODY)])
    const keys = posts(requests).map((r) => r.headers.get('idempotency-key'))
    assert.equal(new Set(keys).size, 2)
    await op.finish()
    const next = frame()
    const again = testClient([echoing(200, { ...ORDER, account_id: '100044' })], { journalDirectory: dir, operation: () => next.value })
    assert.equal((await again.client.lites.createVm(VM_BODY)).account_id, '100044')
    assert.equal(again.requests.length, 1)
  })

  test('count = 2 killed during the waits: the re-run takes each entry once and places no order', async () => {
    const dir = journal()
    const run1 = frame()
    const killed = providerProcess()
    const first = testClient([probed, echoing(200, ORDER), probed, echoing(200, { ...ORDER, account_id: '100043' })], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await first.client.lites.createVm(VM_BODY)
    killed.kill()
    const run2 = frame()
    const second = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: providerProcess().journalOptions })
    const ids = [(await second.client.lites.createVm(VM_BODY)).account_id, (await second.client.lites.createVm(VM_BODY)).account_id]
    assert.deepEqual(ids.sort(), ['100042', '100043'])
    assert.equal(second.requests.length, 0)
  })

  test('the journal holds no secret: the API key and the console password enter only as a hash', async () => {
    const dir = journal()
    const { client } = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir })
    await client.lites.createVm(VM_BODY)
    const text = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('')
    assert.doesNotMatch(text, /secret-key|S3cretPass9/)
  })

  test('an order slower than request_timeout is replayed with its key until it answers, never abandoned', async () => {
    const dir = journal()
    const op = frame(undefined, 60_000)
    const replies = [
      (r: RecordedRequest) =>
        fail(409, 'request with this Idempotency-Key is in progress', {
          'retry-after': '1',
          'idempotency-key': r.headers.get('idempotency-key') ?? '',
        }),
      new Error('request timed out'),
      echoing(200, ORDER),
    ]
    const { client, requests } = testClient(
      [probed, (r) => fail(503, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' }), ...replies],
      { journalDirectory: dir, operation: () => op.value, maxAttempts: 1 },
    )
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(new Set(posts(requests).map((r) => r.headers.get('idempotency-key'))).size, 1)
  })

  test('an order replayed with its key against a clock that stands still ends after a bounded number of attempts, naming the key', async () => {
    const dir = journal()
    const op = frame(undefined, 60_000)
    const echo503 = (r: RecordedRequest) => fail(503, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
    const { client, requests } = testClient([probed, ...Array.from({ length: 1_000 }, () => echo503)], {
      journalDirectory: dir,
      operation: () => op.value,
      sleep: async () => undefined,
    })
    const error = await client.lites.createVm(VM_BODY).then(
      () => assert.fail('answered'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError, String(error))
    assert.match(error.message, /no clear answer after 1000 attempts/)
    assert.match(error.message, /Idempotency-Key is key-1/)
    assert.equal(posts(requests).length, 1_000)
  })

  test('past the deadline the error names the key, and the next run replays that key', async () => {
    const dir = journal()
    const op = frame(undefined, 1_000)
    const echo503 = (r: RecordedRequest) => fail(503, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
    // Both runs in one provider process (one journal session), as the runtime configures them.
    const proc = providerProcess()
    const first = testClient([probed, echo503, echo503, echo503], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: proc.journalOptions,
    })
    const error = await first.client.lites.createVm(VM_BODY).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError)
    const key = posts(first.requests)[0]?.headers.get('idempotency-key') ?? ''
    assert.match(error.message, new RegExp(key))
    await op.finish()
    const next = frame(undefined, 60_000)
    const second = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: proc.journalOptions,
    })
    await second.client.lites.createVm(VM_BODY)
    assert.equal(posts(second.requests)[0]?.headers.get('idempotency-key'), key)
  })

  test('a service that does not echo keys: a 502 is never retried; the single new match is adopted', async () => {
    const dir = journal()
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient(
      [
        // Before the order: an old account and another name only, so nothing stops it.
        ok([vmAccount('100041', 'web', '1969-12-31 00:00:00'), vmAccount('100043', 'db', '2099-01-01 00:00:00')]),
        fail(502, 'Bad Gateway'),
        unconfirmed,
        ok([
          vmAccount('100041', 'web', '1969-12-31 00:00:00'),
          vmAccount('100042', 'web', new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' ')),
          vmAccount('100043', 'db', '2099-01-01 00:00:00'),
        ]),
      ],
      { journalDirectory: dir, operation: () => op.value },
    )
    const order = await client.lites.createVm(VM_BODY)
    assert.equal(order.account_id, '100042')
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
  })

  test('a service that does not echo keys, a 502, and an account the service makes only 120 s later: listed until it comes (the create timeout is an hour), with progress, and adopted; nothing ordered again (a run that stopped sooner would be re-run, and from a fresh workspace order it twice)', async () => {
    const op = frame(undefined, 3_600_000)
    let sentAt = 0
    const made = () => vmAccount('100042', 'web', new Date(sentAt + 120_000).toISOString().slice(0, 19).replace('T', ' '))
    const listing = () => ok(first.clock.now() - sentAt >= 120_000 ? [made()] : [])
    const first = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ...Array.from({ length: 60 }, () => listing)], {
      journalDirectory: journal(),
      operation: () => op.value,
      journalOptions: providerProcess().journalOptions,
    })
    sentAt = first.clock.now()
    assert.equal((await first.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(first.requests).length, 1)
    const progress = first.logs.filter((l) => l.level === 'warn' && /listing the accounts for the one it made/.test(l.message))
    assert.ok(progress.length >= 2, `progress while listing: ${progress.length}`)
    assert.match(progress[0]?.message ?? '', new RegExp(`until ${new Date(sentAt + 3_600_000).toISOString()}, the operation's deadline`))
  })

  test('a service that does not echo keys and whose clock is a minute behind ours: after a 502 the single new match is still adopted', async () => {
    const op = frame(undefined, 60_000)
    // Our clock: 1970-01-01 00:16:40 when the order leaves; the service stamps its payment 00:15:40.
    const made = { ...vmAccount('100042', 'web', '1970-01-01', 'Pending'), last_invoice: paidInvoice('1970-01-01 00:15:40') }
    const { client, requests } = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([made])], {
      journalDirectory: journal(),
      operation: () => op.value,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(requests).length, 1)
  })

  test('a service that does not echo keys, an emulator reset since this machine handed over an account of the same id: the new match is adopted', async () => {
    const index = journal()
    // An earlier run on this machine, hours ago, handed over account 100042 of this service (then the emulator was reset).
    const earlier = testClient([probed, echoing(200, ORDER)], { journalDirectory: journal(), knownAccountsDirectory: index, now: () => 0 })
    await earlier.client.lites.createVm(VM_BODY)
    const op = frame(undefined, 60_000)
    const created = new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' ')
    const { client } = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100042', 'web', created)])], {
      journalDirectory: journal(),
      knownAccountsDirectory: index,
      operation: () => op.value,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
  })

  test("a service that does not echo keys: after a 502, a twin directory's account answered meanwhile is not adopted; this order's is", async () => {
    const index = journal()
    const op = frame(undefined, 60_000)
    const { client, requests, clock } = testClient(
      [
        ok([]),
        fail(502, 'Bad Gateway'),
        unconfirmed,
        // The twin directory's order of the same VM, answered while this one's outcome is unclear.
        () => {
          twin()
          return ok([vmAccount('100042', 'web', '2099-01-01 00:00:00')])
        },
        ok([vmAccount('100042', 'web', '2099-01-01 00:00:00'), vmAccount('100043', 'web', '2099-01-01 00:00:00')]),
      ],
      { journalDirectory: journal(), knownAccountsDirectory: index, operation: () => op.value },
    )
    // What the twin's journal records in the per-user index when its create is answered (OrderJournal.writeOwned).
    const twin = () => new KnownAccounts(index, clock.now).handedOver(serviceOf(BASE_URL), '100042', newJournalSession().owner)
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100043')
    assert.equal(posts(requests).length, 1)
  })

  test("a fresh directory, a Pending match that another process's create in flight on this machine is about to be answered with: waited for, then ordered", async () => {
    const index = journal()
    const me = providerProcess()
    const twin = providerProcess()
    const service = serviceOf(BASE_URL)
    const twinIndex = new KnownAccounts(index, () => 1_000_000)
    // The twin directory's run sent the same order at 00:15:00; the service made 100042 and has not answered yet.
    twinIndex.sending(service, 'twin-entry', { owner: twin.owner, call: 'POST /lites', sentAt: 900_000 })
    const made = vmAccount('100042', 'web', '1970-01-01 00:15:30', 'Pending')
    const { client, requests, logs } = testClient([ok([made]), ok([made]), ok(ORDER)], {
      journalDirectory: journal(),
      knownAccountsDirectory: index,
      journalOptions: me.journalOptions,
      // While this run waits, the twin's answer comes: its account is recorded as its own, its order lands.
      sleep: async () => {
        twinIndex.handedOver(service, '100042', twin.owner)
        twinIndex.landed(service, 'twin-entry')
      },
    })
    assert.deepEqual(await client.lites.createVm(VM_BODY), ORDER)
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['GET /lites/accounts', 'GET /lites/accounts', 'POST /lites'],
    )
    assert.ok(logs.some((l) => l.message.includes(`provider process ${twin.pid} on this machine has an order of this call in flight`)))
  })

  test('a fresh directory, a Pending match, and a create of the same call in flight in a process that is gone: stopped as before', async () => {
    const index = journal()
    const me = providerProcess()
    const killed = providerProcess()
    new KnownAccounts(index, () => 1_000_000).sending(serviceOf(BASE_URL), 'killed-entry', {
      owner: killed.owner,
      call: 'POST /lites',
      sentAt: 900_000,
    })
    killed.kill()
    const made = vmAccount('100042', 'web', '1970-01-01 00:15:30', 'Pending')
    const { client } = testClient([ok([made])], {
      journalDirectory: journal(),
      knownAccountsDirectory: index,
      journalOptions: me.journalOptions,
    })
    await assert.rejects(client.lites.createVm(VM_BODY), UnrecordedMatchError)
  })

  test("a stop on two matches, both imported as it says: the next create of the same intent orders anew once the order's window has passed", async () => {
    const { dir, made, stop } = await stoppedOnTwoMatchesThenImported()
    assert.match(stop.message, /import each into one of them/)
    const again = frame(undefined, 600_000)
    // The probe (not echoed), the listings until the stopped order's window has passed, then the order.
    const answer = (r: RecordedRequest) =>
      r.method === 'POST' ? ok(ORDER) : r.path.split('?')[0] === '/lites/accounts' ? ok(made) : unconfirmed()
    const { client, requests, clock } = testClient(Array(100).fill(answer), { journalDirectory: dir, operation: () => again.value })
    assert.deepEqual(await client.lites.createVm(VM_BODY), ORDER)
    assert.equal(posts(requests).length, 1)
    assert.equal(requests.at(-2)?.path.split('?')[0], '/lites/accounts', 'listed up to the order')
    assert.ok(clock.now() >= 1_000_000 + 30_000 + 60_000, 'not before the stopped order could still have made an account')
  })

  test('a service that does not echo keys: two matching new accounts stop with both ids, nothing adopted', async () => {
    const dir = journal()
    const op = frame(undefined, 60_000)
    const created = '2099-01-01 00:00:00'
    const { client, requests } = testClient(
      [ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100042', 'web', created), vmAccount('100043', 'web', created)])],
      { journalDirectory: dir, operation: () => op.value },
    )
    const error = await client.lites.createVm(VM_BODY).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError)
    assert.deepEqual([...error.candidates], ['100042', '100043'])
    assert.match(error.message, /import/)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1)
  })

  test('a service that does not echo keys: the single match is not adopted while another such order is unanswered', async () => {
    const dir = journal()
    // A concurrent identical order (count = 2) was sent and has no answer yet: its account may be the match.
    await new OrderJournal(dir, () => 0).open('another-intent', serviceOf(BASE_URL), 'rival-key', 'POST', '/lites')
    const op = frame(undefined, 60_000)
    const created = new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' ')
    // The directory has ordered from this service: asked once whether keys are echoed, then listed before the order.
    const { client, requests } = testClient([unconfirmed, ok([]), fail(502, 'Bad Gateway'), ok([vmAccount('100042', 'web', created)])], {
      journalDirectory: dir,
      operation: () => op.value,
    })
    const error = await client.lites.createVm(VM_BODY).then(
      () => assert.fail('expected an error: the match may be the other order'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError)
    assert.deepEqual([...error.candidates], ['100042'])
    assert.match(error.message, /other such order/)
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1, 'nothing is ordered again')
  })

  test("a service that does not echo keys: another service's unanswered order of the same call does not cloud the single match, which is adopted", async () => {
    const dir = journal()
    await new OrderJournal(dir, () => 0).open('another-intent', serviceOf('http://other.invalid/v1'), 'rival-key', 'POST', '/lites')
    const op = frame(undefined, 60_000)
    const created = new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' ')
    const { client, requests } = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100042', 'web', created)])], {
      journalDirectory: dir,
      operation: () => op.value,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1, 'nothing is ordered again')
  })

  test("the probe's refusal (a 405: no GET on the order's path) is an answer it expects: not shown as a failed request", async () => {
    const op = frame(undefined, 60_000)
    const created = new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' ')
    const { client, logs } = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100042', 'web', created)])], {
      journalDirectory: journal(),
      operation: () => op.value,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    const shown = logs.filter((l) => l.level !== 'debug' && l.level !== 'trace').map((l) => l.message)
    assert.ok(
      shown.some((m) => m.startsWith('POST /lites → 502')),
      'the order that failed is shown',
    )
    assert.deepEqual(
      shown.filter((m) => m.startsWith('GET /lites →')),
      [],
    )
  })

  test('a run killed before any answer: the next run asks whether keys are honoured, then replays the key', async () => {
    const dir = journal()
    const killed = frame(undefined, 60_000)
    const dying = providerProcess()
    // The first run's order never answers (the run dies): its entry stays sent, with no echo seen.
    const first = testClient([fail(502, 'Bad Gateway'), fail(405, 'x')], {
      journalDirectory: dir,
      operation: () => killed.value,
      journalOptions: dying.journalOptions,
    })
    await assert.rejects(first.client.lites.upgradeDisk('100042', { additional_size: 10 }), OrderUnresolvedError)
    dying.kill()
    const next = frame(undefined, 60_000)
    // The probe's GET is answered with the key echoed: this service honours keys after all.
    const second = testClient([echoing(200, {}), echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: providerProcess().journalOptions,
    })
    await second.client.lites.upgradeDisk('100042', { additional_size: 10 })
    const posts = [...first.requests, ...second.requests].filter((r) => r.method === 'PUT' || r.method === 'POST')
    assert.equal(posts.length, 2, 'the order is replayed once')
    assert.equal(posts[0]?.headers.get('idempotency-key'), posts[1]?.headers.get('idempotency-key'), 'with the same key')
  })

  test('an upgrade against a service that does not echo keys is not resent after a 502, then or on the next run', async () => {
    const dir = journal()
    const op = frame(undefined, 60_000)
    const proc = providerProcess()
    const disk = {
      ...vmAccount('100042', 'web', '1969-12-31', 'Active'),
      last_invoice: paidInvoice('1969-12-31 00:00:00'),
      extra_details: { service_name: 'd', size: 60, lite_account_id: 100001, region: 'r', region_label: 'R' },
    }
    // The disk read just before the order (its last invoice), the order's 502, the probe, then the disk
    // read until the operation's deadline: it shows no upgrade since.
    const first = testClient([ok(disk), fail(502, 'Bad Gateway'), fail(405, 'x'), ...Array.from({ length: 40 }, () => ok(disk))], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: proc.journalOptions,
    })
    await assert.rejects(first.client.lites.upgradeDisk('100042', { additional_size: 10 }), OrderUnresolvedError)
    await op.finish()
    const next = frame(undefined, 60_000)
    // The next run asks once more (a GET, answered without the key), reads the disk, which still shows no
    // upgrade since, and sends nothing.
    // Ten minutes later: the window in which the order could still have been processed is over.
    const second = testClient([fail(405, 'x'), ok(disk)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: proc.journalOptions,
      now: () => 1_600_000,
    })
    const error = await second.client.lites.upgradeDisk('100042', { additional_size: 10 }).then(
      () => assert.fail('sent again'),
      (e: unknown) => e as Error,
    )
    assert.match(error.message, /delete .*\.json/)
    assert.match(
      error.message,
      /Account 100042 shows no upgrade order since it was sent, by .* \(its last is invoice 1 \(new, Paid, 1969-12-31\); its status Active\)\. A slow service may still place it later\. Check the account and its invoices in the portal, now and again a while later: only once you are sure/,
    )
    assert.deepEqual(
      second.requests.map((r) => r.method),
      ['GET', 'GET'],
    )
  })

  test('a change of package answered 502 by a service that does not echo keys, which placed it: the VM shows its invoice, which is taken as the answer; nothing is sent again', async () => {
    const op = frame(undefined, 60_000)
    // Read just before the order: its last invoice is 1. The service bills the order (invoice 7) and the VM turns Pending.
    const before = { ...vmAccount('100042', 'web', '1969-12-31', 'Active'), last_invoice: paidInvoice('1969-12-31 00:00:00') }
    const placed = {
      ...before,
      status: 'Pending',
      last_invoice: { ...paidInvoice('1969-12-31 00:00:05'), id: 7, invoice_type: 'change_package' },
    }
    const { client, requests, logs } = testClient([ok(before), fail(502, 'Bad Gateway'), unconfirmed, ok(before), ok(placed)], {
      journalDirectory: journal(),
      operation: () => op.value,
    })
    const order = await client.lites.changePackage('100042', { new_product_id: 102 })
    assert.equal(order.account_id, '100042')
    assert.equal(posts(requests).length, 1)
    assert.ok(
      logs.some(
        (l) =>
          l.level === 'warn' &&
          /account 100042 shows it placed \(invoice 7, change_package, Paid\), so that is taken as its answer/.test(l.message),
      ),
    )
  })

  test("a change of package a stopped run sent to a service that does not echo keys: the next run finds the VM Pending on the order's unpaid invoice and takes it, not ordering again", async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame(undefined, 60_000)
    const before = { ...vmAccount('100042', 'web', '1969-12-31', 'Active'), last_invoice: paidInvoice('1969-12-31 00:00:00') }
    const first = testClient(
      [
        ok(before),
        () => {
          killed.kill()
          throw new Error('connection closed')
        },
      ],
      { journalDirectory: dir, operation: () => run.value, journalOptions: killed.journalOptions, maxAttempts: 1 },
    )
    await assert.rejects(first.client.lites.changePackage('100042', { new_product_id: 102, pay_invoice_with_cc: false }))
    const pending = {
      ...vmAccount('100042', 'web', '1969-12-31', 'Pending'),
      last_invoice: {
        id: 8,
        paid_id: null,
        status: 'Unpaid',
        date: '1970-01-01',
        duedate: '1970-01-04',
        paybefore: '1970-01-04',
        datepaid: null,
        invoice_type: 'change_package',
      },
    }
    const next = frame(undefined, 60_000)
    const second = testClient([unconfirmed, ok(pending)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal(
      (await second.client.lites.changePackage('100042', { new_product_id: 102, pay_invoice_with_cc: false })).account_id,
      '100042',
    )
    assert.equal(posts([...first.requests, ...second.requests]).length, 1, 'one change of package')
  })

  test("a change of package a stopped run sent that was never processed; hours later one is made in the portal: the re-run does not take the portal's invoice for the stopped run's order", async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame(undefined, 60_000)
    const before = { ...vmAccount('100042', 'web', '1969-12-31', 'Active'), last_invoice: { ...paidInvoice('1969-12-31 00:00:00'), id: 8 } }
    const first = testClient(
      [
        ok(before),
        () => {
          killed.kill()
          throw new Error('connection closed')
        },
      ],
      { journalDirectory: dir, operation: () => run.value, journalOptions: killed.journalOptions, maxAttempts: 1 },
    )
    await assert.rejects(first.client.lites.changePackage('100042', { new_product_id: 103 }))
    // Twelve hours later (its window ended long ago): the VM shows a change of package to 102 made in the portal at 06:00, paid.
    const vm = {
      ...before,
      product_id: 102,
      last_invoice: { ...paidInvoice('1970-01-01 06:00:00'), id: 9, invoice_type: 'change_package' },
    }
    const next = frame(undefined, 60_000)
    const second = testClient([unconfirmed, ok(vm)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: providerProcess().journalOptions,
      now: () => 1_000_000 + 12 * 3_600_000,
    })
    const error = await second.client.lites.changePackage('100042', { new_product_id: 103 }).then(
      (order) => assert.fail(`taken as answered: ${JSON.stringify(order)}`),
      (e: unknown) => e as Error,
    )
    assert.ok(error instanceof OrderUnresolvedError, String(error))
    assert.match(
      error.message,
      /Account 100042 shows no change_package order since it was sent, by .*\(its last is invoice 9 \(change_package, Paid, 1970-01-01\)/,
    )
    assert.equal(posts([...first.requests, ...second.requests]).length, 1)
  })

  test("evidence of an order on an account: another invoice than the one before it, of the order's type, paid or unpaid on a Pending account, and for a stopped run's order issued by its window's end; nothing else", () => {
    const end = Date.parse('2026-11-24T12:01:30Z')
    const vm = (status: string, invoice: Record<string, unknown>) =>
      ({ ...vmAccount('100042', 'web', '2026-01-01', status), last_invoice: invoice }) as never
    const paid = (id: number, datepaid: string, type = 'upgrade') => ({ ...paidInvoice(datepaid), id, invoice_type: type })
    const unpaid = (id: number, date: string) => ({
      id,
      paid_id: null,
      status: 'Unpaid',
      date,
      duedate: date,
      paybefore: date,
      datepaid: null,
      invoice_type: 'upgrade',
    })
    // Whatever the clocks say: the invoice before the order is never its own, another one of its type is.
    assert.ok(placementInvoice(vm('Pending', paid(5, '2026-11-24 12:00:05')), 'upgrade', 4))
    assert.ok(placementInvoice(vm('Active', paid(5, '2020-01-01 00:00:00')), 'upgrade', 4), 'a service clock years behind')
    assert.equal(placementInvoice(vm('Active', paid(4, '2026-11-24 12:00:05')), 'upgrade', 4), undefined, 'the invoice before it')
    assert.ok(
      placementInvoice(vm('Active', paid(5, '2026-11-24 12:00:05')), 'upgrade', null),
      'the first invoice of an account that had none',
    )
    assert.equal(
      placementInvoice(vm('Pending', paid(5, '2026-11-24 12:00:05', 'change_package')), 'upgrade', 4),
      undefined,
      'another kind of order',
    )
    assert.ok(placementInvoice(vm('Pending', unpaid(5, '2026-11-24')), 'upgrade', 4))
    assert.equal(
      placementInvoice(vm('Active', unpaid(5, '2026-11-24')), 'upgrade', 4),
      undefined,
      'unpaid, yet Active: not an order in progress',
    )
    assert.equal(placementInvoice(vm('Pending', paid(5, '2026-11-24 12:00:05')), 'upgrade', undefined), undefined, 'nothing read before')
    // A stopped run's order: an invoice issued after its window (with 10 min for the service's clock) is a later order's.
    assert.ok(placementInvoice(vm('Pending', paid(5, '2026-11-24 12:05:00')), 'upgrade', 4, end))
    assert.equal(placementInvoice(vm('Active', paid(5, '2026-11-24 18:00:00')), 'upgrade', 4, end), undefined, 'six hours later')
    assert.equal(placementInvoice(vm('Pending', unpaid(5, '2026-11-25')), 'upgrade', 4, end), undefined, 'the next day')
    assert.equal(placementInvoice(vm('Pending', paid(5, 'not a time')), 'upgrade', 4, end), undefined, 'unreadable')
  })

  test('a rebuild answered before the kill is not run again by the next run', async () => {
    const dir = journal()
    const run1 = frame()
    const killed = providerProcess()
    const first = testClient([echoing(200, true)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.rebuildVm('100042', { select_os: 'Debian-12' })
    killed.kill()
    const run2 = frame()
    const second = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: providerProcess().journalOptions })
    await second.client.lites.rebuildVm('100042', { select_os: 'Debian-12' })
    assert.equal(second.requests.length, 0)
  })

  test('a slow order on a fresh run: one GET asks whether keys are honoured, then the order is replayed with its key', async () => {
    const op = frame(undefined, 60_000)
    const probe = (r: RecordedRequest) => fail(405, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
    // The VM read first (its last invoice), then the order, the probe, and the order again with its key.
    const { client, requests } = testClient([ok({}), new Error('request timed out'), probe, echoing(200, ORDER)], {
      operation: () => op.value,
      journalDirectory: journal(),
    })
    assert.equal((await client.lites.changePackage('100042', { new_product_id: 102 })).account_id, '100042')
    assert.deepEqual(
      requests.map((r) => r.method),
      ['GET', 'POST', 'GET', 'POST'],
    )
    assert.equal(requests[1]?.headers.get('idempotency-key'), requests[3]?.headers.get('idempotency-key'))
  })

  test('what one service confirmed says nothing about another sharing the journal', async () => {
    const dir = journal()
    const honouring = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir })
    await honouring.client.lites.createVm(VM_BODY)
    const op = frame(undefined, 60_000)
    const other = testClient([fail(502, 'Bad Gateway'), fail(405, 'x'), ok([])], {
      journalDirectory: dir,
      operation: () => op.value,
      baseUrl: 'https://other.example.invalid/v1',
      fetch: async (request) => {
        const reply = [ok([]), fail(502, 'Bad Gateway'), fail(405, 'x'), ok([])][calls++]
        if (!reply) throw new Error(`unexpected ${request.method} ${request.url}`)
        return reply
      },
    })
    let calls = 0
    await assert.rejects(other.client.lites.createVm(VM_BODY), OrderUnresolvedError)
    assert.equal(calls >= 3, true, 'the other service was asked, listed and sent the order')
  })

  test('429 does not use up attempts while the operation has time', async () => {
    const op = frame(undefined, 600_000)
    const slow = fail(429, 'slow down', { 'retry-after': '1' })
    const { client, requests } = testClient([slow, fail(429, 'x'), fail(429, 'x'), fail(429, 'x'), fail(429, 'x'), ok(true)], {
      operation: () => op.value,
    })
    await client.lites.renameVm('1', { name: 'abcdef' })
    assert.equal(requests.length, 6)
  })
})

describe('order journal: owners, temporaries and settling', () => {
  const journalOf = (dir: string, proc = providerProcess()) => new OrderJournal(dir, () => 1_000_000, proc.journalOptions)

  test("a live process's fresh entry is never taken over by another process; once it is gone, it is", async () => {
    const dir = journal()
    const a = providerProcess()
    const b = providerProcess()
    const entry = await journalOf(dir, a).open('intent', 'service', 'key-a', 'POST', '/lites')
    const other = journalOf(dir, b)
    assert.equal(await other.claim('intent'), undefined, 'taken over while its process runs')
    a.kill()
    const taken = await other.claim('intent')
    assert.equal(taken?.id, entry.id)
    const written = JSON.parse(readFileSync(join(dir, `${entry.id}.json`), 'utf8'))
    assert.deepEqual(written.owner, b.owner, 'the takeover is written to disk')
    assert.equal(await journalOf(dir).claim('intent'), undefined, 'and is now the live taker’s')
  })

  test('a process takes back its own entry once no operation holds it, and a reused pid is not its owner', async () => {
    const dir = journal()
    const a = providerProcess()
    const own = journalOf(dir, a)
    const entry = await own.open('intent', 'service', 'key-a', 'POST', '/lites')
    assert.equal(await own.claim('intent'), undefined, 'held by an operation')
    own.letGo(entry)
    assert.equal((await own.claim('intent'))?.id, entry.id)
    // Another process now has the pid of a dead owner: the entry is that dead owner's, not the new one's.
    const reusing = new OrderJournal(dir, () => 1_000_000, { owner: { pid: a.pid, token: 'a-later-process' }, alive: () => true })
    own.letGo(entry)
    assert.equal((await reusing.claim('intent'))?.id, entry.id)
  })

  test('only entries never handed to an engine are taken over: never a delivered, settled or live one (issue 25)', async () => {
    const dir = journal()
    const killed = providerProcess()
    const live = providerProcess()
    let clock = 1_000_000
    const at = (proc: ReturnType<typeof providerProcess>) => new OrderJournal(dir, () => clock++, proc.journalOptions)
    const delivered = await at(killed).open('intent', 's', 'k1', 'POST', '/lites')
    Object.assign(delivered, { state: 'answered', accountId: '1' })
    await at(killed).deliver(delivered)
    const settled = await at(killed).open('intent', 's', 'k2', 'POST', '/lites')
    Object.assign(settled, { state: 'answered', accountId: '2' })
    await at(killed).deliver(settled)
    await at(killed).accountInState('2')
    const livesDelivered = await at(live).open('intent', 's', 'k3', 'POST', '/lites')
    Object.assign(livesDelivered, { state: 'answered', accountId: '3' })
    await at(live).deliver(livesDelivered)
    const sent = await at(killed).open('intent', 's', 'k4', 'POST', '/lites')
    killed.kill()
    const next = at(providerProcess())
    assert.equal((await next.claim('intent'))?.id, sent.id, 'the unanswered entry of the gone owner')
    assert.equal(
      await next.claim('intent'),
      undefined,
      'never a delivered entry (its account belongs to a state), a settled one or a live one',
    )
    assert.deepEqual(await next.lostHandovers('intent'), ['1'], "the gone owner's delivered account is named instead")
  })

  test('a state naming an account leaves an order on it that was never handed over open (a migration cut short); a delete settles it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const own = journalOf(dir, killed)
    const migrating = await own.open('migrate', 's', 'k1', 'POST', '/lites/accounts/7/migrate-to-pro')
    Object.assign(migrating, { state: 'answered', accountId: '7' })
    await own.write(migrating)
    killed.kill()
    // The re-run's refresh (Terraform) or Diff (Pulumi) names account 7 before the migration resumes.
    await journalOf(dir).accountInState('7')
    const next = journalOf(dir)
    assert.equal((await next.claim('migrate'))?.id, migrating.id, 'the open order is taken over, not sent again')
    next.letGo(migrating)
    await next.accountGone('7')
    assert.equal(await journalOf(dir).claim('migrate'), undefined, 'once the account is deleted, never')
  })

  test('a graceful shutdown settles only what its process handed over; a state naming an account settles it', async () => {
    const dir = journal()
    const a = providerProcess()
    const own = journalOf(dir, a)
    const handed = await own.open('intent', 's', 'k1', 'POST', '/lites')
    Object.assign(handed, { state: 'answered', accountId: '1' })
    await own.deliver(handed)
    const named = await own.open('intent', 's', 'k2', 'POST', '/lites')
    Object.assign(named, { state: 'answered', accountId: '2' })
    await own.deliver(named)
    await journalOf(dir).accountInState('2')
    await own.engineClosed()
    a.kill()
    const states = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).state)
    assert.deepEqual(states, ['settled', 'settled'])
    assert.equal(await journalOf(dir).claim('intent'), undefined)
  })

  test('a graceful close confirms what the saved state names; the rest stays unconfirmed and stops the same create of a later run', async () => {
    const dir = journal()
    const a = providerProcess()
    const own = journalOf(dir, a)
    for (const [key, accountId] of [
      ['k1', '1'],
      ['k2', '2'],
    ] as const) {
      const entry = await own.open('intent', 's', key, 'POST', '/lites')
      Object.assign(entry, { state: 'answered', accountId })
      await own.deliver(entry)
    }
    let reads = 0
    await own.engineClosed(() => {
      reads += 1
      return new Set(['1'])
    })
    a.kill()
    assert.equal(reads, 1, 'the saved state is read once per close')
    // A later run (a -target apply reads no other resource): only the account the state did not name stops it.
    assert.deepEqual(await journalOf(dir).lostHandovers('intent'), ['2'])
    // A close with nothing handed over reads no state.
    await journalOf(dir).engineClosed(() => {
      throw new Error('read')
    })
  })

  test('of two processes taking over one entry, one wins; a takeover cut short is finished by the next', async () => {
    const dir = journal()
    const killed = providerProcess()
    const entry = await journalOf(dir, killed).open('intent', 's', 'k', 'POST', '/lites')
    killed.kill()
    // A live process is taking it over right now (its marker is there): nobody else may.
    const busy = providerProcess()
    const marker = join(dir, `${entry.id}.take-${killed.owner.token}`)
    writeFileSync(marker, JSON.stringify(busy.owner))
    assert.equal(await journalOf(dir).claim('intent'), undefined)
    // That process dies before it rewrote the entry: the next one takes it over.
    busy.kill()
    const next = providerProcess()
    assert.equal((await journalOf(dir, next).claim('intent'))?.id, entry.id)
    assert.deepEqual(JSON.parse(readFileSync(join(dir, `${entry.id}.json`), 'utf8')).owner, next.owner)
    assert.deepEqual(readdirSync(dir), [`${entry.id}.json`], 'its markers are removed')
  })

  test('temporaries of writers killed before their rename are removed; those of live writers are kept', async () => {
    const dir = journal()
    const writer = providerProcess()
    const dead = providerProcess()
    dead.kill()
    await journalOf(dir, writer).open('intent', 's', 'k', 'POST', '/lites')
    writeFileSync(join(dir, `aaaa.json.${dead.pid}.tmp`), '{"v":1')
    writeFileSync(join(dir, `bbbb.json.${writer.pid}.tmp`), '{"v":1')
    await journalOf(dir).claim('other-intent')
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [`bbbb.json.${writer.pid}.tmp`],
    )
  })

  test("two clients of this process with sessions of their own: neither takes the other's entry while the process runs", async () => {
    const dir = journal()
    const mine = new OrderJournal(dir, Date.now)
    const entry = await mine.open('intent', 's', 'k', 'POST', '/lites')
    mine.letGo(entry)
    const sibling = new OrderJournal(dir, Date.now)
    assert.notEqual(sibling.owner.token, mine.owner.token)
    assert.equal(await sibling.claim('intent'), undefined, 'a sibling owner of this very process is alive')
    assert.equal((await sibling.heldElsewhere('intent')).length, 1)
    assert.equal((await mine.claim('intent'))?.id, entry.id, 'its own owner takes it back')
  })

  test('liveness: a running pid is alive, an exited one is not, and a pid with another start time was reused', () => {
    const own = new OrderJournal(journal(), Date.now).owner
    assert.equal(processAlive(own.pid, own.started), true)
    if (own.started !== undefined) assert.equal(processAlive(own.pid, '1'), false)
    const exited = spawnSync(process.execPath, ['-e', '']).pid
    assert.equal(processAlive(exited), false)
  })

  test('liveness: a zombie (exited, not reaped by its parent) is not alive, though kill(pid, 0) still finds it', async () => {
    // The shell starts a short sleep in the background and then becomes a long `sleep`, which never
    // reaps it. The short one must outlive the exec: a shell reaps a finished job itself.
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim()))))
      let state = ''
      for (let look = 0; look < 1000 && state !== 'Z'; look++) {
        state = readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0] ?? ''
        if (state !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10))
      }
      assert.equal(state, 'Z', 'the child is a zombie')
      assert.doesNotThrow(() => process.kill(zombie, 0), 'kill(pid, 0) still finds a zombie')
      assert.equal(processAlive(zombie), false)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  test('the same order held by another process that runs is waited for, then taken over once that process has gone', async () => {
    const dir = journal()
    const other = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: other.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    // The other run's provider still waits for Active: its entry is answered, held, never handed over.
    const me = providerProcess()
    let looks = 0
    const alive = (pid: number) => {
      if (pid === other.pid && ++looks > 6) other.kill()
      return running.has(pid)
    }
    const run2 = frame()
    const second = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: { ...me.journalOptions, alive } })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(second.requests.length, 0, 'nothing ordered beside the held order')
    assert.ok(second.clock.sleeps.length > 0, 'it waited')
    assert.ok(second.logs.some((l) => l.level === 'warn' && l.message.includes(`provider process ${other.pid}`)))
  })

  test('an answer whose entry another process took over meanwhile is not handed over: the call fails naming the key', async () => {
    const dir = journal()
    const cutOff = providerProcess()
    const taker = providerProcess()
    const takersJournal = new OrderJournal(dir, () => 1_000_000, taker.journalOptions)
    const run = frame()
    // While the order is in flight its process is seen gone (a misjudged liveness, or a runner cut off
    // from a shared journal), and another process takes the entry over.
    const takenOver = async (r: RecordedRequest) => {
      cutOff.kill()
      const [open] = await takersJournal.store.list(1_000_000)
      assert.ok(open, 'the order is in the journal before it is sent')
      const taken = await takersJournal.claim(open.fingerprint)
      assert.ok(taken, 'the other process takes it over')
      // ...in an operation that ends before it replays the order (the taker's next run does).
      takersJournal.letGo(taken)
      return echoing(200, ORDER)(r)
    }
    const { client } = testClient([probed, takenOver], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: cutOff.journalOptions,
    })
    await assert.rejects(
      client.lites.createVm(VM_BODY),
      (e: unknown) =>
        e instanceof OrderUnresolvedError &&
        /answered with account 100042, but another runner took this order over/.test(e.message) &&
        e.idempotencyKey === 'key-1',
    )
    await run.finish()
    const [stored] = await takersJournal.store.list(1_000_000)
    assert.deepEqual(stored?.owner, taker.owner, "the taker's ownership is not overwritten")
    assert.equal(stored?.state, 'sent', 'nor marked answered or delivered by the run that lost it')
    // The taker replays the same key (after asking whether keys are honoured: the lost run's answer
    // taught the journal nothing) and hands the account over.
    const next = frame()
    const again = testClient([echoing(200, []), echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => next.value,
      journalOptions: taker.journalOptions,
    })
    assert.equal((await again.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.deepEqual(
      posts(again.requests).map((r) => r.headers.get('idempotency-key')),
      ['key-1'],
    )
  })

  test('the same order held by another process that outlives the wait stops with its pid, and orders nothing', async () => {
    const dir = journal()
    const other = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: other.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    const run2 = frame()
    const second = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: providerProcess().journalOptions })
    await assert.rejects(second.client.lites.createVm(VM_BODY), (error: unknown) => {
      assert.ok(error instanceof OrderUnresolvedError)
      assert.match(error.message, new RegExp(`held by provider process ${other.pid}, which still runs`))
      return true
    })
    assert.equal(second.requests.length, 0)
    // Once the other run hands its outcome over, the same configuration elsewhere (another workspace) orders anew.
    await run1.finish()
    const run3 = frame()
    const third = testClient([echoing(200, { ...ORDER, account_id: '100043' })], {
      journalDirectory: dir,
      operation: () => run3.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal((await third.client.lites.createVm(VM_BODY)).account_id, '100043')
  })

  /** A create of `scope` in a fresh process, answered 100042 and handed to its engine; that process runs on. Then another process's run. */
  async function handedOverByRunningProcess(scope: string, scopeIsResource: boolean) {
    const dir = journal()
    const run1 = frame(scope, undefined, scopeIsResource)
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: providerProcess().journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await run1.finish()
    return (replies: Parameters<typeof testClient>[0]) => {
      const run2 = frame(scope, undefined, scopeIsResource)
      return testClient(replies, { journalDirectory: dir, operation: () => run2.value, journalOptions: providerProcess().journalOptions })
    }
  }

  test('the same Pulumi resource (its URN) handed to another engine that still runs (an update pulumi cancel left running): not ordered again, the account named', async () => {
    const next = await handedOverByRunningProcess('urn:pulumi:dev::app::provider:index:LiteVm::vm', true)
    // The cancelled update still runs and saves 100042; this one would save a second VM over it.
    const second = next([
      echoing(200, [vmAccount('100042', 'web', '1970-01-01', 'Pending')]),
      echoing(200, { ...ORDER, account_id: '100043' }),
    ])
    await assert.rejects(
      second.client.lites.createVm(VM_BODY),
      /Not ordering POST \S+: account 100042 was ordered .* handed to the engine of an earlier run.*pulumi cancel\) may still be running and save it: let it end, then run pulumi refresh/s,
    )
    assert.equal(posts(second.requests).length, 0)
  })

  test("a Terraform state's scope, which two states configured from the environment can share, is not one resource: a twin applied at the same time orders its own", async () => {
    // Two http backends whose address comes from TF_HTTP_ADDRESS record the same settings: staging's
    // terraform still runs; prod's create of the same configuration orders its own VM.
    const next = await handedOverByRunningProcess('terraform backend http e3b0c44298fc1c14', false)
    const either = (r: RecordedRequest) =>
      r.method === 'GET'
        ? echoing(200, [vmAccount('100042', 'web', '1970-01-01', 'Active')])(r)
        : echoing(200, { ...ORDER, account_id: '100043' })(r)
    const second = next([either, either])
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100043')
  })

  test('a real second process: its entry is not taken over while it runs, and is once it has exited', async () => {
    const dir = journal()
    const module = new URL('./journal.js', import.meta.url).href
    const script =
      `const { OrderJournal } = await import(${JSON.stringify(module)});` +
      `(await new OrderJournal(${JSON.stringify(dir)}, Date.now).open('intent', 's', 'k', 'POST', '/lites'));` +
      `process.stdout.write('ready\\n'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve())
      child.once('exit', () => reject(new Error('the child exited early')))
    })
    const here = new OrderJournal(dir, Date.now)
    assert.equal(await here.claim('intent'), undefined, 'the other process still runs')
    child.stdin.end()
    await exited
    const taken = await here.claim('intent')
    assert.equal(taken?.key, 'k')
    assert.equal(taken?.owner?.pid, process.pid)
  })

  test('a create whose engine was killed before any state named the account is not given it (it may be in that state): it stops naming it, and orders nothing (issue 25)', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await run1.finish() // handed to Terraform, whose state may then have been lost with the kill
    killed.kill()
    const run2 = frame()
    const second = testClient([ok([vmAccount('100042', 'web', '2026-01-01 00:00:00')])], {
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: providerProcess().journalOptions,
    })
    await assert.rejects(
      second.client.lites.createVm(VM_BODY),
      (e: Error) => e instanceof UnrecordedMatchError && /account 100042 was ordered/.test(e.message) && /terraform import/.test(e.message),
    )
    assert.deepEqual(
      second.requests.map((r) => r.method),
      ['GET'],
      'no order is placed',
    )
    // Imported (a state names it): settled, and an identical create then orders its own.
    const named = new OrderJournal(dir, second.clock.now, providerProcess().journalOptions)
    const entry = (await named.store.list(second.clock.now())).find((e) => e.accountId === '100042')
    assert.deepEqual(await named.lostHandovers(entry?.fingerprint ?? ''), ['100042'])
    await named.accountInState('100042')
    assert.deepEqual(await named.lostHandovers(entry?.fingerprint ?? ''), [])
  })

  test('count = 2, both delivered and their engine killed: the re-run names both accounts and orders nothing (issue 25)', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run1 = frame()
    // The two creates list at once and share one listing, then both order.
    const first = testClient([probed, echoing(200, ORDER), echoing(200, { ...ORDER, account_id: '100043' })], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await Promise.all([first.client.lites.createVm(VM_BODY), first.client.lites.createVm(VM_BODY)])
    await run1.finish()
    killed.kill()
    const run2 = frame()
    const listed = () => ok([vmAccount('100042', 'web', '2026-01-01 00:00:00'), vmAccount('100043', 'web', '2026-01-01 00:00:00')])
    const second = testClient([listed()], {
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: providerProcess().journalOptions,
    })
    await assert.rejects(second.client.lites.createVm(VM_BODY), (e: Error) => /accounts 10004[23], 10004[23] were ordered/.test(e.message))
    assert.equal(second.requests.filter((r) => r.method === 'POST').length, 0)
  })

  test('a delivered account deleted since is not taken over: its entry is settled and a new order gets a new key', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await run1.finish()
    killed.kill()
    const run2 = frame()
    const second = testClient([ok([]), echoing(200, { ...ORDER, account_id: '100044' })], {
      idempotencyKey: () => 'fresh-key',
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100044')
    const post = second.requests.find((r) => r.method === 'POST')
    assert.notEqual(post?.headers.get('idempotency-key'), posts(first.requests)[0]?.headers.get('idempotency-key'))
  })

  test('after a graceful shutdown the same create stops while its account exists and no state named it; once named, or gone, it orders again', async () => {
    for (const after of ['named', 'gone', 'listed'] as const) {
      const dir = journal()
      const ended = providerProcess()
      const run1 = frame()
      const first = testClient([probed, echoing(200, ORDER)], {
        journalDirectory: dir,
        operation: () => run1.value,
        journalOptions: ended.journalOptions,
      })
      await first.client.lites.createVm(VM_BODY)
      await run1.finish()
      await first.client.settlement?.delivered()
      if (after === 'named') await testClient([], { journalDirectory: dir }).client.settlement?.account('100042')
      ended.kill()
      const run2 = frame()
      const listing = ok(after === 'listed' ? [vmAccount('100042', 'web', '2026-01-01 00:00:00')] : [])
      const replies =
        after === 'named' ? [echoing(200, { ...ORDER, account_id: '100044' })] : [listing, echoing(200, { ...ORDER, account_id: '100044' })]
      const second = testClient(replies, {
        journalDirectory: dir,
        operation: () => run2.value,
        journalOptions: providerProcess().journalOptions,
      })
      if (after === 'listed') {
        // The state that held it may have been lost after the close (terraform killed before saving), or it was removed on purpose.
        const error = await second.client.lites.createVm(VM_BODY).then(
          () => assert.fail('ordered again while the handed-over account exists and no state named it'),
          (e: unknown) => e,
        )
        assert.ok(error instanceof UnrecordedMatchError, String(error))
        assert.deepEqual([...error.candidates], ['100042'])
        assert.match(error.message, /PROVIDER_ALLOW_UNRECORDED_MATCH=1/)
        // Pulumi's way there too: an interrupted or cancelled update of the stack that still runs and saves it.
        assert.match(
          error.message,
          /In Pulumi, an update of this stack that was interrupted \(or cancelled with pulumi cancel\) may still be running/,
        )
        assert.equal(posts(second.requests).length, 0)
      } else {
        // `terraform state rm` after a plan named it, `-replace`, another workspace; or the account was deleted since.
        assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100044', after)
      }
    }
  })
})

describe('order journal: a service that ignores keys, stopped runs and runs of one engine (issue 25)', () => {
  /** A run stopped (Ctrl-C) while its create is in flight to a service that holds it: the entry stays `sent`. */
  async function stoppedWhileSending(dir: string, requestTimeoutMs?: number) {
    const killed = providerProcess()
    const run = frame()
    const stop = new AbortController()
    const first = testClient(
      [
        probed,
        () => {
          stop.abort(new Error('interrupted'))
          throw new Error('connection closed')
        },
      ],
      {
        journalDirectory: dir,
        operation: () => run.value,
        journalOptions: killed.journalOptions,
        ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      },
    )
    await assert.rejects(first.client.lites.createVm(VM_BODY, { signal: stop.signal }))
    killed.kill()
    return first
  }

  test('the re-run waits for the outcome of the order a stopped run sent, and adopts its account: nothing is sent again', async () => {
    const dir = journal()
    await stoppedWhileSending(dir)
    const run = frame()
    const held = vmAccount('100042', 'web', new Date(1_000_000).toISOString().slice(0, 19).replace('T', ' '))
    const second = testClient([unconfirmed, ok([]), ok([]), ok([held])], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(second.requests).length, 0, 'no second order')
    assert.ok(second.logs.some((l) => l.level === 'warn' && /waiting for the outcome of the order an earlier run sent/.test(l.message)))
  })

  test('no account by the time the order would have been processed: the re-run stops naming the key and when it was sent, and orders nothing', async () => {
    const dir = journal()
    const first = await stoppedWhileSending(dir)
    const key = posts(first.requests)[0]?.headers.get('idempotency-key') ?? ''
    const run = frame()
    const second = testClient([unconfirmed, ...Array.from({ length: 60 }, () => () => ok([]))], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: providerProcess().journalOptions,
    })
    await assert.rejects(
      second.client.lites.createVm(VM_BODY),
      (e: Error) =>
        e instanceof OrderUnresolvedError &&
        e.message.includes(`Idempotency-Key ${key}`) &&
        e.message.includes(new Date(1_000_000).toISOString()) &&
        /does not confirm Idempotency-Keys/.test(e.message) &&
        /import it/.test(e.message),
    )
    assert.equal(posts(second.requests).length, 0, 'never a blind re-send')
    // It looked until the request's deadline (30 s) and the service's processing time (60 s) had passed.
    assert.ok(second.clock.now() - 1_000_000 >= 90_000, String(second.clock.now()))
  })

  test('a stopped run that sent its order with a longer request timeout than this run has: its account is waited for until that timeout and 60 s have passed', async () => {
    const dir = journal()
    await stoppedWhileSending(dir, 300_000)
    const run = frame()
    // The service made the account 200 s after the order left: within the stopped run's own 300 s.
    const made = vmAccount('100042', 'web', new Date(1_200_000).toISOString().slice(0, 19).replace('T', ' '))
    const listing = () => ok(second.clock.now() - 1_000_000 >= 200_000 ? [made] : [])
    const second = testClient([unconfirmed, ...Array.from({ length: 200 }, () => listing)], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(second.requests).length, 0, 'no second order')
  })

  test("an earlier run's order sent again by this run records this attempt's time and request timeout, which bound its outcome from then on", async () => {
    const dir = journal()
    await stoppedWhileSending(dir, 300_000)
    const run = frame()
    // The service echoes keys now: the order is sent again with its key, and gets no clear answer.
    const second = testClient([echoing(200, {}), ...Array.from({ length: 8 }, () => fail(502, 'Bad Gateway'))], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: providerProcess().journalOptions,
      now: () => 5_000_000,
      // One attempt: no retry of this run moves the times; only the resend itself can.
      maxAttempts: 1,
    })
    await assert.rejects(second.client.lites.createVm(VM_BODY), OrderUnresolvedError)
    const [entry] = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    assert.equal(entry.lastAttemptAt, 5_000_000)
    assert.equal(entry.requestTimeoutMs, 30_000)
  })

  test('an account a stopped run ordered and never handed over is named by every later run until a state names it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: killed.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    killed.kill() // before the operation handed its outcome over
    const later = testClient([], { journalDirectory: dir, journalOptions: providerProcess().journalOptions })
    const notices = (await later.client.settlement?.notices()) ?? []
    assert.equal(notices.length, 1)
    assert.match(notices[0]?.summary ?? '', /Account 100042 was ordered by a run that was stopped/)
    assert.match(notices[0]?.detail ?? '', /terraform import <address> 100042/)
    assert.match(notices[0]?.detail ?? '', /delete .*\.json/)
    await later.client.settlement?.account('100042') // imported
    assert.deepEqual(await later.client.settlement?.notices(), [])
  })

  test('a create a stopped run sent and never saw answered, of a configuration edited since: every later run names an account made since that nothing names, until a state does', async () => {
    const dir = journal()
    const killed = providerProcess()
    const stopped = new OrderJournal(dir, () => 1_000_000, killed.journalOptions)
    await stopped.open('an-edited-intent', serviceOf(BASE_URL), 'held-key', 'POST', '/lites', { creates: true, lists: '/lites/accounts' })
    killed.kill()
    const listing = [
      vmAccount('100050', 'web', '1970-01-01 00:20:00'),
      vmAccount('100051', 'older', '1970-01-01 00:00:00'),
      vmAccount('100052', 'terminated', '1970-01-01 00:20:00', 'Terminated'),
      vmAccount('100053', 'managed', '1970-01-01 00:20:00'),
    ]
    const later = () => testClient([() => ok(listing)], { journalDirectory: dir, journalOptions: providerProcess().journalOptions })
    await later().client.settlement?.account('100053') // a state named it
    for (let run = 0; run < 2; run++) {
      const { client: api, requests } = later()
      const notices = (await api.settlement?.notices()) ?? []
      assert.equal(notices.length, 1, JSON.stringify(notices))
      assert.match(notices[0]?.summary ?? '', /^Account 100050 may have been ordered by a run that was stopped, and no state holds it$/)
      assert.match(notices[0]?.detail ?? '', /POST \/lites was sent \(Idempotency-Key held-key/)
      assert.match(notices[0]?.detail ?? '', /terraform import <address> <id>/)
      assert.match(notices[0]?.detail ?? '', /delete .*\.json/)
      assert.deepEqual(
        requests.map((r) => `${r.method} ${r.path}`),
        ['GET /lites/accounts'],
      )
    }
    await later().client.settlement?.account('100050') // imported
    assert.deepEqual(await later().client.settlement?.notices(), [])
  })

  test('a create a stopped run sent, still unanswered and in no listing yet: a later run (a destroy straight after the kill) says it may still make an account, until the service is past processing it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const stopped = new OrderJournal(dir, () => 1_000_000, killed.journalOptions)
    await stopped.open('a-held-create', serviceOf(BASE_URL), 'held-key', 'POST', '/baremetals', { creates: true, lists: '/baremetals' })
    killed.kill()
    const later = (at: number) =>
      testClient([() => ok([])], { journalDirectory: dir, journalOptions: providerProcess().journalOptions, now: () => at })
    const notices = (await later(1_005_000).client.settlement?.notices()) ?? []
    assert.equal(notices.length, 1, JSON.stringify(notices))
    assert.match(notices[0]?.summary ?? '', /may still make an account that no state holds: POST \/baremetals$/)
    assert.match(notices[0]?.detail ?? '', /Idempotency-Key held-key/)
    assert.match(notices[0]?.detail ?? '', /run a plan again after that time/)
    // Long past its request's timeout and the service's processing time, with still no account: it made none to name.
    assert.deepEqual((await later(1_000_000 + 3_600_000).client.settlement?.notices()) ?? [], [])
  })

  test('a change a stopped run sent and never saw answered: a later run (one whose configuration undid it) says the service may still apply and bill it, until it is past processing it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const stopped = new OrderJournal(dir, () => 1_000_000, killed.journalOptions)
    await stopped.open('a-held-change', serviceOf(BASE_URL), 'held-key', 'POST', '/lites/accounts/100001/change-package', {
      change: '{"product_id":[101,102]}',
      invoiceBefore: 700001,
    })
    killed.kill()
    const later = (at: number) => testClient([], { journalDirectory: dir, journalOptions: providerProcess().journalOptions, now: () => at })
    const { client: api, requests } = later(1_005_000)
    const notices = (await api.settlement?.notices()) ?? []
    assert.equal(notices.length, 1, JSON.stringify(notices))
    assert.match(
      notices[0]?.summary ?? '',
      /change a run that was stopped sent may still take effect: POST \/lites\/accounts\/100001\/change-package$/,
    )
    assert.match(notices[0]?.detail ?? '', /Idempotency-Key held-key/)
    assert.match(notices[0]?.detail ?? '', /changing it back is another paid order/)
    assert.deepEqual(requests, [])
    // Past its request's timeout and the service's processing time: a refresh shows whether it took effect.
    assert.deepEqual((await later(1_000_000 + 3_600_000).client.settlement?.notices()) ?? [], [])
  })

  test('an unanswered create of a run that still goes on, or of this run, is named by no notice and lists nothing', async () => {
    const dir = journal()
    const live = providerProcess()
    await new OrderJournal(dir, () => 1_000_000, live.journalOptions).open('intent', serviceOf(BASE_URL), 'k', 'POST', '/lites', {
      creates: true,
      lists: '/lites/accounts',
    })
    const { client: api, requests } = testClient([], { journalDirectory: dir, journalOptions: providerProcess().journalOptions })
    assert.deepEqual(await api.settlement?.notices(), [])
    assert.deepEqual(requests, [])
  })

  test("two provider processes of one run (aliases): the second's identical create orders its own, never stopped by the first's account", async () => {
    const dir = journal()
    const first = providerProcess('one-terraform-run')
    const run1 = frame()
    const a = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: first.journalOptions,
    })
    await a.client.lites.createVm(VM_BODY)
    await run1.finish()
    // Terraform closes the first alias's provider once its last resource is done.
    await new OrderJournal(dir, a.clock.now, first.journalOptions).engineClosed()
    first.kill()
    const sibling = providerProcess('one-terraform-run')
    const run2 = frame()
    const b = testClient([echoing(200, { ...ORDER, account_id: '100043' })], {
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: sibling.journalOptions,
    })
    assert.equal((await b.client.lites.createVm(VM_BODY)).account_id, '100043')
    await run2.finish()
    sibling.kill()
    // A later run (another engine) with the same configuration and no state naming 100042 is stopped.
    const rerun = testClient([ok([vmAccount('100042', 'web', '2026-01-01 00:00:00')])], {
      journalDirectory: dir,
      operation: () => frame().value,
      journalOptions: providerProcess('a-later-run').journalOptions,
    })
    await assert.rejects(rerun.client.lites.createVm(VM_BODY), UnrecordedMatchError)
    assert.equal(posts(rerun.requests).length, 0)
  })

  test('an answer whose entry another runner took over while this run waited is not handed over: the operation fails naming the key (issue 25, case 3)', async () => {
    const dir = journal()
    const a = providerProcess()
    const run = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: a.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    // While A waits for its VM, A looks gone to B (a database session that ended), and B takes the entry over.
    a.kill()
    const b = new OrderJournal(dir, first.clock.now, providerProcess().journalOptions)
    const entry = (await b.store.list(first.clock.now()))[0]
    assert.equal((await b.claim(entry?.fingerprint ?? ''))?.accountId, '100042')
    await assert.rejects(
      run.finish(),
      (e: Error) =>
        e instanceof OrderUnresolvedError &&
        /answered with account 100042/.test(e.message) &&
        /another runner took this order over/.test(e.message) &&
        e.message.includes(posts(first.requests)[0]?.headers.get('idempotency-key') ?? '?'),
    )
  })

  test('a provider whose engine is gone is gone: its answered create is named and taken over at once, before it exits (issue 25, case 2)', async () => {
    const dir = journal()
    const orphaned = engineStartedProcess()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => frame().value,
      journalOptions: orphaned.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    const later = () => testClient([], { journalDirectory: dir, journalOptions: providerProcess().journalOptions })
    assert.deepEqual(await later().client.settlement?.notices(), [], 'its engine runs: the provider may still hand it over')
    orphaned.killEngine() // terraform killed; the provider itself still runs for up to a second
    const notices = (await later().client.settlement?.notices()) ?? []
    assert.match(notices[0]?.summary ?? '', /Account 100042 was ordered by a run that was stopped/)
  })

  test('a create that ends after its engine was killed is handed to nobody: the next run of the resource takes its account over instead of stopping on it', async () => {
    // pulumi up killed (kill -9) while a create waits for Active: the plugin runs on for up to a second
    // (guardProcess), and a wait that ends meanwhile answers a call nobody reads.
    const dir = journal()
    const orphaned = engineStartedProcess()
    const scope = 'urn:pulumi:dev::app::provider:index:LiteDisk::disk'
    const run1 = frame(scope, undefined, true)
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: orphaned.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    orphaned.killEngine()
    await run1.finish()
    orphaned.kill()
    const run2 = frame(scope, undefined, true)
    const second = testClient([echoing(200, [vmAccount('100042', 'web', '1970-01-01', 'Active')])], {
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: providerProcess().journalOptions,
    })
    assert.equal(
      (await second.client.lites.createVm(VM_BODY)).account_id,
      '100042',
      'taken over, not stopped on as handed to an earlier engine',
    )
    assert.equal(posts(second.requests).length, 0, 'and not ordered again')
  })
})

describe('order journal: the directory is read whole once while nobody writes (issue 29)', () => {
  const settledOn = (accountId: string) => ({
    v: 1 as const,
    id: `entry-${accountId}`,
    fingerprint: `intent-${accountId}`,
    service: 'service',
    key: `key-${accountId}`,
    method: 'POST',
    path: '/lites',
    sentAt: 1_000_000,
    state: 'settled' as const,
    accountId,
  })
  /** Sets the directory's modification time, as if its last write happened at `at` (ms). */
  const lastWritten = (dir: string, at: number) => utimesSync(dir, new Date(at), new Date(at))

  test('a refresh of 500 accounts reads each entry file once, not once per account', async () => {
    const dir = journal()
    const writer = new OrderJournal(dir, () => 1_000_000)
    for (let i = 0; i < 500; i++) await writer.write(settledOn(String(i)))
    lastWritten(dir, Date.now() - 60_000)
    const reader = new OrderJournal(dir, () => 1_000_000)
    const reads = await fileReads(dir, async () => {
      for (let i = 0; i < 500; i++) await reader.accountInState(String(i))
    })
    assert.equal(reads, 500, 'one read of each file (before: 500 × 500)')
    assert.equal(readdirSync(dir).length, 500, 'and nothing was written')
  })

  test("another process's write is seen by the next look, though this one had the directory in memory", async () => {
    const dir = journal()
    const a = providerProcess()
    const b = providerProcess()
    await new OrderJournal(dir, () => 1_000_000).write(settledOn('1'))
    lastWritten(dir, Date.now() - 60_000)
    const mine = new OrderJournal(dir, () => 1_000_000, a.journalOptions)
    assert.deepEqual(await mine.heldElsewhere('intent'), [])
    const entry = await new OrderJournal(dir, () => 1_000_000, b.journalOptions).open('intent', 'service', 'key-b', 'POST', '/lites')
    assert.deepEqual(
      (await mine.heldElsewhere('intent')).map((e) => e.id),
      [entry.id],
      'the same order in flight elsewhere is seen',
    )
  })

  test('a listing read while the directory had just been written is not trusted: a write in the same clock tick is seen', async () => {
    const dir = journal()
    const a = providerProcess()
    const b = providerProcess()
    await new OrderJournal(dir, () => 1_000_000).write(settledOn('1'))
    const tick = Date.now()
    lastWritten(dir, tick)
    const mine = new OrderJournal(dir, () => 1_000_000, a.journalOptions)
    assert.deepEqual(await mine.heldElsewhere('intent'), [])
    const entry = await new OrderJournal(dir, () => 1_000_000, b.journalOptions).open('intent', 'service', 'key-b', 'POST', '/lites')
    // The other write landed in the same tick: the directory's time did not move.
    lastWritten(dir, tick)
    assert.deepEqual(
      (await mine.heldElsewhere('intent')).map((e) => e.id),
      [entry.id],
      'seen all the same',
    )
  })

  test('the first refresh after an apply settles each entry as it goes, and still reads each file about once', async () => {
    const dir = journal()
    const writer = new OrderJournal(dir, () => 1_000_000)
    // As a graceful close after the apply leaves them: handed over, kept, not yet named by a state.
    for (let i = 0; i < 500; i++) await writer.write({ ...settledOn(String(i)), unconfirmed: true })
    const earlier = new Date(Date.now() - 60_000)
    for (const name of readdirSync(dir)) utimesSync(join(dir, name), earlier, earlier)
    lastWritten(dir, Date.now() - 60_000)
    const reader = new OrderJournal(dir, () => 1_000_000)
    let reads = 0
    const listings = await directoryListings(dir, async () => {
      reads = await fileReads(dir, async () => {
        for (let i = 0; i < 500; i++) await reader.accountInState(String(i))
      })
    })
    assert.ok(reads <= 510, `${reads} file reads (before: 500 × 500)`)
    assert.equal(listings, 1, 'one listing of the directory, though each settling wrote to it (before: one per account)')
    const confirmed = (await reader.store.list(1_000_000)).filter((e) => e.unconfirmed === undefined && e.state === 'settled')
    assert.equal(confirmed.length, 500, 'every entry is settled and confirmed on disk')
    assert.equal(JSON.parse(readFileSync(join(dir, 'entry-7.json'), 'utf8')).unconfirmed, undefined)
  })

  test('the deletes of a destroy list the directory once, however many accounts they settle', async () => {
    const dir = journal()
    const writer = new OrderJournal(dir, () => 1_000_000)
    for (let i = 0; i < 500; i++) await writer.write({ ...settledOn(String(i)), state: 'delivered' })
    lastWritten(dir, Date.now() - 60_000)
    const deleter = new OrderJournal(dir, () => 1_000_000)
    const listings = await directoryListings(dir, async () => {
      for (let i = 0; i < 500; i++) {
        await deleter.accountInState(String(i))
        await deleter.accountGone(String(i))
      }
    })
    assert.equal(listings, 1, 'one listing (before: one per look after the first write)')
    const settled = (await deleter.store.list(1_000_000)).filter((e) => e.state === 'settled')
    assert.equal(settled.length, 500, 'every order on a deleted account is settled, never to be taken over')
  })

  test("settling looks at the entries this process knows: another process's new entry waits for the next run, and every other look sees it", async () => {
    const dir = journal()
    const b = providerProcess()
    await new OrderJournal(dir, () => 1_000_000).write({ ...settledOn('1'), state: 'delivered' })
    lastWritten(dir, Date.now() - 60_000)
    const mine = new OrderJournal(dir, () => 1_000_000)
    await mine.accountInState('1')
    // Another run hands over an order on account 2 after this one listed the directory.
    const other = new OrderJournal(dir, () => 1_000_000, b.journalOptions)
    await other.write({ ...settledOn('2'), state: 'delivered', owner: b.owner })
    await mine.accountInState('2')
    const stateOf = async (journal: OrderJournal, id: string) => (await journal.store.list(1_000_000)).find((e) => e.id === id)?.state
    assert.equal(await stateOf(mine, 'entry-2'), 'delivered', 'left for the next run, and seen by a look at every entry')
    // A rewrite of an entry it knows is seen, though: its file's time moved.
    await other.write({ ...settledOn('1'), state: 'delivered', unconfirmed: true, owner: b.owner })
    await mine.accountInState('1')
    assert.equal((await mine.store.list(1_000_000)).find((e) => e.id === 'entry-1')?.unconfirmed, undefined, 'settled again')
    await new OrderJournal(dir, () => 1_000_000).accountInState('2')
    assert.equal(await stateOf(mine, 'entry-2'), 'settled', "the next run's read settles it")
  })

  test("another process's rewrite of an entry this one knows is seen, even one in the same clock tick as its last write", async () => {
    const dir = journal()
    const b = providerProcess()
    const other = new OrderJournal(dir, () => 1_000_000, b.journalOptions)
    const entry = await other.open('intent', 'service', 'key-b', 'POST', '/lites')
    const file = join(dir, `${entry.id}.json`)
    const tick = new Date(Date.now() - 5)
    utimesSync(file, tick, tick)
    const mine = new OrderJournal(dir, () => 1_000_000)
    assert.equal((await mine.store.list(1_000_000))[0]?.state, 'sent')
    entry.state = 'answered'
    entry.accountId = '100042'
    await other.write(entry)
    // The rewrite landed in the tick of the first write: the file's time did not move.
    utimesSync(file, tick, tick)
    assert.deepEqual(
      (await mine.store.list(1_000_000)).map((e) => [e.state, e.accountId]),
      [['answered', '100042']],
    )
    lastWritten(dir, Date.now() - 60_000)
    const quiet = new Date(Date.now() - 60_000)
    utimesSync(file, quiet, quiet)
    await mine.store.list(1_000_000)
    entry.state = 'delivered'
    await other.write(entry)
    assert.equal((await mine.store.list(1_000_000))[0]?.state, 'delivered', 'a later rewrite of a quiet file shows as a new time')
  })

  test('an entry handed out is a copy: changing it without writing it changes nothing for the next look', async () => {
    const dir = journal()
    await new OrderJournal(dir, () => 1_000_000).write({ ...settledOn('1'), state: 'delivered' })
    lastWritten(dir, Date.now() - 60_000)
    const store = new OrderJournal(dir, () => 1_000_000).store
    const [first] = await store.list(1_000_000)
    assert.ok(first)
    first.state = 'settled'
    const [again] = await store.list(1_000_000)
    assert.equal(again?.state, 'delivered')
  })
})

describe('a stopped run applied again much later, or with a new write-only password', () => {
  test('a directory keeps an unresolved create two weeks, anything else two days', async () => {
    const dir = journal()
    const now = Date.parse('2026-11-24T12:00:00Z')
    const cases = keepCases(now)
    const writer = new OrderJournal(dir, () => now)
    for (const { entry } of cases) await writer.write(entry)
    const listed = new Set((await new OrderJournal(dir, () => now).store.list(now)).map((e) => e.id))
    assert.deepEqual(
      cases.map(({ entry }) => listed.has(entry.id)),
      cases.map(({ kept }) => kept),
    )
    assert.equal(readdirSync(dir).length, cases.filter(({ kept }) => kept).length, 'the expired files are removed')
  })

  const HOUR = 3_600_000
  const T0 = Date.parse('2026-11-20T18:00:00Z')
  const echo503 = (r: RecordedRequest) => fail(503, 'x', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })

  /** A first run whose create is answered with 100042, then killed before its engine got it; the body it sent. */
  async function answeredThenKilled(dir: string, at: () => number) {
    const killed = providerProcess()
    const run = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      now: at,
    })
    await first.client.lites.createVm(VM_BODY)
    killed.kill()
    return { sent: posts(first.requests)[0]?.body }
  }

  /** A first run whose create gets no answer before its deadline (a service that echoes keys), then killed. */
  async function unansweredThenKilled(dir: string, at: () => number): Promise<string> {
    const killed = providerProcess()
    const run = frame(undefined, 1_000)
    const first = testClient([probed, echo503, echo503, echo503], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      now: at,
    })
    await assert.rejects(first.client.lites.createVm(VM_BODY), OrderUnresolvedError)
    killed.kill()
    return posts(first.requests)[0]?.headers.get('idempotency-key') ?? ''
  }

  function rerun(dir: string, replies: Parameters<typeof testClient>[0], at: () => number, body = VM_BODY) {
    const run = frame(undefined, 60_000)
    let keys = 0
    // A clock that starts at `at()` and moves with every sleep: a run that goes wrong ends at its deadline.
    const clock = fakeClock(at())
    const client = testClient(replies, {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: providerProcess().journalOptions,
      now: clock.now,
      sleep: clock.sleep,
      idempotencyKey: () => `rerun-key-${++keys}`,
    })
    return { ...client, create: () => client.client.lites.createVm(body), finish: run.finish }
  }

  test('answered, killed on a Friday evening, applied again on Monday (63 h): the answer is taken over, nothing is sent', async () => {
    const dir = journal()
    let now = T0
    await answeredThenKilled(dir, () => now)
    now += 63 * HOUR
    const second = rerun(dir, [], () => now)
    assert.equal((await second.create()).account_id, '100042')
    assert.equal(second.requests.length, 0, 'no request: the answer needs no key')
  })

  test('answered and killed, applied again with a new write-only console password: the same order, taken over, nothing is sent', async () => {
    const dir = journal()
    await answeredThenKilled(dir, () => T0)
    const second = rerun(dir, [], () => T0 + HOUR, { ...VM_BODY, console_password: 'An0therPass1' })
    assert.equal((await second.create()).account_id, '100042')
    assert.equal(second.requests.length, 0)
  })

  test('answered and killed under a version that hashed the console password, applied again after an upgrade: taken over, nothing is sent', async () => {
    const dir = journal()
    const first = await answeredThenKilled(dir, () => T0)
    const [name] = readdirSync(dir)
    const file = join(dir, name ?? '')
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { fingerprint: string; scheme?: number }
    const parts = { baseUrl: BASE_URL, apiKey: 'secret-key', method: 'POST', path: '/lites', body: first.sent, scope: undefined }
    const [current, earlier] = fingerprints(parts)
    assert.equal(stored.fingerprint, current, 'the entry carries the fingerprint of these parts')
    assert.ok(earlier !== undefined && earlier !== current)
    // As that version wrote it: the password in the hash, and no fingerprint scheme.
    const { scheme: _scheme, ...written } = stored
    writeFileSync(file, JSON.stringify({ ...written, fingerprint: earlier }))
    const second = rerun(dir, [], () => T0 + HOUR)
    assert.equal((await second.create()).account_id, '100042')
    assert.equal(second.requests.length, 0)
  })

  test('answered and taken over three days later, then killed again before any state named it: the third run stops, naming it', async () => {
    const dir = journal()
    let now = T0
    await answeredThenKilled(dir, () => now)
    now += 72 * HOUR
    const killed = providerProcess()
    const run = frame()
    const second = testClient([], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      now: () => now,
    })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    await run.finish()
    killed.kill()
    now += HOUR
    const third = rerun(dir, [echoing(200, [vmAccount('100042', 'web', '2026-11-20', 'Active')])], () => now)
    await assert.rejects(third.create(), (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === '100042')
    assert.equal(posts(third.requests).length, 0)
  })

  test('unanswered and killed, applied again after its key expired: an account made since stops it, naming the key; nothing is ordered', async () => {
    const dir = journal()
    let now = T0
    const key = await unansweredThenKilled(dir, () => now)
    now += 30 * HOUR
    // Made by the stopped run's order five minutes after it was sent: a bare date, and the time its invoice was paid.
    const made = {
      ...vmAccount('100042', 'web', '2026-11-20', 'Active'),
      last_invoice: paidInvoice('2026-11-20 18:05:00'),
    }
    const second = rerun(dir, [echoing(200, [made])], () => now)
    const error = await second.create().then(
      () => assert.fail('ordered again although the stopped run may have placed this order'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof UnrecordedMatchError, String(error))
    assert.deepEqual(error.candidates, ['100042'])
    assert.match(error.message, new RegExp(`stopped sent this same order at 2026-11-20T18:00:00.000Z with Idempotency-Key ${key}`))
    assert.equal(posts(second.requests).length, 0)
  })

  test("unanswered and killed: later runs name an account made since that shows the order's inputs, never another of its kind", async () => {
    const dir = journal()
    const now = T0
    await unansweredThenKilled(dir, () => now)
    const made = (id: string, name: string) => ({
      ...vmAccount(id, name, '2026-11-20', 'Active'),
      last_invoice: paidInvoice('2026-11-20 18:05:00'),
    })
    // 100042 shows the stopped order's inputs; 100043 is another order's (a teammate's VM, another name).
    const listing = echoing(200, [made('100042', 'web'), made('100043', 'teammate-db')])
    const later = testClient([listing], { journalDirectory: dir, journalOptions: providerProcess().journalOptions, now: () => now + HOUR })
    const notices = (await later.client.settlement?.notices()) ?? []
    assert.deepEqual(
      notices.map((n) => n.summary),
      ['Account 100042 may have been ordered by a run that was stopped, and no state holds it'],
    )
  })

  test("the stopped order's account paid a few minutes before the order was sent, by our clock (the service's is behind): still found, and it stops", async () => {
    const dir = journal()
    let now = T0
    await unansweredThenKilled(dir, () => now)
    now += 30 * HOUR
    const made = { ...vmAccount('100042', 'web', '2026-11-20', 'Active'), last_invoice: paidInvoice('2026-11-20 17:57:00') }
    const second = rerun(dir, [echoing(200, [made])], () => now)
    await assert.rejects(second.create(), (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === '100042')
  })

  test("another resource's create left unanswered: a create of the same call lists first while its key is good, and not after", async () => {
    const dir = journal()
    let now = T0
    await unansweredThenKilled(dir, () => now)
    const other = { ...VM_BODY, vm_name: 'db' }
    // Made by that order (it has the other name, so it is no match for this create): the listing goes on and orders.
    const listing = echoing(200, [vmAccount('100042', 'web', '2026-11-20 18:00:01', 'Active')])
    now += HOUR
    const soon = rerun(dir, [listing, echoing(200, { ...ORDER, account_id: '100043' })], () => now, other)
    assert.equal((await soon.create()).account_id, '100043')
    assert.deepEqual(
      soon.requests.map((r) => r.method),
      ['GET', 'POST'],
      'listed first',
    )
    await soon.finish()
    now += 30 * HOUR
    const later = rerun(dir, [echoing(200, { ...ORDER, account_id: '100044' })], () => now, { ...other, vm_name: 'cache' })
    assert.equal((await later.create()).account_id, '100044')
    assert.deepEqual(
      later.requests.map((r) => r.method),
      ['POST'],
      'past its window another intent no longer counts',
    )
  })

  test('unanswered and killed, applied again after its key expired with no account made since: ordered once, with a new key, and the old order is closed', async () => {
    const dir = journal()
    let now = T0
    const key = await unansweredThenKilled(dir, () => now)
    now += 30 * HOUR
    const older = { ...vmAccount('100040', 'web', '2026-11-19', 'Active'), last_invoice: paidInvoice('2026-11-19 09:00:00') }
    const second = rerun(dir, [echoing(200, [older]), echoing(200, ORDER)], () => now)
    assert.equal((await second.create()).account_id, '100042')
    const sent = posts(second.requests)
    assert.equal(sent.length, 1)
    assert.notEqual(sent[0]?.headers.get('idempotency-key'), key)
    await second.finish()
    // The next create lists nothing: the stopped order is closed as not placed.
    const third = rerun(dir, [echoing(200, { ...ORDER, account_id: '100043' })], () => now)
    assert.equal((await third.create()).account_id, '100043')
    assert.deepEqual(
      third.requests.map((r) => r.method),
      ['POST'],
    )
  })
})

describe('one order under two identities of a directory journal (two workspaces, or one state configured two ways)', () => {
  // Two workspaces of one directory: one journal, two identities. (Another identity's create is taken
  // over only from a journal where every hand-over shows: test/postgres-journal.test.ts.)
  const STAGING = 'terraform workspace staging, terraform local state 1f0c2a'
  const PROD = 'terraform workspace prod, terraform local state 1f0c2a'

  /** A run of `scope` (a Pulumi URN with `scopeIsResource`) in `process`, with the warnings it shows the user. */
  function run(
    dir: string,
    scope: string,
    replies: Parameters<typeof testClient>[0],
    process = providerProcess(),
    scopeIsResource = false,
  ) {
    const op = frame(scope, 60_000, scopeIsResource)
    const warnings: string[] = []
    const value: OperationFrame = { ...op.value, warn: (summary, detail) => warnings.push(`${summary}: ${detail}`) }
    const client = testClient(replies, { journalDirectory: dir, operation: () => value, journalOptions: process.journalOptions })
    return { ...client, warnings, finish: op.finish, create: () => client.client.lites.createVm(VM_BODY) }
  }

  /** Every journal write that is not durable fails (a full disk) while `fn` runs. */
  async function diskFull<T>(fn: () => Promise<T>): Promise<T> {
    const write = mock.method(fs, 'writeFileSync', () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
    })
    syncBuiltinESMExports()
    try {
      return await fn()
    } finally {
      write.mock.restore()
      syncBuiltinESMExports()
    }
  }

  test("an account handed to staging's state whose mark could not be written (a full disk) is not taken into prod's: prod orders its own", async () => {
    const dir = journal()
    const staging = providerProcess()
    const first = run(dir, STAGING, [probed, echoing(200, ORDER)], staging)
    assert.equal((await first.create()).account_id, '100042')
    // The mark fails; a directory's owner hands the account over all the same (the id must not be lost).
    await diskFull(() => first.finish())
    staging.kill()
    const prod = run(dir, PROD, [echoing(200, { ...ORDER, account_id: '100043' })])
    assert.equal((await prod.create()).account_id, '100043')
    assert.deepEqual(prod.warnings, [])
  })

  test("an answer whose write failed (a full disk), then named by staging's refresh: prod does not send staging's key again", async () => {
    const dir = journal()
    const staging = providerProcess()
    let restore: (() => void) | undefined
    const answerOnFullDisk = (r: RecordedRequest) => {
      const write = mock.method(fs, 'writeFileSync', () => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      })
      syncBuiltinESMExports()
      restore = () => {
        write.mock.restore()
        syncBuiltinESMExports()
      }
      return echoing(200, ORDER)(r)
    }
    const first = run(dir, STAGING, [probed, answerOnFullDisk], staging)
    try {
      assert.equal((await first.create()).account_id, '100042')
      await first.finish()
    } finally {
      restore?.()
    }
    staging.kill()
    await new OrderJournal(dir, first.clock.now).accountInState('100042')
    // A service that honours keys would answer staging's key with staging's account.
    const byKey = (r: RecordedRequest) =>
      echoing(200, r.headers.get('idempotency-key') === 'key-1' ? ORDER : { ...ORDER, account_id: '100043' })(r)
    // The listing shows staging's VM (in staging's state).
    const prod = testClient([echoing(200, [vmAccount('100042', 'web', '1970-01-01 00:16:40', 'Active')]), byKey], {
      journalDirectory: dir,
      operation: () => frame(PROD, 60_000).value,
      journalOptions: providerProcess().journalOptions,
      idempotencyKey: () => 'prod-key',
    })
    assert.equal((await prod.client.lites.createVm(VM_BODY)).account_id, '100043')
    assert.deepEqual(
      posts(prod.requests).map((r) => r.headers.get('idempotency-key')),
      ['prod-key'],
    )
  })

  test('a re-run of the same state after an upgrade (its entry written by an earlier version) takes it over as its own, with no word of another identity', async () => {
    const dir = journal()
    const killed = providerProcess()
    const first = run(dir, STAGING, [probed, echoing(200, ORDER)], killed)
    await first.create()
    killed.kill()
    const [name] = readdirSync(dir)
    const file = join(dir, name ?? '')
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { fingerprint: string; scheme?: number; request?: string }
    const sent = posts(first.requests)[0]?.body
    const [, earlier] = fingerprints({
      baseUrl: BASE_URL,
      apiKey: 'secret-key',
      method: 'POST',
      path: '/lites',
      body: sent,
      scope: STAGING,
    })
    // As the earlier version wrote it: the password in the hash, no scheme, no request.
    const { scheme: _scheme, request: _request, ...written } = stored
    writeFileSync(file, JSON.stringify({ ...written, fingerprint: earlier }))
    const again = run(dir, STAGING, [])
    assert.equal((await again.create()).account_id, '100042')
    assert.deepEqual(again.warnings, [])
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { claimedAs?: string }).claimedAs, undefined)
  })

  test("Pulumi: a stack's resource does not take over another stack's answered create of the same request (a cancelled up's engine may keep it): it orders its own", async () => {
    const dir = journal()
    const dev = providerProcess()
    const urn = (stack: string) => `urn:pulumi:${stack}::app::provider:index:LiteVm::vm`
    await run(dir, urn('dev'), [probed, echoing(200, ORDER)], dev, true).create()
    dev.kill()
    const prod = run(dir, urn('prod'), [echoing(200, { ...ORDER, account_id: '100043' })], providerProcess(), true)
    assert.equal((await prod.create()).account_id, '100043')
    assert.deepEqual(prod.warnings, [])
  })
})

describe('an entry the journal cannot read, and entries on disk before their order leaves', () => {
  test('an entry file cut short (a power loss) or not JSON stops every new order, naming each file; deleted, the order goes', async () => {
    const dir = journal()
    const seed = frame()
    const first = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir, operation: () => seed.value })
    await first.client.lites.createVm(VM_BODY)
    await seed.finish()
    writeFileSync(join(dir, 'cut-short.json'), '')
    writeFileSync(join(dir, 'garbled.json'), '{"v":1,"id":"x","finge')
    const run = frame()
    const second = testClient([echoing(200, { ...ORDER, account_id: '100043' })], { journalDirectory: dir, operation: () => run.value })
    const error = await second.client.lites.createVm({ ...VM_BODY, vm_name: 'db' }).then(
      () => assert.fail('ordered beside an entry that may record an order'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof JournalUnreadableError, String(error))
    assert.match(error.message, /cut-short\.json \(written \d{4}-/)
    assert.match(error.message, /garbled\.json/)
    assert.match(error.message, /delete the files and apply again/)
    assert.equal(posts(second.requests).length, 0, 'nothing was ordered')
    rmSync(join(dir, 'cut-short.json'))
    rmSync(join(dir, 'garbled.json'))
    assert.equal((await second.client.lites.createVm({ ...VM_BODY, vm_name: 'db' })).account_id, '100043')
  })

  test('an entry of another version of the format, or an unreadable file older than any entry kept, stops nothing', async () => {
    const dir = journal()
    writeFileSync(join(dir, 'newer.json'), JSON.stringify({ v: 2, id: 'newer' }))
    const old = join(dir, 'old.json')
    writeFileSync(old, '')
    const fifteenDaysAgo = (Date.now() - 15 * 24 * 3_600_000) / 1000
    utimesSync(old, fifteenDaysAgo, fifteenDaysAgo)
    const run = frame()
    const { client, requests } = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir, operation: () => run.value })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(requests).length, 1)
    assert.ok(!readdirSync(dir).includes('old.json'), 'the expired file is removed')
  })

  test("a new order's entry is flushed to disk, with its directory, before the request leaves", async () => {
    const dir = journal()
    const flush = mock.method(fs, 'fsyncSync')
    syncBuiltinESMExports()
    try {
      let flushedBeforePost = -1
      const order = (r: RecordedRequest) => {
        flushedBeforePost = flush.mock.callCount()
        return echoing(200, ORDER)(r)
      }
      const run = frame()
      const { client } = testClient([probed, order], { journalDirectory: dir, operation: () => run.value })
      await client.lites.createVm(VM_BODY)
      assert.equal(flushedBeforePost, 2, 'the entry file and the directory')
      const afterAnswer = flush.mock.callCount()
      await run.finish()
      assert.equal(flush.mock.callCount(), afterAnswer, 'the later writes of the entry are not flushed')
    } finally {
      flush.mock.restore()
      syncBuiltinESMExports()
    }
  })
})

describe('orders that never reached the service, and answers that say nothing about the order', () => {
  const echo524 = (r: RecordedRequest) => fail(524, 'A timeout occurred', { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
  const refused = () =>
    Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) })
  const changes = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method !== 'GET')

  test('Ctrl-C while the listing before an order runs: nothing is sent, nothing is recorded, and the re-run orders at once', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame()
    const stop = new AbortController()
    const interrupted = () => {
      stop.abort(new Error('interrupted'))
      return ok([])
    }
    const first = testClient([interrupted], { journalDirectory: dir, operation: () => run.value, journalOptions: killed.journalOptions })
    await assert.rejects(first.client.lites.createVm(VM_BODY, { signal: stop.signal }), /was cancelled/)
    assert.equal(posts(first.requests).length, 0)
    assert.deepEqual(readdirSync(dir), [], 'no entry for an order never sent')
    killed.kill()
    const again = frame()
    const second = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir, operation: () => again.value })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.deepEqual(
      second.requests.map((r) => r.method),
      ['GET', 'POST'],
      'the listing of a directory with no order recorded, then the order: no wait for an order never sent',
    )
  })

  test('a 524 from a proxy after the service processed the order is no refusal: the re-run, hours later, finds the account and orders nothing', async () => {
    const dir = journal()
    const T = Date.parse('2026-11-24T12:00:00Z')
    let now = T
    const killed = providerProcess()
    const run = frame()
    const first = testClient([probed, fail(524, 'A timeout occurred')], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      now: () => now,
    })
    await assert.rejects(first.client.lites.createVm(VM_BODY), OrderUnresolvedError)
    killed.kill()
    now = T + 2 * 3_600_000
    const made = { ...vmAccount('100042', 'web', '2026-11-24', 'Active'), last_invoice: paidInvoice('2026-11-24 12:00:40') }
    const listing = (r: RecordedRequest) => (r.method === 'GET' ? ok([made]) : ok({ ...ORDER, account_id: '100043' }))
    const again = frame()
    const second = testClient(
      Array.from({ length: 20 }, () => listing),
      {
        journalDirectory: dir,
        operation: () => again.value,
        journalOptions: providerProcess().journalOptions,
        now: () => now,
      },
    )
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042', "the stopped order's account, adopted")
    assert.equal(posts(second.requests).length, 0, 'no second order')
  })

  test('an echo an earlier run saw does not let a 502 be sent again: this process asks, and a service that ignores keys now is listed', async () => {
    const dir = journal()
    const earlier = testClient([ok([]), echoing(200, ORDER)], { journalDirectory: dir })
    await earlier.client.lites.createVm(VM_BODY)
    // Redeployed since: the service no longer echoes keys, and it processed the order its 502 answered.
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient(
      [fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100050', 'db', '2099-01-01 00:00:00')])],
      { journalDirectory: dir, operation: () => op.value },
    )
    assert.equal((await client.lites.createVm({ ...VM_BODY, vm_name: 'db' })).account_id, '100050')
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['POST /lites', 'GET /lites', 'GET /lites/accounts'],
      'asked, then listed: never sent again',
    )
  })

  test('an echo this process saw on an earlier order does not let a later 502 be sent again: it asks anew, and lists', async () => {
    // One long apply: the first VM's order is echoed; the service is redeployed (or fails over to a node
    // that ignores keys) before the second VM's order, which it processes and a gateway answers 502.
    const dir = journal()
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient(
      [ok([]), echoing(200, ORDER), ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([vmAccount('100050', 'db', '2099-01-01 00:00:00')])],
      { journalDirectory: dir, operation: () => op.value },
    )
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal((await client.lites.createVm({ ...VM_BODY, vm_name: 'db' })).account_id, '100050')
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['GET /lites/accounts', 'POST /lites', 'GET /lites/accounts', 'POST /lites', 'GET /lites', 'GET /lites/accounts'],
      "the 502 is asked about afresh, then listed: never sent again on the first order's echo",
    )
  })

  test('once this process saw the service answer without the key, a new order is checked against the listing again, whatever echo came before', async () => {
    // One long apply: the first VM's order is echoed; the service stops recognising keys (the second VM's
    // 502 is asked about and answered without the key): the third VM's order is no longer one a key protects.
    const dir = journal()
    await testClient([ok([]), echoing(200, ORDER)], { journalDirectory: dir }).client.lites.createVm(VM_BODY)
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient(
      [
        echoing(200, ORDER),
        fail(502, 'Bad Gateway'),
        unconfirmed,
        ok([vmAccount('100050', 'db', '2099-01-01 00:00:00')]),
        ok([]),
        ok({ order_id: '500018', account_id: '100051' }),
      ],
      { journalDirectory: dir, operation: () => op.value },
    )
    await client.lites.createVm({ ...VM_BODY, vm_name: 'web2' })
    assert.equal((await client.lites.createVm({ ...VM_BODY, vm_name: 'db' })).account_id, '100050')
    assert.equal((await client.lites.createVm({ ...VM_BODY, vm_name: 'cache' })).account_id, '100051')
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
      ['POST /lites', 'POST /lites', 'GET /lites', 'GET /lites/accounts', 'GET /lites/accounts', 'POST /lites'],
      'the third order is checked against the listing first',
    )
  })

  test('a repeat answered without its key echoed is reported: the service did not recognise it, and may have ordered twice', async () => {
    // The probe reaches a node that echoes keys; the repeat lands on one that does not.
    const dir = journal()
    const warnings: string[] = []
    const op: OperationFrame = {
      timeoutMs: 60_000,
      onFinish: () => undefined,
      warn: (summary, detail) => warnings.push(`${summary}: ${detail}`),
    }
    const { client, requests } = testClient([ok([]), fail(502, 'Bad Gateway'), probed, ok(ORDER)], {
      journalDirectory: dir,
      operation: () => op,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(requests).length, 2)
    assert.equal(warnings.length, 1, warnings.join('\n'))
    assert.match(warnings[0] ?? '', /may have been ordered twice/)
    assert.match(warnings[0] ?? '', /Idempotency-Key key-1/)
    assert.match(warnings[0] ?? '', /account 100042/)
  })

  test('a repeat answered with its key echoed warns of nothing', async () => {
    const warnings: string[] = []
    const op: OperationFrame = { timeoutMs: 60_000, onFinish: () => undefined, warn: (summary) => warnings.push(summary) }
    const { client } = testClient([ok([]), fail(502, 'Bad Gateway'), probed, echoing(200, ORDER)], {
      journalDirectory: journal(),
      operation: () => op,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.deepEqual(warnings, [])
  })

  test('a repeat answered as a replay (Idempotency-Replayed) without the key echoed warns of nothing: the service recognised the key', async () => {
    // A service whose stored answers are replayed with the headers of the first answer only: no echo,
    // but the replay header itself says that the key was recognised and nothing was ordered again.
    const warnings: string[] = []
    const op: OperationFrame = { timeoutMs: 60_000, onFinish: () => undefined, warn: (summary) => warnings.push(summary) }
    const { client, requests } = testClient([ok([]), fail(502, 'Bad Gateway'), probed, ok(ORDER, { 'idempotency-replayed': 'true' })], {
      journalDirectory: journal(),
      operation: () => op,
    })
    assert.equal((await client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(requests).length, 2)
    assert.deepEqual(warnings, [])
  })

  test('a repeated one-shot action or upgrade answered without its key echoed says what it may have done twice, not that an account may have been ordered twice', async () => {
    const warned = async (call: (client: ReturnType<typeof testClient>['client']) => Promise<unknown>, replies: Reply[]) => {
      const warnings: string[] = []
      const op: OperationFrame = {
        timeoutMs: 60_000,
        onFinish: () => undefined,
        warn: (summary, detail) => warnings.push(`${summary}: ${detail}`),
      }
      const { client } = testClient(replies, { journalDirectory: journal(), operation: () => op })
      await call(client)
      assert.equal(warnings.length, 1, warnings.join('\n'))
      return warnings[0] ?? ''
    }
    const rebuild = await warned(
      (c) => c.lites.rebuildVm('100042', { select_os: 'Ubuntu-22.04' }),
      [fail(502, 'Bad Gateway'), probed, ok(null)],
    )
    assert.match(rebuild, /may have been run twice/, rebuild)
    assert.doesNotMatch(rebuild, /ordered twice|invoices|no state names/, rebuild)
    const upgrade = await warned(
      (c) => c.lites.upgradeDisk('100042', { additional_size: 10 }),
      [ok(vmAccount('100042', 'web', '2099-01-01 00:00:00', 'Active')), fail(502, 'Bad Gateway'), probed, ok(ORDER)],
    )
    assert.match(upgrade, /may have been ordered twice/, upgrade)
    assert.match(upgrade, /account 100042/, upgrade)
    assert.doesNotMatch(upgrade, /no state names/, upgrade)
  })

  test('a rebuild answered 502 by a service that does not echo keys: the error says the next run stops on it until the portal is checked, not that it checks it', async () => {
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient([fail(502, 'Bad Gateway'), unconfirmed], {
      journalDirectory: journal(),
      operation: () => op.value,
    })
    const error = await client.lites.rebuildVm('100042', { select_os: 'Debian-12' }).then(
      () => assert.fail('a 502 from a service that does not echo keys is no answer'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError, String(error))
    assert.match(error.message, /sends nothing and stops, naming this key, until you have checked in the portal whether it was done/)
    assert.doesNotMatch(error.message, /checks it before ordering again/)
    assert.equal(posts(requests).length + requests.filter((r) => r.method === 'PUT').length, 1, 'sent once')
  })

  test('a rebuild left unanswered by a stopped run, to a service that does not echo keys: the next run sends nothing and says how to record it done', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame(undefined, 60_000)
    const first = testClient([fail(502, 'Bad Gateway'), unconfirmed], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
    })
    await assert.rejects(first.client.lites.rebuildVm('100042', { select_os: 'Debian-12' }), OrderUnresolvedError)
    killed.kill()
    const rerun = (responses: Parameters<typeof testClient>[0]) => {
      const again = frame(undefined, 60_000)
      return testClient(responses, {
        journalDirectory: dir,
        operation: () => again.value,
        journalOptions: providerProcess().journalOptions,
      })
    }
    const stopped = rerun([unconfirmed])
    const error = await stopped.client.lites.rebuildVm('100042', { select_os: 'Debian-12' }).then(
      () => assert.fail('sent again to a service that does not echo keys'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderUnresolvedError, String(error))
    assert.match(error.message, /once you know it was not done, delete \S+\.json and apply again/)
    assert.match(error.message, /If it was done, first apply a configuration that no longer asks for it .*only then remove the entry/)
    assert.equal(stopped.requests.filter((r) => r.method === 'PUT').length, 0, 'nothing sent')
    // A configuration that no longer asks for the rebuild sends nothing, so the entry stays until removed;
    // once removed (as the message says), a rebuild asked for again is sent.
    const file = /delete (\S+\.json)/.exec(error.message)?.[1] as string
    rmSync(file)
    const after = rerun([ok(null)])
    await after.client.lites.rebuildVm('100042', { select_os: 'Debian-12' })
    assert.equal(after.requests.filter((r) => r.method === 'PUT').length, 1)
  })

  test('a 524 from a service that honours keys is replayed with the same key, in this run and the next', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame()
    const first = testClient([probed, echo524, echo524], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      maxAttempts: 2,
    })
    await assert.rejects(first.client.lites.createVm(VM_BODY))
    killed.kill()
    const again = frame()
    // This process asks the service once more whether it echoes keys before it sends the order again.
    const second = testClient([probed, echoing(200, ORDER)], { journalDirectory: dir, operation: () => again.value })
    await second.client.lites.createVm(VM_BODY)
    const keys = [...posts(first.requests), ...posts(second.requests)].map((r) => r.headers.get('idempotency-key'))
    assert.equal(keys.length, 3)
    assert.equal(new Set(keys).size, 1, `one key throughout: ${keys.join(', ')}`)
  })

  test('an upgrade whose connection was never opened is not placed: the error says so, and the next run sends it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame(undefined, 60_000)
    // The disk read first (its last invoice) finds no connection either: four tries, then the order's three.
    const first = testClient([refused(), refused(), refused(), refused(), refused(), refused(), refused()], {
      journalDirectory: dir,
      operation: () => run.value,
      journalOptions: killed.journalOptions,
      maxAttempts: 3,
    })
    const error = await first.client.lites.upgradeDisk('100042', { additional_size: 10 }).then(
      () => assert.fail('answered'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof OrderNotPlacedError, String(error))
    assert.match(error.message, /was not placed: no connection after 3 attempts/)
    await run.finish()
    killed.kill()
    const again = frame(undefined, 60_000)
    const second = testClient([ok({}), echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => again.value,
      journalOptions: providerProcess().journalOptions,
    })
    await second.client.lites.upgradeDisk('100042', { additional_size: 10 })
    assert.equal(changes(second.requests).length, 1)
  })
})

describe('unanswered orders beside one another', () => {
  /**
   * Creates of `bodies` in flight at once (count = 2 applies its instances in parallel), interrupted
   * mid-order (the connection closed once each POST left), keys ignored; then the process is killed.
   */
  async function interrupted(dir: string, bodies: readonly (typeof VM_BODY)[], sentAt: number) {
    const killed = providerProcess()
    const run = frame()
    const stop = new AbortController()
    let sent = 0
    const lost = (r: RecordedRequest) => {
      if (r.method === 'GET') return ok([])
      if (++sent === bodies.length) stop.abort(new Error('interrupted'))
      return new Promise<Response>((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('connection closed'))))
    }
    const first = testClient(
      Array.from({ length: 4 * bodies.length }, () => lost),
      { journalDirectory: dir, operation: () => run.value, journalOptions: killed.journalOptions, now: () => sentAt },
    )
    const outcomes = await Promise.allSettled(bodies.map((body) => first.client.lites.createVm(body, { signal: stop.signal })))
    assert.ok(outcomes.every((o) => o.status === 'rejected'))
    assert.equal(posts(first.requests).length, bodies.length)
    killed.kill()
  }
  const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

  /**
   * One re-run of the creates of `bodies` at once, its listings from `listed`: in a new process, or with
   * `processes`, each create in a process of its own (two Pulumi providers of one configuration), all
   * alive while the others look. What each create ended with, and how many orders were sent.
   */
  async function rerunAll(dir: string, bodies: readonly (typeof VM_BODY)[], sentAt: number, listed: () => unknown[], processes = false) {
    const reply = (r: RecordedRequest) => (r.method === 'GET' ? ok(listed()) : ok({ ...ORDER, account_id: '100099' }))
    const newProcess = () => {
      const again = frame()
      const clock = fakeClock(sentAt + 60_000)
      return testClient(
        Array.from({ length: 200 }, () => reply),
        {
          journalDirectory: dir,
          operation: () => again.value,
          journalOptions: providerProcess().journalOptions,
          now: clock.now,
          sleep: clock.sleep,
        },
      )
    }
    const runs = processes ? bodies.map(newProcess) : [newProcess()]
    const outcomes = await Promise.all(
      bodies.map((body, i) =>
        (runs[processes ? i : 0] as ReturnType<typeof testClient>).client.lites.createVm(body).then(
          (o) => o.account_id,
          (e: unknown) => e,
        ),
      ),
    )
    return { outcomes, posts: posts(runs.flatMap((r) => r.requests)).length }
  }

  test('two different VMs (web, db) interrupted mid-order, keys ignored: each re-run create adopts its one match by name, and orders nothing', async () => {
    const dir = journal()
    const sentAt = Date.now()
    const bodies = [VM_BODY, { ...VM_BODY, vm_name: 'db' }]
    await interrupted(dir, bodies, sentAt)
    const made = [vmAccount('100042', 'web', at(sentAt + 5_000)), vmAccount('100043', 'db', at(sentAt + 6_000))]
    const { outcomes, posts: sent } = await rerunAll(dir, bodies, sentAt, () => made)
    assert.deepEqual(outcomes, ['100042', '100043'])
    assert.equal(sent, 0, 'nothing ordered again')
  })

  test('count = 2 of one VM interrupted mid-order, keys ignored, both orders placed: the re-run gives each instance one of the two accounts, and orders nothing', async () => {
    const dir = journal()
    const sentAt = Date.now()
    await interrupted(dir, [VM_BODY, VM_BODY], sentAt)
    const made = [vmAccount('100042', 'web', at(sentAt + 5_000)), vmAccount('100043', 'web', at(sentAt + 6_000))]
    const { outcomes, posts: sent } = await rerunAll(dir, [VM_BODY, VM_BODY], sentAt, () => made)
    assert.deepEqual([...outcomes].sort(), ['100042', '100043'], String(outcomes))
    assert.equal(sent, 0, 'nothing ordered again')
  })

  test('twins interrupted mid-order, keys ignored, re-run by two live processes (two Pulumi providers of one configuration): each takes one of the two accounts, and nothing is ordered', async () => {
    const dir = journal()
    const sentAt = Date.now()
    await interrupted(dir, [VM_BODY, VM_BODY], sentAt)
    const made = [vmAccount('100042', 'web', at(sentAt + 5_000)), vmAccount('100043', 'web', at(sentAt + 6_000))]
    const { outcomes, posts: sent } = await rerunAll(dir, [VM_BODY, VM_BODY], sentAt, () => made, true)
    assert.deepEqual([...outcomes].sort(), ['100042', '100043'], String(outcomes))
    assert.equal(sent, 0, 'nothing ordered again')
  })

  test('count = 2 interrupted, keys ignored, one account made so far: neither instance takes it while the other order may still make one; once both show, each has one', async () => {
    const dir = journal()
    const sentAt = Date.now()
    await interrupted(dir, [VM_BODY, VM_BODY], sentAt)
    const made = [vmAccount('100042', 'web', at(sentAt + 5_000)), vmAccount('100043', 'web', at(sentAt + 90_000))]
    let listings = 0
    const { outcomes, posts: sent } = await rerunAll(dir, [VM_BODY, VM_BODY], sentAt, () => (++listings <= 4 ? made.slice(0, 1) : made))
    assert.deepEqual([...outcomes].sort(), ['100042', '100043'], String(outcomes))
    assert.equal(sent, 0, 'nothing ordered again')
  })

  test('two VMs alike but for their console password are no twins: with two matches, neither takes one (it could get the other password), and nothing is ordered', async () => {
    const dir = journal()
    const sentAt = Date.now()
    const bodies = [VM_BODY, { ...VM_BODY, console_password: 'Other5ecret' }]
    await interrupted(dir, bodies, sentAt)
    const made = [vmAccount('100042', 'web', at(sentAt + 5_000)), vmAccount('100043', 'web', at(sentAt + 6_000))]
    const { outcomes, posts: sent } = await rerunAll(dir, bodies, sentAt, () => made)
    for (const outcome of outcomes) {
      assert.ok(outcome instanceof OrderUnresolvedError, String(outcome))
      assert.deepEqual([...outcome.candidates], ['100042', '100043'])
    }
    assert.equal(sent, 0, 'nothing ordered')
  })

  test("count = 2 live, keys ignored: one order answered 502 while its twin is still on its way; the twin's account, made first, is never taken by the other, which adopts its own once the twin has its answer", async () => {
    const dir = journal()
    const op = frame(undefined, 3_600_000)
    const sentAt = 1_000_000
    const A = vmAccount('100042', 'web', at(sentAt + 2_000))
    const B = vmAccount('100043', 'web', at(sentAt + 1_000))
    let posted = 0
    let lookedAfter = 0
    let answerTwin: (() => void) | undefined
    const twinAnswered = new Promise<void>((resolve) => {
      answerTwin = resolve
    })
    const service = async (r: RecordedRequest): Promise<Response> => {
      if (r.method === 'POST') {
        // The first order is refused by a gateway; the second (its twin) is answered once the first has
        // looked twice, or has ended (taking an account while its twin's answer was still to come).
        if (++posted === 1) return fail(502, 'Bad Gateway')
        await twinAnswered
        return ok({ order_id: '5100043', account_id: '100043' })
      }
      if (r.path.split('?')[0] !== '/lites/accounts') return fail(405, 'Method Not Allowed')
      if (posted < 2) return ok([])
      if (++lookedAfter === 2) answerTwin?.()
      return ok([B, A])
    }
    const clock = fakeClock(sentAt)
    // A clock that ticks at every reading: the first order is sent before its twin, as it goes out first.
    let ticks = 0
    const { client, requests } = testClient(
      Array.from({ length: 400 }, () => service),
      { journalDirectory: dir, operation: () => op.value, now: () => clock.now() + ticks++, sleep: clock.sleep },
    )
    const outcomes = await Promise.all(
      [0, 1].map(() =>
        client.lites
          .createVm(VM_BODY)
          .then(
            (o) => o.account_id,
            (e: unknown) => String(e),
          )
          .finally(() => answerTwin?.()),
      ),
    )
    assert.deepEqual([...outcomes].sort(), ['100042', '100043'], `each its own account, none twice: ${outcomes}`)
    assert.equal(posts(requests).length, 2, 'nothing ordered again')
  })

  test("twins with one matching account more than there are twins: none is taken (one may be another configuration's), and nothing is ordered", async () => {
    const dir = journal()
    const sentAt = Date.now()
    await interrupted(dir, [VM_BODY, VM_BODY], sentAt)
    const made = ['100042', '100043', '100044'].map((id, i) => vmAccount(id, 'web', at(sentAt + 5_000 + i * 1_000)))
    const { outcomes, posts: sent } = await rerunAll(dir, [VM_BODY, VM_BODY], sentAt, () => made)
    for (const outcome of outcomes) assert.ok(outcome instanceof OrderUnresolvedError, String(outcome))
    assert.equal(sent, 0, 'nothing ordered')
  })
})

describe('a stopped order of a resource edited since', () => {
  test('interrupted unanswered, keys ignored, then vm_name edited: the new VM is ordered, and the account the first order made is named', async () => {
    const dir = journal()
    const killed = providerProcess()
    const run = frame()
    const stop = new AbortController()
    const sentAt = Date.now()
    const first = testClient(
      [
        ok([]),
        () => {
          stop.abort(new Error('interrupted'))
          throw new Error('connection closed')
        },
      ],
      { journalDirectory: dir, operation: () => run.value, journalOptions: killed.journalOptions, now: () => sentAt },
    )
    await assert.rejects(first.client.lites.createVm(VM_BODY, { signal: stop.signal }))
    killed.kill()
    // The stopped order was processed: account 100042, named web.
    const made = [vmAccount('100042', 'web', new Date(sentAt + 5_000).toISOString().slice(0, 19).replace('T', ' '))]
    const listing = (r: RecordedRequest) => (r.method === 'GET' ? ok(made) : ok({ ...ORDER, account_id: '100043' }))
    const warnings: string[] = []
    const again: OperationFrame = { onFinish: () => undefined, warn: (summary, detail) => warnings.push(`${summary}: ${detail}`) }
    const second = testClient(
      Array.from({ length: 10 }, () => listing),
      { journalDirectory: dir, operation: () => again, journalOptions: providerProcess().journalOptions, now: () => sentAt + 60_000 },
    )
    assert.equal((await second.client.lites.createVm({ ...VM_BODY, vm_name: 'web-2' })).account_id, '100043')
    assert.equal(posts(second.requests).length, 1)
    assert.equal(warnings.length, 1, warnings.join('\n'))
    assert.match(warnings[0] ?? '', /^Account 100042 may be a stopped run's order: .*Idempotency-Key key-1.*import it/)
  })
})

describe('a stopped order to another service', () => {
  test('a stopped unanswered create sent to another service (a journal shared by two base URLs) does not make an edited create of this one wait for it', async () => {
    const dir = journal()
    const killed = providerProcess()
    const stop = new AbortController()
    const sentAt = Date.now()
    const other = testClient(
      [
        ok([]),
        () => {
          stop.abort(new Error('interrupted'))
          throw new Error('connection closed')
        },
      ],
      {
        baseUrl: 'https://other-service.example.invalid/v1/',
        journalDirectory: dir,
        operation: () => frame().value,
        journalOptions: killed.journalOptions,
        now: () => sentAt,
      },
    )
    await assert.rejects(other.client.lites.createVm(VM_BODY, { signal: stop.signal }))
    killed.kill()
    // The same VM, its promocode edited (an input no account shows), ordered from this service a moment later:
    // that order could never make an account here, so nothing is waited for.
    const here = testClient(
      Array.from({ length: 10 }, () => (r: RecordedRequest) => (r.method === 'GET' ? ok([]) : ok(ORDER))),
      {
        journalDirectory: dir,
        operation: () => frame().value,
        journalOptions: providerProcess().journalOptions,
        now: () => sentAt + 1_000,
      },
    )
    assert.equal((await here.client.lites.createVm({ ...VM_BODY, promocode: 'SPRING' })).account_id, ORDER.account_id)
    assert.deepEqual(
      here.requests.map((r) => r.method),
      ['GET', 'POST'],
      'one listing, then the order',
    )
  })
})

describe("a change repeated later is a new order, not the stopped run's (the change starts from another state)", () => {
  const UPGRADE = { order_id: '500018', account_id: '100042' }
  type Run = ReturnType<typeof providerProcess>
  /** A change of disk size as core passes it on (OperationFrame.from): from `from` GB to `to` GB. */
  const disk = (from: number, to = from + 10) => JSON.stringify([['size', from, to]])

  /**
   * A client of `run`'s process on the journal `dir`, in one operation whose step makes `change`
   * (undefined: none, as an earlier version's step or an action sends), answered by `replies`.
   */
  function stepClient(dir: string, change: string | undefined, run: Run, replies: Parameters<typeof testClient>[0], key?: string) {
    const op = frame(undefined, 60_000)
    op.value.from = change
    // A new order on the disk reads it first (its last invoice: PlacedOn); answered here with nothing to tell by.
    const client = testClient(replies.length === 0 ? [] : [ok({}), ...replies], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: run.journalOptions,
      ...(key === undefined ? {} : { idempotencyKey: () => key }),
    })
    return { ...client, op }
  }
  const upgrade = (c: ReturnType<typeof stepClient>) => c.client.lites.upgradeDisk('100042', { additional_size: 10 })
  const sent = (c: ReturnType<typeof stepClient>) =>
    c.requests.filter((r) => r.method !== 'GET').map((r) => [r.method, r.headers.get('idempotency-key')])

  test('answered, then killed: from the same state the re-run takes the answer over; a second +10 GB from the state the first left is ordered', async () => {
    const dir = journal()
    const killed = providerProcess()
    await upgrade(stepClient(dir, disk(60), killed, [echoing(200, UPGRADE)]))
    killed.kill()
    // The re-run of the same change (its state still says 60 GB): the answer, nothing sent. It is killed too.
    const rerun = providerProcess()
    const resumed = stepClient(dir, disk(60), rerun, [])
    assert.deepEqual(await upgrade(resumed), UPGRADE)
    assert.equal(resumed.requests.length, 0)
    rerun.kill()
    // From 70 GB (the first upgrade shows in state): a new order with its own key, though the first is still open.
    const later = providerProcess()
    const again = stepClient(dir, disk(70), later, [echoing(200, UPGRADE)], 'second-key')
    await upgrade(again)
    assert.deepEqual(sent(again), [['PUT', 'second-key']])
    later.kill()
    // Once the second answered, the first is past: from 60 GB again (the disk shrunk out of band), it is ordered.
    const third = stepClient(dir, disk(60), providerProcess(), [echoing(200, UPGRADE)], 'third-key')
    await upgrade(third)
    assert.deepEqual(sent(third), [['PUT', 'third-key']])
  })

  test('a package changed from A to B and killed, then back to A and to B again: the second A to B is ordered, not answered from the first', async () => {
    const dir = journal()
    const change = (from: number, to: number, run: Run, key: string) => {
      const c = stepClient(dir, JSON.stringify([['product_id', from]]), run, [echoing(200, UPGRADE)], key)
      return { c, done: c.client.lites.changePackage('100042', { new_product_id: to }) }
    }
    const killed = providerProcess()
    await change(101, 102, killed, 'a-to-b').done
    killed.kill()
    const back = change(102, 101, providerProcess(), 'b-to-a')
    await back.done
    await back.c.op.finish()
    const forth = change(101, 102, providerProcess(), 'a-to-b-again')
    await forth.done
    assert.deepEqual(sent(forth.c), [['POST', 'a-to-b-again']])
  })

  test("a change answered by another service (staging beside production, the same ids) leaves the stopped run's entry of this one open", async () => {
    const dir = journal()
    const killed = providerProcess()
    await upgrade(stepClient(dir, disk(60), killed, [echoing(200, UPGRADE)]))
    killed.kill()
    const op = frame(undefined, 60_000)
    op.value.from = disk(70)
    const staging = testClient([ok({}), echoing(200, UPGRADE)], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: providerProcess().journalOptions,
      baseUrl: 'https://staging.api.example.invalid/v1',
    })
    await staging.client.lites.upgradeDisk('100042', { additional_size: 10 })
    // The re-run against this service still takes its own stopped order over: nothing is sent.
    const rerun = stepClient(dir, disk(60), providerProcess(), [])
    assert.deepEqual(await upgrade(rerun), UPGRADE)
    assert.equal(rerun.requests.length, 0)
  })

  test('keys ignored, an upgrade whose answer was lost is not sent again; a second +10 GB once the first shows in state is ordered, no stop', async () => {
    const dir = journal()
    const lost = providerProcess()
    // Its disk shows nothing to tell the order by (the read before it told nothing): it stops.
    await assert.rejects(upgrade(stepClient(dir, disk(60), lost, [fail(502, 'Bad Gateway'), fail(405, 'x'), ok({})])), /not sent again/)
    lost.kill()
    const next = stepClient(dir, disk(70), providerProcess(), [ok(UPGRADE)], 'second-key')
    assert.deepEqual(await upgrade(next), UPGRADE)
    assert.deepEqual(
      next.requests.map((r) => r.method),
      ['GET', 'PUT'],
    )
  })

  test('an entry written before changes carried their starting point is still taken over by the re-run after an upgrade', async () => {
    const dir = journal()
    const killed = providerProcess()
    // An earlier version's step: no `from` in its operation.
    await upgrade(stepClient(dir, undefined, killed, [echoing(200, UPGRADE)]))
    killed.kill()
    // As an earlier version wrote it: no fingerprint scheme.
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const { scheme: _scheme, ...earlier } = JSON.parse(readFileSync(join(dir, name), 'utf8'))
      writeFileSync(join(dir, name), JSON.stringify(earlier))
    }
    const second = stepClient(dir, disk(60), providerProcess(), [])
    assert.deepEqual(await upgrade(second), UPGRADE)
    assert.equal(second.requests.length, 0)
  })

  test("this version's action (no change to start from) is another intent than a change of the same request: the change is sent", async () => {
    const dir = journal()
    const killed = providerProcess()
    const action = stepClient(dir, undefined, killed, [echoing(200, true)])
    await action.client.lites.rebuildVm('100042', { select_os: 'Debian-12' })
    killed.kill()
    const step = stepClient(dir, JSON.stringify([['rebuild_os', null, 'Debian-12']]), providerProcess(), [echoing(200, true)])
    await step.client.lites.rebuildVm('100042', { select_os: 'Debian-12' })
    assert.deepEqual(
      step.requests.map((r) => r.method),
      ['PUT'],
    )
  })

  test('planned from a state that does not show the stopped +10 GB yet, a +10 GB to 80 GB is another change than the one to 70 GB: it is ordered', async () => {
    const dir = journal()
    const killed = providerProcess()
    await upgrade(stepClient(dir, disk(60, 70), killed, [echoing(200, UPGRADE)]))
    killed.kill()
    // The service shows 70 GB by now, so the step's increment to 80 GB is +10 GB again.
    const second = stepClient(dir, disk(60, 80), providerProcess(), [echoing(200, UPGRADE)], 'second-key')
    await upgrade(second)
    assert.deepEqual(sent(second), [['PUT', 'second-key']])
  })
})

describe('a change edited after a stopped run left another change of the same account unanswered', () => {
  const UPGRADE = { order_id: '500018', account_id: '100042' }
  const change = (from: number, to: number) => JSON.stringify([['size', from, to]])
  const disk = (status: string, invoice: Record<string, unknown>) => ({
    ...vmAccount('100042', 'web', '1970-01-01', status),
    last_invoice: invoice,
    extra_details: { service_name: 'd', size: 60, lite_account_id: 100001, region: 'r', region_label: 'R' },
  })
  const before = disk('Active', paidInvoice('1970-01-01 00:00:00'))
  const upgradeInvoice = { ...paidInvoice('1970-01-01 00:16:50'), id: 7, invoice_type: 'upgrade' }

  /** A run of a fresh process at `now`, whose step changes the disk as `from` says, answered by `replies`. */
  function run(dir: string, from: string | undefined, now: number, replies: Parameters<typeof testClient>[0]) {
    const op = frame(undefined, 60_000)
    op.value.from = from
    return testClient(replies, {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: providerProcess().journalOptions,
      now: () => now,
    })
  }
  const puts = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method === 'PUT').length

  /** +10 GB (60 to 70) sent at 1_000_000 by a run killed before any answer came; keys ignored. */
  async function killedUpgrade(): Promise<string> {
    const dir = journal()
    const killed = providerProcess()
    const op = frame(undefined, 60_000)
    op.value.from = change(60, 70)
    const first = testClient([ok(before), fail(502, 'Bad Gateway'), unconfirmed, ...Array.from({ length: 40 }, () => ok(before))], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: killed.journalOptions,
    })
    await assert.rejects(first.client.lites.upgradeDisk('100042', { additional_size: 10 }), OrderUnresolvedError)
    killed.kill()
    return dir
  }

  test('edited to 80 GB from the same 60 GB: nothing is sent while the +10 GB may still be processed, nor while it is placed and Pending; once in effect, it is sent', async () => {
    const dir = await killedUpgrade()
    const edit = (now: number, replies: Parameters<typeof testClient>[0]) => run(dir, change(60, 80), now, replies)
    const early = edit(1_020_000, [ok(before)])
    await assert.rejects(
      early.client.lites.upgradeDisk('100042', { additional_size: 20 }),
      /Not sending PUT \S*100042\S*: a run that was stopped sent another change of it at 1970-01-01T00:16:40\.000Z \(Idempotency-Key key-1\).*could pay for both\. The service may still process it until about 1970-01-01T00:18:/,
    )
    assert.equal(puts(early.requests), 0)
    // Placed after all: Pending until it takes effect. Still nothing is sent, however late.
    const pending = edit(1_600_000, [ok(disk('Pending', upgradeInvoice))])
    await assert.rejects(
      pending.client.lites.upgradeDisk('100042', { additional_size: 20 }),
      /Account 100042 shows it placed \(invoice 7, upgrade, Paid\) and is Pending until it takes effect\. Once the account is Active, apply again/,
    )
    assert.equal(puts(pending.requests), 0)
    // In effect (the step read 70 GB just before, so its increment is +10 GB): closed, and the change is sent.
    const active = disk('Active', upgradeInvoice)
    const effect = edit(1_700_000, [ok(active), ok(UPGRADE)])
    assert.deepEqual(await effect.client.lites.upgradeDisk('100042', { additional_size: 10 }), UPGRADE)
    assert.equal(puts(effect.requests), 1)
    // One read of the disk: the check's, whose last invoice is the order's invoice before.
    assert.deepEqual(
      effect.requests.map((r) => r.method),
      ['GET', 'PUT'],
    )
    // Closed: another change from the same 60 GB (to 90 GB) is not held back by it.
    const next = run(dir, change(60, 90), 1_800_000, [ok(active), ok(UPGRADE)])
    assert.deepEqual(await next.client.lites.upgradeDisk('100042', { additional_size: 20 }), UPGRADE)
    assert.deepEqual(
      next.requests.map((r) => r.method),
      ['GET', 'PUT'],
    )
  })

  test('past its deadline with no sign of the +10 GB, the edited change is not sent until its entry is removed; planned from 70 GB (it shows in state), it is ordered at once', async () => {
    const dir = await killedUpgrade()
    // A slow service may still process the +10 GB: the edited +20 GB on top of it would make 90 GB.
    const late = run(dir, change(60, 80), 1_600_000, [ok(before), ok(UPGRADE)])
    const stopped = await late.client.lites.upgradeDisk('100042', { additional_size: 20 }).then(
      () => 'sent',
      (e: unknown) => String(e),
    )
    assert.match(
      stopped,
      /could pay for both\. No sign of it showed by 1970-01-01T00:18:\S+ \(the account has no invoice since\), but a slow service may still process it\. Check the account and its invoices in the portal, now and again a while later\. If it was placed, apply again with a refresh .*Only once you are sure that it was not, delete \S+ and apply again\./,
    )
    assert.equal(puts(late.requests), 0)
    // Removed as the error says (the person found no such order): the edited change is sent.
    rmSync((/delete (\S+) and apply again/.exec(stopped) as RegExpExecArray)[1] as string)
    const removed = run(dir, change(60, 80), 1_700_000, [ok(before), ok(UPGRADE)])
    assert.deepEqual(await removed.client.lites.upgradeDisk('100042', { additional_size: 20 }), UPGRADE)
    assert.equal(puts(removed.requests), 1)
    const moved = run(await killedUpgrade(), change(70, 80), 1_020_000, [ok(before), ok(UPGRADE)])
    assert.deepEqual(await moved.client.lites.upgradeDisk('100042', { additional_size: 10 }), UPGRADE)
    assert.deepEqual(
      moved.requests.map((r) => r.method),
      ['GET', 'PUT'],
    )
  })

  test('past its deadline, against a service that confirms keys, the stop names the way to settle it: the stopped value applied once, sent again with its key', async () => {
    const dir = await killedUpgrade()
    const ignoring = run(dir, change(60, 80), 1_600_000, [ok(before)])
    const silent = await ignoring.client.lites.upgradeDisk('100042', { additional_size: 20 }).then(
      () => 'sent',
      (e: unknown) => String(e),
    )
    assert.doesNotMatch(silent, /confirms Idempotency-Keys/, 'never offered while the service has not confirmed keys')
    // Another order of this service has its key echoed since: the service confirms keys.
    const other = run(dir, change(30, 40), 1_600_000, [ok({ ...before, account_id: '100043' }), echoing(200, UPGRADE)])
    await other.client.lites.upgradeDisk('100043', { additional_size: 10 })
    const late = run(dir, change(60, 80), 1_600_000, [ok(before)])
    const stopped = await late.client.lites.upgradeDisk('100042', { additional_size: 20 }).then(
      () => 'sent',
      (e: unknown) => String(e),
    )
    assert.match(
      stopped,
      /This service confirms Idempotency-Keys, so it can be settled now: apply once with the value the stopped run asked for \(size = 70\) before 1970-01-01T23:16:40\.000Z, which sends that change again with its key, placed at most once, then apply your change\./,
    )
    assert.equal(puts(late.requests), 0)
  })

  /** A run whose action (a Terraform action, a Pulumi method: OperationFrame.from unset) got a 502 from a service that ignores keys, then was killed. */
  async function killedAction(send: (client: ReturnType<typeof testClient>['client']) => Promise<unknown>): Promise<string> {
    const dir = journal()
    const killed = providerProcess()
    const op = frame(undefined, 60_000)
    const first = testClient([fail(502, 'Bad Gateway'), unconfirmed], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: killed.journalOptions,
    })
    await assert.rejects(send(first.client), OrderUnresolvedError)
    killed.kill()
    return dir
  }

  test('a stopped rebuild action (no change to start from) holds back a rebuild_os step of the same OS while it may still run', async () => {
    const dir = await killedAction((c) => c.lites.rebuildVm('100042', { select_os: 'Debian-12' }))
    // 20 s later (the stopped one may still be processed until about 1970-01-01T00:18:..): the same rebuild
    // through the VM's rebuild_os attribute, a change of another intent that does not take the action over.
    const step = run(dir, JSON.stringify([['rebuild_os', null, 'Debian-12']]), 1_020_000, [ok('rebuild scheduled')])
    const outcome = await step.client.lites.rebuildVm('100042', { select_os: 'Debian-12' }).then(
      () => 'sent',
      (e: unknown) => e,
    )
    assert.equal(puts(step.requests), 0, 'a second rebuild (disk wiped again) was sent while the first may still run')
    assert.match(String(outcome), /Not sending PUT/)
  })

  test('a stopped Metal reset action holds back a reset_trigger step while it may still run', async () => {
    const dir = await killedAction((c) => c.baremetals.setPowerState('100070', 'reset'))
    const step = run(dir, JSON.stringify([['reset_trigger', 'a', 'b']]), 1_020_000, [ok('reset accepted')])
    const outcome = await step.client.baremetals.setPowerState('100070', 'reset').then(
      () => 'sent',
      (e: unknown) => e,
    )
    assert.equal(puts(step.requests), 0, 'a second hard reset was sent while the first may still run')
    assert.match(String(outcome), /Not sending PUT/)
  })

  test('a rebuild edited to another OS is not sent while the stopped one may still be processed, and is past that', async () => {
    const dir = journal()
    const killed = providerProcess()
    const op = frame(undefined, 60_000)
    op.value.from = JSON.stringify([['rebuild_os', null, 'Debian-12']])
    const first = testClient([fail(502, 'Bad Gateway'), unconfirmed], {
      journalDirectory: dir,
      operation: () => op.value,
      journalOptions: killed.journalOptions,
    })
    await assert.rejects(first.client.lites.rebuildVm('100042', { select_os: 'Debian-12' }), OrderUnresolvedError)
    killed.kill()
    const edited = run(dir, JSON.stringify([['rebuild_os', null, 'Rocky-9']]), 1_020_000, [])
    await assert.rejects(
      edited.client.lites.rebuildVm('100042', { select_os: 'Rocky-9' }),
      /Not sending PUT \S*100042\S*\/rebuild: .*could do both\. The service may still process it/,
    )
    assert.deepEqual(edited.requests, [])
    // Past its deadline, an action (no order, nothing the account shows of it, the same change planned after any
    // refresh) goes ahead: stopping it would hold every rebuild or reset for a day on a lost answer.
    const late = run(dir, JSON.stringify([['rebuild_os', null, 'Rocky-9']]), 1_600_000, [ok('rebuild scheduled')])
    await late.client.lites.rebuildVm('100042', { select_os: 'Rocky-9' })
    assert.equal(puts(late.requests), 1)
  })
})

describe('candidates (JournalEntry.candidates) never settle an order too early', () => {
  /** A service that ignores keys, answering each request as it comes (probe 405, listings, orders). */
  function service(listings: () => unknown[], order = { order_id: '500099', account_id: '100099' }) {
    return (r: RecordedRequest): Response => {
      const path = r.path.split('?')[0]
      if (r.method === 'POST') return ok(order)
      if (path === '/lites/accounts') return ok(listings())
      return fail(405, 'Method Not Allowed')
    }
  }
  const many = (reply: Reply, n = 40): Reply[] => Array.from({ length: n }, () => reply)

  test('an entry adopted after a stop with candidates, whose run was then killed before handing it over: the next run hands it over, no second order', async () => {
    const dir = journal()
    const X = vmAccount('100042', 'web', '2099-01-01 00:00:00')
    const Y = vmAccount('100043', 'web', '2099-01-01 00:00:00')
    // Run 1: 502, the service ignores keys, two matches: stop, candidates [X, Y] kept with the entry.
    const p1 = providerProcess()
    const op1 = frame(undefined, 60_000)
    const first = testClient([ok([]), fail(502, 'Bad Gateway'), unconfirmed, ok([X, Y])], {
      journalDirectory: dir,
      operation: () => op1.value,
      journalOptions: p1.journalOptions,
    })
    await assert.rejects(first.client.lites.createVm(VM_BODY), OrderUnresolvedError)
    p1.kill()
    // Y is imported into another resource of this configuration, as the stop says.
    await new OrderJournal(dir, () => 0).accountInState('100043')
    // Run 2 resumes the order: Y is known now, X is the single candidate and is adopted (entry answered, account X)...
    const p2 = providerProcess()
    const op2 = frame(undefined, 60_000)
    const second = testClient(many(service(() => [X, Y])), {
      journalDirectory: dir,
      operation: () => op2.value,
      journalOptions: p2.journalOptions,
    })
    assert.equal((await second.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(posts(second.requests).length, 0)
    // ...and is killed before its engine got X (op2 never finishes): the entry stays `answered`, X in no state.
    p2.kill()
    // Run 3: the journal's own answer must be handed over, as for any run killed after its answer.
    const p3 = providerProcess()
    const op3 = frame(undefined, 60_000)
    const third = testClient(many(service(() => [X, Y])), {
      journalDirectory: dir,
      operation: () => op3.value,
      journalOptions: p3.journalOptions,
    })
    const got = await third.client.lites.createVm(VM_BODY)
    assert.equal(posts(third.requests).length, 0, 'a second paid order was placed; account 100042 is left in no state')
    assert.equal(got.account_id, '100042')
  })

  test('a stop on one match beside another unanswered order of the same call (count = 2): importing that one match does not let this order be placed again while its own account may still come', async () => {
    const dir = journal()
    // The other instance's identical order, sent and unanswered (as in the rivals test above).
    await new OrderJournal(dir, () => 0).open('another-intent', serviceOf(BASE_URL), 'rival-key', 'POST', '/lites')
    const X = vmAccount('100042', 'web', '2099-01-01 00:00:00')
    const Y = vmAccount('100043', 'web', '2099-01-01 00:00:00')
    const p1 = providerProcess()
    const op1 = frame(undefined, 60_000)
    const first = testClient([unconfirmed, ok([]), fail(502, 'Bad Gateway'), ok([X])], {
      journalDirectory: dir,
      operation: () => op1.value,
      journalOptions: p1.journalOptions,
    })
    const stop = await first.client.lites.createVm(VM_BODY).then(
      () => assert.fail('one match beside a rival: nothing adopted'),
      (e: unknown) => e,
    )
    assert.ok(stop instanceof OrderUnresolvedError)
    assert.deepEqual([...stop.candidates], ['100042'])
    p1.kill()
    // The user imports X into the other instance, as the stop says ("the others may be theirs").
    await new OrderJournal(dir, () => 0).accountInState('100042')
    // Seconds later (within the order's processing window), this instance is applied again. Its 502'd
    // order was processed: its account Y shows up in the second listing.
    let listings = 0
    const p2 = providerProcess()
    const op2 = frame(undefined, 600_000)
    const second = testClient(many(service(() => (++listings === 1 ? [X] : [X, Y]))), {
      journalDirectory: dir,
      operation: () => op2.value,
      journalOptions: p2.journalOptions,
    })
    const outcome = await second.client.lites.createVm(VM_BODY).then(
      (o) => o.account_id,
      (e: unknown) => (e instanceof Error ? e.constructor.name : String(e)),
    )
    assert.equal(
      posts(second.requests).length,
      0,
      `ordered again (outcome ${outcome}) while its earlier order's account 100043 was still coming`,
    )
  })
})

describe('the probe answered by a gateway', () => {
  test('a service that echoed keys in earlier runs, a 503 from its gateway on the order and on the probe: the order is sent again with its key, not stopped', async () => {
    const dir = journal()
    const earlier = testClient([ok([]), echoing(200, ORDER)], { journalDirectory: dir })
    await earlier.client.lites.createVm(VM_BODY)
    const op = frame(undefined, 60_000)
    let blip = 2
    // A load balancer answers 503 (no Idempotency-Key: the service never saw the request) for two requests, then the service is back.
    const service = (r: RecordedRequest): Response => {
      if (blip-- > 0) return fail(503, 'Service Unavailable')
      if (r.method === 'POST') return echoing(200, { ...ORDER, account_id: '100050' })(r)
      return echoing(200, [])(r)
    }
    const { client, requests } = testClient(
      Array.from({ length: 60 }, () => service),
      { journalDirectory: dir, operation: () => op.value },
    )
    const outcome = await client.lites.createVm({ ...VM_BODY, vm_name: 'db' }).then(
      (o) => o.account_id,
      (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.slice(0, 160)}` : String(e)),
    )
    assert.equal(outcome, '100050', `requests: ${requests.map((r) => `${r.method} ${r.path.split('?')[0]}`).join(', ')}`)
  })
})

describe('a twin landing between the index read and the in-flight read', () => {
  test("a fresh directory, a Pending match of a twin's create that lands just after this run read the index: waited for or re-read, then ordered (not stopped)", async () => {
    const index = journal()
    const me = providerProcess()
    const twin = providerProcess()
    const service = serviceOf(BASE_URL)
    const twinIndex = new KnownAccounts(index, () => 1_000_000)
    // The twin's run handed over another account earlier (so the index names its process), and has the same order in flight.
    twinIndex.handedOver(service, '100001', twin.owner)
    twinIndex.sending(service, 'twin-entry', { owner: twin.owner, call: 'POST /lites', sentAt: 900_000 })
    const made = vmAccount('100042', 'web', '1970-01-01 00:15:30', 'Pending')
    let landed = false
    // The twin's answer comes while this run looks at the index (its owners' liveness): recorded, then landed.
    const alive = (p: number) => {
      if (p === twin.pid && !landed) {
        landed = true
        twinIndex.handedOver(service, '100042', twin.owner)
        twinIndex.landed(service, 'twin-entry')
      }
      return p === me.pid || p === twin.pid
    }
    // Listed once or twice (the twin may land before or after this run reads the index), then ordered.
    const answer = (r: RecordedRequest) => (r.method === 'POST' ? ok(ORDER) : ok([made]))
    const { client, requests } = testClient([answer, answer, answer], {
      journalDirectory: journal(),
      knownAccountsDirectory: index,
      journalOptions: { ...me.journalOptions, alive },
    })
    const outcome = await client.lites.createVm(VM_BODY).then(
      (o) => o.account_id,
      (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.slice(0, 120)}` : String(e)),
    )
    assert.equal(outcome, ORDER.account_id, `requests: ${requests.map((r) => `${r.method} ${r.path.split('?')[0]}`).join(', ')}`)
  })
})

describe('an inconclusive probe never lets a stale journal echo resend an order', () => {
  test('a service that echoed keys in an earlier run ignores them now; overloaded, it processes each POST but its gateway answers 504, and the probe 503: the order must not be placed more than once', async () => {
    const dir = journal()
    // Run 1 (e.g. yesterday): the service echoed the key; the journal records `honoured`.
    const earlier = testClient([ok([]), echoing(200, ORDER)], { journalDirectory: dir })
    await earlier.client.lites.createVm(VM_BODY)
    // Today the service was redeployed without the key extension (or a failover node lacks it) and is overloaded:
    // every POST reaches it and is processed (a paid order each), but the gateway times out (504, no key echoed);
    // the probe GET gets the gateway's 503.
    let placed = 0
    const service = (r: RecordedRequest): Response => {
      const path = r.path.split('?')[0]
      if (r.method === 'POST') {
        placed++
        return fail(504, 'Gateway Timeout')
      }
      if (path === '/lites/accounts') return ok([])
      return fail(503, 'Service Unavailable')
    }
    const op = frame(undefined, 60_000)
    const { client, requests } = testClient(
      Array.from({ length: 60 }, () => service),
      { journalDirectory: dir, operation: () => op.value },
    )
    const outcome = await client.lites.createVm({ ...VM_BODY, vm_name: 'db' }).then(
      (o) => o.account_id,
      (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.slice(0, 200)}` : String(e)),
    )
    assert.equal(
      placed,
      1,
      `POST sent ${placed} times to a service that does not honour keys now (outcome ${outcome}); requests: ${requests
        .map((r) => `${r.method} ${r.path.split('?')[0]}`)
        .join(', ')}`,
    )
  })
})

describe('the plan and the apply agree on a settled (accounted-for) order', () => {
  test("a stop on two matches, both imported: once the stopped order's window has passed, the plan's rehearsal says a new order, as the apply places one", async () => {
    const { dir, made } = await stoppedOnTwoMatchesThenImported()
    // terraform plan, once the stopped order could no longer make an account: the rehearsal of the create.
    const reported: unknown[] = []
    const plan: OperationFrame = { onFinish: () => undefined, rehearsal: (o) => reported.push(o) }
    const planning = testClient([], { journalDirectory: dir, operation: () => plan, now: () => 2_000_000 })
    await assert.rejects(planning.client.lites.createVm(VM_BODY), { name: 'RehearsalEnded' })
    // terraform apply.
    const again = frame(undefined, 600_000)
    const answer = (r: RecordedRequest) =>
      r.method === 'POST' ? ok(ORDER) : r.path.split('?')[0] === '/lites/accounts' ? ok(made) : unconfirmed()
    const { client, requests } = testClient(Array(100).fill(answer), { journalDirectory: dir, operation: () => again.value })
    await client.lites.createVm(VM_BODY)
    const sentKey = posts(requests)[0]?.headers.get('idempotency-key')
    const planned = reported[0] as { kind: string; key?: string }
    assert.deepEqual(
      { kind: planned.kind, key: planned.key },
      { kind: 'order', key: undefined },
      `the plan said ${planned.kind} with key ${planned.key} ("takes over the order an earlier run sent ... if that order was placed, nothing is ordered again"); the apply placed a new order with key ${sentKey}`,
    )
  })
})

describe('one provider process serving one command after another (the serve mode: every command configures a new client)', () => {
  /** A service that echoes keys: GETs list `listed`, each POST answers the next of `answers`. */
  function service(listed: unknown[], answers: Promise<unknown>[]) {
    let next = 0
    return (r: RecordedRequest) =>
      r.method === 'GET'
        ? echoing(200, listed)(r)
        : (answers[next++] ?? Promise.reject(new Error('no more answers'))).then((data) => echoing(200, data)(r))
  }

  test('an account an earlier command of this process handed over, and no state named since, stops an identical create of a later command', async () => {
    const dir = journal()
    const serve = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: serve.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await run1.finish() // handed to the terraform of the first command, killed before it saved its state
    // The CI job retries: terraform apply reattaches to the same provider process, which configures a new client.
    const run2 = frame()
    const answer = service([vmAccount('100042', 'web', '2026-01-01 00:00:00')], [Promise.resolve({ ...ORDER, account_id: '100043' })])
    const second = testClient(Array(10).fill(answer), {
      journalDirectory: dir,
      operation: () => run2.value,
      journalOptions: serve.journalOptions,
    })
    await assert.rejects(
      second.client.lites.createVm(VM_BODY),
      (e: unknown) => e instanceof UnrecordedMatchError && /100042/.test(String(e)),
    )
    assert.equal(posts(second.requests).length, 0, 'a second VM was ordered: the first is in no state')
  })

  test('a create answered after its terraform was killed is handed to nobody: the retried command takes it over, and an edited one is told of it', async () => {
    const dir = journal()
    const serve = providerProcess()
    const run1 = frame()
    const first = testClient([probed, echoing(200, ORDER)], {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: serve.journalOptions,
    })
    await first.client.lites.createVm(VM_BODY)
    await run1.finish(false) // the terraform that asked is gone: its call's answer reaches nobody
    // The retried command, configured anew, plans the same create: the account is taken over, nothing is ordered.
    const run2 = frame()
    const retried = testClient([], { journalDirectory: dir, operation: () => run2.value, journalOptions: serve.journalOptions })
    const notices = await retried.client.settlement?.notices()
    assert.match(notices?.[0]?.summary ?? '', /^Account 100042 was ordered by a run that was stopped, and no state holds it$/)
    assert.equal((await retried.client.lites.createVm(VM_BODY)).account_id, '100042')
    assert.equal(retried.requests.length, 0)
  })

  test("a change an earlier command of this process sent and never saw answered stops a later command's other change of the same call", async () => {
    const dir = journal()
    const serve = providerProcess()
    const call = ['PUT', '/lites/disks/accounts/7'] as const
    const first = new OrderJournal(dir, () => 1_000_000, serve.journalOptions)
    const sent = await first.open('intent-70', serviceOf(BASE_URL), 'k1', ...call, { change: '[["size",60,70]]' })
    // Its terraform killed, the operation ends without an answer (a 502 from a service that ignores keys, its deadline).
    first.letGo(sent)
    assert.deepEqual(await first.unansweredChangesOfCall('intent-80', '[["size",60,80]]', serviceOf(BASE_URL), ...call), [], 'its own run')
    // The next command, planned from 60 GB, asks for 80 GB: +20 GB on top of a +10 GB that may still be placed.
    const second = new OrderJournal(dir, () => 1_000_000, serve.journalOptions)
    const stopped = await second.unansweredChangesOfCall('intent-80', '[["size",60,80]]', serviceOf(BASE_URL), ...call)
    assert.deepEqual(
      stopped.map((e) => e.key),
      ['k1'],
      'the earlier command is another run',
    )
  })

  test('a create of a later command waits for the identical create an earlier command of this process still has in flight, and orders nothing beside it', async () => {
    const dir = journal()
    const serve = providerProcess()
    await new OrderJournal(dir, Date.now).accountInState('99') // not a fresh directory
    let answerFirst: (data: unknown) => void = () => undefined
    const firstAnswer = new Promise<unknown>((resolve) => {
      answerFirst = resolve
    })
    const run1 = frame()
    const first = testClient(Array(10).fill(service([], [firstAnswer])), {
      journalDirectory: dir,
      operation: () => run1.value,
      journalOptions: serve.journalOptions,
    })
    // The first command's create is sent; its terraform is killed while the service takes its time.
    const creating = first.client.lites.createVm(VM_BODY)
    while (posts(first.requests).length === 0) await new Promise((resolve) => setImmediate(resolve))
    const run2 = frame(undefined, 60_000)
    const second = testClient(
      Array(10).fill(service([vmAccount('100042', 'web', '2026-01-01 00:00:00')], [Promise.resolve({ ...ORDER, account_id: '100043' })])),
      {
        journalDirectory: dir,
        operation: () => run2.value,
        journalOptions: serve.journalOptions,
        sleep: async () => {
          // The first command's order answers while the second waits for it.
          answerFirst(ORDER)
          await creating
          await run1.finish()
        },
      },
    )
    const outcome = await second.client.lites.createVm(VM_BODY).then(
      (order) => `ordered ${order.account_id}`,
      (e: unknown) => (e instanceof Error ? e.constructor.name : String(e)),
    )
    answerFirst(ORDER)
    await creating
    assert.equal(posts(second.requests).length, 0, `a second VM was ordered beside the first command's (${outcome})`)
  })

  test("two provider blocks of one run served by one process (two clients), a service that ignores keys: the second create waits for the first one's order in flight, then orders its own instead of stopping on that account", async () => {
    const dir = journal()
    const serve = providerProcess()
    await new OrderJournal(dir, Date.now).accountInState('99') // not a fresh directory
    const made = vmAccount('100042', 'web', new Date(Date.now()).toISOString().slice(0, 19).replace('T', ' '))
    let answerFirst: () => void = () => undefined
    const firstAnswer = new Promise<void>((resolve) => {
      answerFirst = resolve
    })
    let posted = 0
    let listedAfterPost = 0
    // Keys ignored: no echo. The first POST makes 100042 at once and is answered only once released.
    const ignoring = async (r: RecordedRequest): Promise<Response> => {
      if (r.method === 'POST') {
        if (++posted === 1) {
          await firstAnswer
          return ok({ ...ORDER, account_id: '100042' })
        }
        return ok({ ...ORDER, account_id: '100043' })
      }
      if (r.path.split('?')[0] !== '/lites/accounts') return fail(405, 'Method Not Allowed')
      if (posted > 0) listedAfterPost++
      return ok(posted > 0 ? [made] : [])
    }
    const run = frame(undefined, 60_000)
    // One terraform run: both clients' journals share its entries (JournalOptions.run).
    const journalOptions = { ...serve.journalOptions, run: new Set<string>() }
    const [first, other] = [0, 1].map(() =>
      testClient(Array(20).fill(ignoring), { journalDirectory: dir, operation: () => run.value, journalOptions }),
    ) as [ReturnType<typeof testClient>, ReturnType<typeof testClient>]
    const creating = first.client.lites.createVm(VM_BODY)
    while (posted === 0) await new Promise((resolve) => setImmediate(resolve))
    let settled = false
    const second = other.client.lites.createVm(VM_BODY).then(
      (order) => `ordered ${order.account_id}`,
      (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)),
    )
    void second.finally(() => {
      settled = true
    })
    // The first order stays unanswered while the second create lists (without the wait) or waits for it.
    for (let tick = 0; tick < 200 && !settled && listedAfterPost === 0; tick++) await new Promise((resolve) => setImmediate(resolve))
    if (listedAfterPost > 0) await second
    answerFirst()
    await creating
    assert.equal(await second, 'ordered 100043')
  })
})

// The order journal kept in PostgreSQL (issue 15, runners that share no disk), against a real server
// that the test starts: who may take an entry over, decided by the owner's database session, and
// atomically among runners that try at once; the table made on first use by runners that start
// together; a process killed with SIGKILL is seen gone; the password never shows.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { OrderUnresolvedError, UnrecordedMatchError } from '../src/api/errors.js'
import { createClient } from '../src/api/client.js'
import type { OperationFrame } from '../src/api/operation.js'
import { newJournalSession, OrderJournal } from '../src/api/orders/journal.js'
import { JOURNAL_TABLE, PostgresJournalStore } from '../src/api/orders/journal-postgres.js'
import type { JournalOwner } from '../src/api/orders/journal-store.js'
import { type PostgresServer, startPostgres } from './support/postgres.js'
import { fakeClock, ok, ORDER, type RecordedRequest, testClient, VM_BODY, vmAccount } from './support/fake-fetch.js'
import { keepCases } from './support/journal-keep.js'

let server: PostgresServer
const stores: PostgresJournalStore[] = []

before(async () => {
  server = await startPostgres()
})
after(async () => {
  for (const store of stores) await store.close()
  await server?.stop()
})

/** A runner: its own owner and its own database session, as another machine's provider has. */
function runner(url = server.url) {
  const owner: JournalOwner = { pid: 1, token: randomUUID() }
  const store = new PostgresJournalStore(url, owner)
  stores.push(store)
  return { owner, store, journal: new OrderJournal(store, Date.now, { owner }) }
}

async function rows(): Promise<{ id: string; owner_token: string | null; state: string }[]> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    return (await client.query(`SELECT id, owner_token, state FROM ${JOURNAL_TABLE} ORDER BY sent_at`)).rows
  } finally {
    await client.end()
  }
}

/** Until `look` answers true: PostgreSQL ends a session whose client died as soon as it reads the closed socket. */
async function eventually(what: string, look: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 200; round++) {
    if (await look()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.fail(`${what}: not within 5 s`)
}

describe('the order journal in PostgreSQL', { concurrency: 1 }, () => {
  test('runners that start together all make the table on first use, once', async () => {
    const all = Array.from({ length: 5 }, () => runner())
    await Promise.all(all.map((r) => r.journal.knownAccounts()))
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    const count = await client.query('SELECT count(*)::int AS n FROM pg_tables WHERE tablename = $1', [JOURNAL_TABLE])
    await client.end()
    assert.equal(count.rows[0].n, 1)
  })

  test('an entry of a runner whose session is open is not taken over; it is held elsewhere; once the session ends, it is taken over', async () => {
    const a = runner()
    const b = runner()
    const intent = `intent-${randomUUID()}`
    const entry = await a.journal.open(intent, 'service', 'key-a', 'POST', '/lites')
    assert.equal(await b.journal.claim(intent), undefined, 'taken over while its runner runs')
    assert.deepEqual(
      (await b.journal.heldElsewhere(intent)).map((e) => e.id),
      [entry.id],
    )
    await a.store.close()
    await eventually('the closed session seen gone', async () => (await b.journal.heldElsewhere(intent)).length === 0)
    const taken = await b.journal.claim(intent)
    assert.equal(taken?.id, entry.id)
    assert.equal(taken?.key, 'key-a', 'the same Idempotency-Key: the service answers with the same order')
    assert.equal((await rows()).find((r) => r.id === entry.id)?.owner_token, b.owner.token, 'the takeover is stored')
  })

  test('two clients of one process share its owner: both connect, and the owner runs while either session is open', async () => {
    const first = runner()
    const second = new PostgresJournalStore(server.url, first.owner)
    stores.push(second)
    const intent = `intent-${randomUUID()}`
    await first.journal.open(intent, 's', 'k', 'POST', '/lites')
    await second.list(Date.now())
    const other = runner()
    await first.store.close()
    assert.equal(await other.store.alive(first.owner), true, 'the second client still holds the owner')
    assert.equal(await other.journal.claim(intent), undefined)
    await second.close()
    await eventually('the owner seen gone once both sessions ended', async () => !(await other.store.alive(first.owner)))
  })

  test('a process that configures a client per command (the serve mode) keeps one database session for them all, however many commands it serves', async () => {
    const session = newJournalSession()
    const sessions = async () => {
      const client = new pg.Client({ connectionString: server.url })
      await client.connect()
      try {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
          `provider order journal (pid ${process.pid})`,
        ])
        return rows[0]?.n ?? 0
      } finally {
        await client.end()
      }
    }
    const before = await sessions()
    const clients = Array.from({ length: 12 }, () =>
      createClient({
        baseUrl: 'https://api.example.test',
        apiKey: 'k',
        userAgent: 'test',
        journalDatabase: server.url,
        journalOptions: { session },
      }),
    )
    // Each command's configure reads the journal (what earlier runs left unmanaged).
    for (const client of clients) await client.settlement?.notices?.()
    assert.equal((await sessions()) - before, 1, 'one database session for the process, not one per command')
  })

  test('of several runners taking one entry over at once, exactly one gets it', async () => {
    for (let round = 0; round < 5; round++) {
      const gone = runner()
      const intent = `intent-${randomUUID()}`
      const entry = await gone.journal.open(intent, 'service', 'key', 'POST', '/lites')
      await gone.store.close()
      const takers = Array.from({ length: 4 }, () => runner())
      await eventually('the closed session seen gone', async () => !(await takers[0]!.store.alive(gone.owner)))
      const claimed = await Promise.all(takers.map((t) => t.journal.claim(intent)))
      assert.deepEqual(
        claimed.filter((c) => c !== undefined).map((c) => c?.id),
        [entry.id],
        `round ${round}: one winner`,
      )
    }
  })

  test('a provider process killed with SIGKILL mid-order is seen gone, and its entry taken over', async () => {
    const intent = `intent-${randomUUID()}`
    const journalModule = new URL('../src/api/orders/journal.js', import.meta.url).href
    const storeModule = new URL('../src/api/orders/journal-postgres.js', import.meta.url).href
    const script =
      `const { OrderJournal } = await import(${JSON.stringify(journalModule)});` +
      `const { PostgresJournalStore } = await import(${JSON.stringify(storeModule)});` +
      `const owner = { pid: process.pid, token: 'killed-${randomUUID()}' };` +
      'const journal = new OrderJournal(new PostgresJournalStore(process.env.JOURNAL_URL, owner), Date.now, { owner });' +
      `await journal.open(${JSON.stringify(intent)}, 's', 'key-killed', 'POST', '/lites');` +
      "process.stdout.write('ready\\n'); setInterval(() => undefined, 60_000);"
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, JOURNAL_URL: server.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve())
      child.once('exit', (code) => reject(new Error(`the child exited early (${code})`)))
    })
    const next = runner()
    assert.equal(await next.journal.claim(intent), undefined, 'the process still runs')
    child.kill('SIGKILL')
    await exited
    await eventually('the killed process seen gone', async () => (await next.journal.heldElsewhere(intent)).length === 0)
    assert.equal((await next.journal.claim(intent))?.key, 'key-killed')
  })

  test('delivered, named and settled as in a directory: a graceful close settles what was handed over, a state naming the account settles it', async () => {
    const a = runner()
    const intent = `intent-${randomUUID()}`
    const handed = await a.journal.open(intent, 's', 'k1', 'POST', '/lites')
    Object.assign(handed, { state: 'answered', accountId: `acc-${randomUUID()}` })
    await a.journal.deliver(handed)
    const named = await a.journal.open(intent, 's', 'k2', 'POST', '/lites')
    const namedAccount = `acc-${randomUUID()}`
    Object.assign(named, { state: 'answered', accountId: namedAccount })
    await a.journal.deliver(named)
    const b = runner()
    assert.ok((await b.journal.knownAccounts()).has(namedAccount), 'another runner knows the account as managed')
    await b.journal.accountInState(namedAccount)
    await a.journal.engineClosed()
    const states = (await rows()).filter((r) => r.id === handed.id || r.id === named.id).map((r) => r.state)
    assert.deepEqual(states, ['settled', 'settled'])
    await a.store.close()
    assert.equal(await b.journal.claim(intent), undefined, 'nothing settled is taken over')
  })

  test('an unresolved create is kept two weeks, anything else two days: listed, and the rest deleted', async () => {
    // A time of its own, far from the other tests' entries (which a look at Date.now() would expire).
    const now = Date.now() + 400 * 24 * 3_600_000
    const cases = keepCases(now)
    const writer = runner()
    for (const { entry } of cases) await writer.store.write(entry)
    const listed = new Set((await runner().store.list(now)).map((e) => e.id))
    assert.deepEqual(
      cases.map(({ entry }) => listed.has(entry.id)),
      cases.map(({ kept }) => kept),
    )
    const left = new Set((await rows()).map((r) => r.id))
    assert.deepEqual(
      cases.map(({ entry }) => left.has(entry.id)),
      cases.map(({ kept }) => kept),
      'the expired rows are deleted',
    )
  })

  test("a session the server ends (a restart, a dropped connection) is made again, with the owner's lock", async () => {
    const a = runner()
    const intent = `intent-${randomUUID()}`
    await a.journal.open(intent, 's', 'k', 'POST', '/lites')
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    try {
      const ended = await admin.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [
        `provider order journal (pid ${process.pid})`,
      ])
      assert.ok(ended.rows.length > 0, 'the journal sessions of this process were found')
    } finally {
      await admin.end()
    }
    const other = runner()
    // The next call of the journal whose session ended connects again and takes its lock again.
    await eventually('the journal connected again', async () => {
      try {
        await a.journal.knownAccounts()
        return await other.store.alive(a.owner)
      } catch {
        return false
      }
    })
    assert.equal(await other.journal.claim(intent), undefined, 'its entry is not taken over')
  })

  test('a schema named in the connection string (options=-csearch_path) holds the table there', async () => {
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    try {
      await admin.query('CREATE SCHEMA team_a')
      const { journal } = runner(`${server.url}?options=-csearch_path%3Dteam_a`)
      await journal.open(`intent-${randomUUID()}`, 's', 'k', 'POST', '/lites')
      const found = await admin.query('SELECT count(*)::int AS n FROM team_a.provider_order_journal')
      assert.equal(found.rows[0].n, 1)
    } finally {
      await admin.end()
    }
  })

  test('an entry another runner took over is never overwritten by its former owner: its writes are refused', async () => {
    const a = runner()
    const b = runner()
    const entry = await a.journal.open(`intent-${randomUUID()}`, 's', 'k', 'POST', '/lites')
    // What b does once a looks gone (a network partition ends a's session while a still works).
    assert.equal(await b.store.take({ ...entry }, b.owner), true)
    Object.assign(entry, { state: 'answered', accountId: `acc-${randomUUID()}` })
    assert.equal(await a.journal.writeOwned(entry), false)
    // Nor is its answer handed to a's engine: the operation fails naming the key (b hands it over).
    await assert.rejects(a.journal.deliver(entry), /another runner took this order over/)
    const row = (await rows()).find((r) => r.id === entry.id)
    assert.deepEqual([row?.owner_token, row?.state], [b.owner.token, 'sent'], "b's takeover stands")
  })

  test('a runner cut off from the journal while its order is in flight does not hand the account over; the next run does, with the same key', async () => {
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    const role = `cutoff_${randomUUID().replaceAll('-', '')}`
    try {
      await runner().journal.knownAccounts() // the table exists
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'cut-off-password'`)
      await admin.query(`GRANT ALL ON TABLE ${JOURNAL_TABLE} TO ${role}`)
      const cutOffUrl = server.url.replace(`postgres:${server.password}@`, `${role}:cut-off-password@`)
      const frames: (() => Promise<void>)[] = []
      const operation = {
        scope: undefined,
        timeoutMs: undefined,
        onFinish: (f: (handedOver: boolean) => void | Promise<void>) => frames.push(async () => f(true)),
      }
      // The partition: while the order is in flight the runner's session ends and it cannot connect again.
      const partitioned = async (r: RecordedRequest) => {
        await admin.query(`ALTER ROLE ${role} NOLOGIN`)
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role])
        return ok(ORDER, { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
      }
      const cutOff = testClient([ok([]), partitioned], { journalDatabase: cutOffUrl, operation: () => operation, now: Date.now })
      const error = await cutOff.client.lites.createVm(VM_BODY).then(
        () => assert.fail('the account was handed over by a run that cannot tell whether it still holds the order'),
        (e: unknown) => e as Error,
      )
      assert.ok(error instanceof OrderUnresolvedError, String(error))
      assert.match(error.message, /answered with account 100042, but the order journal at .* could not be reached to confirm/)
      assert.match(error.message, /Idempotency-Key key-1/)
      assert.ok(!error.message.includes('cut-off-password'), 'no password in the message')
      for (const finish of frames) await finish()

      // The next run, on another runner, takes the entry over (its owner's session is gone) and replays the key.
      const next = testClient(
        [
          (r: RecordedRequest) => ok([], { 'idempotency-key': r.headers.get('idempotency-key') ?? '' }),
          (r: RecordedRequest) => ok(ORDER, { 'idempotency-key': r.headers.get('idempotency-key') ?? '' }),
        ],
        { journalDatabase: server.url, now: Date.now },
      )
      assert.equal((await next.client.lites.createVm(VM_BODY)).account_id, ORDER.account_id)
      assert.deepEqual(
        next.requests.filter((r) => r.method === 'POST').map((r) => r.headers.get('idempotency-key')),
        ['key-1'],
        'the same key: one order at the service',
      )
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined)
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined)
      await admin.end()
    }
  })

  /** The error of a journal of `url` asked to open an entry, which its connection refuses. */
  const openRefused = (url: string): Promise<Error> =>
    runner(url)
      .journal.open('intent', 's', 'k', 'POST', '/lites')
      .then(
        () => assert.fail('expected an error'),
        (e: unknown) => e as Error,
      )

  test('a database that refuses the password: the error names the database, never the password', async () => {
    const wrong = `wrong-${randomUUID()}`
    const url = server.url.replace(`:${server.password}@`, `:${wrong}@`)
    const error = await openRefused(url)
    assert.match(
      error.message,
      new RegExp(`could not connect to the order journal at postgresql://postgres@127\\.0\\.0\\.1:${server.port}/postgres`),
    )
    assert.match(error.message, /password authentication failed/)
    assert.ok(!error.message.includes(wrong) && !error.message.includes(server.password), error.message)
  })

  test('a connection string the client cannot read (a key file that is not there, a percent-encoding that is no UTF-8): the error says the order journal, never the password', async () => {
    const cases = [
      {
        url: `${server.url}?sslcert=/nonexistent/client.crt`,
        reason: /no such file or directory, open '\/nonexistent\/client\.crt'/,
        secret: server.password,
      },
      {
        url: server.url.replace(`:${server.password}@`, ':Pw%E0%A4Secret@'),
        reason: /holds a % that starts no valid percent-encoding/,
        secret: 'Pw%E0%A4Secret',
      },
    ]
    for (const { url, reason, secret } of cases) {
      const error = await openRefused(url)
      assert.match(
        error.message,
        new RegExp(
          `could not read the connection string of the order journal at postgresql://postgres@127\\.0\\.0\\.1:${server.port}/postgres`,
        ),
      )
      assert.match(error.message, reason)
      assert.ok(!error.message.includes(secret) && !error.message.includes('Secret'), error.message)
    }
  })
})

describe('one state under two identities sharing the journal in PostgreSQL (a backend setting written out on one runner, from the environment on another)', {
  concurrency: 1,
}, () => {
  const LAPTOP = 'terraform backend pg 1f0c2a'
  const CI = 'terraform backend pg 7d4e91'
  const echo = (data: unknown) => (r: RecordedRequest) => ok(data, { 'idempotency-key': r.headers.get('idempotency-key') ?? '' })
  /** A service that honours keys: a listing finds nothing, an order is answered with `account`. */
  const service = (account: string) => (r: RecordedRequest) => (r.method === 'GET' ? echo([]) : echo({ ...ORDER, account_id: account }))(r)
  let admin: pg.Client
  let schema = ''
  let runs = 0

  before(async () => {
    admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
  })
  after(async () => {
    await admin?.end()
  })

  /** A journal of its own for each test: a fresh schema, so that no earlier test's orders count. */
  async function freshJournal(): Promise<void> {
    schema = `identities_${randomUUID().replaceAll('-', '')}`
    await admin.query(`CREATE SCHEMA ${schema}`)
  }

  /** A provider process running `scope`: its own database session, named so that `kill` ends it as a killed process's ends. */
  function run(scope: string, replies: Parameters<typeof testClient>[0], extra: Parameters<typeof testClient>[1] = {}) {
    const name = `run_${++runs}`
    const finishers: ((handedOver: boolean) => void | Promise<void>)[] = []
    const warnings: string[] = []
    const operation: OperationFrame = {
      scope,
      timeoutMs: 60_000,
      onFinish: (f) => finishers.push(f),
      warn: (summary, detail) => warnings.push(`${summary}: ${detail}`),
    }
    const url = `${server.url}?options=-csearch_path%3D${schema}&application_name=${name}`
    // Each its own run (engine): two processes of one run would be two aliases of one provider.
    const journalOptions = { session: newJournalSession({ pid: 1, token: randomUUID(), engine: name }) }
    const client = testClient(replies, { journalDatabase: url, operation: () => operation, now: Date.now, journalOptions, ...extra })
    const kill = async () => {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name])
      await eventually(`${name}'s session ended`, async () => {
        const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name])
        return rows[0]?.n === 0
      })
    }
    const finish = async () => {
      for (const f of finishers.splice(0)) await f(true)
    }
    return { ...client, warnings, kill, finish, create: () => client.client.lites.createVm(VM_BODY) }
  }

  const posts = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method === 'POST')

  test('answered on the laptop, its run killed: CI takes the order over, sends nothing, and says so', async () => {
    await freshJournal()
    const laptop = run(LAPTOP, [service('100042'), service('100042')])
    assert.equal((await laptop.create()).account_id, '100042')
    await laptop.kill()
    const ci = run(CI, [service('100043'), service('100043')])
    assert.equal((await ci.create()).account_id, '100042')
    assert.equal(ci.requests.length, 0, 'nothing is sent')
    assert.match(
      ci.warnings.join('\n'),
      /^Took over account 100042, sent by a stopped run under another identity: .*Idempotency-Key key-1, was answered with account 100042.*-backend-config/s,
    )
  })

  test('an account a killed run never handed over is named to every runner, and the warning says that any runner sharing the journal takes it over, not only the directory the run was in', async () => {
    await freshJournal()
    const laptop = run(LAPTOP, [service('100042'), service('100042')])
    assert.equal((await laptop.create()).account_id, '100042')
    await laptop.kill()
    const ci = run(CI, [])
    const notices = (await ci.client.settlement?.notices()) ?? []
    const detail = notices.find((n) => /Account 100042 was ordered by a run that was stopped/.test(n.summary))?.detail ?? ''
    assert.match(detail, /by a run from the runners sharing this order journal that was stopped/)
    assert.match(detail, /An apply of a resource with the same configuration, from the runners sharing this order journal, takes it over/)
    assert.doesNotMatch(detail, /this directory/)
  })

  test('taken over, it counts for CI: lost with the state CI handed it to, CI stops naming it; the laptop is not held back by it', async () => {
    await freshJournal()
    const laptop = run(LAPTOP, [service('100042'), service('100042')])
    await laptop.create()
    await laptop.kill()
    const ci = run(CI, [])
    await ci.create()
    await ci.finish() // handed to CI's terraform, killed before the state was saved
    await ci.kill()
    const ciAgain = run(CI, [echo([vmAccount('100042', 'web', '2026-01-01 00:00:00', 'Active')])])
    await assert.rejects(ciAgain.create(), (e: unknown) => e instanceof UnrecordedMatchError && e.candidates[0] === '100042')
    assert.equal(posts(ciAgain.requests).length, 0)
    const laptopAgain = run(LAPTOP, [service('100043'), service('100043')])
    assert.equal((await laptopAgain.create()).account_id, '100043')
    assert.deepEqual(laptopAgain.warnings, [])
  })

  test('sent on the laptop and never answered, its run killed: CI sends it again with the same key, once', async () => {
    await freshJournal()
    let stop: (() => void) | undefined
    const never = (r: RecordedRequest) =>
      new Promise<Response>((resolve) => {
        stop = () => resolve(echo({ ...ORDER })(r))
      })
    const laptop = run(LAPTOP, [service('100042'), never])
    const stranded = laptop.create().catch(() => undefined)
    for (let i = 0; stop === undefined && i < 400; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.ok(stop !== undefined, 'the laptop sent its order')
    await laptop.kill()
    const ci = run(CI, [service('100042'), service('100042')], { idempotencyKey: () => 'ci-key' })
    assert.equal((await ci.create()).account_id, '100042')
    assert.deepEqual(
      posts(ci.requests).map((r) => r.headers.get('idempotency-key')),
      ['key-1'],
      "the laptop's key: one order at the service",
    )
    assert.match(ci.warnings.join('\n'), /^Took over its order, sent by a stopped run under another identity: .*key-1 and saw no answer/s)
    stop?.()
    await stranded
  })

  test("CI's own order still held by its lingering provider is waited for, not replaced by the laptop's orphan (three accounts for two orders)", async () => {
    await freshJournal()
    // CI's first run: Terraform killed while its provider still waits for a slow answer (100043).
    let answer: (() => void) | undefined
    const slow = (r: RecordedRequest) =>
      new Promise<Response>((resolve) => {
        answer = () => resolve(echo({ ...ORDER, account_id: '100043' })(r))
      })
    const lingering = run(CI, [service('100043'), slow])
    const pending = lingering.create()
    for (let i = 0; answer === undefined && i < 400; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.ok(answer !== undefined, 'CI sent its order')
    // Meanwhile a laptop run of the same request: answered with 100042, killed before its engine got it.
    const laptop = run(LAPTOP, [service('100042'), service('100042')])
    assert.equal((await laptop.create()).account_id, '100042')
    await laptop.kill()
    // CI's re-run waits; meanwhile the lingering provider gets its answer and exits.
    const clock = fakeClock(Date.now())
    const sleep = async (ms: number) => {
      if (answer !== undefined) {
        const release = answer
        answer = undefined
        release()
        await pending
        await lingering.kill()
      }
      clock.advance(ms)
    }
    const again = run(CI, [], { sleep, now: clock.now })
    assert.equal((await again.create()).account_id, '100043', "CI's own order, not the laptop's")
    answer?.()
  })

  test("another state's order of another console password is not this state's: prod orders its own VM rather than take staging's, made with staging's password", async () => {
    await freshJournal()
    const staging = run(LAPTOP, [service('100042'), service('100042')])
    assert.equal((await staging.client.lites.createVm({ ...VM_BODY, console_password: 'StagingPass1' })).account_id, '100042')
    await staging.kill()
    const prod = run(CI, [service('100043'), service('100043')])
    assert.equal((await prod.client.lites.createVm({ ...VM_BODY, console_password: 'ProdPass2024' })).account_id, '100043')
    assert.deepEqual(prod.warnings, [])
  })

  test("CI's own create unanswered past its key's window is looked for first, not passed over for the laptop's orphan (its account would be named by nobody)", async () => {
    await freshJournal()
    const sentAt = Date.now() - 25 * 3_600_000
    // CI's first run, 25 hours ago: the order was sent, never answered, and the run was killed.
    let stop: (() => void) | undefined
    const never = (r: RecordedRequest) =>
      new Promise<Response>((resolve) => {
        stop = () => resolve(echo({ ...ORDER, account_id: '100041' })(r))
      })
    const first = run(CI, [service('100041'), never], { now: () => sentAt })
    const stranded = first.create().catch(() => undefined)
    for (let i = 0; stop === undefined && i < 400; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.ok(stop !== undefined, 'the first run sent its order')
    await first.kill()
    // The laptop, an hour ago: answered with 100042, killed before its engine got it.
    const laptop = run(LAPTOP, [service('100042'), service('100042')])
    assert.equal((await laptop.create()).account_id, '100042')
    await laptop.kill()
    // The service made 100041 for CI's first order.
    const made = new Date(sentAt + 60_000).toISOString().slice(0, 19).replace('T', ' ')
    const listing = echo([vmAccount('100041', 'web', made, 'Active'), vmAccount('100042', 'web', '2026-01-01 00:00:00', 'Active')])
    const again = run(CI, [listing, listing, service('100043'), service('100043')])
    const outcome = await again.create().then(
      (order) => `ordered ${order.account_id}`,
      (e: unknown) => `stopped: ${(e as Error).message}`,
    )
    assert.match(`${outcome} ${again.warnings.join(' ')}`, /100041/, `CI's own order's account is named: ${outcome}`)
    assert.notEqual(outcome, 'ordered 100042', "the laptop's orphan is not taken while CI's own order is unresolved")
    stop?.()
    await stranded
  })

  test('a table an earlier version made gets the request index on first use', async () => {
    await freshJournal()
    await admin.query(`SET search_path = ${schema};
      CREATE TABLE ${JOURNAL_TABLE} (id text PRIMARY KEY, fingerprint text NOT NULL, service text NOT NULL, account_id text,
        sent_at bigint NOT NULL, state text NOT NULL, owner_token text, entry jsonb NOT NULL);
      CREATE INDEX ${JOURNAL_TABLE}_fingerprint ON ${JOURNAL_TABLE} (fingerprint);
      CREATE INDEX ${JOURNAL_TABLE}_account_id ON ${JOURNAL_TABLE} (account_id);
      SET search_path = public;`)
    const { journal } = runner(`${server.url}?options=-csearch_path%3D${schema}`)
    await journal.claim({ fingerprints: ['none'], request: 'none' })
    const { rows } = await admin.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname', [schema])
    assert.ok(
      rows.some((r) => r.indexname === `${JOURNAL_TABLE}_request`),
      rows.map((r) => r.indexname).join(', '),
    )
  })
})

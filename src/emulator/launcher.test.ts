// Tests of the HTTP launcher (src/bin/emulator.ts) as a child process: its first line, the API over HTTP, the
// state file and the named snapshots beside it kept across a restart, and the chaos settings (seed, profile,
// real delays, a hang ended by the client), and the API keys with their customers (a bad one stops the start).
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { VM_BODY } from '../../test/support/emulator-client.js'
import { ownCustomer } from './customers.js'
import { createEmulator } from './index.js'
import { generateEd25519 } from './openssh.js'

const BIN = fileURLToPath(new URL('../bin/emulator.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'emulator-launcher-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/**
 * The launcher with `args`, run to its exit (one that starts anyway is killed after 5 s, and the test fails on
 * what it printed): its exit code and what it printed on each stream.
 */
async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, EMULATOR_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = once(child, 'exit')
  const stopper = setTimeout(() => child.kill('SIGKILL'), 5_000)
  const [code] = (await exited) as [number | null]
  clearTimeout(stopper)
  return { code, stdout, stderr }
}

async function launch(
  stateFile: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, '--clock', 'manual', '--state-file', stateFile, ...args], {
    env: { ...process.env, EMULATOR_PORT: '0', EMULATOR_API_KEYS: 'main-key,reader:ro', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  const [first] = (await once(lines, 'line')) as [string]
  return { child, base: first }
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const [code] = (await exited) as [number | null]
  return code
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-token': 'main-key', 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data: Record<string, unknown> } }
}

describe('HTTP launcher', () => {
  test('prints the base URL first, serves the API, and keeps state across a restart', async () => {
    const stateFile = join(dir, 'state.json')
    const first = await launch(stateFile)
    assert.match(first.base, /^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    const root = first.base.replace(/\/v1$/, '')
    assert.equal((await call(first.base, 'GET', '/lites/products', undefined, { 'x-token': 'reader' })).status, 200)
    assert.equal((await call(first.base, 'POST', '/lites/keypairs/', { name: 'k' }, { 'x-token': 'reader' })).status, 403)
    const key = await call(first.base, 'POST', '/lites/keypairs/', { name: 'persisted' })
    const keypairId = key.body.data.keypair_id
    const order = await call(
      first.base,
      'POST',
      '/lites',
      { ...VM_BODY, product_id: 101, keypair_id: keypairId },
      { 'Idempotency-Key': 'launch-1' },
    )
    assert.equal(order.status, 200)
    assert.equal(order.headers.get('idempotency-key'), 'launch-1')
    await call(root, 'POST', '/_emulator/clock', { advance_ms: 2000 })
    await call(root, 'POST', '/_emulator/faults', { path: '/lites/keypairs', mode: 'drop_after' })
    await assert.rejects(
      fetch(`${first.base}/lites/keypairs/`, { method: 'POST', headers: { 'x-token': 'main-key' }, body: '{"name":"dropped"}' }),
    )
    assert.equal(await stop(first.child), 0)
    assert.ok(existsSync(stateFile))
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'no temp file left behind',
    )

    const second = await launch(stateFile)
    try {
      const account = await call(second.base, 'GET', `/lites/accounts/${order.body.data.account_id}`)
      assert.equal(account.status, 200)
      assert.equal(account.body.data.status, 'Active')
      const keys = (await call(second.base, 'GET', '/lites/keypairs/')).body.data as unknown as { name: string }[]
      assert.deepEqual(
        keys.map((k) => k.name),
        ['persisted', 'dropped'],
      )
      const replay = await call(
        second.base,
        'POST',
        '/lites',
        { ...VM_BODY, product_id: 101, keypair_id: keypairId },
        { 'Idempotency-Key': 'launch-1' },
      )
      assert.equal(replay.headers.get('idempotency-replayed'), 'true')
      const next = await call(second.base, 'POST', '/lites/keypairs/', { name: 'after-restart' })
      assert.equal(next.body.data.keypair_id, 3)
      const orders = await call(second.base.replace(/\/v1$/, ''), 'GET', '/_emulator/orders')
      assert.equal(orders.body.data.total, 1)
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('every answered change is in the state file, even when the emulator is killed right after', async () => {
    const stateFile = join(dir, 'killed.json')
    const first = await launch(stateFile)
    // Forty creates, ten at a time as Terraform's parallelism sends them: changes finishing together share
    // a write, and no answer leaves before the write that holds its change.
    const names = Array.from({ length: 40 }, (_, i) => `kp-${i}`)
    for (let i = 0; i < names.length; i += 10) {
      const answers = await Promise.all(names.slice(i, i + 10).map((name) => call(first.base, 'POST', '/lites/keypairs/', { name })))
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(10).fill(200),
      )
    }
    const deleted = await call(first.base, 'DELETE', '/lites/keypairs/1')
    assert.equal(deleted.status, 200)
    const requests = (base: string) => call(base.replace(/\/v1$/, ''), 'GET', '/_emulator/requests').then((r) => r.body.data)
    const logged = await requests(first.base)
    const exited = once(first.child, 'exit')
    first.child.kill('SIGKILL')
    await exited

    const second = await launch(stateFile)
    try {
      // The request log, kept beside the state file, is whole again: the 41 changes, in arrival order.
      assert.equal((logged as unknown as unknown[]).length, 41)
      assert.deepEqual(await requests(second.base), logged)
      const keys = (await call(second.base, 'GET', '/lites/keypairs/')).body.data as unknown as { name: string }[]
      assert.deepEqual(keys.map((k) => k.name).sort(), names.slice(1).sort())
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('reads answered before a kill are in the log after the restart, and no X-Request-Id is given twice', async () => {
    const stateFile = join(dir, 'killed-reads.json')
    const first = await launch(stateFile)
    const ids = [(await call(first.base, 'POST', '/lites/keypairs/', { name: 'before-reads' })).headers.get('x-request-id')]
    for (let i = 0; i < 3; i++) ids.push((await call(first.base, 'GET', '/lites/products')).headers.get('x-request-id'))
    const exited = once(first.child, 'exit')
    first.child.kill('SIGKILL')
    await exited

    const second = await launch(stateFile)
    try {
      const next = (await call(second.base, 'GET', '/lites/products')).headers.get('x-request-id')
      assert.ok(next !== null && !ids.includes(next), `${next} after ${ids.join(', ')}`)
      const logged = (await call(second.base.replace(/\/v1$/, ''), 'GET', '/_emulator/requests')).body.data as unknown as { seq: number }[]
      assert.deepEqual(
        logged.map((e) => String(e.seq)),
        [...ids, next],
        'the three reads before the kill are kept',
      )
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('a read whose connection was dropped is in the log after a kill, and the rule it used up stays used up', async () => {
    const stateFile = join(dir, 'killed-dropped-read.json')
    const first = await launch(stateFile)
    const root = first.base.replace(/\/v1$/, '')
    await call(root, 'POST', '/_emulator/faults', { method: 'GET', path: '/lites/products', mode: 'drop_after' })
    await assert.rejects(fetch(`${first.base}/lites/products`, { headers: { 'x-token': 'main-key' } }))
    const exited = once(first.child, 'exit')
    first.child.kill('SIGKILL')
    await exited

    const second = await launch(stateFile)
    try {
      const logged = (await call(second.base.replace(/\/v1$/, ''), 'GET', '/_emulator/requests')).body.data as unknown as {
        seq: number
        fault_id: string | null
      }[]
      assert.deepEqual(
        logged.map((e) => [e.seq, e.fault_id]),
        [[1, 'f1']],
        'the dropped read is logged, as a dropped change is',
      )
      // The rule fired once, on a read: after the restart it does not drop the next read again.
      const again = await fetch(`${second.base}/lites/products`, { headers: { 'x-token': 'main-key' } })
      assert.equal(again.status, 200)
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('a manual clock resumes at its saved time after a restart: a Pending order stays Pending', async () => {
    const stateFile = join(dir, 'manual-clock.json')
    const first = await launch(stateFile)
    const root = (base: string) => base.replace(/\/v1$/, '')
    const clock = async (base: string) => String((await call(root(base), 'GET', '/_emulator/clock')).body.data.now)
    const key = await call(first.base, 'POST', '/lites/keypairs/', { name: 'k' })
    const order = await call(first.base, 'POST', '/lites', { ...VM_BODY, product_id: 101, keypair_id: key.body.data.keypair_id })
    await call(root(first.base), 'POST', '/_emulator/clock', { advance_ms: 1000 })
    assert.equal(await stop(first.child), 0)
    // The saved time put an hour behind the wall time, as after a long pause between runs.
    const shifted = JSON.parse(readFileSync(stateFile, 'utf8')) as { now: number; accounts: { activate_at: number | null }[] }
    const back = 3_600_000
    shifted.now -= back
    for (const account of shifted.accounts) if (account.activate_at !== null) account.activate_at -= back
    writeFileSync(stateFile, JSON.stringify(shifted))

    const second = await launch(stateFile)
    try {
      const now = await clock(second.base)
      assert.equal(Date.parse(`${now.replace(' ', 'T')}Z`), Math.floor(shifted.now / 1000) * 1000)
      const account = await call(second.base, 'GET', `/lites/accounts/${order.body.data.account_id}`)
      assert.equal(account.body.data.status, 'Pending')
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('a state file that cannot be written stops the start, naming it', async () => {
    const stateFile = join(dir, 'no-such-directory', 'state.json')
    const { code, stdout, stderr } = await runToExit(['--state-file', stateFile])
    assert.equal(stdout, '', 'no base URL: nothing is served')
    assert.notEqual(code, 0)
    assert.match(stderr, new RegExp(`--state-file ${stateFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written: ENOENT`))
  })

  test('a state file or a snapshots file that cannot be loaded stops the start, naming the file', async () => {
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    for (const [name, text] of [
      ['torn.json', '{"version": 1, "accounts": ['],
      ['null.json', 'null'],
      ['other.json', '{"something": "else"}'],
    ] as const) {
      const stateFile = join(dir, name)
      writeFileSync(stateFile, text)
      const { code, stdout, stderr } = await runToExit(['--state-file', stateFile])
      assert.equal(stdout, '', 'no base URL: nothing is served')
      assert.notEqual(code, 0)
      assert.match(stderr, new RegExp(`--state-file ${literal(stateFile)} cannot be loaded: `), `${name}: ${stderr}`)
      assert.doesNotMatch(stderr, /\n\s+at /, `a stack trace:\n${stderr}`)
    }
    const stateFile = join(dir, 'fresh.json')
    const snapshotsFile = join(dir, 'fresh.snapshots.json')
    writeFileSync(snapshotsFile, '{"version": 1, "snap')
    const { code, stdout, stderr } = await runToExit(['--state-file', stateFile])
    assert.equal(stdout, '')
    assert.notEqual(code, 0)
    assert.match(stderr, new RegExp(`${literal(snapshotsFile)} \\(the named snapshots beside --state-file\\) cannot be loaded: `), stderr)
  })

  test('a port that is not one stops the start with a message naming it', async () => {
    const { code, stderr } = await runToExit(['--port', 'abc'])
    assert.notEqual(code, 0)
    assert.match(stderr, /--port 'abc': the port must be an integer from 0 to 65535/)
  })

  // Served there, the emulator would print an address that its console cannot load in a browser and that
  // the provider's npm build cannot reach ("fetch refuses this port"), so a user learns it only from a plan.
  test('a port browsers and fetch refuse (6000) stops the start naming it and --port, before it prints an address', async () => {
    const { code, stdout, stderr } = await runToExit(['--port', '6000'])
    assert.notEqual(code, 0)
    assert.equal(stdout, '', 'no base URL is printed')
    assert.match(stderr, /--port 6000: browsers and fetch refuse to connect to port 6000.*pass another --port/s)
    await assert.rejects(fetch('http://127.0.0.1:6000/'), (e: Error) => (e.cause as Error | undefined)?.message === 'bad port')
  })

  test('answers as the in-process emulator answers: status, headers and body, errors and a byte order mark included', async () => {
    const { publicKey } = generateEd25519('parity')
    const inProcess = createEmulator({ clock: 'manual', apiKeys: ['main-key', 'reader:ro'] })
    const launched = await launch(join(dir, 'parity.json'))
    const root = launched.base.replace(/\/v1$/, '')
    const calls: [method: string, path: string, body?: string, headers?: Record<string, string>][] = [
      ['POST', '/v1/lites/keypairs/import', JSON.stringify({ name: 'a', public_key: publicKey })],
      ['POST', '/v1/lites/keypairs/import', JSON.stringify({ name: 'a', public_key: publicKey })],
      ['POST', '/v1/lites/keypairs/import', `\uFEFF${JSON.stringify({ name: 'b', public_key: publicKey })}`],
      ['POST', '/v1/lites/keypairs/import', 'not json'],
      ['POST', '/v1/lites/keypairs/import', JSON.stringify({ name: 'c', public_key: publicKey }), { 'x-token': 'reader' }],
      ['POST', '/v1/lites/keypairs/import', JSON.stringify({ name: 'd', public_key: publicKey }), { 'idempotency-key': 'parity-1' }],
      ['GET', '/v1/lites/keypairs/?extra=1'],
      ['PUT', '/v1/lites/keypairs/', '{}'],
      ['DELETE', '/v1/lites/keypairs/1'],
      ['DELETE', '/v1/lites/keypairs/1'],
      ['GET', '/v1/nowhere'],
      ['GET', '/_emulator/orders'],
    ]
    const seen = (answer: Response) =>
      answer.text().then((body) => ({
        status: answer.status,
        headers: Object.fromEntries(
          ['content-type', 'x-request-id', 'allow', 'idempotency-key'].map((name) => [name, answer.headers.get(name)]),
        ),
        body,
      }))
    try {
      for (const [method, path, body, headers] of calls) {
        const init = { method, headers: { 'x-token': 'main-key', 'content-type': 'application/json', ...headers }, body }
        const overHttp = await seen(await fetch(`${root}${path}`, init))
        const direct = await seen(await inProcess.fetch(new Request(`http://127.0.0.1${path}`, init)))
        assert.deepEqual(overHttp, direct, `${method} ${path}`)
      }
    } finally {
      assert.equal(await stop(launched.child), 0)
    }
  })

  test('keeps named snapshots beside the state file across a restart', async () => {
    const stateFile = join(dir, 'shelved.json')
    const first = await launch(stateFile)
    const root = first.base.replace(/\/v1$/, '')
    await call(first.base, 'POST', '/lites/keypairs/', { name: 'baseline-key' })
    const saved = await call(root, 'POST', '/_emulator/snapshots', { name: 'baseline' })
    assert.equal(saved.status, 200)
    await call(first.base, 'POST', '/lites/keypairs/', { name: 'later-key' })
    assert.equal(await stop(first.child), 0)
    const file = JSON.parse(readFileSync(join(dir, 'shelved.snapshots.json'), 'utf8'))
    assert.deepEqual(
      file.snapshots.map((s: { name: string; state: { version: number } }) => [s.name, s.state.version]),
      [['baseline', 1]],
    )

    const second = await launch(stateFile)
    try {
      const secondRoot = second.base.replace(/\/v1$/, '')
      const listed = await call(secondRoot, 'GET', '/_emulator/snapshots')
      assert.deepEqual(listed.body.data, [saved.body.data])
      assert.equal((await call(secondRoot, 'POST', '/_emulator/snapshots/baseline/restore')).status, 200)
      const keys = (await call(second.base, 'GET', '/lites/keypairs/')).body.data as unknown as { name: string }[]
      assert.deepEqual(
        keys.map((k) => k.name),
        ['baseline-key'],
      )
      assert.equal((await call(secondRoot, 'DELETE', '/_emulator/snapshots/baseline')).status, 200)
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'shelved.snapshots.json'), 'utf8')), { version: 1, snapshots: [] })
    } finally {
      assert.equal(await stop(second.child), 0)
    }
  })

  test('EMULATOR_SEED and EMULATOR_PROFILE: the remote profile delays in real time, and a hang ends when the client gives up', async () => {
    const { child, base } = await launch(join(dir, 'chaos.json'), { EMULATOR_SEED: '5', EMULATOR_PROFILE: 'remote' })
    const root = base.replace(/\/v1$/, '')
    try {
      assert.deepEqual((await call(root, 'GET', '/_emulator/seed')).body.data, { seed: 5, draws: 0 })
      assert.equal(((await call(root, 'GET', '/_emulator/faults')).body.data as unknown as unknown[]).length, 2)
      const started = performance.now()
      const products = await call(base, 'GET', '/lites/products')
      assert.ok(performance.now() - started >= 145, 'the profile adds 150 ms')
      assert.equal(products.status, 200)
      const [read] = (await call(root, 'GET', '/_emulator/requests')).body.data as unknown as { latency_ms: number }[]
      assert.ok(read !== undefined && read.latency_ms >= 150, `latency_ms ${read?.latency_ms}`)

      await call(root, 'DELETE', '/_emulator/faults')
      await call(root, 'POST', '/_emulator/faults', { method: 'POST', path: '/lites/keypairs', mode: 'hang' })
      await assert.rejects(
        fetch(`${base}/lites/keypairs/`, {
          method: 'POST',
          headers: { 'x-token': 'main-key' },
          body: '{"name":"hung"}',
          signal: AbortSignal.timeout(200),
        }),
      )
      // The server learns of the closed connection a moment later: a bounded wait for its log entry.
      let entries: { status: number | null; fault_id: string | null }[] = []
      for (let i = 0; i < 100 && entries.length < 2; i++) {
        entries = (await call(root, 'GET', '/_emulator/requests')).body.data as unknown as typeof entries
        if (entries.length < 2) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.deepEqual(
        entries.slice(1).map((e) => [e.status, e.fault_id]),
        [[null, 'f3']],
      )
      assert.deepEqual((await call(base, 'GET', '/lites/keypairs/')).body.data, [])
    } finally {
      assert.equal(await stop(child), 0)
    }
  })

  test('--api-keys takes the key syntax with customers; a bad key stops the start naming the option and the rule', async () => {
    const { child, base } = await launch(join(dir, 'customers.json'), {}, ['--api-keys', 'main-key@team,other-key,look:ro@team'])
    try {
      await call(base, 'POST', '/lites/keypairs/', { name: 'team-key' })
      const teamView = await call(base, 'GET', '/lites/keypairs/', undefined, { 'x-token': 'look' })
      assert.deepEqual(
        (teamView.body.data as unknown as { name: string }[]).map((k) => k.name),
        ['team-key'],
      )
      const otherView = await call(base, 'GET', '/lites/keypairs/', undefined, { 'x-token': 'other-key' })
      assert.deepEqual(otherView.body.data, [])
      const customers = await call(base.replace(/\/v1$/, ''), 'GET', '/_emulator/customers')
      assert.deepEqual(customers.body.data, [
        {
          customer: 'team',
          keys: [
            { key_masked: '…ey', scope: 'rw' },
            { key_masked: '…k', scope: 'ro' },
          ],
          accounts: 0,
        },
        { customer: ownCustomer('other-key'), keys: [{ key_masked: '…key', scope: 'rw' }], accounts: 0 },
      ])
    } finally {
      assert.equal(await stop(child), 0)
    }
    const bad = spawn(process.execPath, [BIN], {
      env: { ...process.env, EMULATOR_PORT: '0', EMULATOR_API_KEYS: 'fine,broken@no spaces' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    bad.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => bad.kill('SIGKILL'), 15_000)
    const [code] = (await once(bad, 'exit')) as [number | null]
    clearTimeout(timer)
    assert.notEqual(code, 0)
    assert.match(stderr, /EMULATOR_API_KEYS item 2: the customer after @ must be 1 to 64 characters of A-Z a-z 0-9 \. _ -/)
  })

  test("a state file written before customers loads: its objects are the first read-write key's customer's", async () => {
    const stateFile = join(dir, 'before-customers.json')
    copyFileSync(fileURLToPath(new URL('../../../src/emulator/fixtures/state-before-customers.json', import.meta.url)), stateFile)
    const { child, base } = await launch(stateFile)
    try {
      const accounts = await call(base, 'GET', '/lites/accounts')
      assert.deepEqual(
        (accounts.body.data as unknown as { account_id: number }[]).map((a) => a.account_id),
        [100001],
      )
      const customers = await call(base.replace(/\/v1$/, ''), 'GET', '/_emulator/customers')
      assert.deepEqual(
        (customers.body.data as unknown as { customer: string; accounts: number }[]).map((c) => [c.customer, c.accounts]),
        [[ownCustomer('main-key'), 2]],
      )
      assert.equal((await call(base, 'POST', '/lites/keypairs/', { name: 'new-key' })).status, 200)
    } finally {
      assert.equal(await stop(child), 0)
    }
    // Written back at the next change with every owner: the next start reads the new format.
    const written = JSON.parse(readFileSync(stateFile, 'utf8')) as { accounts: { customer: string }[]; keypairs: { customer: string }[] }
    assert.deepEqual(
      [...written.accounts, ...written.keypairs].map((a) => a.customer),
      Array(5).fill(ownCustomer('main-key')),
    )
  })

  // The README's quick start uses port 8080: a user who has something on it gets one line saying what to do,
  // not a stack trace (nor, from the release's executable, a page of minified source).
  test('a port in use stops the start with one line naming the port and --port, no stack trace', async () => {
    const { child, base } = await launch(join(dir, 'busy.json'))
    try {
      const port = new URL(base).port
      const { code, stderr } = await runToExit(['--port', port])
      assert.notEqual(code, 0)
      assert.match(stderr, new RegExp(`port ${port}.*(in use|--port)`))
      assert.doesNotMatch(stderr, /\n\s+at |node:events|Emitted 'error' event/, `a stack trace:\n${stderr}`)
    } finally {
      await stop(child)
    }
  })

  test('--help prints the flags, and an unknown flag says which and lists them, no stack trace', async () => {
    const unknown = await runToExit(['--prot', '8081'])
    assert.notEqual(unknown.code, 0)
    assert.match(unknown.stderr, /--prot/)
    assert.match(unknown.stderr, /--port/, 'the flags it takes are named')
    assert.doesNotMatch(unknown.stderr, /\n\s+at |ERR_PARSE_ARGS/, `a stack trace:\n${unknown.stderr}`)
    const help = await runToExit(['--help'])
    assert.equal(help.code, 0)
    assert.match(help.stdout, /--port/)
    assert.match(help.stdout, /web console .* is at http:\/\/127\.0\.0\.1:PORT\//, '--help says where the web console is')
  })
  test('a request that names the emulator by another host name (a page whose DNS name now points at 127.0.0.1) is refused; loopback names are served', async () => {
    const { child, base } = await launch(join(dir, 'hosts.json'))
    try {
      const { port } = new URL(base)
      const get = (host: string, path: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, 'x-token': 'main-key' } }, (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          req.on('error', reject)
          req.end()
        })
      for (const path of ['/_emulator/config', '/', '/v1/lites/keypairs/']) {
        assert.equal(await get(`rebound.example:${port}`, path), 403, path)
        for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
          assert.equal(await get(host, path), 200, `${host}${path}`)
      }
    } finally {
      await stop(child)
    }
  })
})

// In-process tests of latency and chaos rules: seeded probabilities, fixed and ranged delays on an injected
// timer (shown in the request log's latency_ms), globs, hangs, priorities, the `remote` profile and the seed
// control calls. Nothing waits in real time: the timer is a fake that records each sleep.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { TestClient } from '../../test/support/emulator-client.js'
import type { Timer } from './clock.js'
import { createEmulator, DroppedConnection, type EmulatorOptions } from './index.js'

interface FakeTimer extends Timer {
  readonly slept: number[]
}
/** Time moves only when the emulator sleeps, by exactly what it asked for. */
function fakeTimer(): FakeTimer {
  let now = 0
  const slept: number[] = []
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms)
      now += ms
    },
  }
}

interface LogEntry {
  path: string
  status: number | null
  fault_id: string | null
  latency_ms: number
}

const setup = (options: EmulatorOptions = {}) => {
  const timer = fakeTimer()
  const client = new TestClient(createEmulator({ clock: 'manual', startTime: Date.UTC(2025, 2, 1), timer, ...options }))
  return { c: client, timer }
}

/** Hit (503) or miss (200) of a probability-0.5 rule over `n` reads, as a string of 1s and 0s. */
async function halfChaos(seed: number, n = 40): Promise<string> {
  const { c } = setup({ seed })
  await c.control('POST', '/faults', { path: '/lites/products', status: 503, probability: 0.5, count: -1 })
  let hits = ''
  for (let i = 0; i < n; i++) hits += (await c.request('GET', '/v1/lites/products')).status === 503 ? '1' : '0'
  return hits
}

describe('seeded chaos', () => {
  test('a probability-0.5 rule gives the same hits in two fresh emulators with one seed, and others with another', async () => {
    const first = await halfChaos(42)
    assert.equal(await halfChaos(42), first)
    assert.notEqual(await halfChaos(43), first)
    assert.match(first, /1/, 'some requests are hit')
    assert.match(first, /0/, 'some are not')
  })

  test('POST /_emulator/seed restarts the sequence; reset comes back to the start-up seed', async () => {
    const { c } = setup({ seed: 7 })
    await c.control('POST', '/faults', { path: '/lites/products', status: 503, probability: 0.5, count: -1 })
    const run = async () => {
      let hits = ''
      for (let i = 0; i < 20; i++) hits += (await c.request('GET', '/v1/lites/products')).status === 503 ? '1' : '0'
      return hits
    }
    const first = await run()
    assert.deepEqual(await c.control('GET', '/seed'), { seed: 7, draws: 20 })
    assert.deepEqual(await c.control('POST', '/seed', { seed: 7 }), { seed: 7, draws: 0 })
    assert.equal(await run(), first)
    await c.control('POST', '/seed', { seed: 8 })
    await c.control('POST', '/reset')
    assert.deepEqual(await c.control('GET', '/seed'), { seed: 7, draws: 0 })
    assert.equal((await c.request('POST', '/_emulator/seed', { body: { seed: -1 } })).status, 422)
  })

  test('a miss leaves the request to the next rule and does not count; a hit counts down', async () => {
    const { c } = setup({ seed: 3 })
    await c.control('POST', '/faults', { path: '/lites/products', status: 503, probability: 0.5, count: 2 })
    await c.control('POST', '/faults', { path: '/lites/products', status: 429, count: -1 })
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await c.request('GET', '/v1/lites/products')).status)
    assert.equal(statuses.filter((s) => s === 503).length, 2)
    assert.equal(statuses.filter((s) => s === 429).length, 10)
    assert.equal((await c.control<{ remaining: number }[]>('GET', '/faults'))[0]?.remaining, 0)
  })
})

describe('latency', () => {
  test('a fixed delay is slept on the injected timer and shows in the log as latency_ms', async () => {
    const { c, timer } = setup()
    await c.control('POST', '/faults', { path: '/lites/*', mode: 'delay', delay_ms: 150, count: -1 })
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 200)
    assert.equal((await c.request('GET', '/v1/lites/keypairs')).status, 200)
    assert.equal((await c.request('GET', '/v1/lite-pros/products')).status, 200)
    assert.deepEqual(timer.slept, [150, 150])
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(
      log.map((e) => [e.path, e.latency_ms, e.fault_id]),
      [
        ['/v1/lites/products', 150, 'f1'],
        ['/v1/lites/keypairs', 150, 'f1'],
        ['/v1/lite-pros/products', 0, null],
      ],
    )
  })

  test('a [min, max] delay is drawn in its range, the same with the same seed', async () => {
    const run = async (seed: number) => {
      const { c, timer } = setup({ seed })
      await c.control('POST', '/faults', { path: '/**', mode: 'delay', delay_ms: [100, 300], count: -1 })
      for (let i = 0; i < 10; i++) await c.request('GET', '/v1/lites/products')
      return timer.slept
    }
    const first = await run(5)
    assert.equal(first.length, 10)
    assert.ok(first.every((ms) => ms >= 100 && ms <= 300 && Number.isInteger(ms)))
    assert.deepEqual(await run(5), first)
    assert.notDeepEqual(await run(6), first)
  })
})

describe('rule matching and validation', () => {
  test('** spans any number of segments; * inside a segment spans characters; method * is any', async () => {
    const { c } = setup()
    await c.control('POST', '/faults', { path: '/lite*/products', status: 500, count: -1 })
    await c.control('POST', '/faults', { method: 'DELETE', path: '/baremetals/**', status: 503, count: -1 })
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 500)
    assert.equal((await c.request('GET', '/v1/lite-pros/products')).status, 500)
    assert.equal((await c.request('GET', '/v1/lites/keypairs')).status, 200)
    assert.equal((await c.request('DELETE', '/v1/baremetals/keypairs/1')).status, 503)
    assert.equal((await c.request('DELETE', '/v1/baremetals/5')).status, 503)
    assert.notEqual((await c.request('GET', '/v1/baremetals/products')).status, 503)
  })

  test('a higher priority is tried first; probability and priority appear only when set', async () => {
    const { c } = setup()
    const plain = await c.control<Record<string, unknown>>('POST', '/faults', { path: '/lites/products', status: 500, count: -1 })
    assert.ok(!('probability' in plain) && !('priority' in plain))
    const urgent = await c.control<Record<string, unknown>>('POST', '/faults', {
      path: '/lites/products',
      status: 502,
      probability: 1,
      priority: 5,
    })
    assert.deepEqual([urgent.probability, urgent.priority], [1, 5])
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 502)
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 500)
  })

  test('bad chaos fields are refused with every reason; count null is forever', async () => {
    const { c } = setup()
    const bad = await c.request('POST', '/_emulator/faults', {
      body: { path: '/lites', status: 500, probability: 1.5, delay_ms: [300, 100], priority: 0.5 },
    })
    assert.equal(bad.status, 422)
    assert.deepEqual(
      (bad.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc[1]),
      ['delay_ms', 'probability', 'priority'],
    )
    const forever = await c.control<{ count: number }>('POST', '/faults', { path: '/lites', status: 500, count: null })
    assert.equal(forever.count, -1)
  })
})

describe('hangs', () => {
  test('hang answers nothing until the client gives up, processes nothing, and is logged with status null', async () => {
    const { c } = setup()
    await c.control('POST', '/faults', { method: 'POST', path: '/lites/keypairs', mode: 'hang' })
    const gone = new AbortController()
    const pending = c.emulator.fetch(
      new Request('http://emulator.invalid/v1/lites/keypairs', {
        method: 'POST',
        headers: { 'x-token': c.emulator.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'never' }),
        signal: gone.signal,
      }),
    )
    let settled = false
    pending.then(
      () => (settled = true),
      () => (settled = true),
    )
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(settled, false, 'still hanging')
    gone.abort()
    await assert.rejects(pending, DroppedConnection)
    assert.deepEqual(await c.ok('GET', '/lites/keypairs'), [])
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual([log[0]?.status, log[0]?.fault_id], [null, 'f1'])
  })

  test('hang_after processes the request and then hangs', async () => {
    const { c } = setup()
    await c.control('POST', '/faults', { method: 'POST', path: '/lites/keypairs', mode: 'hang_after' })
    const gone = new AbortController()
    gone.abort()
    const request = new Request('http://emulator.invalid/v1/lites/keypairs', {
      method: 'POST',
      headers: { 'x-token': c.emulator.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept' }),
      signal: gone.signal,
    })
    await assert.rejects(c.emulator.fetch(request), DroppedConnection)
    assert.deepEqual(
      (await c.ok<{ name: string }[]>('GET', '/lites/keypairs')).map((k) => k.name),
      ['kept'],
    )
  })
})

describe('the remote profile', () => {
  test('150 ms on every call and 1 % of calls processed but answered 502, repeatably', async () => {
    const run = async () => {
      const { c, timer } = setup({ profile: 'remote', seed: 11 })
      const statuses: number[] = []
      for (let i = 0; i < 300; i++) statuses.push((await c.request('POST', '/v1/lites/keypairs', { body: { name: `k${i}` } })).status)
      return { c, timer, statuses }
    }
    const { c, timer, statuses } = await run()
    assert.deepEqual(new Set(timer.slept), new Set([150]))
    assert.equal(timer.slept.length, 300)
    const failed = statuses.filter((s) => s === 502).length
    assert.ok(failed >= 1 && failed <= 10, `${failed} of 300 answered 502`)
    assert.equal(statuses.filter((s) => s === 200).length, 300 - failed)
    const log = await c.control<LogEntry[]>('GET', '/requests')
    assert.deepEqual(new Set(log.map((e) => e.latency_ms)), new Set([150]))
    assert.deepEqual(
      log.filter((e) => e.status === 502).map((e) => e.fault_id),
      Array(failed).fill('f1'),
    )
    await c.control('DELETE', '/faults')
    assert.equal((await c.ok<unknown[]>('GET', '/lites/keypairs')).length, 300, 'every call took effect, 502 or not')
    assert.deepEqual((await run()).statuses, statuses)
  })

  test('installed by the control API after the rules already there, which keep precedence; reset restores the start-up profile', async () => {
    const { c, timer } = setup({ profile: 'remote' })
    const installed = await c.control<{ fault_id: string }[]>('GET', '/faults')
    assert.deepEqual(
      installed.map((f) => f.fault_id),
      ['f1', 'f2'],
    )
    await c.control('POST', '/faults', { path: '/lites/products', status: 503 })
    assert.equal((await c.request('GET', '/v1/lites/products')).status, 503)
    assert.deepEqual(timer.slept, [], 'the newer rule of priority 0 applied, not the profile')
    await c.control('DELETE', '/faults')
    const again = await c.control<{ fault_id: string; priority: number }[]>('POST', '/profiles/remote')
    assert.deepEqual(
      again.map((f) => [f.fault_id, f.priority]),
      [
        ['f4', -1],
        ['f5', -1],
      ],
    )
    assert.equal((await c.request('POST', '/_emulator/profiles/nowhere')).status, 404)
    assert.deepEqual(Object.keys(await c.control('GET', '/profiles')), ['remote'])
    await c.control('POST', '/reset')
    assert.deepEqual(
      (await c.control<{ fault_id: string }[]>('GET', '/faults')).map((f) => f.fault_id),
      ['f1', 'f2'],
    )
  })

  test('an unknown profile or a bad seed is refused at start', () => {
    assert.throws(() => createEmulator({ profile: 'nowhere' }), /unknown profile 'nowhere'/)
    assert.throws(() => createEmulator({ seed: -1 }), /seed must be an integer/)
  })
})

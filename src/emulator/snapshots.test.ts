// In-process tests of named snapshots (/_emulator/snapshots): save, change, restore exactly; the listing;
// delete; the name rule (422) and unknown names (404); the keeper hook the launcher persists through, and
// snapshots of an earlier state format.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator, type EmulatorOptions, type SnapshotFile } from './index.js'
import { DELAY, TestClient } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 2, 1, 9, 15, 2)
const setup = (options: EmulatorOptions = {}) => new TestClient(createEmulator({ clock: 'manual', startTime: START, ...options }))

interface Summary {
  name: string
  saved_at: string
  accounts: number
  keypairs: number
  orders: number
}

/** The whole state but the clock, which a restore never moves back. */
const withoutNow = (state: unknown) => {
  const { now: _now, ...rest } = state as { now: number }
  return rest
}

describe('named snapshots', () => {
  test('save, change, then restore gives back the accounts, ids and sequences exactly', async () => {
    const c = setup()
    const vm = await c.vm()
    const account = await c.ok('GET', `/lites/accounts/${vm}`)
    const saved = c.emulator.snapshot()
    const summary = await c.control<Summary>('POST', '/snapshots', { name: 'baseline' })
    assert.deepEqual(summary, { name: 'baseline', saved_at: '2025-03-01 09:15:04', accounts: 1, keypairs: 1, orders: 1 })

    // Change everything a snapshot holds: a new order and keypair, drift, a fault, the config, the clock.
    const later = await c.vm()
    await c.control('PATCH', `/accounts/${vm}`, { description: 'changed out of band' })
    await c.control('POST', '/faults', { path: '/lites', status: 503 })
    await c.control('PATCH', '/config', { provisioning_delay_ms: 5 })
    const before = c.emulator.now()

    assert.deepEqual(await c.control<Summary>('POST', '/snapshots/baseline/restore'), summary)
    assert.deepEqual(withoutNow(c.emulator.snapshot()), withoutNow(saved))
    assert.equal(c.emulator.now(), before, 'the clock never moves back')
    assert.deepEqual(await c.ok('GET', `/lites/accounts/${vm}`), account, 'the drift is undone')
    assert.equal((await c.request('GET', `/v1/lites/accounts/${later}`)).status, 404)
    assert.equal(await c.vm(), later, 'the sequences come back too: the next order gets the same id again')
  })

  test('lists by name with the emulator clock and counts; a save under a taken name replaces it; reset keeps them', async () => {
    const c = setup()
    assert.deepEqual(await c.control('GET', '/snapshots'), [])
    await c.control('POST', '/snapshots', { name: 'empty' })
    await c.keypair()
    await c.advance(60_000)
    await c.control('POST', '/snapshots', { name: 'b.with-key_1' })
    await c.control('POST', '/snapshots', { name: 'a' })
    await c.control('POST', '/reset')
    const list = await c.control<Summary[]>('GET', '/snapshots')
    assert.deepEqual(list, [
      { name: 'a', saved_at: '2025-03-01 09:16:02', accounts: 0, keypairs: 1, orders: 0 },
      { name: 'b.with-key_1', saved_at: '2025-03-01 09:16:02', accounts: 0, keypairs: 1, orders: 0 },
      { name: 'empty', saved_at: '2025-03-01 09:15:02', accounts: 0, keypairs: 0, orders: 0 },
    ])
    assert.deepEqual(await c.control('GET', '/snapshots/empty'), list[2])
    await c.control('POST', '/snapshots', { name: 'a' })
    assert.equal((await c.control<Summary>('GET', '/snapshots/a')).keypairs, 0, 'saved again after the reset')
  })

  test('delete forgets one; unknown names answer 404 everywhere', async () => {
    const c = setup()
    await c.control('POST', '/snapshots', { name: 'gone' })
    await c.control('POST', '/snapshots', { name: 'kept' })
    assert.equal(await c.control('DELETE', '/snapshots/gone'), true)
    assert.deepEqual(
      (await c.control<Summary[]>('GET', '/snapshots')).map((s) => s.name),
      ['kept'],
    )
    for (const [method, path] of [
      ['POST', '/snapshots/gone/restore'],
      ['DELETE', '/snapshots/gone'],
      ['GET', '/snapshots/gone'],
    ] as const) {
      const reply = await c.request(method, `/_emulator${path}`)
      assert.deepEqual([reply.status, (reply.body as { detail: string }).detail], [404, 'snapshot gone not found'], path)
    }
  })

  test('bad names answer 422 naming the field and the rule, and change nothing', async () => {
    const c = setup()
    const cases: [unknown, string, string][] = [
      [undefined, 'field required', 'missing'],
      [7, 'must be a string', 'type_error'],
      ['', 'must not be empty', 'value_error'],
      ['x'.repeat(65), 'must be at most 64 characters', 'value_error'],
      ['with space', 'may only hold the characters A-Z a-z 0-9 . _ -', 'value_error'],
      ['a/b', 'may only hold the characters A-Z a-z 0-9 . _ -', 'value_error'],
    ]
    for (const [name, msg, type] of cases) {
      const reply = await c.request('POST', '/_emulator/snapshots', { body: name === undefined ? {} : { name } })
      assert.equal(reply.status, 422, String(name))
      assert.deepEqual((reply.body as { detail: unknown }).detail, [{ loc: ['body', 'name'], msg, type }])
    }
    assert.equal((await c.request('POST', '/_emulator/snapshots', { raw: '[1]' })).status, 422)
    assert.equal((await c.control<Summary>('POST', '/snapshots', { name: 'x'.repeat(64) })).name.length, 64)
    for (const [method, path] of [
      ['POST', '/snapshots/bad%20name/restore'],
      ['DELETE', '/snapshots/bad%20name'],
      ['GET', '/snapshots/bad%20name'],
    ] as const) {
      const reply = await c.request(method, `/_emulator${path}`)
      assert.equal(reply.status, 422, path)
      assert.deepEqual((reply.body as { detail: { loc: string[] }[] }).detail[0]?.loc, ['path', 'name'])
    }
    assert.deepEqual(
      (await c.control<Summary[]>('GET', '/snapshots')).map((s) => s.name.length),
      [64],
    )
  })
})

describe('keeping named snapshots', () => {
  test('the keeper sees the whole shelf, each entry the same JSON as snapshot(); one that throws changes nothing', async () => {
    const files: SnapshotFile[] = []
    let failing = false
    const c = setup({
      keepSnapshots: (file) => {
        if (failing) throw new Error('disk full')
        files.push(structuredClone(file))
      },
    })
    await c.keypair()
    await c.control('POST', '/snapshots', { name: 'one' })
    assert.deepEqual(files.at(-1), { version: 1, snapshots: [{ name: 'one', state: c.emulator.snapshot() }] })
    failing = true
    const reply = await c.request('POST', '/_emulator/snapshots', { body: { name: 'two' } })
    assert.equal(reply.status, 500)
    assert.equal((await c.request('DELETE', '/_emulator/snapshots/one')).status, 500)
    assert.deepEqual(
      (await c.control<Summary[]>('GET', '/snapshots')).map((s) => s.name),
      ['one'],
    )
    failing = false
    await c.control('DELETE', '/snapshots/one')
    assert.deepEqual(files.at(-1), { version: 1, snapshots: [] })
  })

  test('a shelf read back at start restores, state files of an earlier format included; a malformed one is refused', async () => {
    const first = setup()
    await first.keypair()
    const old = first.emulator.snapshot() as { seq: Record<string, number> }
    // A state file written before the account sequence existed: it starts afresh on restore.
    delete old.seq.account
    const c = setup({ snapshots: { version: 1, snapshots: [{ name: 'old', state: old }] } })
    assert.deepEqual(await c.control('GET', '/snapshots'), [
      { name: 'old', saved_at: '2025-03-01 09:15:02', accounts: 0, keypairs: 1, orders: 0 },
    ])
    await c.control('POST', '/snapshots/old/restore')
    assert.equal((await c.ok<unknown[]>('GET', '/lites/keypairs/')).length, 1)
    assert.equal(await c.keypair('/lites', 'second'), 2)
    assert.equal(await c.vm(), 100001, 'the missing sequence starts from its first value')

    assert.throws(() => setup({ snapshots: { version: 2, snapshots: [] } }), /not an emulator snapshots file/)
    assert.throws(() => setup({ snapshots: { version: 1, snapshots: [{ name: 'a b', state: old }] } }), /"a b"/)
    assert.throws(() => setup({ snapshots: { version: 1, snapshots: [{ name: 'x', state: {} }] } }), /"x"/)
  })

  test('a restore never moves the clock back, and pending work due by now completes', async () => {
    const c = setup()
    const vm = await c.vm({ active: false })
    await c.control('POST', '/snapshots', { name: 'pending' })
    await c.advance(10 * DELAY)
    const now = c.emulator.now()
    await c.control('POST', '/snapshots/pending/restore')
    assert.equal(c.emulator.now(), now)
    assert.equal((await c.ok<{ status: string }>('GET', `/lites/accounts/${vm}`)).status, 'Active')
  })
})

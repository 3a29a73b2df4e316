// The Pulumi plugin driven as the engine drives it, issue 8 case 6 and its neighbours (faults i to m of
// test/faults/matrix.ts): SIGTERM to the plugin, the engine SIGKILLed (the plugin orphaned), the plugin
// SIGKILLed, each during a create's wait, then `up` again with a new plugin from the same stack
// (same URN, same inputs, same journal); and an order slower than requestTimeout, and a key-ignoring
// service answering 502 after the order. Counts orders placed/intended and accounts ordered/managed.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/names.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { Emulator } from '../e2e/harness.js'
import { initFailure, Plugin, type RpcError, startFakeEngine, urnOf } from '../pulumi-harness.js'
import { childrenOf, exitOf } from './exactly-once-cells.js'
import { byKind, CREATE_KEYS, type Fault, faultsOf, freshEmulator, type Inputs, lostIds, OPERATIONS, orderPlaced, sleep } from './matrix.js'
import { type CellRow, Report } from './report.js'

const camel = (inputs: Inputs): WireMap => Object.fromEntries(Object.entries(inputs).map(([k, v]) => [toCamel(k), v]))
const report = new Report('pulumi-exactly-once')
const operations = OPERATIONS.filter((op) => CREATE_KEYS.includes(op.key))

describe('exactly-once through the Pulumi plugin: i to m', { concurrency: 1 }, () => {
  let em: Emulator
  let engine: Awaited<ReturnType<typeof startFakeEngine>>
  before(async () => {
    em = await Emulator.start({ provisioningDelayMs: 200 })
    engine = await startFakeEngine()
  })
  after(async () => {
    engine?.stop()
    await em?.stop()
  })

  async function plugin(journal: string, viaShell = false, requestTimeout?: string): Promise<Plugin> {
    const launched = await Plugin.launch(engine.address, { PROVIDER_ORDER_JOURNAL: journal }, { viaShell })
    await launched.configure({ apiKey: em.apiKey, baseUrl: em.baseUrl, pollInterval: '100ms', ...(requestTimeout ? { requestTimeout } : {}) })
    return launched
  }

  /** Faults l and m: no kill, the order itself is slow or answered 502 by a key-ignoring service; one `up`. */
  async function serviceCell(op: (typeof operations)[number], fault: Fault): Promise<void> {
    await freshEmulator(em, fault.provisioningDelayMs)
    await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: fault.ignoresKeys === true } })
    const journal = await mkdtemp(join(tmpdir(), 'pulumi-orders-'))
    try {
      const ids = await op.setup(em)
      const seen = (await em.orders()).orders.length
      const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')
      const launched = await plugin(journal, false, fault.requestTimeout)
      let id: string
      try {
        for (const rule of fault.rules?.(op) ?? []) await em.control('POST', '/faults', rule)
        const created = await launched.create(urn, (await launched.check(urn, camel(op.inputs(ids)))).inputs)
        assert.equal(created.properties.status, 'Active')
        id = created.id
      } finally {
        await launched.stop()
        await em.control('DELETE', '/faults')
        await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: false } })
      }
      const orders = (await em.orders()).orders.slice(seen)
      const placed = byKind(orders)
      const intended = { [op.kind]: 1 }
      const lost = await lostIds(em, orders.map((o) => o.account_id), new Set([id]), '')
      const ok = JSON.stringify(placed) === JSON.stringify(intended) && lost.length === 0
      report.add({ kind: 'cell', front: 'pulumi', op: op.key, fault: fault.key, intended, placed, lost, outcome: 'ok', converged: true, status: ok ? 'pass' : 'fail' })
      assert.deepEqual(placed, intended, 'orders placed vs intended')
      assert.deepEqual(lost, [], 'accounts ordered but not managed')
    } finally {
      await rm(journal, { recursive: true, force: true })
    }
  }

  async function cell(op: (typeof operations)[number], fault: Fault): Promise<void> {
    await freshEmulator(em, fault.provisioningDelayMs)
    const journal = await mkdtemp(join(tmpdir(), 'pulumi-orders-'))
    try {
      const ids = await op.setup(em)
      const seen = (await em.orders()).orders.length
      const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')
      const program = camel(op.inputs(ids))

      const first = await plugin(journal, fault.trigger === 'kill-engine')
      const inputs = (await first.check(urn, program)).inputs
      const creating = first.create(urn, inputs).then(
        (created) => ({ id: created.id, properties: created.properties, initErrors: false }),
        (error: RpcError) => {
          const failure = initFailure(error)
          return failure ? { id: failure.id, properties: failure.properties, initErrors: true } : null
        },
      )
      await orderPlaced(em, op.kind, seen)
      await sleep(300)
      let note = ''
      if (fault.trigger === 'sigterm') first.child.kill('SIGTERM')
      else if (fault.trigger === 'kill-provider') first.child.kill('SIGKILL')
      else {
        const orphan = childrenOf(first.child.pid ?? 0)[0]
        assert.ok(orphan, 'the plugin under the stand-in engine was found')
        first.child.kill('SIGKILL')
        const exitMs = await exitOf(orphan)
        assert.ok(exitMs >= 0, 'the plugin outlived its engine')
        note = `orphaned plugin exited after ${exitMs} ms`
      }
      const saved = await creating
      await first.stop()

      // `up` again from the same stack: what the engine saved (an init failure after SIGTERM), or nothing.
      const second = await plugin(journal)
      let managed: string
      try {
        const checked = (await second.check(urn, program, inputs)).inputs
        if (saved?.initErrors) {
          const updated = await second.update(urn, saved.id, saved.properties, inputs, checked)
          assert.equal(updated.properties.status, 'Active')
          managed = saved.id
        } else {
          const created = await second.create(urn, checked)
          assert.equal(created.properties.status, 'Active')
          managed = created.id
        }
      } finally {
        await second.stop()
      }
      const orders = (await em.orders()).orders.slice(seen)
      const placed = byKind(orders)
      const intended = { [op.kind]: 1 }
      const lost = await lostIds(
        em,
        orders.map((o) => o.account_id),
        new Set([managed]),
        '',
      )
      const row: CellRow = {
        kind: 'cell',
        front: 'pulumi',
        op: op.key,
        fault: fault.key,
        intended,
        placed,
        lost,
        outcome: saved === null ? 'lost with the plugin' : saved.initErrors ? 'kept (ErrorResourceInitFailed)' : 'ok',
        converged: true,
        status: JSON.stringify(placed) === JSON.stringify(intended) && lost.length === 0 ? 'pass' : 'fail',
        ...(note ? { note } : {}),
      }
      report.add(row)
      assert.deepEqual(placed, intended, 'orders placed vs intended')
      assert.deepEqual(lost, [], 'accounts ordered but not managed')
    } finally {
      await rm(journal, { recursive: true, force: true })
    }
  }

  for (const fault of faultsOf('ijklm')) {
    for (const op of operations) {
      test(`${op.title} × ${fault.title}`, { timeout: 90_000 }, () => (fault.trigger ? cell(op, fault) : serviceCell(op, fault)))
    }
  }
})

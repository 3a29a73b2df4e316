// Runs fault-matrix cells through the built Pulumi plugin, driven over gRPC in the engine's call
// sequences: Check then Create (or Read-as-import, Check, Diff, Update for an upgrade) with the
// fault; then the re-run the engine makes for a resource with init errors: Read (refresh), Check,
// Diff and Update with the saved outputs; then a Diff that must say "none".
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/names.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { Emulator } from '../e2e/harness.js'
import { initFailure, Plugin, type RpcError, startFakeEngine, urnOf } from '../pulumi-harness.js'
import {
  byKind,
  type Fault,
  freshEmulator,
  type Inputs,
  intendedOrders,
  lostIds,
  OPERATIONS,
  type Operation,
  orderPlaced,
  sleep,
} from './matrix.js'
import { type CellRow, Report } from './report.js'
import { selected } from './terraform-cells.js'

interface Lane {
  em: Emulator
  plugin: Plugin
  stopEngine(): void
}

interface Saved {
  id: string
  properties: WireMap
  inputs: WireMap
  initErrors: boolean
}

const camel = (inputs: Inputs): WireMap => Object.fromEntries(Object.entries(inputs).map(([k, v]) => [toCamel(k), v]))

async function launch(): Promise<Lane> {
  const em = await Emulator.start({ provisioningDelayMs: 200 })
  const engine = await startFakeEngine()
  const plugin = await Plugin.launch(engine.address)
  await plugin.configure({ apiKey: em.apiKey, baseUrl: em.baseUrl, pollInterval: '100ms' })
  return { em, plugin, stopEngine: engine.stop }
}

/** Check, then Create or Diff+Update, as the engine's `up` does; an init failure is saved as the engine saves it. */
async function up(
  plugin: Plugin,
  urn: string,
  program: WireMap,
  saved: Saved | null,
  timeout: number | undefined,
): Promise<{ saved: Saved | null; outcome: string; message: string }> {
  const checked = await plugin.check(urn, program, saved?.inputs ?? {})
  assert.deepEqual(checked.failures, [], 'Check refused the inputs')
  try {
    if (saved === null) {
      const created = await plugin.create(urn, checked.inputs, { timeout })
      return { saved: { id: created.id, properties: created.properties, inputs: checked.inputs, initErrors: false }, outcome: 'ok', message: '' }
    }
    const diff = await plugin.diff(urn, saved.id, saved.properties, saved.inputs, checked.inputs)
    // A resource with init errors is always updated by the engine, changes or not.
    if (diff.changes !== 'some' && !saved.initErrors) return { saved, outcome: 'ok', message: '' }
    const updated = await plugin.update(urn, saved.id, saved.properties, saved.inputs, checked.inputs, { timeout })
    return { saved: { ...saved, properties: updated.properties, inputs: checked.inputs, initErrors: false }, outcome: 'ok', message: '' }
  } catch (thrown) {
    const error = thrown as RpcError
    const failure = initFailure(error)
    if (failure) {
      return {
        saved: { id: failure.id, properties: failure.properties, inputs: checked.inputs, initErrors: true },
        outcome: 'kept (ErrorResourceInitFailed)',
        message: `${error.details}\n${failure.reasons.join('\n')}`,
      }
    }
    // A plain failure: the engine keeps what it had (nothing, for a create).
    return { saved, outcome: `error (code ${error.code})`, message: error.details ?? String(thrown) }
  }
}

export async function pulumiCell(lane: Lane, op: Operation, fault: Fault, report: Report): Promise<void> {
  const { em, plugin } = lane
  await freshEmulator(em, fault.provisioningDelayMs)
  const ids = await op.setup(em)
  const seen = (await em.orders()).orders.length
  const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')
  let saved: Saved | null = null
  let program = camel({ ...op.inputs(ids), ...(op.change ?? {}) })
  if (op.existing) {
    const id = String(op.existing(ids))
    const imported = await plugin.read(urn, id)
    assert.equal(imported.id, id, 'the import found the account')
    saved = { id, properties: imported.properties, inputs: imported.inputs, initErrors: false }
    program = { ...imported.inputs, ...camel(op.change ?? {}) }
  }
  for (const rule of fault.rules?.(op) ?? []) await em.control('POST', '/faults', rule)
  const timeout = fault.timeout ? 1 : undefined
  const watched = fault.trigger
    ? orderPlaced(em, op.kind, seen).then(async (accountId) => {
        if (fault.trigger === 'terminate') await em.control('POST', `/accounts/${accountId}/status`, { status: 'Terminated' })
        else {
          await sleep(150)
          await plugin.cancel()
        }
      })
    : Promise.resolve()
  const [first] = await Promise.all([up(plugin, urn, program, saved, timeout), watched])
  await em.control('DELETE', '/faults')
  const firstOrders = (await em.orders()).orders.slice(seen)
  const touched = [...firstOrders.map((o) => o.account_id), ...(op.existing ? [String(op.existing(ids))] : [])]
  const kept = new Set(first.saved ? [first.saved.id] : [])
  const lostAfterFault = await lostIds(em, touched, kept, first.message)

  // The re-run: a refresh (Read) of what the engine saved, then `up` again; the same customTimeouts,
  // a moment later (the user re-runs after the timeout; the provisioning delay is 2 s).
  if (fault.timeout) await sleep(1000)
  saved = first.saved
  if (saved) {
    const refreshed = await plugin.read(urn, saved.id, saved.properties, saved.inputs)
    saved = refreshed.id === '' ? null : { ...saved, id: refreshed.id, properties: refreshed.properties }
  }
  const again = await up(plugin, urn, program, saved, timeout)
  let converged = false
  let finalText = ''
  if (again.saved && !again.saved.initErrors) {
    const checked = await plugin.check(urn, program, again.saved.inputs)
    const diff = await plugin.diff(urn, again.saved.id, again.saved.properties, again.saved.inputs, checked.inputs)
    converged = diff.changes === 'none'
    finalText = JSON.stringify(diff)
  }
  const allOrders = (await em.orders()).orders.slice(seen)
  const lostAfterRerun = await lostIds(em, allOrders.map((o) => o.account_id), new Set(again.saved ? [again.saved.id] : []), again.message)
  const placed = byKind(allOrders)
  const intended = intendedOrders(op, fault)
  const lost = [...new Set([...lostAfterFault, ...lostAfterRerun])]
  const same = JSON.stringify(sorted(placed)) === JSON.stringify(sorted(intended))
  const row: CellRow = {
    kind: 'cell',
    front: 'pulumi',
    op: op.key,
    fault: fault.key,
    intended,
    placed,
    lost,
    outcome: first.outcome,
    converged,
    status: converged && lost.length === 0 && same && again.outcome === 'ok' ? 'pass' : 'fail',
  }
  report.add(row)
  const context = `faulted: ${first.outcome} ${first.message}\nre-run: ${again.outcome} ${again.message}\nfinal diff: ${finalText}`
  assert.deepEqual(sorted(placed), sorted(intended), `orders placed vs intended\n${context}`)
  assert.deepEqual(lost, [], `ids lost\n${context}`)
  assert.equal(again.outcome, 'ok', `the re-run failed\n${context}`)
  assert.ok(converged, `the diff after the re-run is not empty\n${context}`)
}

function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)))
}

export function pulumiMatrix(part: string, faults: readonly Fault[], lanes = 2, operations: readonly Operation[] = OPERATIONS): void {
  const report = new Report(part)
  describe(`fault matrix through the Pulumi plugin: ${faults.map((f) => f.title).join(', ')}`, { concurrency: lanes }, () => {
    const free: Lane[] = []
    const waiting: ((lane: Lane) => void)[] = []
    const all: Lane[] = []
    before(async () => {
      for (let i = 0; i < lanes; i++) {
        const lane = await launch()
        all.push(lane)
        free.push(lane)
      }
    })
    after(async () => {
      for (const lane of all) {
        await lane.plugin.stop()
        lane.stopEngine()
        await lane.em.stop()
      }
    })
    const take = () => new Promise<Lane>((ok) => (free.length > 0 ? ok(free.pop() as Lane) : waiting.push(ok)))
    const give = (lane: Lane) => {
      const next = waiting.shift()
      if (next) next(lane)
      else free.push(lane)
    }
    for (const fault of faults) {
      for (const op of selected(operations)) {
        test(`${op.title} × ${fault.title}`, { timeout: 60_000 }, async () => {
          const lane = await take()
          try {
            await pulumiCell(lane, op, fault, report)
          } finally {
            give(lane)
          }
        })
      }
    }
  })
}

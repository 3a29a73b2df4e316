// Runs fault-matrix cells through the built Pulumi plugin under the engine's rules (EngineModel):
// `pulumi up` (or `pulumi import` then `up` for an upgrade) with the fault, saving what the engine
// saves; then `pulumi refresh` (which clears init errors) and `up` again; then a preview that must
// be a Same step.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../../src/core/names.js'
import type { WireMap } from '../../../src/pulumi/wire.js'
import { Emulator } from '../e2e/harness.js'
import { EngineModel, initFailure, Plugin, ROOT, replaceOnChangesOf, type Saved, startFakeEngine, urnOf } from '../pulumi/plugin-harness.js'
import {
  byKind,
  type Fault,
  freshEmulator,
  type Inputs,
  intendedOrders,
  LanePool,
  lostIds,
  OPERATIONS,
  type Operation,
  orderPlaced,
  sleep,
} from './matrix.js'
import { Report, recordCell } from './report.js'
import { selected } from './terraform-cells.js'

interface Lane {
  em: Emulator
  plugin: Plugin
  model: EngineModel
  stopEngine(): void
}

const camel = (inputs: Inputs): WireMap => Object.fromEntries(Object.entries(inputs).map(([k, v]) => [toCamel(k), v]))
const REPLACE_ON_CHANGES = replaceOnChangesOf(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8'))

async function launch(): Promise<Lane> {
  const em = await Emulator.start({ provisioningDelayMs: 200 })
  const engine = await startFakeEngine()
  const plugin = await Plugin.launch(engine.address)
  await plugin.configure({ apiKey: em.apiKey, baseUrl: em.baseUrl, pollInterval: '100ms' })
  return { em, plugin, model: new EngineModel(plugin, REPLACE_ON_CHANGES), stopEngine: engine.stop }
}

async function close(lane: Lane): Promise<void> {
  await lane.plugin.stop()
  lane.stopEngine()
  await lane.em.stop()
}

/** One `pulumi up` of the resource under the engine's rules, as an outcome for the report. */
async function up(model: EngineModel, urn: string, program: WireMap, saved: Saved | null, timeout: number | undefined) {
  const result = await model.up(urn, program, saved, { timeout })
  const failure = result.error ? initFailure(result.error) : null
  const outcome = !result.error ? `ok (${result.op})` : failure ? 'kept (ErrorResourceInitFailed)' : `error (code ${result.error.code})`
  const message = result.error ? [result.error.details, ...(failure?.reasons ?? [])].join('\n') : ''
  return { saved: result.saved, outcome, message, ok: !result.error }
}

export async function pulumiCell(lane: Lane, op: Operation, fault: Fault, report: Report): Promise<void> {
  const { em, plugin, model } = lane
  await freshEmulator(em, fault.provisioningDelayMs)
  const ids = await op.setup(em)
  const seen = (await em.orders()).orders.length
  const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')
  let saved: Saved | null = null
  let program = camel({ ...op.inputs(ids), ...(op.change ?? {}) })
  if (op.existing) {
    const id = String(op.existing(ids))
    const adopted = await model.import(urn, id)
    saved = adopted
    assert.equal(saved.id, id, 'the import found the account')
    program = { ...adopted.program, ...camel(op.change ?? {}) }
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
  const [first] = await Promise.all([up(model, urn, program, saved, timeout), watched])
  await em.control('DELETE', '/faults')
  const firstOrders = (await em.orders()).orders.slice(seen)
  const touched = [...firstOrders.map((o) => o.account_id), ...(op.existing ? [String(op.existing(ids))] : [])]
  const kept = new Set(first.saved ? [first.saved.id] : [])
  const lostAfterFault = await lostIds(em, touched, kept, first.message)

  // The re-run: `pulumi refresh` of what the engine saved (which clears its init errors), then `up`
  // again; the same customTimeouts, a moment later (the user re-runs after the timeout).
  if (fault.timeout) await sleep(1000)
  saved = first.saved
  if (saved) saved = (await model.refresh(urn, saved)).saved
  const again = await up(model, urn, program, saved, timeout)
  let converged = false
  let finalText = ''
  if (again.saved && again.saved.initErrors.length === 0) {
    const next = await model.up(urn, program, again.saved, { preview: true })
    converged = next.op === 'same'
    finalText = JSON.stringify(next.diff)
  }
  const allOrders = (await em.orders()).orders.slice(seen)
  const lostAfterRerun = await lostIds(
    em,
    allOrders.map((o) => o.account_id),
    new Set(again.saved ? [again.saved.id] : []),
    again.message,
  )
  const context = `faulted: ${first.outcome} ${first.message}\nre-run: ${again.outcome} ${again.message}\nfinal diff: ${finalText}`
  recordCell(
    report,
    {
      front: 'pulumi',
      op: op.key,
      fault: fault.key,
      intended: intendedOrders(op, fault),
      placed: byKind(allOrders),
      lost: [...new Set([...lostAfterFault, ...lostAfterRerun])],
      outcome: first.outcome,
      converged,
      rerunOk: again.ok,
    },
    context,
  )
}

export function pulumiMatrix(part: string, faults: readonly Fault[], lanes = 2, operations: readonly Operation[] = OPERATIONS): void {
  const report = new Report(part)
  describe(`fault matrix through the Pulumi plugin: ${faults.map((f) => f.title).join(', ')}`, { concurrency: lanes }, () => {
    const pool = new LanePool<Lane>()
    before(() => pool.start(lanes, launch))
    after(() => pool.stop(close))
    for (const fault of faults) {
      for (const op of selected(operations)) {
        test(`${op.title} × ${fault.title}`, { timeout: 60_000 }, () => pool.run((lane) => pulumiCell(lane, op, fault, report)))
      }
    }
  })
}

/**
 * One order left unpaid (`payWithCreditCard: false`) under the engine's rules: `up` places it once and
 * succeeds; `refresh` and `up` before payment order nothing; after payment `refresh` and `up` order
 * nothing more, fail nothing, and the next preview is a Same step.
 */
export async function pulumiUnpaidCell(lane: Lane, op: Operation): Promise<void> {
  const { em, model } = lane
  await freshEmulator(em, 200)
  const ids = await op.setup(em)
  const seen = (await em.orders()).orders.length
  const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'unpaid')
  let saved: Saved | null = null
  const unpaid = camel({ ...(op.change ?? {}), pay_with_credit_card: false })
  let program = camel({ ...op.inputs(ids), pay_with_credit_card: false, ...(op.change ?? {}) })
  if (op.existing) {
    const adopted = await model.import(urn, String(op.existing(ids)))
    saved = adopted
    program = { ...adopted.program, ...unpaid }
  }
  const placed = async () => (await em.orders()).orders.slice(seen)
  const first = await up(model, urn, program, saved, undefined)
  const orders = await placed()
  assert.ok(first.ok, `the unpaid ${op.title} failed: ${first.message}`)
  assert.deepEqual(
    orders.map((o) => [o.kind, o.invoice_status]),
    [[op.kind, 'Unpaid']],
  )
  let state = first.saved
  const rerun = async (when: string) => {
    assert.ok(state, `no state ${when}`)
    state = (await model.refresh(urn, state)).saved
    const again = await up(model, urn, program, state, undefined)
    assert.ok(again.ok, `up ${when} failed: ${again.message}`)
    assert.equal((await placed()).length, 1, `up ${when} ordered again: ${JSON.stringify(await placed())}`)
    state = again.saved
  }
  await rerun('before payment')
  const accountId = orders[0]?.account_id ?? ''
  await em.control('POST', `/accounts/${accountId}/pay`)
  const until = Date.now() + 15_000
  while ((await em.accounts()).find((a) => String(a.account.account_id) === accountId)?.account.status !== 'Active') {
    assert.ok(Date.now() < until, `${accountId} not Active after payment`)
    await sleep(100)
  }
  await rerun('after payment')
  assert.ok(state)
  const next = await model.up(urn, program, state, { preview: true })
  assert.equal(next.op, 'same', `the preview after payment is not empty: ${JSON.stringify(next.diff)}`)
}

export function pulumiUnpaidMatrix(operations: readonly Operation[] = OPERATIONS): void {
  describe('every order left unpaid, through the Pulumi plugin under the engine rules', () => {
    let lane: Lane
    before(async () => {
      lane = await launch()
    })
    after(async () => {
      if (lane) await close(lane)
    })
    for (const op of selected(operations)) {
      test(`${op.title}, unpaid`, { timeout: 60_000 }, () => pulumiUnpaidCell(lane, op))
    }
  })
}

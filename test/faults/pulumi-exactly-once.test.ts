// The Pulumi plugin driven as the engine drives it (EngineModel), issue 8 cases 1 to 7 (faults i to m
// of test/support/faults/matrix.ts) for the order kinds of exactlyOnceOperations (FAULT_OPS, shared with the
// Terraform side) and the one-shot actions (rebuilds, reset). A cell: `pulumi up` (after `pulumi import` for an
// upgrade) with the fault: SIGTERM to the plugin, the engine SIGKILLed (the plugin orphaned), the
// plugin SIGKILLed, each during the wait; an order slower than requestTimeout; a key-ignoring service
// answering 502 after the order. Then `up` again with a new plugin from the same stack (same URN,
// inputs and journal), starting from what the engine saved, then a preview that must be a Same step.
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/names.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { Emulator } from '../support/e2e/harness.js'
import {
  EngineModel,
  initFailure,
  Plugin,
  ROOT,
  replaceOnChangesOf,
  type Saved,
  startFakeEngine,
  type UpResult,
  urnOf,
} from '../support/pulumi/plugin-harness.js'
import { alive, childrenOf, exitOf } from '../support/faults/exactly-once-cells.js'
import {
  ACTIONS,
  type Action,
  actionSent,
  actionsRun,
  byKind,
  exactlyOnceOperations,
  type Fault,
  faultsOf,
  freshEmulator,
  type Inputs,
  LanePool,
  lostIds,
  type Operation,
  orderPlaced,
  sleep,
} from '../support/faults/matrix.js'
import { recordCell, Report } from '../support/faults/report.js'

const camel = (inputs: Inputs): WireMap => Object.fromEntries(Object.entries(inputs).map(([k, v]) => [toCamel(k), v]))
const REPLACE_ON_CHANGES = replaceOnChangesOf(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8'))
const report = new Report('pulumi-exactly-once')

interface Lane {
  em: Emulator
  engine: Awaited<ReturnType<typeof startFakeEngine>>
}

/** What one stack holds across its runs: the order journal the plugin keeps beside it, the URN, the program. */
interface Stack {
  readonly journal: string
  readonly urn: string
  readonly program: WireMap
  /** The engine's state before the faulted run: nothing for a create, the imported account for an upgrade. */
  readonly saved: Saved | null
}

/** A plugin as `pulumi up` starts it: `viaShell` puts an engine stand-in between it and this process. */
async function plugin(lane: Lane, stack: Stack, fault: Fault, viaShell = false): Promise<Plugin> {
  const launched = await Plugin.launch(lane.engine.address, { PROVIDER_ORDER_JOURNAL: stack.journal }, { viaShell })
  const config: WireMap = { apiKey: lane.em.apiKey, baseUrl: lane.em.baseUrl, pollInterval: '100ms' }
  if (fault.requestTimeout) config.requestTimeout = fault.requestTimeout
  await launched.configure(config)
  return launched
}

const model = (p: Plugin) => new EngineModel(p, REPLACE_ON_CHANGES)

function outcomeOf(result: UpResult): string {
  if (!result.error) return `ok (${result.op})`
  if (initFailure(result.error)) return 'kept (ErrorResourceInitFailed)'
  return result.error.code === 14 ? 'lost with the plugin' : `error (code ${result.error.code})`
}

function messageOf(result: UpResult): string {
  if (!result.error) return ''
  return [result.error.details, ...(initFailure(result.error)?.reasons ?? [])].join('\n')
}

interface Faulted {
  /** What the engine saved for the resource after the faulted run. */
  readonly saved: Saved | null
  readonly outcome: string
  readonly message: string
  readonly note: string
  /** False when the plugin outlived its engine. */
  readonly orphanExited: boolean
}

/**
 * The faulted `up`: the fault's rules, then, for a trigger, the kill once `sent` resolves (the order or
 * action reached the service) and the wait began. A killed engine saves nothing more (its pending
 * operation is dropped by the next `up`, which starts from the state before); an engine whose plugin
 * died saves what a failed step saves (nothing for a create, the old state for an update); a plugin
 * that answers (SIGTERM) has its answer saved under the engine's rules.
 */
async function faultedUp(lane: Lane, stack: Stack, fault: Fault, sent: () => Promise<unknown>): Promise<Faulted> {
  const first = await plugin(lane, stack, fault, fault.trigger === 'kill-engine')
  try {
    const upping = model(first).up(stack.urn, stack.program, stack.saved)
    let note = ''
    let orphanExited = true
    if (fault.trigger) {
      await sent()
      await sleep(300)
      if (fault.trigger === 'sigterm') first.child.kill('SIGTERM')
      else if (fault.trigger === 'kill-provider') first.child.kill('SIGKILL')
      else {
        const orphan = childrenOf(first.child.pid ?? 0)[0]
        if (orphan === undefined) throw new Error('the plugin under the engine stand-in was not found')
        first.child.kill('SIGKILL')
        const exitMs = await exitOf(orphan)
        orphanExited = exitMs >= 0
        note = orphanExited ? `orphaned plugin exited after ${exitMs} ms` : 'the orphaned plugin kept running'
        if (alive(orphan)) process.kill(orphan, 'SIGKILL')
      }
    }
    const result = await upping
    const saved = fault.trigger === 'kill-engine' ? stack.saved : result.saved
    return {
      saved,
      outcome: fault.trigger === 'kill-engine' ? 'killed with the engine' : outcomeOf(result),
      message: messageOf(result),
      note,
      orphanExited,
    }
  } finally {
    await first.stop()
  }
}

/** `up` again from what the engine saved, with a new plugin, then a preview: converged when it is a Same step. */
async function rerun(lane: Lane, stack: Stack, fault: Fault, saved: Saved | null) {
  const second = await plugin(lane, stack, fault)
  try {
    const again = await model(second).up(stack.urn, stack.program, saved)
    let converged = false
    let diff = ''
    if (!again.error && again.saved && again.saved.initErrors.length === 0) {
      const next = await model(second).up(stack.urn, stack.program, again.saved, { preview: true })
      converged = next.op === 'same'
      diff = JSON.stringify(next.diff)
    }
    return { again, converged, diff }
  } finally {
    await second.stop()
  }
}

async function withJournal(run: (journal: string) => Promise<void>): Promise<void> {
  const journal = await mkdtemp(join(tmpdir(), 'pulumi-orders-'))
  try {
    await run(journal)
  } finally {
    await rm(journal, { recursive: true, force: true })
  }
}

/** A fresh service for the cell, keeping or ignoring Idempotency-Keys as the fault says, for both runs. */
async function freshService(em: Emulator, fault: Fault): Promise<void> {
  await freshEmulator(em, fault.provisioningDelayMs)
  await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: fault.ignoresKeys === true } })
}

/** `pulumi import` of an existing account with its own plugin, as a user adopts what a change will act on. */
async function imported(lane: Lane, journal: string, urn: string, id: string): Promise<Saved & { readonly program: WireMap }> {
  const importer = await plugin(lane, { journal, urn, program: {}, saved: null }, { key: '', title: '', provisioningDelayMs: 0 })
  try {
    const saved = await model(importer).import(urn, id)
    if (saved.id !== id) throw new Error(`the import of ${id} found ${saved.id}`)
    return saved
  } finally {
    await importer.stop()
  }
}

/** One cell's subject, prepared on a fresh service: the stack before the faulted run and how to count what it did. */
interface Prepared {
  readonly stack: Stack
  /** Fault rules for the faulted run, installed once the stack is ready. */
  readonly rules: readonly Record<string, unknown>[]
  /** Resolves once the order or action reached the service. */
  sent(): Promise<unknown>
  /** What the cell intends, what the service did over both runs, and the accounts it touched. */
  tally(): Promise<{ intended: Record<string, number>; placed: Record<string, number>; touched: string[] }>
}

/** The faulted `up`, the re-run and the preview of `key` × `fault`, counted and recorded. */
async function exactlyOnceCell(lane: Lane, key: string, fault: Fault, prepare: (journal: string) => Promise<Prepared>): Promise<void> {
  const { em } = lane
  await freshService(em, fault)
  await withJournal(async (journal) => {
    const cell = await prepare(journal)
    for (const rule of cell.rules) await em.control('POST', '/faults', rule)
    const first = await faultedUp(lane, cell.stack, fault, cell.sent)
    await em.control('DELETE', '/faults')
    const { again, converged, diff } = await rerun(lane, cell.stack, fault, first.saved)
    const { intended, placed, touched } = await cell.tally()
    const lost = await lostIds(em, touched, new Set(again.saved ? [again.saved.id] : []), '')
    const context = `faulted: ${first.outcome} ${first.message}\nre-run: ${outcomeOf(again)} ${messageOf(again)}\nfinal diff: ${diff}`
    const facts = { front: 'pulumi', op: key, fault: fault.key, intended, placed, lost, outcome: first.outcome, converged } as const
    recordCell(
      report,
      { ...facts, rerunOk: !again.error, also: [[first.orphanExited, 'the plugin outlived its engine']], note: first.note },
      context,
    )
  })
}

/** An order kind: created from its inputs, or imported and then changed. */
function orderCell(lane: Lane, op: Operation, fault: Fault): Promise<void> {
  const { em } = lane
  return exactlyOnceCell(lane, op.key, fault, async (journal) => {
    const ids = await op.setup(em)
    const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')
    const existing = op.existing ? await imported(lane, journal, urn, String(op.existing(ids))) : null
    const program = existing ? { ...existing.program, ...camel(op.change ?? {}) } : camel(op.inputs(ids))
    const seen = (await em.orders()).orders.length
    return {
      stack: { journal, urn, program, saved: existing },
      rules: fault.rules?.(op) ?? [],
      sent: () => orderPlaced(em, op.kind, seen),
      async tally() {
        const orders = (await em.orders()).orders.slice(seen)
        const touched = [...orders.map((o) => o.account_id), ...(op.existing ? [String(op.existing(ids))] : [])]
        return { intended: { [op.kind]: 1 }, placed: byKind(orders), touched }
      },
    }
  })
}

/** A one-shot action on an imported account. */
function actionCell(lane: Lane, action: Action, fault: Fault): Promise<void> {
  const { em } = lane
  return exactlyOnceCell(lane, action.key, fault, async (journal) => {
    const { id } = await action.setup(em)
    const urn = urnOf(`provider:index:${toPascal(action.resource)}`, 'r')
    const existing = await imported(lane, journal, urn, String(id))
    return {
      stack: { journal, urn, program: { ...existing.program, ...camel({ [action.input]: action.value }) }, saved: existing },
      rules: action.hold ?? [],
      sent: () => actionSent(em, action),
      tally: async () => ({ intended: { [action.key]: 1 }, placed: { [action.key]: await actionsRun(em, action) }, touched: [String(id)] }),
    }
  })
}

describe('exactly-once through the Pulumi plugin: i to m, and the one-shot actions', { concurrency: 2 }, () => {
  const lanes = new LanePool<Lane>()
  before(() => lanes.start(2, async () => ({ em: await Emulator.start({ provisioningDelayMs: 200 }), engine: await startFakeEngine() })))
  after(() =>
    lanes.stop(async (lane) => {
      lane.engine.stop()
      await lane.em.stop()
    }),
  )
  for (const fault of faultsOf('ijklm')) {
    for (const op of exactlyOnceOperations()) {
      test(`${op.title} × ${fault.title}`, { timeout: 90_000 }, () => lanes.run((lane) => orderCell(lane, op, fault)))
    }
  }
  // Case 7: a rebuild or reset cut short by a kill, then `up` again (the Terraform side runs the same two kills).
  for (const fault of faultsOf('jk')) {
    for (const action of ACTIONS) {
      test(`${action.title} × ${fault.title}`, { timeout: 90_000 }, () => lanes.run((lane) => actionCell(lane, action, fault)))
    }
  }
})

// Runs fault-matrix cells through the real terraform CLI: one emulator and one workspace per lane,
// reset between cells. A cell: setup through the API, the faulted apply, the checks, the re-run
// (apply again) and the final plan, which must be empty with no further order.
import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { block, describeRun, Emulator, PROVIDER_BLOCKS, type RunResult, Workspace } from '../e2e/harness.js'
import {
  byKind,
  type Fault,
  freshEmulator,
  hitsReads,
  type Ids,
  intendedOrders,
  LanePool,
  lostIds,
  OPERATIONS,
  type Operation,
  orderPlaced,
} from './matrix.js'
import { Report, recordCell } from './report.js'

export interface Lane {
  em: Emulator
  ws: Workspace
}

const ADDRESS = 'r'

function config(op: Operation, ids: Ids, options: { timeout?: string; importing: boolean }): string {
  const inputs = { ...op.inputs(ids), ...(op.change ?? {}) }
  let resource = block('resource', `provider_${op.resource}`, ADDRESS, inputs)
  if (options.timeout) resource = resource.replace(/}\n$/, `  timeouts {\n    ${op.timeout} = "${options.timeout}"\n  }\n}\n`)
  const importing =
    options.importing && op.existing ? `import {\n  to = provider_${op.resource}.${ADDRESS}\n  id = "${op.existing(ids)}"\n}\n` : ''
  return [PROVIDER_BLOCKS, importing, resource].join('\n')
}

async function stateIds(ws: Workspace): Promise<Set<string>> {
  try {
    const state = JSON.parse(await readFile(join(ws.dir, 'terraform.tfstate'), 'utf8')) as {
      resources?: { instances: { attributes: { id?: unknown } }[] }[]
    }
    return new Set((state.resources ?? []).flatMap((r) => r.instances.map((i) => String(i.attributes.id))))
  } catch {
    return new Set()
  }
}

async function clearState(ws: Workspace): Promise<void> {
  for (const name of ['terraform.tfstate', 'terraform.tfstate.backup', 'fault.tfplan']) await rm(join(ws.dir, name), { force: true })
}

function outcomeOf(run: RunResult): string {
  const text = run.stdout + run.stderr
  if (run.code === 0) return /Warning: The .* order was placed and is kept in state/.test(text) ? 'kept, incomplete (warning)' : 'ok'
  if (/Interrupt received/.test(text)) return 'interrupted, kept'
  if (/is gone|Terminated/.test(text)) return 'error (gone)'
  if (/order was placed and is recorded/.test(text)) return 'error, change recorded'
  return 'error'
}

/** The faulted run: rules installed after any plan-time read, the trigger fired once the order exists. */
async function faultedRun(lane: Lane, op: Operation, fault: Fault, seen: number): Promise<RunResult> {
  const { em, ws } = lane
  let args = ['apply', '-no-color', '-input=false', '-auto-approve']
  if (op.existing && hitsReads(fault)) {
    // The import reads the account path at plan time; the fault is for the reads after the order.
    const planned = await ws.plan(['-out=fault.tfplan'])
    assert.equal(planned.code, 2, describeRun(planned))
    args = ['apply', '-no-color', '-input=false', 'fault.tfplan']
  }
  for (const rule of fault.rules?.(op) ?? []) await em.control('POST', '/faults', rule)
  await ws.init()
  const running = ws.launch(args)
  if (fault.trigger) {
    const watched = orderPlaced(em, op.kind, seen).then(async (accountId) => {
      if (fault.trigger === 'terminate') await em.control('POST', `/accounts/${accountId}/status`, { status: 'Terminated' })
      else {
        await new Promise((r) => setTimeout(r, 150))
        running.signal('SIGINT')
      }
    })
    const [result] = await Promise.all([running.done, watched])
    return result
  }
  return running.done
}

export async function terraformCell(lane: Lane, op: Operation, fault: Fault, report: Report): Promise<void> {
  const { em, ws } = lane
  await freshEmulator(em, fault.provisioningDelayMs)
  const ids = await op.setup(em)
  const seen = (await em.orders()).orders.length
  await clearState(ws)
  await ws.write(config(op, ids, { timeout: fault.timeout, importing: true }))

  const first = await faultedRun(lane, op, fault, seen)
  await em.control('DELETE', '/faults')
  const firstOrders = (await em.orders()).orders.slice(seen)
  const touched = [...firstOrders.map((o) => o.account_id), ...(op.existing ? [String(op.existing(ids))] : [])]
  const lostAfterFault = await lostIds(em, touched, await stateIds(ws), first.stdout + first.stderr)

  // The re-run: the same configuration (the import is done), applied again, then a plan.
  await ws.write(config(op, ids, { timeout: fault.timeout, importing: false }))
  const again = await ws.apply()
  const final = await ws.plan()
  const allOrders = (await em.orders()).orders.slice(seen)
  const lostAfterRerun = await lostIds(
    em,
    allOrders.map((o) => o.account_id),
    await stateIds(ws),
    again.stdout + again.stderr,
  )
  const runs = `${describeRun(first)}\n${describeRun(again)}\n${describeRun(final)}`
  recordCell(
    report,
    {
      front: 'terraform',
      op: op.key,
      fault: fault.key,
      intended: intendedOrders(op, fault),
      placed: byKind(allOrders),
      lost: [...new Set([...lostAfterFault, ...lostAfterRerun])],
      outcome: outcomeOf(first),
      converged: final.code === 0,
      rerunOk: again.code === 0,
    },
    runs,
  )
}

/** FAULT_OPS=key,key narrows a run to some operations while working on one (unset or `all`: all). */
export function selected(operations: readonly Operation[]): readonly Operation[] {
  const only = process.env.FAULT_OPS?.split(',').filter(Boolean)
  return only && only.length > 0 && !only.includes('all') ? operations.filter((op) => only.includes(op.key)) : operations
}

export type Cell = (lane: Lane, op: Operation, fault: Fault, report: Report) => Promise<void>

/** One describe per file: `lanes` emulators and workspaces, every operation crossed with `faults`, each run by `cell`. */
export function terraformMatrix(
  part: string,
  faults: readonly Fault[],
  lanes = 2,
  operations: readonly Operation[] = OPERATIONS,
  cell: Cell = terraformCell,
): void {
  const report = new Report(part)
  describe(`fault matrix through terraform: ${faults.map((f) => f.title).join(', ')}`, { concurrency: lanes }, () => {
    const pool = new LanePool<Lane>()
    before(() =>
      pool.start(lanes, async () => {
        const em = await Emulator.start({ provisioningDelayMs: 200 })
        return { em, ws: await Workspace.create(em) }
      }),
    )
    after(() =>
      pool.stop(async (lane) => {
        await lane.ws.cleanup()
        await lane.em.stop()
      }),
    )
    for (const fault of faults) {
      for (const op of selected(operations)) {
        test(`${op.title} × ${fault.title}`, { timeout: 120_000 }, () => pool.run((lane) => cell(lane, op, fault, report)))
      }
    }
  })
}

// Issue 8's columns (cases 1 to 6) through the real terraform CLI: a kill or a slow or key-ignoring
// service during a paid order, then the re-run from the same working directory. Each cell counts the
// orders placed against those intended and the accounts ordered against those managed.
// Must not: know a resource; the operations and faults come from matrix.ts.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { block, describeRun, Emulator, providerBlocks, type RunResult, Workspace } from '../e2e/harness.js'
import { byKind, type Fault, freshEmulator, type Ids, lostIds, type Operation, orderPlaced, sleep } from './matrix.js'
import { emulatorLiteVm } from '../fixtures.js'
import type { Tool } from '../tools.js'
import { type Report, recordCell } from './report.js'
import { type Lane, terraformMatrix } from './terraform-cells.js'

const ADDRESS = 'r'

export function providerBlock(requestTimeout?: string): string {
  return providerBlocks({ request_timeout: requestTimeout })
}

/**
 * A workspace of one extra disk (60 GB) on a VM made through the API, applied, on a fresh emulator that
 * ignores keys when asked: `write(size)` rewrites its size, `path` is the disk's API path.
 */
export async function liteDiskWorkspace(
  lane: { readonly em: Emulator; workspace(client: { key: string; tool: Tool }): Promise<Workspace> },
  client: { key: string; tool: Tool },
  ignoreKeys: boolean,
): Promise<{ ws: Workspace; write: (size: number) => Promise<void>; path: string }> {
  await freshEmulator(lane.em, 200)
  await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: ignoreKeys } })
  const { vm } = await emulatorLiteVm(lane.em)
  const ws = await lane.workspace(client)
  const write = (size: number) =>
    ws.write(
      [providerBlock(), block('resource', 'provider_lite_disk', 'd', { product_id: 60, cycle: 'm', lite_account_id: vm, size })].join('\n'),
    )
  await write(60)
  await ws.init()
  const created = await ws.apply()
  assert.equal(created.code, 0, describeRun(created))
  const id = String((await ws.stateOf('provider_lite_disk.d')).id)
  return { ws, write, path: `/lites/disks/accounts/${id}` }
}

function config(op: Operation, ids: Ids, fault: Fault, importing: boolean, changing = true): string {
  const inputs = { ...op.inputs(ids), ...(changing ? (op.change ?? {}) : {}) }
  const imported = importing && op.existing ? `import {\n  to = provider_${op.resource}.${ADDRESS}\n  id = "${op.existing(ids)}"\n}\n` : ''
  return [providerBlock(fault.requestTimeout), imported, block('resource', `provider_${op.resource}`, ADDRESS, inputs)].join('\n')
}

export async function stateIds(dir: string): Promise<Set<string>> {
  try {
    const state = JSON.parse(await readFile(join(dir, 'terraform.tfstate'), 'utf8')) as {
      resources?: { instances: { attributes: { id?: unknown } }[] }[]
    }
    return new Set((state.resources ?? []).flatMap((r) => r.instances.map((i) => String(i.attributes.id))))
  } catch {
    return new Set()
  }
}

/** Each cell is a new service (the emulator is reset, ids restart): its state and order journal go too. */
async function clearDirectory(dir: string): Promise<void> {
  for (const name of ['terraform.tfstate', 'terraform.tfstate.backup', '.terraform.tfstate.lock.info'])
    await rm(join(dir, name), { force: true })
  await rm(join(dir, '.terraform', 'provider-orders'), { recursive: true, force: true })
}

/** Processes whose parent is `pid` (Linux /proc). */
export function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(name))
    } catch {
      // Gone meanwhile.
    }
  }
  return out
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return ''
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves with how long `pid` took to exit, or -1 when it was still running after `limitMs`. */
export async function exitOf(pid: number, limitMs = 15_000): Promise<number> {
  const started = Date.now()
  while (Date.now() - started < limitMs) {
    if (!alive(pid)) return Date.now() - started
    await sleep(50)
  }
  return -1
}

function outcomeOf(run: RunResult): string {
  const text = run.stdout + run.stderr
  if (run.code === -1) return 'killed'
  if (run.code === 0) return /order was placed and is kept in state/.test(text) ? 'kept, incomplete (warning)' : 'ok'
  if (/Interrupt received|interrupted/i.test(text)) return 'interrupted, kept'
  return `error (rc ${run.code})`
}

interface Faulted {
  run: RunResult
  note: string
  orphanExitMs?: number
}

async function faultedRun(lane: Lane, op: Operation, fault: Fault, seen: number): Promise<Faulted> {
  const { em, ws } = lane
  await ws.init()
  for (const rule of fault.rules?.(op) ?? []) await em.control('POST', '/faults', rule)
  const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
  if (!fault.trigger) return { run: await running.done, note: '' }
  await orderPlaced(em, op.kind, seen)
  await sleep(300)
  // The build's launcher execs `node …/provider.cjs`; the release's executable is launched by its own name.
  const provider = childrenOf(running.pid).find((pid) => /provider\.cjs|terraform-provider-provider_v/.test(commandOf(pid)))
  let orphanExitMs: number | undefined
  if (fault.trigger === 'sigterm') running.signalGroup('SIGTERM')
  else if (fault.trigger === 'kill-provider') {
    assert.ok(provider, 'the provider process was found')
    process.kill(provider, 'SIGKILL')
  } else if (fault.trigger === 'kill-engine') {
    assert.ok(provider, 'the provider process was found')
    running.signal('SIGKILL')
    orphanExitMs = await exitOf(provider)
  }
  const run = await running.done
  const note =
    orphanExitMs === undefined
      ? ''
      : orphanExitMs < 0
        ? 'the orphaned provider kept running'
        : `orphaned provider exited after ${orphanExitMs} ms`
  return { run, note, ...(orphanExitMs === undefined ? {} : { orphanExitMs }) }
}

/** The re-run after a faulted run: apply again, then plan; the orders since `seen`, by kind, and the accounts they made that no state holds. */
export async function rerun({ em, ws }: Lane, seen: number) {
  const again = await ws.apply()
  const final = await ws.plan()
  const orders = (await em.orders()).orders.slice(seen)
  const managed = await stateIds(ws.dir)
  const lost = await lostIds(
    em,
    orders.map((o) => o.account_id),
    managed,
    '',
  )
  return { again, final, managed, lost, placed: byKind(orders) }
}

/** One emulator and one workspace for a describe's tests, started before them and removed after. */
export function oneLane(provisioningDelayMs = 200): Lane {
  const lane = {} as Lane
  before(async () => {
    lane.em = await Emulator.start({ provisioningDelayMs })
    lane.ws = await Workspace.create(lane.em)
  })
  after(async () => {
    await lane.ws?.cleanup()
    await lane.em?.stop()
  })
  return lane
}

export async function terraformExactlyOnceCell(lane: Lane, op: Operation, fault: Fault, report: Report): Promise<void> {
  const { em, ws } = lane
  await freshEmulator(em, fault.provisioningDelayMs)
  await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: fault.ignoresKeys === true } })
  const ids = await op.setup(em)
  await clearDirectory(ws.dir)
  if (op.existing) {
    // The object an update changes is in state before the faulted run, as it is for a user: imported
    // by a run of its own (a kill can lose an import made in the same run, which is not this case).
    await ws.write(config(op, ids, fault, true, false))
    await ws.init()
    const adopted = await ws.apply()
    assert.equal(adopted.code, 0, `importing the object to change failed\n${describeRun(adopted)}`)
  }
  const seen = (await em.orders()).orders.length
  await ws.write(config(op, ids, fault, !op.existing))

  const first = await faultedRun(lane, op, fault, seen)
  await em.control('DELETE', '/faults')
  const { again, final, lost, placed } = await rerun(lane, seen)
  const runs = `${describeRun(first.run)}\n${describeRun(again)}\n${describeRun(final)}`
  recordCell(
    report,
    {
      front: 'terraform',
      op: op.key,
      fault: fault.key,
      intended: { [op.kind]: 1 },
      placed,
      lost,
      outcome: outcomeOf(first.run),
      converged: final.code === 0,
      rerunOk: again.code === 0,
      also: [[first.orphanExitMs === undefined || first.orphanExitMs >= 0, 'the provider outlived terraform']],
      note: first.note,
    },
    runs,
  )
}

/** The terraform matrix's lanes and report, with this file's cell: every operation crossed with `faults`. */
export function terraformExactlyOnce(part: string, faults: readonly Fault[], operations: readonly Operation[], lanes = 2): void {
  terraformMatrix(part, faults, lanes, operations, terraformExactlyOnceCell)
}

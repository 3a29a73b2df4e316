// The fault matrix: every order-placing operation (what it needs beforehand, its inputs, its order
// request and the account read its wait polls) and every fault (how it is injected or triggered).
// The operations and one-shot actions are each resource's fault cells, read from its fixture.
// Must not: drive a front end (terraform-cells.ts and pulumi-cells.ts run the cells), or name a resource.
import type { Emulator } from '../e2e/harness.js'
import { fixtures } from '../../fixtures/index.js'

/** Inputs in canonical snake_case; the Pulumi runner derives camelCase. */
export type Inputs = Record<string, string | number | boolean>
export type Ids = Record<string, number>

export interface Operation {
  readonly key: string
  readonly title: string
  /** The order kind (as the order counters name it) this operation places once. */
  readonly kind: string
  /** The orders a re-run places when the account is gone: a create of the same resource (and what it then needs). */
  readonly recreateKinds: readonly string[]
  /** Resource name without the provider prefix, e.g. `lite_vm`. */
  readonly resource: string
  /** The order request (fault path, `*` for an id). */
  readonly order: { readonly method: string; readonly path: string }
  /** The account read the wait polls. */
  readonly poll: string
  /** GETs of the poll path the operation makes before it orders (such as the re-read of a Lite VM's disk size before its upgrade). */
  readonly preReads: number
  readonly timeout: 'create' | 'update'
  /** Creates what the operation needs through the API, Active at once; answers the ids the inputs use. */
  setup(em: Emulator): Promise<Ids>
  inputs(ids: Ids): Inputs
  /** Upgrades: the account imported before the change, and the change. */
  readonly existing?: (ids: Ids) => number
  readonly change?: Inputs
}

export interface Fault {
  readonly key: string
  readonly title: string
  /** Fault rules installed before the faulted run (the emulator's fault rules). */
  rules?(op: Operation): Record<string, unknown>[]
  /** Something the test does once the order was placed (it watches the order counters). */
  readonly trigger?: 'terminate' | 'interrupt' | 'sigterm' | 'kill-engine' | 'kill-provider'
  /** The provider's request_timeout in the faulted run. */
  readonly requestTimeout?: string
  /** Emulate a service without the Idempotency-Key extension (an open point of the API contract). */
  readonly ignoresKeys?: boolean
  /** The operation's timeout in the faulted run. */
  readonly timeout?: string
  readonly provisioningDelayMs: number
}

/** Most cells: a short provisioning delay keeps waits brief but real. */
export const SHORT_DELAY_MS = 200

/** Every order-placing operation of every resource, from the resources' fixtures (test/fixtures/). */
export const OPERATIONS: readonly Operation[] = fixtures.flatMap((f) => f.faults.operations)

/** The GETs an operation makes of its poll path before ordering pass untouched (a `delay` of 0 ms each). */
function afterPreReads(op: Operation, rule: Record<string, unknown>): Record<string, unknown>[] {
  const absorb = Array.from({ length: op.preReads }, () => ({ method: 'GET', path: op.poll, mode: 'delay', delay_ms: 0, count: 1 }))
  return [...absorb, rule]
}

/** Attempts per request in the client's retry policy (the API's retry rules): a storm this long exhausts them once. */
export const STORM = 4

export const FAULTS: readonly Fault[] = [
  {
    key: 'a',
    title: '502 error_after on the order',
    rules: (op) => [{ ...op.order, mode: 'error_after', status: 502, count: 1 }],
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  {
    key: 'b',
    title: 'drop_after on the order',
    rules: (op) => [{ ...op.order, mode: 'drop_after', count: 1 }],
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  {
    key: 'c',
    title: '503 storm on the polling reads',
    rules: (op) => afterPreReads(op, { method: 'GET', path: op.poll, mode: 'error', status: 503, count: STORM }),
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  {
    key: 'd',
    title: '429 storm (Retry-After 1) on the polling reads',
    rules: (op) => afterPreReads(op, { method: 'GET', path: op.poll, mode: 'error', status: 429, retry_after_s: 1, count: STORM }),
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  {
    key: 'e',
    title: '404 on the first read after the order',
    rules: (op) => afterPreReads(op, { method: 'GET', path: op.poll, mode: 'error', status: 404, count: 1 }),
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  { key: 'f', title: 'account Terminated during the wait', trigger: 'terminate', provisioningDelayMs: 2000 },
  { key: 'g', title: 'operation timeout (1s) during the wait', timeout: '1s', provisioningDelayMs: 2000 },
  { key: 'h', title: 'interrupt during the wait (SIGINT / Cancel)', trigger: 'interrupt', provisioningDelayMs: 2500 },
  // Issue 8, cases 1 to 6: kills and slow or key-ignoring services, each followed by a re-run.
  { key: 'i', title: 'SIGTERM to the process group during the wait', trigger: 'sigterm', provisioningDelayMs: 2500 },
  { key: 'j', title: 'SIGKILL of the engine (terraform / Pulumi) during the wait', trigger: 'kill-engine', provisioningDelayMs: 2500 },
  { key: 'k', title: 'SIGKILL of the provider during the wait', trigger: 'kill-provider', provisioningDelayMs: 2500 },
  {
    key: 'l',
    title: 'order answered after request_timeout (1s, answer after 1.5s)',
    rules: (op) => [{ ...op.order, mode: 'delay', delay_ms: 1500, count: 1 }],
    requestTimeout: '1s',
    provisioningDelayMs: SHORT_DELAY_MS,
  },
  {
    key: 'm',
    title: 'service ignoring Idempotency-Key, 502 after the order was processed',
    rules: (op) => [{ ...op.order, mode: 'error_after', status: 502, count: 1 }],
    ignoresKeys: true,
    provisioningDelayMs: SHORT_DELAY_MS,
  },
]

/** Creates: the order kinds whose every column of cases 1 to 6 runs through both front ends by default. */
export const CREATE_KEYS = ['lite-vm-create', 'metal-create', 'elastic-create']

/**
 * The operations of the exactly-once columns (i to m), the same for both front ends: by default the
 * create kinds of three API families and the migration (an upgrade whose outcome a key-ignoring
 * service leaves to be read back); FAULT_OPS=all every order kind, FAULT_OPS=key,key those.
 */
export function exactlyOnceOperations(): readonly Operation[] {
  const only = process.env.FAULT_OPS?.split(',').filter(Boolean)
  if (only?.includes('all')) return OPERATIONS
  const keys = only && only.length > 0 ? only : [...CREATE_KEYS, 'vm-migrate']
  return OPERATIONS.filter((op) => keys.includes(op.key))
}

/** A one-shot destructive action (issue 8 case 7): run once on an existing account, whatever kills the run. */
export interface Action {
  readonly key: string
  readonly title: string
  /** Resource name without the provider prefix, e.g. `lite_vm`. */
  readonly resource: string
  /** The request that performs it, as the emulator's request log records its path. */
  readonly method: string
  readonly path: RegExp
  /** The input that asks for it (canonical snake_case) and its value. */
  readonly input: string
  readonly value: string
  /**
   * Fault rules for the faulted run, for an action with no wait of its own: they hold the run after
   * the action (a slow read of the account), so that the kill lands before the outcome is saved. The
   * run must make no such read before the action (Terraform applies a saved plan).
   */
  readonly hold?: readonly Record<string, unknown>[]
  /** Creates the account through the API, Active at once: its id and the inputs that describe it. */
  setup(em: Emulator): Promise<{ id: number; inputs: Inputs }>
}

/** Every one-shot action of every resource, from the resources' fixtures. */
export const ACTIONS: readonly Action[] = fixtures.flatMap((f) => f.faults.actions ?? [])

/** How many times the service performed `action` (processed, not answered from its idempotency store). */
export async function actionsRun(em: Emulator, action: Action): Promise<number> {
  return (await em.requests()).filter(
    (e) => e.method === action.method && action.path.test(e.path) && e.status === 200 && !(e as { replayed?: boolean }).replayed,
  ).length
}

/** Resolves once `action` was performed (bounded). */
export async function actionSent(em: Emulator, action: Action, limitMs = 15_000): Promise<void> {
  const until = Date.now() + limitMs
  while ((await actionsRun(em, action)) === 0) {
    if (Date.now() > until) throw new Error(`${action.title} was not sent within ${limitMs}ms`)
    await sleep(50)
  }
}

/**
 * `count` lanes (an emulator and what drives it), each running one cell at a time: `take` waits for
 * a free lane, `give` hands it to the next waiting cell.
 */
export class LanePool<L> {
  private readonly free: L[] = []
  private readonly waiting: ((lane: L) => void)[] = []
  private readonly all: L[] = []

  async start(count: number, launch: () => Promise<L>): Promise<void> {
    for (let i = 0; i < count; i++) {
      const lane = await launch()
      this.all.push(lane)
      this.free.push(lane)
    }
  }

  async stop(close: (lane: L) => Promise<void>): Promise<void> {
    for (const lane of this.all.splice(0)) await close(lane)
  }

  /** Runs `cell` on the next free lane. */
  async run(cell: (lane: L) => Promise<void>): Promise<void> {
    const lane = await new Promise<L>((ok) => (this.free.length > 0 ? ok(this.free.pop() as L) : this.waiting.push(ok)))
    try {
      await cell(lane)
    } finally {
      const next = this.waiting.shift()
      if (next) next(lane)
      else this.free.push(lane)
    }
  }
}

export function faultsOf(keys: string): Fault[] {
  return FAULTS.filter((f) => keys.includes(f.key))
}

/** Whether a fault must not meet the reads a plan makes (an import reads the account path). */
export function hitsReads(fault: Fault): boolean {
  return ['c', 'd', 'e'].includes(fault.key)
}

/** What the cell must order in all: the operation once, plus one re-create when the account was terminated. */
export function intendedOrders(op: Operation, fault: Fault): Record<string, number> {
  const intended: Record<string, number> = { [op.kind]: 1 }
  if (fault.trigger === 'terminate') for (const kind of op.recreateKinds) intended[kind] = (intended[kind] ?? 0) + 1
  return intended
}

export interface OrderItem {
  kind: string
  account_id: string
}

export function byKind(orders: readonly OrderItem[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const order of orders) counts[order.kind] = (counts[order.kind] ?? 0) + 1
  return counts
}

/** Resolves once an order of `kind` beyond the first `seen` exists (bounded), with its account id. */
export async function orderPlaced(em: Emulator, kind: string, seen: number, limitMs = 30_000): Promise<string> {
  const until = Date.now() + limitMs
  while (Date.now() < until) {
    const orders = (await em.orders()).orders.slice(seen)
    const found = orders.find((o) => o.kind === kind)
    if (found) return found.account_id
    await new Promise((r) => setTimeout(r, 40))
  }
  throw new Error(`no ${kind} order within ${limitMs}ms`)
}

/** Accounts the cell's orders touched that are not Terminated and that neither the state nor the output names. */
export async function lostIds(em: Emulator, accountIds: readonly string[], kept: ReadonlySet<string>, output: string): Promise<string[]> {
  const accounts = await em.accounts()
  const lost: string[] = []
  for (const id of new Set(accountIds)) {
    const account = accounts.find((a) => String(a.account.account_id) === id)?.account
    if (!account || account.status.toLowerCase() === 'terminated') continue
    if (kept.has(id) || output.includes(id)) continue
    lost.push(id)
  }
  return lost
}

/** Resets the emulator for a cell and sets its provisioning delay. */
export async function freshEmulator(em: Emulator, provisioningDelayMs: number): Promise<void> {
  await em.control('POST', '/reset')
  await em.control('PATCH', '/config', { provisioning_delay_ms: provisioningDelayMs })
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

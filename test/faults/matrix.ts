// The fault matrix: every order-placing operation (what it needs beforehand, its inputs, its order
// request and the account read its wait polls) and every fault (how it is injected or triggered).
// Must not: drive a front end; terraform-cells.ts and pulumi-cells.ts run the cells.
import type { Emulator } from '../e2e/harness.js'

/** Inputs in canonical snake_case; the Pulumi runner derives camelCase. */
export type Inputs = Record<string, string | number | boolean>
export type Ids = Record<string, number>

export interface Operation {
  readonly key: string
  readonly title: string
  /** The order kind of §5.5 this operation places once. */
  readonly kind: string
  /** The orders a re-run places when the account is gone: a create of the same resource (and what it then needs). */
  readonly recreateKinds: readonly string[]
  /** Resource name without the provider prefix, e.g. `lite_vm`. */
  readonly resource: string
  /** The order request (fault path, `*` for an id). */
  readonly order: { readonly method: string; readonly path: string }
  /** The account read the wait polls. */
  readonly poll: string
  /** GETs of the poll path the operation makes before it orders (the re-read of §4.2 step 4, §4.3, §4.4). */
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
  /** Fault rules installed before the faulted run (§5.4). */
  rules?(op: Operation): Record<string, unknown>[]
  /** Something the test does once the order was placed (it watches the order counters). */
  readonly trigger?: 'terminate' | 'interrupt' | 'sigterm' | 'kill-engine' | 'kill-provider'
  /** The provider's request_timeout in the faulted run. */
  readonly requestTimeout?: string
  /** Emulate a service without the Idempotency-Key extension (backend-api §6 point 4). */
  readonly ignoresKeys?: boolean
  /** The operation's timeout in the faulted run. */
  readonly timeout?: string
  readonly provisioningDelayMs: number
}

/** Most cells: a short provisioning delay keeps waits brief but real. */
export const SHORT_DELAY_MS = 200

const VM_PASSWORD = 'S3cretPass9'

async function keypair(em: Emulator, pool: string, name: string): Promise<number> {
  const created = await em.api<{ keypair_id: number | string }>('POST', `${pool}/keypairs/`, { name })
  return Number(created.keypair_id)
}

/** Places an order through the API and forces the account Active (§5.3), so setups never wait. */
async function ordered(em: Emulator, path: string, body: Record<string, unknown>): Promise<number> {
  const order = await em.api<{ account_id: string }>('POST', path, body)
  await em.control('POST', `/accounts/${order.account_id}/status`, { status: 'Active' })
  return Number(order.account_id)
}

function vmBody(keypairId: number, productId: number, name: string) {
  return {
    product_id: productId,
    cycle: 'm',
    select_os: 'Ubuntu-22.04',
    keypair_id: keypairId,
    ssh_and_console_user: 'deployer',
    console_password: VM_PASSWORD,
    vm_name: name,
  }
}

function vmInputs(keypairId: number, productId: number, name: string): Inputs {
  return { ...vmBody(keypairId, productId, name) }
}

async function liteVm(em: Emulator): Promise<Ids> {
  const kp = await keypair(em, '/lites', 'fault-lite-key')
  const vm = await ordered(em, '/lites', vmBody(kp, 101, 'fault-base-vm'))
  return { kp, vm }
}

async function metalServer(em: Emulator): Promise<Ids> {
  const kp = await keypair(em, '/baremetals', 'fault-metal-key')
  const server = await ordered(em, '/baremetals', { product_id: 301, cycle: 'm', keypair_id: kp, label: 'fault-base-server' })
  return { kp, server }
}

const storageInputs = (ids: Ids, size = 100, productId = 501): Inputs => ({
  product_id: productId,
  cycle: 'm',
  storage_name: 'fault-volume',
  metal_account_id: ids.server ?? 0,
  size,
})

export const OPERATIONS: readonly Operation[] = [
  {
    key: 'lite-vm-create',
    title: 'Lite VM create',
    kind: 'lite.vm.create',
    recreateKinds: ['lite.vm.create'],
    resource: 'lite_vm',
    order: { method: 'POST', path: '/lites' },
    poll: '/lites/accounts/*',
    preReads: 0,
    timeout: 'create',
    setup: async (em) => ({ kp: await keypair(em, '/lites', 'fault-lite-key') }),
    inputs: (ids) => vmInputs(ids.kp ?? 0, 101, 'fault-vm-one'),
  },
  {
    key: 'pro-vm-create',
    title: 'Lite Pro VM create',
    kind: 'lite_pro.vm.create',
    recreateKinds: ['lite_pro.vm.create'],
    resource: 'lite_pro_vm',
    order: { method: 'POST', path: '/lite-pros' },
    poll: '/lite-pros/accounts/*',
    preReads: 0,
    timeout: 'create',
    setup: async (em) => ({ kp: await keypair(em, '/lite-pros', 'fault-pro-key') }),
    inputs: (ids) => vmInputs(ids.kp ?? 0, 201, 'fault-pro-one'),
  },
  {
    key: 'vm-change-package',
    title: 'VM change-package',
    kind: 'lite.vm.change_package',
    recreateKinds: ['lite.vm.create'],
    resource: 'lite_vm',
    order: { method: 'POST', path: '/lites/accounts/*/change-package' },
    poll: '/lites/accounts/*',
    preReads: 0,
    timeout: 'update',
    setup: liteVm,
    inputs: (ids) => vmInputs(ids.kp ?? 0, 101, 'fault-base-vm'),
    existing: (ids) => ids.vm ?? 0,
    change: { product_id: 102 },
  },
  {
    key: 'vm-storage',
    title: 'VM storage upgrade',
    kind: 'lite.vm.storage',
    // A new VM with disk_size above its base orders the storage too (§4.2 create).
    recreateKinds: ['lite.vm.create', 'lite.vm.storage'],
    resource: 'lite_vm',
    order: { method: 'PUT', path: '/lites/accounts/*/storage' },
    poll: '/lites/accounts/*',
    preReads: 1,
    timeout: 'update',
    setup: liteVm,
    inputs: (ids) => vmInputs(ids.kp ?? 0, 101, 'fault-base-vm'),
    existing: (ids) => ids.vm ?? 0,
    change: { disk_size: 60 },
  },
  {
    key: 'vm-migrate',
    title: 'Lite VM migrate to Pro',
    kind: 'lite.vm.migrate',
    recreateKinds: ['lite.vm.create'],
    resource: 'lite_vm',
    order: { method: 'POST', path: '/lites/accounts/*/migrate-to-pro' },
    poll: '/lite-pros/accounts/*',
    preReads: 0,
    timeout: 'update',
    setup: liteVm,
    inputs: (ids) => vmInputs(ids.kp ?? 0, 101, 'fault-base-vm'),
    existing: (ids) => ids.vm ?? 0,
    change: { migrate_to_pro: '201' },
  },
  {
    key: 'snapshot-create',
    title: 'Snapshot create',
    kind: 'lite.snapshot.create',
    recreateKinds: ['lite.snapshot.create'],
    resource: 'lite_snapshot',
    order: { method: 'POST', path: '/lites/accounts/*/snapshot' },
    poll: '/lites/snapshots/accounts/*',
    preReads: 0,
    timeout: 'create',
    setup: liteVm,
    inputs: (ids) => ({ lite_account_id: ids.vm ?? 0, cycle: 'm', name: 'fault-snap-one' }),
  },
  {
    key: 'restore-vm',
    title: 'Restore VM from snapshot',
    kind: 'lite.snapshot.restore_vm',
    recreateKinds: ['lite.snapshot.restore_vm'],
    resource: 'lite_vm_from_snapshot',
    order: { method: 'POST', path: '/lites/snapshots/accounts/*/create' },
    poll: '/lites/accounts/*',
    preReads: 0,
    timeout: 'create',
    async setup(em) {
      const ids = await liteVm(em)
      const snapshot = await ordered(em, `/lites/accounts/${ids.vm}/snapshot`, { cycle: 'm', name: 'fault-base-snap' })
      return { ...ids, snapshot }
    },
    inputs: (ids) => ({
      snapshot_id: ids.snapshot ?? 0,
      product_id: 101,
      cycle: 'm',
      keypair_id: ids.kp ?? 0,
      name: 'fault-restored',
      ssh_and_console_user: 'deployer',
      console_password: VM_PASSWORD,
    }),
  },
  {
    key: 'disk-create',
    title: 'Disk create',
    kind: 'lite.disk.create',
    recreateKinds: ['lite.disk.create'],
    resource: 'lite_disk',
    order: { method: 'POST', path: '/lites/disks' },
    poll: '/lites/disks/accounts/*',
    preReads: 0,
    timeout: 'create',
    setup: liteVm,
    inputs: (ids) => ({ product_id: 60, cycle: 'm', lite_account_id: ids.vm ?? 0 }),
  },
  {
    key: 'disk-upgrade',
    title: 'Disk upgrade',
    kind: 'lite.disk.upgrade',
    recreateKinds: ['lite.disk.create'],
    resource: 'lite_disk',
    order: { method: 'PUT', path: '/lites/disks/accounts/*' },
    poll: '/lites/disks/accounts/*',
    preReads: 1,
    timeout: 'update',
    async setup(em) {
      const ids = await liteVm(em)
      const disk = await ordered(em, '/lites/disks', { product_id: 60, cycle: 'm', lite_account_id: ids.vm, size: 60 })
      return { ...ids, disk }
    },
    inputs: (ids) => ({ product_id: 60, cycle: 'm', lite_account_id: ids.vm ?? 0, size: 60 }),
    existing: (ids) => ids.disk ?? 0,
    change: { size: 80 },
  },
  {
    key: 'metal-create',
    title: 'Metal server create',
    kind: 'baremetal.create',
    recreateKinds: ['baremetal.create'],
    resource: 'baremetal',
    order: { method: 'POST', path: '/baremetals' },
    poll: '/baremetals/accounts/*',
    preReads: 0,
    timeout: 'create',
    setup: async (em) => ({ kp: await keypair(em, '/baremetals', 'fault-metal-key') }),
    inputs: (ids) => ({ product_id: 301, cycle: 'm', keypair_id: ids.kp ?? 0, label: 'fault-metal' }),
  },
  {
    key: 'ip-create',
    title: 'Additional IP create',
    kind: 'additional_ip.create',
    recreateKinds: ['additional_ip.create'],
    resource: 'baremetal_additional_ip',
    order: { method: 'POST', path: '/baremetal-additional-ips' },
    poll: '/baremetal-additional-ips/*',
    preReads: 0,
    timeout: 'create',
    setup: async () => ({}),
    inputs: () => ({ product_id: 401, cycle: 'm' }),
  },
  {
    key: 'elastic-create',
    title: 'Elastic storage create',
    kind: 'elastic_storage.create',
    recreateKinds: ['elastic_storage.create'],
    resource: 'baremetal_elastic_storage',
    order: { method: 'POST', path: '/baremetal-elastic-storages' },
    poll: '/baremetal-elastic-storages/*',
    preReads: 0,
    timeout: 'create',
    setup: metalServer,
    inputs: (ids) => storageInputs(ids),
  },
  {
    key: 'elastic-resize',
    title: 'Elastic resize',
    kind: 'elastic_storage.resize',
    recreateKinds: ['elastic_storage.create'],
    resource: 'baremetal_elastic_storage',
    order: { method: 'PUT', path: '/baremetal-elastic-storages/*' },
    poll: '/baremetal-elastic-storages/*',
    preReads: 1,
    timeout: 'update',
    async setup(em) {
      const ids = await metalServer(em)
      const storage = await ordered(em, '/baremetal-elastic-storages', { ...storageInputs(ids), metal_account_id: ids.server })
      return { ...ids, storage }
    },
    inputs: (ids) => storageInputs(ids),
    existing: (ids) => ids.storage ?? 0,
    change: { size: 200 },
  },
  {
    key: 'elastic-change-package',
    title: 'Elastic change-package',
    kind: 'elastic_storage.change_package',
    recreateKinds: ['elastic_storage.create'],
    resource: 'baremetal_elastic_storage',
    order: { method: 'POST', path: '/baremetal-elastic-storages/*' },
    poll: '/baremetal-elastic-storages/*',
    preReads: 0,
    timeout: 'update',
    async setup(em) {
      const ids = await metalServer(em)
      const storage = await ordered(em, '/baremetal-elastic-storages', { ...storageInputs(ids), metal_account_id: ids.server })
      return { ...ids, storage }
    },
    inputs: (ids) => storageInputs(ids),
    existing: (ids) => ids.storage ?? 0,
    change: { product_id: 502 },
  },
]

/** The GETs an operation makes of its poll path before ordering pass untouched (a `delay` of 0 ms each). */
function afterPreReads(op: Operation, rule: Record<string, unknown>): Record<string, unknown>[] {
  const absorb = Array.from({ length: op.preReads }, () => ({ method: 'GET', path: op.poll, mode: 'delay', delay_ms: 0, count: 1 }))
  return [...absorb, rule]
}

/** Attempts per request in the client's retry policy (§1.10): a storm this long exhausts them once. */
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

async function activeServer(em: Emulator) {
  const body = { product_id: 301, cycle: 'm', keypair_id: await keypair(em, '/baremetals', 'rebuild-key'), label: 'rebuild-server', select_os: 'ubuntu-22' }
  return { id: await ordered(em, '/baremetals', body), inputs: body }
}

export const ACTIONS: readonly Action[] = [
  {
    key: 'vm-rebuild',
    title: 'Lite VM rebuild_os',
    resource: 'lite_vm',
    method: 'PUT',
    path: /^\/v1\/lites\/accounts\/\d+\/rebuild$/,
    input: 'rebuild_os',
    value: 'Debian-12',
    async setup(em) {
      const body = vmBody(await keypair(em, '/lites', 'rebuild-key'), 101, 'rebuild-vm')
      return { id: await ordered(em, '/lites', body), inputs: body }
    },
  },
  {
    key: 'metal-rebuild',
    title: 'Metal server rebuild_os',
    resource: 'baremetal',
    method: 'PUT',
    path: /^\/v1\/baremetals\/\d+\/rebuild$/,
    input: 'rebuild_os',
    value: 'debian-12',
    setup: activeServer,
  },
  {
    key: 'metal-reset',
    title: 'Metal server reset',
    resource: 'baremetal',
    method: 'PUT',
    path: /^\/v1\/baremetals\/accounts\/\d+\/state\/reset$/,
    input: 'reset_trigger',
    value: 'first',
    hold: [{ method: 'GET', path: '/baremetals/accounts/*', mode: 'delay', delay_ms: 4000, count: 1 }],
    setup: activeServer,
  },
]

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

// Shapes of the emulator state (plain JSON, so a state file is one stringify) and small readers of it.
// Here: the records every family shares (accounts, invoices, orders, keypairs; each owned by a customer) and the pipeline's own
// (idempotency, faults, log, config). What a kind does with its account lives in its family module
// (src/emulator/families/); a kind's own settings belong in `extra_details`, what its clients read.

import type { CycleCode } from './catalog.js'
import type { Json, JsonObject } from './json.js'

export type Status = 'Pending' | 'Active' | 'Suspended' | 'Terminated'
export const STATUSES: readonly Status[] = ['Pending', 'Active', 'Suspended', 'Terminated']
export type Power = 'running' | 'stopped' | 'paused'
export type BaremetalPower = 'on' | 'off'

/**
 * What becomes visible when the account is next Active (the account object): nothing shows while Pending.
 * `type` names the change; its family defines the rest (`create` and `migrate` carry nothing).
 */
export interface PendingChange {
  readonly type: string
  readonly [field: string]: Json
}

/**
 * One account of any kind. `vm` and `captured` are on every record (null but on Lite VMs and snapshots),
 * `server_power` and `assigned_at` only on their kinds: the state-file format, so a file written by any
 * earlier emulator loads.
 */
export interface Account {
  account_id: number
  /** The customer whose API key ordered it; the service API shows it to no one else (customer-store.ts). */
  customer: string
  /** `<family>.<kind>` or the family's single kind; the registry (families/index.ts) lists them. */
  kind: string
  status: Status
  cycle: CycleCode
  billingcycle: string
  date_created: string
  next_due: string
  recurring_amount: number
  product_id: number
  product_name: string
  description: string
  order_id: string
  last_invoice_id: number
  extra_details: JsonObject
  /** Fixed when the delay starts (the emulator's start-up options); null while the invoice is unpaid. */
  activate_at: number | null
  pending: PendingChange | null
  gone_at: number | null
  vm: { vmid: number; power: Power; started_at: number } | null
  /** What a snapshot captured of its VM, for S4 and S5. */
  captured: { osname: string; disk_size: number } | null
  /** Metal servers only (M4, M5): absent on every other kind. */
  server_power?: BaremetalPower
  /** Additional IPs only: when the current assignment (A1) was made, `YYYY-MM-DD HH:MM:SS`. */
  assigned_at?: string | null
}

export type InvoiceType = 'new' | 'upgrade' | 'change_package' | 'migrate'
export interface Invoice {
  id: number
  customer: string
  account_id: number
  paid_id: number | null
  status: 'Paid' | 'Unpaid' | 'Cancelled'
  date: string
  duedate: string
  paybefore: string
  datepaid: string | null
  invoice_type: InvoiceType
  amount: number
}

export interface Order {
  order_id: string
  customer: string
  kind: string
  account_id: string
  invoice_id: number
  idempotency_key: string | null
  created_at: string
}

export interface Keypair {
  keypair_id: number
  customer: string
  pool: string
  name: string
  public_key: string
  origin: 'generated' | 'imported'
}

/** `scope` is the API key the record belongs to; `customer`, that key's customer when it was claimed. */
export interface IdempotencyRecord {
  scope: string
  customer: string
  key: string
  method: string
  path: string
  body: Json | undefined
  created_at: number
  in_progress: boolean
  status: number
  response: string
}

export type FaultMode = 'error' | 'error_after' | 'drop_after' | 'hang' | 'hang_after' | 'delay'
/**
 * A fault rule (latency and chaos included). `probability` and `priority` are written only when the rule
 * sets them, so a rule without them reads exactly as before they existed.
 */
export interface Fault {
  fault_id: string
  method: string
  path: string
  mode: FaultMode
  status: number | null
  count: number
  remaining: number
  /** Fixed, or `[min, max]` drawn from the seeded random source each time the rule fires. */
  delay_ms: number | [number, number]
  retry_after_s: number | null
  detail: string
  /** The chance (0 to 1) that a matching request is hit; a miss leaves the request to the next rule. */
  probability?: number
  /** Rules are tried highest first, then oldest first; default 0. */
  priority?: number
}

export interface LogEntry {
  seq: number
  time: string
  method: string
  path: string
  query: JsonObject
  idempotency_key: string | null
  /** The customer of the request's API key; null when the key is missing or unknown (a 401). */
  customer: string | null
  /** The key the request sent, masked (customers.ts maskKey); null when it sent none. */
  api_key: string | null
  body: Json
  status: number | null
  replayed: boolean
  fault_id: string | null
  /** Milliseconds from the request's arrival to its answer (or its dropped connection), on the handler's timer. */
  latency_ms: number
}

/** One accepted `x-token`; every key belongs to one customer, who owns what the key creates (customers.ts). */
export interface ApiKey {
  key: string
  scope: 'rw' | 'ro'
  customer: string
}
export interface Config {
  provisioning_delay_ms: number
  retention_ms: number
  idempotency_ttl_ms: number
  api_keys: ApiKey[]
  ip_unavailable_product_ids: number[]
  /** `ignore_idempotency_keys`: a service without the Idempotency-Key extension (the real one may lack it): keys neither honoured nor echoed. */
  quirks: { ids_as_strings: boolean; bare_lists: boolean; ignore_idempotency_keys: boolean }
}

/**
 * Id and address sequences by name: the store's own (account, order, invoice, payment, request, fault)
 * and those the families declare (family.ts builds the first values).
 */
export type Sequences = Record<string, number>

/** Everything a restarted emulator must get back; plain JSON so a state file is one stringify. */
export interface State {
  version: 1
  now: number
  config: Config
  seq: Sequences
  accounts: Account[]
  invoices: Invoice[]
  orders: Order[]
  keypairs: Keypair[]
  idempotency: IdempotencyRecord[]
  faults: Fault[]
  log: LogEntry[]
}

export function invoiceView(invoice: Invoice): JsonObject {
  const { account_id: _account, customer: _customer, ...rest } = invoice
  return { ...rest }
}

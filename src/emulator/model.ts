// Shapes of the emulator state (plain JSON, so a state file is one stringify) and small readers of it.

import { type CycleCode, type FamilyKey, liteFamilies, type LiteFamily, baremetalProducts } from './catalog.js'
import type { Json, JsonObject } from './json.js'
export type AccountKind = `${FamilyKey}.${'vm' | 'snapshot' | 'disk'}` | 'baremetal' | 'additional_ip' | 'elastic_storage'
export const ACCOUNT_KINDS: readonly AccountKind[] = [
  'lite.vm',
  'lite.snapshot',
  'lite.disk',
  'lite_pro.vm',
  'lite_pro.snapshot',
  'lite_pro.disk',
  'baremetal',
  'additional_ip',
  'elastic_storage',
]
export type Status = 'Pending' | 'Active' | 'Suspended' | 'Terminated'
export const STATUSES: readonly Status[] = ['Pending', 'Active', 'Suspended', 'Terminated']
export type Power = 'running' | 'stopped' | 'paused'

/** What becomes visible when the account is next Active (the account object): nothing shows while Pending. */
export type PendingChange =
  | { type: 'create' }
  | { type: 'migrate' }
  | { type: 'product'; product_id: number }
  | { type: 'vm_disk'; disk_size: number }
  | { type: 'disk_size'; size: number }
  | { type: 'os'; osname: string }
  | { type: 'metal_os'; select_os: string }
  | { type: 'storage_product'; product_id: number }

export interface Account {
  account_id: number
  kind: AccountKind
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

export type BaremetalPower = 'on' | 'off'

export type InvoiceType = 'new' | 'upgrade' | 'change_package' | 'migrate'
export interface Invoice {
  id: number
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
  kind: string
  account_id: string
  invoice_id: number
  idempotency_key: string | null
  created_at: string
}

export interface Keypair {
  keypair_id: number
  pool: string
  name: string
  public_key: string
  origin: 'generated' | 'imported'
}

export interface IdempotencyRecord {
  scope: string
  key: string
  method: string
  path: string
  body: Json | undefined
  created_at: number
  in_progress: boolean
  status: number
  response: string
}

export type FaultMode = 'error' | 'error_after' | 'drop_after' | 'delay'
export interface Fault {
  fault_id: string
  method: string
  path: string
  mode: FaultMode
  status: number | null
  count: number
  remaining: number
  delay_ms: number
  retry_after_s: number | null
  detail: string
}

export interface LogEntry {
  seq: number
  time: string
  method: string
  path: string
  query: JsonObject
  idempotency_key: string | null
  body: Json
  status: number | null
  replayed: boolean
  fault_id: string | null
}

export interface ApiKey {
  key: string
  scope: 'rw' | 'ro'
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

export interface Sequences {
  account: number
  order: number
  invoice: number
  payment: number
  keypair: number
  vmid: number
  /** Offsets from 203.0.113.10 (servers) and 198.51.100.2 (additional IPs): the emulator's start-up options. */
  server_ip: number
  additional_ip: number
  request: number
  fault: number
}

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

export function familyOfKind(kind: AccountKind): LiteFamily | undefined {
  return liteFamilies.find((f) => kind.startsWith(`${f.key}.`))
}

export function invoiceView(invoice: Invoice): JsonObject {
  const { account_id: _account, ...rest } = invoice
  return { ...rest }
}

/** VM `disk_size` is a string of digits on the wire (the Lite VM account); drift may have made it anything. */
export function vmDiskSize(account: Account): number {
  const n = Number.parseInt(String(account.extra_details.disk_size ?? '0'), 10)
  return Number.isFinite(n) ? n : 0
}

export function diskSize(account: Account): number {
  const n = account.extra_details.size
  return typeof n === 'number' ? n : 0
}

export function applyChange(account: Account, change: PendingChange): void {
  const family = familyOfKind(account.kind)
  switch (change.type) {
    case 'product': {
      const product = family?.vmProducts.find((p) => p.product_id === change.product_id)
      if (!product) return
      account.product_id = product.product_id
      account.product_name = product.name
      account.extra_details.disk_size = String(Math.max(vmDiskSize(account), product.disk))
      return
    }
    case 'vm_disk':
      account.extra_details.disk_size = String(change.disk_size)
      return
    case 'disk_size':
      account.extra_details.size = change.size
      return
    case 'os':
      account.extra_details.osname = change.osname
      return
    case 'metal_os':
      account.extra_details.select_os = change.select_os
      return
    case 'storage_product': {
      const product = baremetalProducts.find((p) => p.product_id === change.product_id && p.type === 'elastic_storage')
      if (!product) return
      account.product_id = product.product_id
      account.product_name = product.name
      return
    }
    case 'create':
    case 'migrate':
      return
  }
}

/** The server an additional IP is assigned to (A1-A5); drift may have left anything there. */
export function assignedServer(account: Account): number | null {
  const id = account.extra_details.metal_account_id
  return typeof id === 'number' && Number.isInteger(id) ? id : null
}

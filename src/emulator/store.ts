import { recurringAmount } from './billing.js'
import { type Clock, formatDateTime } from './clock.js'
import { notFound } from './envelope.js'
import type { JsonObject } from './json.js'
import {
  type Account,
  type AccountKind,
  applyChange,
  assignedServer,
  type Config,
  type Invoice,
  invoiceView,
  type Sequences,
  type State,
} from './model.js'

export const firstSequences = (): Sequences => ({
  account: 100001,
  order: 500001,
  invoice: 700001,
  payment: 880001,
  keypair: 1,
  vmid: 1001,
  server_ip: 0,
  additional_ip: 0,
  request: 1,
  fault: 1,
})

/** The one owner of state: lookups that answer 404, lazy time transitions, sequences. */
export class Store {
  state: State

  constructor(
    readonly clock: Clock,
    private readonly initialConfig: Config,
  ) {
    this.state = this.fresh()
  }

  private fresh(): State {
    return {
      version: 1,
      now: this.clock.now(),
      config: structuredClone(this.initialConfig),
      seq: firstSequences(),
      accounts: [],
      invoices: [],
      orders: [],
      keypairs: [],
      idempotency: [],
      faults: [],
      log: [],
    }
  }

  reset(): void {
    this.state = this.fresh()
  }

  get config(): Config {
    return this.state.config
  }

  now(): number {
    return this.clock.now()
  }

  next(name: keyof Sequences): number {
    const value = this.state.seq[name]
    this.state.seq[name] = value + 1
    return value
  }

  find(id: number): Account | undefined {
    return this.state.accounts.find((a) => a.account_id === id)
  }

  /** A path id of another kind or family is as unknown as a missing one (the API's status codes). */
  get(id: number, kind: AccountKind): Account {
    const account = this.find(id)
    if (!account || account.kind !== kind) throw notFound(`account ${id} not found`)
    return account
  }

  invoice(id: number): Invoice | undefined {
    return this.state.invoices.find((i) => i.id === id)
  }

  lastInvoice(account: Account): Invoice {
    const invoice = this.invoice(account.last_invoice_id)
    if (!invoice) throw new Error(`account ${account.account_id} lost its invoice ${account.last_invoice_id}`)
    return invoice
  }

  /** Time-based transitions happen here, when a request arrives, never on a timer (the emulator's start-up options). */
  tick(): void {
    const now = this.now()
    this.state.now = now
    for (const account of this.state.accounts) {
      if (account.status === 'Pending' && account.activate_at !== null && now >= account.activate_at) {
        this.activate(account, account.activate_at)
      }
    }
    this.state.accounts = this.state.accounts.filter((a) => a.gone_at === null || now < a.gone_at)
    const ttl = this.config.idempotency_ttl_ms
    this.state.idempotency = this.state.idempotency.filter((r) => now < r.created_at + ttl)
  }

  /** Starts the provisioning delay with the delay in force now (the emulator's start-up options). */
  startDelay(account: Account): void {
    account.status = 'Pending'
    account.activate_at = this.now() + this.config.provisioning_delay_ms
  }

  activate(account: Account, at: number): void {
    account.status = 'Active'
    account.activate_at = null
    const change = account.pending
    account.pending = null
    if (change) applyChange(account, change)
    if (account.vm && change && ['create', 'migrate', 'os'].includes(change.type)) {
      account.vm.power = 'running'
      account.vm.started_at = at
    }
    if (account.kind === 'baremetal' && change && ['create', 'metal_os'].includes(change.type)) account.server_power = 'on'
    // Public addresses are handed out at the first Active, from their own sequences.
    if ((account.kind === 'baremetal' || account.kind === 'additional_ip') && account.extra_details.ip_address == null) {
      account.extra_details.ip_address =
        account.kind === 'baremetal'
          ? addressAt(SERVER_IP_BASE, this.next('server_ip'))
          : addressAt(ADDITIONAL_IP_BASE, this.next('additional_ip'))
    }
    account.recurring_amount = recurringAmount(account, account.recurring_amount)
  }

  suspend(account: Account): void {
    account.status = 'Suspended'
    account.activate_at = null
    if (account.vm) account.vm.power = 'stopped'
    if (account.kind === 'baremetal') account.server_power = 'off'
  }

  unsuspend(account: Account): void {
    account.status = 'Active'
    if (account.vm) {
      account.vm.power = 'running'
      account.vm.started_at = this.now()
    }
    if (account.kind === 'baremetal') account.server_power = 'on'
  }

  terminate(account: Account): void {
    if (account.status === 'Terminated') return
    account.status = 'Terminated'
    account.activate_at = null
    account.pending = null
    account.gone_at = this.now() + this.config.retention_ms
    const invoice = this.invoice(account.last_invoice_id)
    if (invoice?.status === 'Unpaid') invoice.status = 'Cancelled'
    if (account.vm) account.vm.power = 'stopped'
    if (account.kind === 'baremetal') {
      account.server_power = 'off'
      this.unassignServer(account.account_id)
    }
    // I4: a cancelled IP leaves its server.
    if (account.kind === 'additional_ip') this.unassign(account)
  }

  /** A1: the IP now belongs to the server. */
  assign(ip: Account, serverId: number): void {
    ip.extra_details.metal_account_id = serverId
    ip.assigned_at = formatDateTime(this.now())
  }

  unassign(ip: Account): void {
    ip.extra_details.metal_account_id = null
    ip.assigned_at = null
  }

  /** M10 (and a purge): every IP assigned to the server is released. */
  unassignServer(serverId: number): void {
    for (const ip of this.state.accounts) {
      if (ip.kind === 'additional_ip' && assignedServer(ip) === serverId) this.unassign(ip)
    }
  }

  purge(id: number): boolean {
    if (this.find(id)?.kind === 'baremetal') this.unassignServer(id)
    const before = this.state.accounts.length
    this.state.accounts = this.state.accounts.filter((a) => a.account_id !== id)
    return this.state.accounts.length !== before
  }

  /** The account object. */
  view(account: Account): JsonObject {
    const invoice = this.invoice(account.last_invoice_id)
    return {
      account_id: account.account_id,
      status: account.status,
      billingcycle: account.billingcycle,
      date_created: account.date_created,
      next_due: account.next_due,
      recurring_amount: account.recurring_amount,
      product_id: account.product_id,
      product_name: account.product_name,
      description: account.description,
      order_id: account.order_id,
      last_invoice: invoice ? invoiceView(invoice) : null,
      extra_details: structuredClone(account.extra_details),
    }
  }
}

const SERVER_IP_BASE = '203.0.113.10'
const ADDITIONAL_IP_BASE = '198.51.100.2'

/** The IPv4 address `offset` steps above `base` (carrying into the higher octets). */
export function addressAt(base: string, offset: number): string {
  const value = base.split('.').reduce((n, octet) => n * 256 + Number(octet), 0) + offset
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.')
}

// The one owner of the emulator state: lookups that answer 404, the status model's transitions (lazy,
// when a request arrives), sequences, the account object, and snapshots of the whole state. What a
// transition does to one kind (power, addresses, its price) is that kind's rules, reached through the
// registry it is given. It also holds the shelf of named snapshots (snapshots.ts), which outlives a reset.
// Its lookups see every customer (the control API's view); the service API sees one customer's objects
// through CustomerStore (customer-store.ts).
import { cycleOf } from './catalog.js'
import type { Clock } from './clock.js'
import { adoptOwnerless } from './customers.js'
import { isObject, type Json, type JsonObject } from './json.js'
import type { AccountRegistry, Ledger } from './kinds.js'
import { type Account, type Config, type Invoice, invoiceView, type State } from './model.js'
import { type SnapshotKeeper, SnapshotShelf } from './snapshots.js'

export class Store implements Ledger {
  state: State
  /** Named copies of `state`; not part of it, so a reset or a restore leaves them be. */
  readonly snapshots: SnapshotShelf

  constructor(
    readonly clock: Clock,
    private readonly initialConfig: Config,
    readonly registry: AccountRegistry,
    keepSnapshots?: SnapshotKeeper,
  ) {
    this.state = this.fresh()
    this.snapshots = new SnapshotShelf(keepSnapshots)
  }

  private fresh(): State {
    return {
      version: 1,
      now: this.clock.now(),
      config: structuredClone(this.initialConfig),
      seq: this.registry.firstSequences(),
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

  /** A JSON-serialisable copy of the whole state, as a state file keeps it. */
  snapshot(): State {
    return structuredClone(this.#kept())
  }

  /**
   * The snapshot as JSON text, made without a copy of the state (half of a state file's write was the copy).
   * `log: false` leaves the request log out (an empty list in its place): a state file appends it to a file
   * of its own, since it grows with every request.
   */
  snapshotText(options: { log?: boolean } = {}): string {
    const kept = this.#kept()
    return JSON.stringify(options.log === false ? { ...kept, log: [] } : kept)
  }

  /** The state as a snapshot keeps it: a shallow view, shared with the live state below its top level. */
  #kept(): State {
    this.state.now = this.now()
    // An in-flight request dies with the process; keeping its claim would block its retry forever.
    return { ...this.state, idempotency: this.state.idempotency.filter((r) => !r.in_progress) }
  }

  /** Replaces the state with a snapshot (of this emulator or an earlier one); the clock never moves back. */
  restore(saved: unknown): void {
    if (!isObject(saved as Json) || (saved as { version?: unknown }).version !== 1) {
      throw new Error('not an emulator state snapshot (version 1)')
    }
    const state = structuredClone(saved) as State
    // A state file written before a sequence existed starts that sequence afresh.
    state.seq = { ...this.registry.firstSequences(), ...state.seq }
    // A state file written before customers existed: its objects go to the first read-write key's customer.
    adoptOwnerless(state)
    this.clock.catchUp(state.now)
    this.state = state
    this.tick()
  }

  get config(): Config {
    return this.state.config
  }

  now(): number {
    return this.clock.now()
  }

  next(name: string): number {
    const value = this.state.seq[name]
    if (value === undefined) throw new Error(`no sequence named ${name}`)
    this.state.seq[name] = value + 1
    return value
  }

  /** The account with this id, whoever owns it (ids are global). */
  find(id: number): Account | undefined {
    return this.state.accounts.find((a) => a.account_id === id)
  }

  invoice(id: number): Invoice | undefined {
    return this.state.invoices.find((i) => i.id === id)
  }

  lastInvoice(account: Account): Invoice {
    const invoice = this.invoice(account.last_invoice_id)
    if (!invoice) throw new Error(`account ${account.account_id} lost its invoice ${account.last_invoice_id}`)
    return invoice
  }

  /** The recurring amount by the kind's rules, recomputed whenever a change is applied; promocodes never touch it. */
  recurringAmount(account: Account, fallback: number): number {
    const cycle = cycleOf(account.cycle)
    const amount = cycle ? this.registry.rulesOf(account.kind)?.recurringAmount(account, cycle) : undefined
    return amount ?? fallback
  }

  /** Time-based transitions happen here, when a request arrives, never on a timer (the emulator's start-up options). */
  tick(): void {
    const now = this.now()
    this.state.now = now
    // In the order they fell due, not the accounts' order: an activation draws from sequences (a server's
    // address), and a restart (a state file is written after changes, not after the reads that activate)
    // must give each account what the reads before it saw, however many fell due since.
    const due = this.state.accounts.filter((a) => a.status === 'Pending' && a.activate_at !== null && now >= a.activate_at)
    due.sort((a, b) => a.activate_at! - b.activate_at! || a.account_id - b.account_id)
    for (const account of due) this.activate(account, account.activate_at!)
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
    const rules = this.registry.rulesOf(account.kind)
    if (change) rules?.applyChange?.(account, change)
    rules?.activated?.(account, change, at, this)
    account.recurring_amount = this.recurringAmount(account, account.recurring_amount)
  }

  suspend(account: Account): void {
    account.status = 'Suspended'
    account.activate_at = null
    this.registry.rulesOf(account.kind)?.suspended?.(account)
  }

  unsuspend(account: Account): void {
    const now = this.now()
    // Suspended while Pending: the work it waited for (its provisioning, a paid change) completes now, as a forced
    // Active does, rather than being dropped with the account Active but never provisioned.
    if (account.pending) this.activate(account, now)
    account.status = 'Active'
    this.registry.rulesOf(account.kind)?.unsuspended?.(account, now)
  }

  terminate(account: Account): void {
    if (account.status === 'Terminated') return
    account.status = 'Terminated'
    account.activate_at = null
    account.pending = null
    account.gone_at = this.now() + this.config.retention_ms
    const invoice = this.invoice(account.last_invoice_id)
    if (invoice?.status === 'Unpaid') invoice.status = 'Cancelled'
    this.registry.rulesOf(account.kind)?.terminated?.(account)
    this.registry.released(account, this)
  }

  purge(id: number): boolean {
    const account = this.find(id)
    if (account) this.registry.released(account, this)
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

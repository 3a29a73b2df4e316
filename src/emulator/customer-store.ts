// The store as one customer's API key sees it (CustomerStore): what the service API's handlers get as
// `ctx.store`. Every lookup, list and insert of an owned object goes through it, so every family sees and
// stamps only its caller's objects by construction; ids stay global (one sequence each).
// Must not: name a family or a kind.
import { notFound } from './envelope.js'
import type { JsonObject } from './json.js'
import type { Account, Config, Invoice, Keypair, Order } from './model.js'
import type { Store } from './store.js'

type Unowned<T> = Omit<T, 'customer'>

/**
 * The store as one customer's API key sees it: what the service API's handlers get as `ctx.store`. Another
 * customer's id is as unknown as a missing one (404 in a path, "unknown" in a body); whatever is added is
 * stamped with this customer. Transitions and views act on an account already found, so they pass through.
 */
export class CustomerStore {
  constructor(
    private readonly store: Store,
    readonly customer: string,
  ) {}

  get config(): Config {
    return this.store.config
  }

  now(): number {
    return this.store.now()
  }

  next(name: string): number {
    return this.store.next(name)
  }

  /** This customer's account with this id, of any kind. */
  find(id: number): Account | undefined {
    const account = this.store.find(id)
    return account?.customer === this.customer ? account : undefined
  }

  /** A path id of another kind, family or customer is as unknown as a missing one (the API's status codes). */
  get(id: number, kind: string): Account {
    const account = this.find(id)
    if (!account || account.kind !== kind) throw notFound(`account ${id} not found`)
    return account
  }

  accounts(): Account[] {
    return this.store.state.accounts.filter((a) => a.customer === this.customer)
  }

  keypairs(): Keypair[] {
    return this.store.state.keypairs.filter((k) => k.customer === this.customer)
  }

  addAccount(account: Unowned<Account>): Account {
    const owned = this.own<Account>(account)
    this.store.state.accounts.push(owned)
    return owned
  }

  addKeypair(keypair: Unowned<Keypair>): Keypair {
    const owned = this.own<Keypair>(keypair)
    this.store.state.keypairs.push(owned)
    return owned
  }

  /** Removes this customer's keypair `id`; false when it has none by that id. */
  removeKeypair(id: number): boolean {
    const state = this.store.state
    const before = state.keypairs.length
    state.keypairs = state.keypairs.filter((k) => k.keypair_id !== id || k.customer !== this.customer)
    return state.keypairs.length !== before
  }

  addInvoice(invoice: Unowned<Invoice>): Invoice {
    const owned = this.own<Invoice>(invoice)
    this.store.state.invoices.push(owned)
    return owned
  }

  addOrder(order: Unowned<Order>): Order {
    const owned = this.own<Order>(order)
    this.store.state.orders.push(owned)
    return owned
  }

  /** Stamps the object itself (not a copy), so the caller's reference is the stored one. */
  private own<T extends { customer: string }>(item: Unowned<T>): T {
    const owned = item as T
    owned.customer = this.customer
    return owned
  }

  view(account: Account): JsonObject {
    return this.store.view(account)
  }

  recurringAmount(account: Account, fallback: number): number {
    return this.store.recurringAmount(account, fallback)
  }

  startDelay(account: Account): void {
    this.store.startDelay(account)
  }

  terminate(account: Account): void {
    this.store.terminate(account)
  }
}

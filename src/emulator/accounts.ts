// What every family that sells accounts shares in its routes: the API's list rules, the status model's
// precondition table, a new account, an order on it, a scheduled change, a cancellation, and the
// catalog calls of a product list.
// Must not: name a family or a kind; the caller passes its own.
import { datesFor, placeOrder } from './billing.js'
import type { Cycle } from './catalog.js'
import { conflict, notFound } from './envelope.js'
import type { Json, JsonObject } from './json.js'
import { type Account, type InvoiceType, type PendingChange, STATUSES, type Status } from './model.js'
import { paramId, type Route, type RouteContext } from './router.js'
import type { CustomerStore } from './customer-store.js'

/** The list call of a kind: Terminated hidden unless asked for by `status` (the API's list rules). */
export function listAccounts(ctx: RouteContext, kind: string): Json {
  const v = ctx.reader(false)
  const wanted: Status[] = []
  for (const raw of ctx.query.getAll('status')) {
    const status = STATUSES.find((s) => s.toLowerCase() === raw.toLowerCase())
    if (status) wanted.push(status)
    else v.fail('status', `unknown status '${raw}'`, 'value_error', 'query')
  }
  v.done()
  const shown = wanted.length > 0 ? wanted : STATUSES.filter((s) => s !== 'Terminated')
  return ctx.store
    .accounts()
    .filter((a) => a.kind === kind && shown.includes(a.status))
    .sort((a, b) => a.account_id - b.account_id)
    .map((a) => ctx.store.view(a))
}

/** Step 7 of the emulator's request pipeline: the account's status must be one the operation allows. */
export function requireStatus(account: Account, allowed: readonly Status[]): void {
  if (allowed.includes(account.status)) return
  throw conflict(`account ${account.account_id} is ${account.status}; this action needs ${allowed.join(' or ')}`)
}

export const ACTIVE: readonly Status[] = ['Active']
export const NOT_TERMINATED: readonly Status[] = ['Pending', 'Active', 'Suspended']
export const RUNNING_STATES: readonly Status[] = ['Active', 'Suspended']

export function newAccount(
  store: CustomerStore,
  kind: string,
  productId: number,
  productName: string,
  cycle: Cycle,
  extra: JsonObject,
): Account {
  const account = store.addAccount({
    account_id: store.next('account'),
    kind,
    status: 'Pending',
    cycle: cycle.code,
    ...datesFor(store.now(), cycle),
    recurring_amount: 0,
    product_id: productId,
    product_name: productName,
    description: '',
    order_id: String(store.next('order')),
    last_invoice_id: 0,
    extra_details: extra,
    activate_at: null,
    pending: { type: 'create' },
    gone_at: null,
    vm: null,
    captured: null,
  })
  account.recurring_amount = store.recurringAmount(account, 0)
  return account
}

export function order(
  ctx: RouteContext,
  account: Account,
  kind: string,
  invoiceType: InvoiceType,
  pay: boolean,
  promocode: string | null,
  amount: number,
): Json {
  return placeOrder(ctx.store, {
    kind,
    account,
    invoiceType,
    pay,
    amount,
    promocode,
    idempotencyKey: ctx.idempotencyKey,
    ...(invoiceType === 'new' ? { orderId: account.order_id } : {}),
  })
}

/** Rebuilds and restores: Pending for one provisioning delay, no order, no invoice (the status model). */
export function schedule(store: CustomerStore, account: Account, change: PendingChange): void {
  account.pending = change
  store.startDelay(account)
}

export function cancel(ctx: RouteContext, kind: string): Json {
  const account = ctx.store.get(paramId(ctx, 'id'), kind)
  ctx.reader(false).done()
  ctx.store.terminate(account)
  return 'cancellation scheduled'
}

/** The `size` of a volume (an extra disk, an elastic storage), in GB; drift may have made it anything. */
export function diskSize(account: Account): number {
  const n = account.extra_details.size
  return typeof n === 'number' ? n : 0
}

/** The IPv4 address `offset` steps above `base` (carrying into the higher octets). */
export function addressAt(base: string, offset: number): string {
  const value = base.split('.').reduce((n, octet) => n * 256 + Number(octet), 0) + offset
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.')
}

interface Product {
  readonly product_id: number
}

/** The product a `:product_id` path names, among `products`, or 404 (the catalog calls). */
export function productInPath<P extends Product>(ctx: RouteContext, products: readonly P[]): P {
  const id = paramId(ctx, 'product_id')
  const product = products.find((p) => p.product_id === id)
  if (!product) throw notFound('product not found')
  return product
}

/** The two catalog calls of a product list under `prefix`: every plan, and one plan by its id. */
export function productRoutes<P extends Product>(prefix: string, products: readonly P[], plan: (product: P) => Json): Route[] {
  return [
    { method: 'GET', pattern: `${prefix}/products`, handler: () => products.map(plan) },
    { method: 'GET', pattern: `${prefix}/products/:product_id`, handler: (ctx) => plan(productInPath(ctx, products)) },
  ]
}

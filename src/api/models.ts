// Wire types shared by every family and their lenient decoders. Decoded objects keep the
// payload's unknown fields (the emulator may add some) so `raw` outputs can show them.
import { accountId, array, boolean, field, type JsonObject, nullable, number, numericId, object, optionalField, string } from './decode.js'

/** An account or order id as callers may hold it; the client sends it as digits or a JSON integer. */
export type Id = string | number

/** The order response: what every order-placing call answers. Ids are decimal strings. */
export interface Order {
  order_id: string
  /** The new account for creates; the same account for upgrades, change-package and migrate. */
  account_id: string
}

export type AccountStatus = 'Pending' | 'Active' | 'Suspended' | 'Terminated'
export type InvoiceStatus = 'Paid' | 'Unpaid' | 'Cancelled'

/** The payment flag every order takes, changes of an account included (the API's request-body rules). */
export interface OrderPayment {
  /** Default `true`: charge the card on file. `false` leaves the invoice Unpaid. */
  pay_invoice_with_cc?: boolean
}

/** The order-time inputs every order that makes an account takes; each family's create request extends it. */
export interface PaidOrder extends OrderPayment {
  promocode?: string
}

/** The order-time inputs of a create's body, in the order they are sent. */
export function paid(body: PaidOrder): Record<string, unknown> {
  return { pay_invoice_with_cc: body.pay_invoice_with_cc, promocode: body.promocode }
}

/** The payment flag of a change's body (an upgrade, a change of package, a migration). */
export function payment(body: OrderPayment): Record<string, unknown> {
  return { pay_invoice_with_cc: body.pay_invoice_with_cc }
}

/** The invoice object. */
export interface Invoice {
  id: number
  paid_id: number | null
  /** Normalised to `Paid`/`Unpaid`/`Cancelled` whatever the case on the wire; other values kept as given. */
  status: InvoiceStatus | (string & {})
  date: string
  duedate: string
  paybefore: string
  datepaid: string | null
  invoice_type: string
}

/** The billing cycles: the codes an order names and the labels an account reports (the API's cycle table). */
export const CYCLE_LABELS: Readonly<Record<string, string>> = {
  m: 'Monthly',
  q: 'Quarterly',
  s: 'Semi-Annually',
  a: 'Annually',
  b: 'Biennially',
  t: 'Triennially',
  p4: 'Quadrennially',
  p5: 'Quinquennially',
}

/** The account object. `Extra` is the kind's `extra_details`. */
export interface Account<Extra = JsonObject> {
  account_id: string
  /** Normalised to the canonical case (`Active`, ...) so callers may compare with `===`. */
  status: AccountStatus | (string & {})
  billingcycle: string
  date_created: string
  next_due: string
  recurring_amount: number
  product_id: number
  product_name: string
  description: string
  /** The order that created the account; never changes. */
  order_id: string
  last_invoice: Invoice | null
  extra_details: Extra
}

/** One priced step of a component (the catalog product object): `qty_min`..`qty_max` inclusive, `null` = unbounded. */
export interface PriceStep {
  qty_min: number
  qty_max: number | null
  price: number
}

export interface PriceComponent {
  label: string
  /** The order field it prices, e.g. `disk_size`. */
  field: string
  prices: PriceStep[]
}

/** One `billing[]` entry: the price of one cycle. */
export interface BillingOption {
  label: string
  cycle: string
  price: number
  components?: PriceComponent[] | null
}

export interface PlanOptions {
  /** `vps`, `vps-pro`, `disk` or `snapshot`. */
  type: string
  cores?: number
  /** MB. */
  memory?: number
  /** Base disk, GB. */
  disk?: number
  /** `0`/`1` on the wire, a boolean here. */
  allow_downgrade?: boolean
  min_size?: number
  max_size?: number
}

/** The catalog product object: Lite and Lite Pro catalog products (VM, disk, snapshot, migrate targets). */
export interface Plan {
  product_id: number
  name: string
  description: string
  category_id?: number
  category_name?: string
  options: PlanOptions
  billing: BillingOption[]
}

const ACCOUNT_STATUSES: readonly AccountStatus[] = ['Pending', 'Active', 'Suspended', 'Terminated']
const INVOICE_STATUSES: readonly InvoiceStatus[] = ['Paid', 'Unpaid', 'Cancelled']

function canonical<T extends string>(value: string, known: readonly T[]): T | string {
  const lower = value.toLowerCase()
  return known.find((k) => k.toLowerCase() === lower) ?? value
}

/** Status comparison as the contract wants it: case-insensitive. */
export function statusIs(status: string | null | undefined, expected: string): boolean {
  return typeof status === 'string' && status.toLowerCase() === expected.toLowerCase()
}

export function decodeOrder(value: unknown, at = 'data'): Order {
  const o = object(value, at)
  return { ...o, order_id: field(o, 'order_id', at, accountId), account_id: field(o, 'account_id', at, accountId) }
}

export function decodeInvoice(value: unknown, at: string): Invoice {
  const o = object(value, at)
  return {
    ...o,
    id: field(o, 'id', at, numericId),
    paid_id: field(o, 'paid_id', at, (v, p) => nullable(v, p, numericId)),
    status: canonical(field(o, 'status', at, string), INVOICE_STATUSES),
    date: field(o, 'date', at, string),
    duedate: field(o, 'duedate', at, string),
    paybefore: field(o, 'paybefore', at, string),
    datepaid: field(o, 'datepaid', at, (v, p) => nullable(v, p, string)),
    invoice_type: field(o, 'invoice_type', at, string),
  }
}

export function decodeAccount<Extra>(value: unknown, extra: (value: JsonObject, at: string) => Extra, at = 'data'): Account<Extra> {
  const o = object(value, at)
  const extraAt = `${at}.extra_details`
  return {
    ...o,
    account_id: field(o, 'account_id', at, accountId),
    status: canonical(field(o, 'status', at, string), ACCOUNT_STATUSES),
    billingcycle: field(o, 'billingcycle', at, string),
    date_created: field(o, 'date_created', at, string),
    next_due: field(o, 'next_due', at, string),
    recurring_amount: field(o, 'recurring_amount', at, number),
    product_id: field(o, 'product_id', at, numericId),
    product_name: field(o, 'product_name', at, string),
    description: field(o, 'description', at, (v, p) => nullable(v, p, string)) ?? '',
    order_id: field(o, 'order_id', at, accountId),
    last_invoice: field(o, 'last_invoice', at, (v, p) => nullable(v, p, decodeInvoice)),
    extra_details: extra(object(o.extra_details ?? {}, extraAt), extraAt),
  }
}

function decodePriceStep(value: unknown, at: string): PriceStep {
  const o = object(value, at)
  return {
    ...o,
    qty_min: field(o, 'qty_min', at, number),
    qty_max: field(o, 'qty_max', at, (v, p) => nullable(v, p, number)),
    price: field(o, 'price', at, number),
  }
}

function decodeComponent(value: unknown, at: string): PriceComponent {
  const o = object(value, at)
  return {
    ...o,
    label: field(o, 'label', at, string),
    field: field(o, 'field', at, string),
    prices: field(o, 'prices', at, (v, p) => array(v, p, decodePriceStep)),
  }
}

export function decodeBillingOption(value: unknown, at: string): BillingOption {
  const o = object(value, at)
  const billing: BillingOption = {
    ...o,
    label: field(o, 'label', at, string),
    cycle: field(o, 'cycle', at, string),
    price: field(o, 'price', at, number),
  }
  if ('components' in o) {
    billing.components = field(o, 'components', at, (v, p) => nullable(v, p, (w, q) => array(w, q, decodeComponent)))
  }
  return billing
}

function optionalNumber(o: JsonObject, key: string, at: string, into: JsonObject): void {
  const v = optionalField(o, key, at, (w, p) => nullable(w, p, number))
  if (v !== undefined && v !== null) into[key] = v
}

export function decodePlan(value: unknown, at = 'data'): Plan {
  const o = object(value, at)
  const optionsAt = `${at}.options`
  const options = object(o.options ?? {}, optionsAt)
  const decodedOptions: JsonObject = { ...options, type: optionalField(options, 'type', optionsAt, string) ?? '' }
  for (const key of ['cores', 'memory', 'disk', 'min_size', 'max_size']) {
    optionalNumber(options, key, optionsAt, decodedOptions)
  }
  const downgrade = optionalField(options, 'allow_downgrade', optionsAt, (v, p) => nullable(v, p, boolean))
  if (downgrade !== undefined && downgrade !== null) decodedOptions.allow_downgrade = downgrade
  const plan: Plan = {
    ...o,
    product_id: field(o, 'product_id', at, numericId),
    name: field(o, 'name', at, string),
    description: field(o, 'description', at, (v, p) => nullable(v, p, string)) ?? '',
    options: decodedOptions as unknown as PlanOptions,
    billing: field(o, 'billing', at, (v, p) => nullable(v, p, (w, q) => array(w, q, decodeBillingOption))) ?? [],
  }
  const categoryId = optionalField(o, 'category_id', at, (v, p) => nullable(v, p, numericId))
  if (categoryId !== undefined && categoryId !== null) plan.category_id = categoryId
  const categoryName = optionalField(o, 'category_name', at, (v, p) => nullable(v, p, string))
  if (categoryName !== undefined && categoryName !== null) plan.category_name = categoryName
  return plan
}

/** A keypair of any pool. `private_key` only in the create (K2) answer. */
export interface Keypair {
  keypair_id: number
  name: string
  public_key: string
  /** `generated` or `imported`; absent on services that do not report it. */
  origin?: string
  private_key?: string
}

export function decodeKeypair(value: unknown, at = 'data'): Keypair {
  const o = object(value, at)
  const keypair: Keypair = {
    ...o,
    keypair_id: field(o, 'keypair_id', at, numericId),
    name: field(o, 'name', at, string),
    public_key: field(o, 'public_key', at, string),
  }
  const origin = optionalField(o, 'origin', at, (v, p) => nullable(v, p, string))
  if (origin !== undefined && origin !== null) keypair.origin = origin
  // Stored byte for byte: never trimmed or re-encoded.
  const privateKey = optionalField(o, 'private_key', at, (v, p) => nullable(v, p, string))
  if (privateKey !== undefined && privateKey !== null) keypair.private_key = privateKey
  return keypair
}

/** Lists may come enveloped or bare (the API's success envelope); either way the payload is the array. */
export function decodeList<T>(read: (value: unknown, at: string) => T): (value: unknown) => T[] {
  return (value) => array(value, 'data', read)
}

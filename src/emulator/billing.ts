// Orders, invoices and payments, the same for every family (the status model): one order places one
// invoice and leaves its account Pending until paid and provisioned. What an account costs is its kind's
// rule (KindRules.recurringAmount, in its family module); promocodes discount the invoice only.
import { addDays, addMonths, formatDate, formatDateTime } from './clock.js'
import { type Cycle, PROMOCODES } from './catalog.js'
import type { Account, Invoice, InvoiceType } from './model.js'
import type { CustomerStore } from './customer-store.js'
import type { Store } from './store.js'

export function datesFor(now: number, cycle: Cycle) {
  const date_created = formatDate(now)
  return { date_created, next_due: addMonths(date_created, cycle.months), billingcycle: cycle.label }
}

export interface OrderRequest {
  kind: string
  account: Account
  invoiceType: InvoiceType
  pay: boolean
  amount: number
  promocode: string | null
  idempotencyKey: string | null
  /** Creates take the order id the account was stamped with; changes draw a fresh one. */
  orderId?: string
}

/**
 * Places one order: one invoice, one order record, the account Pending (the status model). Paid orders start
 * the provisioning delay now; unpaid ones wait for the invoice to be paid.
 */
export function placeOrder(store: CustomerStore, request: OrderRequest): { order_id: string; account_id: string } {
  const now = store.now()
  const date = formatDate(now)
  const discount = request.promocode ? (PROMOCODES[request.promocode] ?? 0) : 0
  const invoice = store.addInvoice({
    id: store.next('invoice'),
    account_id: request.account.account_id,
    paid_id: null,
    status: 'Unpaid',
    date,
    duedate: date,
    paybefore: addDays(date, 3),
    datepaid: null,
    invoice_type: request.invoiceType,
    amount: Math.round((request.amount * (100 - discount)) / 100),
  })
  const order = store.addOrder({
    order_id: request.orderId ?? String(store.next('order')),
    kind: request.kind,
    account_id: String(request.account.account_id),
    invoice_id: invoice.id,
    idempotency_key: request.idempotencyKey,
    created_at: formatDateTime(now),
  })
  request.account.last_invoice_id = invoice.id
  request.account.status = 'Pending'
  request.account.activate_at = null
  if (request.pay) payInvoice(store, invoice)
  return { order_id: order.order_id, account_id: order.account_id }
}

/** Payment starts the provisioning delay of the account that waits for it (the status model, the emulator's control endpoints). */
export function payInvoice(store: Store | CustomerStore, invoice: Invoice): void {
  invoice.status = 'Paid'
  invoice.paid_id = store.next('payment')
  invoice.datepaid = formatDateTime(store.now())
  const account = store.find(invoice.account_id)
  if (account && account.status === 'Pending' && account.activate_at === null && account.last_invoice_id === invoice.id) {
    store.startDelay(account)
  }
}

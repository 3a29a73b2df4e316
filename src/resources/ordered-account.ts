/**
 * What every resource the service bills as an ordered account shares, written once: its order-time
 * inputs (`promocode` and the payment flag `pay_with_credit_card`), what an order takes from them, and
 * the account's lifecycle rules (a Terminated account is gone; the order-time inputs cannot be read back).
 */
import { bool, string } from '../core/index.js'
import { textRules } from './billing.js'

/**
 * What the payment flag's description says it pays for: `the order` of a resource ordered once, or
 * `every order` of one whose updates order too; or a description of its own, for a resource that says
 * more of what an unpaid invoice leaves (the VM or server stays Pending).
 */
export type Payment = 'the order' | 'every order' | { readonly description: string }

const PAYMENT_DESCRIPTIONS = {
  'the order': 'Charge the card on file for the order; `false` leaves the invoice unpaid.',
  'every order': 'Charge the card on file for every order; `false` leaves invoices unpaid.',
} as const

/**
 * The order-time inputs of an ordered resource: read by the service only when an order is placed, so a
 * change on an existing object is only recorded (core's `orderTime`). `first` keeps the order each
 * resource has always declared them in, which is their order in the Pulumi schema and SDKs.
 */
export function orderInputs(payment: Payment, first: 'promocode' | 'pay_with_credit_card' = 'promocode') {
  const promocode = string({
    optional: true,
    orderTime: true,
    validate: textRules.promocode,
    description: 'A promotion code for the first invoice.',
  })
  const pay_with_credit_card = bool({
    optional: true,
    default: true,
    orderTime: true,
    description: typeof payment === 'string' ? PAYMENT_DESCRIPTIONS[payment] : payment.description,
  })
  return first === 'promocode' ? { promocode, pay_with_credit_card } : { pay_with_credit_card, promocode }
}

/** The order-time inputs as planned (the input of a create or an update step). */
interface OrderTimeInput {
  readonly promocode?: string | null
  readonly pay_with_credit_card?: boolean | null
}

/** Whether an order charges the card on file: the payment flag, which defaults to true. */
export function payFlag(input: OrderTimeInput): boolean {
  return input.pay_with_credit_card ?? true
}

/** The fields a create order takes from the order-time inputs. */
export function orderTerms(input: OrderTimeInput): { promocode: string | undefined; pay_invoice_with_cc: boolean } {
  return { promocode: input.promocode ?? undefined, pay_invoice_with_cc: payFlag(input) }
}

/**
 * The inputs the service never returns, so an import cannot recover them: the order-time inputs of
 * every ordered resource, listed first in its `unrecoverable`.
 */
export const ORDER_TIME_INPUTS = ['promocode', 'pay_with_credit_card'] as const

/** A Terminated account is gone: the service still answers for it, but a read reports no object. */
export function isTerminated(account: { readonly status: string }): boolean {
  return account.status === 'Terminated'
}

/** The read of an ordered account: what `observe` makes of it, or null once it is Terminated (gone). */
export function unlessTerminated<A extends { readonly status: string }, R>(account: A, observe: (account: A) => R): R | null {
  return isTerminated(account) ? null : observe(account)
}

/**
 * What every resource the service bills as an ordered account shares, written once: its order-time
 * inputs (`promocode` and the payment flag `pay_with_credit_card`), what an order takes from them, the
 * outputs every account has, the account's lifecycle rules (a Terminated account is gone; the
 * order-time inputs cannot be read back), and the create, resume, read, delete and listing of an
 * account whose create is one order and whose read is one call.
 */
import type { Account, Client, Order } from '../api/index.js'
import {
  type Attributes,
  type ChangesRefusedContext,
  bool,
  type CreateContext,
  type DeleteContext,
  type ListDeclaration,
  type ListFilter,
  type Observed,
  type OperationContext,
  ownCall,
  type ReadContext,
  type ResumeContext,
  string,
} from '../core/index.js'
import { type AccountKind, accountElsewhere, registerAccountKind } from './account-kinds.js'
import {
  accountIdAttribute,
  awaitingPayment,
  keepAndWait,
  orderedPending,
  statusFilter,
  textRules,
  untilChangesTaken,
  waitAgain,
} from './billing.js'

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
    checkedAtOrder: true,
    emptyIsUnset: true,
    validate: textRules.promocode,
    description:
      'A promotion code for the first invoice. Empty, it is none (as unset). The service checks it only when it places an order, ' +
      "a replacement's new one included.",
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
  return { promocode: input.promocode || undefined, pay_invoice_with_cc: payFlag(input) }
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
function unlessTerminated<A extends { readonly status: string }, R>(account: A, observe: (account: A) => R): R | null {
  return isTerminated(account) ? null : observe(account)
}

/** The outputs every ordered account has: `account_id` (its id as a number) and its status. */
export function accountOutputs(noun: string) {
  return {
    account_id: accountIdAttribute,
    status: string({ computed: true, description: `The ${noun} account status.` }),
  }
}

/** The `order_id` output: the order that created the account (the service never changes it). */
export function orderIdAttribute(noun: string) {
  return string({ computed: true, stable: true, identifiesOrder: true, description: `The order that created the ${noun}.` })
}

/** The outputs of an ordered account whose state keeps the order that created it: `account_id`, status, `order_id`. */
export function orderedOutputs(noun: string) {
  return { ...accountOutputs(noun), order_id: orderIdAttribute(noun) }
}

/** The `created_at` output: the day the account was created. */
export const createdAtAttribute = string({ computed: true, stable: true, description: 'Creation date, `YYYY-MM-DD`.' })

/** The `description` input of an order: free text the service keeps on the account, set once. */
export const orderDescriptionAttribute = string({
  optional: true,
  default: '',
  createOnly: true,
  validate: textRules.description,
  description: 'A description of the order.',
})

/** The service's calls on one kind of ordered account. */
interface AccountCalls<A> {
  /** One account, in any status (a Terminated one too). */
  readonly get: (client: Client, id: string, signal: AbortSignal) => Promise<A>
  readonly delete: (client: Client, id: string, signal: AbortSignal) => Promise<void>
}

/** An ordered account whose create is one order: what the lifecycle needs of the resource. */
interface OrderedAccount<X extends Attributes, A> {
  /** What the account is, for waits and warnings (`Lite disk`). */
  readonly what: string
  readonly calls: AccountCalls<A>
  /** The one mapping from the API to state, for every read. */
  readonly observe: (account: A) => Observed<X> & { id: string }
  /** Places the create order, with the fields it takes from the order-time inputs (`orderTerms`). */
  readonly order: (ctx: CreateContext<Client, X>, terms: ReturnType<typeof orderTerms>) => Promise<Order>
  /** Whether the state records the create order's id (an `order_id` output) from the moment it answers. */
  readonly recordsOrder: boolean
  /** The resource's type: an import of an id it does not find names the kind of account that has it (accountElsewhere). */
  readonly type: string
  /** The kind of account it registers, when not its own type, `what` and read (a restored VM is a VM). */
  readonly kind?: AccountKind
}

/**
 * The create, resume, read and delete of an ordered account, and what an import cannot recover: a
 * create places the order, records it at once (its id, Pending) and waits for Active; a resume waits
 * for the same account again; a read of a Terminated account reports it gone.
 */
export function orderedAccount<X extends Attributes & Record<(typeof ORDER_TIME_INPUTS)[number], unknown>, A extends Account<unknown>>(
  spec: OrderedAccount<X, A>,
) {
  const { what, calls, observe } = spec
  registerAccountKind(spec.kind ?? { type: spec.type, what, get: calls.get })
  return {
    async create(ctx: CreateContext<Client, X>) {
      // X declares the order-time inputs (its constraint), which the generic input type cannot show.
      const order = await spec.order(ctx, orderTerms(ctx.input as OrderTimeInput))
      const pending = orderedPending(order, spec.recordsOrder)
      const read = (id: string) => calls.get(ctx.client, id, ctx.signal)
      return observe(await keepAndWait(ctx, order, pending as Observed<X> & { id: string }, read, what))
    },
    async resume(ctx: ResumeContext<Client, X>) {
      return observe(await waitAgain(ctx, (id) => calls.get(ctx.client, id, ctx.signal), what))
    },
    // A resume only waits for Active (the account's status model): a read that shows it Active ends it.
    finished: (observed: Observed<X>) => (observed as { status?: unknown }).status === 'Active',
    async read(ctx: ReadContext<Client, X>) {
      return unlessTerminated(await ownCall(calls.get(ctx.client, ctx.id, ctx.signal)), observe)
    },
    async changesRefused(ctx: ChangesRefusedContext<Client, X>) {
      const prior = ctx.prior as { status?: unknown } | null
      return awaitingPayment({ ...ctx, prior }, what, () => calls.get(ctx.client, ctx.id, ctx.signal))
    },
    readyForChanges: (ctx: OperationContext<Client> & { readonly id: string; readonly timeoutMs: number }) =>
      untilChangesTaken(ctx, what, () => calls.get(ctx.client, ctx.id, ctx.signal)),
    async delete(ctx: DeleteContext<Client, X>) {
      await ownCall(calls.delete(ctx.client, ctx.id, ctx.signal))
    },
    elsewhere: ({ client, id, signal }: { client: Client; id: string; signal: AbortSignal }) =>
      accountElsewhere(spec.type, client, id, signal),
    unrecoverable: ORDER_TIME_INPUTS,
  }
}

/**
 * The listing of ordered accounts: the ids of the accounts the call lists, the resource's own filters
 * and, last, the `status` filter every account listing has (`plural` names the objects in its description).
 */
export function accountListing<X extends Attributes & Record<'status', unknown>>(spec: {
  readonly accounts: (client: Client, signal: AbortSignal) => Promise<readonly { readonly account_id: string }[]>
  readonly filters: Readonly<Record<string, ListFilter & { readonly attribute: keyof X & string }>>
  readonly plural: string
  readonly displayName: keyof X & string
}): ListDeclaration<Client, X> {
  return {
    ids: async ({ client, signal }) => (await spec.accounts(client, signal)).map((account) => account.account_id),
    filters: { ...spec.filters, status: statusFilter(spec.plural) },
    displayName: spec.displayName,
  }
}

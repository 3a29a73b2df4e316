/**
 * The rules the service's catalog states, as plan-time checks share them: a product among the listed
 * ones, a cycle the product offers, a size within the product's limits. Each answers what is wrong,
 * completing "<attribute> ...", or null. A rule that depends on another input answers null while that
 * input is unknown or itself wrong: the check of that input reports it, once.
 */
import { type Account, type BillingOption, type Client, type Invoice, type KeypairApi, statusIs } from '../api/index.js'
import { type Attributes, type CreateCheck, type CreateCheckContext, verbatim } from '../core/index.js'
import { accountIs, isNotFound } from './account-kinds.js'
import { untilTakesOrders } from './billing.js'

interface Product {
  readonly product_id: number
  readonly billing: readonly BillingOption[]
}

/** Values of the service (OS names, regions, ids), listed as they are, whatever the front end. */
export function quoted(values: readonly (string | number)[]): string {
  return verbatim(values.map((v) => JSON.stringify(v)).join(', '))
}

/** `id` among `products`; `catalog` names where they come from, e.g. "provider_lite_products". */
export function productRule(products: readonly Product[], id: number, catalog: string): string | null {
  if (products.some((p) => p.product_id === id)) return null
  return `must be a product of ${catalog}; the catalog has ${quoted(products.map((p) => p.product_id))}`
}

/** The product of `products` with this id, or undefined (not planned yet, or not in the catalog). */
export function productOf<P extends Product>(products: readonly P[], id: number | null | undefined): P | undefined {
  return typeof id === 'number' ? products.find((p) => p.product_id === id) : undefined
}

export function cycleRule(product: Product | undefined, cycle: string): string | null {
  if (!product) return null
  const offered = product.billing.map((b) => b.cycle)
  return offered.includes(cycle) ? null : `must be a cycle product ${product.product_id} offers: ${quoted(offered)}`
}

export function sizeRule(size: number, limits: { min?: number | null; max?: number | null }, of: string): string | null {
  const { min, max } = limits
  if (typeof min === 'number' && size < min) return `must be at least ${min} GB for ${of} (got ${size})`
  if (typeof max === 'number' && size > max) return `must be at most ${max} GB for ${of} (got ${size})`
  return null
}

export { isNotFound } from './account-kinds.js'

/** An account as an order placed on or from it is checked: it exists, and what it is now. */
interface OrderedOn {
  readonly account_id: string | number
  readonly status: string
  readonly last_invoice?: Invoice | null
}

/**
 * Null when the account exists and is Active, else what is wrong (completing "<attribute> ..."): the
 * service places an order on or from an account only while it is Active (D1, S1, S4, E1, A1 answer
 * 409 otherwise), so one that is Pending (an unpaid invoice, or work in progress) or Suspended would
 * fail the apply, and in a replacement only after the object it replaces was deleted. `act` words it
 * by what the create is: an order, or (an IP assignment, which is not billed) a request.
 */
export async function activeAccount(
  read: () => Promise<OrderedOn>,
  what: string,
  /** Called instead of a refusal for an account Pending with no unpaid invoice (the service is making an order or a change). */
  beingMade?: (id: string) => void,
  /** What the create asks of the service, in its words (see createAct). */
  act: CreateAct = createAct(true),
  /** What the id is instead when `read` does not find it ("account N is a …": another kind of account), else undefined. */
  instead?: () => Promise<string | undefined>,
): Promise<string | null> {
  let account: OrderedOn
  try {
    account = await read()
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown
    const other = await instead?.()
    return `must be ${what} of this account; ${other ?? 'there is none with this id'}`
  }
  const { account_id: id, status, last_invoice: invoice } = account
  if (statusIs(status, 'Active')) return null
  if (statusIs(status, 'Terminated')) return `is ${what} that is terminated (account ${id})`
  const unpaid = invoice !== undefined && invoice !== null && statusIs(invoice.status, 'Unpaid') ? invoice : undefined
  if (beingMade !== undefined && unpaid === undefined && statusIs(status, 'Pending')) {
    beingMade(String(id))
    return null
  }
  const until = unpaid === undefined ? '' : ` until invoice ${unpaid.id} is paid`
  const then =
    unpaid !== undefined
      ? 'Pay the invoice in the portal, then plan again'
      : statusIs(status, 'Suspended')
        ? 'Plan again once it is unsuspended (its overdue invoices paid in the portal)'
        : 'Plan again once it is Active'
  return (
    `is ${what} that is ${status}${until} (account ${id}): the service ${act.does} only ${act.of} an Active one, so the ` +
    `apply would fail (a replacement only after deleting the object it replaces). ${then}; ${act.notSent}`
  )
}

/** What a create asks of the service that a check of the account it needs speaks of: an order, or not (an assignment). */
interface CreateAct {
  /** Completing "the service ... only on an Active one": what it does only with an Active account. */
  readonly does: string
  /** The preposition before the account: an order is placed on one. */
  readonly of: 'on' | 'for'
  /** Said last, of what the check stops. */
  readonly notSent: string
  /** Completing "... so the apply waits for that before ...". */
  readonly sending: string
}

/** The words for a create that places a paid order (CreateCheckContext.orders), or for one that does not (an assignment). */
function createAct(orders: boolean | undefined): CreateAct {
  return orders === false
    ? { does: 'accepts this', of: 'for', notSent: 'nothing is sent', sending: 'sending it' }
    : { does: 'places this order', of: 'on', notSent: 'this order is not placed', sending: 'ordering' }
}

/**
 * The check of an input that names another account the order is placed on or from (a disk's VM, a
 * snapshot's VM, a restored VM's snapshot, an elastic storage's server): it must exist and be Active
 * (see activeAccount). Without it, a
 * mistyped id would pass plan as a replacement, and Terraform's default replacement would delete the
 * live object before the create is refused with a 404 (issue 11's rule: never delete what cannot be
 * recreated). While the id is unknown (the account is created in the same apply) the check is skipped.
 */
export function accountCheck<A extends Attributes>(
  attribute: keyof A & string,
  what: string,
  read: (client: Client, id: number, signal: AbortSignal) => Promise<Account<unknown>>,
  /** What else the order needs of the account once it is fine (checked only then). */
  then?: (ctx: CreateCheckContext<Client, A>, id: number) => Promise<string | null>,
): CreateCheck<Client, A> {
  return {
    attribute,
    references: true,
    async check(ctx) {
      const { client, input, signal, warn } = ctx
      const id = (input as Record<string, unknown>)[attribute]
      if (typeof id !== 'number') return null
      const act = createAct(ctx.orders)
      const wrong = await activeAccount(
        () => read(client, id, signal),
        what,
        (account) =>
          warn(
            `${attribute} is Pending: the ${ctx.orders === false ? 'create' : 'order'} waits for it`,
            `${attribute} is ${what} that is Pending (account ${account}): the service is making an order or a change of it, ` +
              `and ${act.does} only once it is Active, so the apply waits for that (within the create timeout) before ${act.sending}.`,
          ),
        act,
        async () => {
          const other = await accountIs(client, String(id), signal)
          return other === undefined ? undefined : `account ${id} is ${other}`
        },
      )
      return wrong ?? (then === undefined ? null : then(ctx, id))
    },
    // The service makes a paid order or change of the account in the meantime: the order waits for Active.
    async ready(ctx) {
      const { client, input, signal, timeoutMs } = ctx
      const id = (input as Record<string, unknown>)[attribute]
      if (typeof id !== 'number') return
      const { account, unpaidInvoice } = await untilTakesOrders(
        ctx,
        () => read(client, id, signal),
        what.replace(/^an? /, ''),
        String(id),
        timeoutMs,
      )
      if (unpaidInvoice !== undefined) {
        const act = createAct(ctx.orders)
        throw new Error(
          `${attribute} is ${what} that is Pending until invoice ${unpaidInvoice.id} is paid (account ${account.account_id}): the ` +
            `service ${act.does} only ${act.of} an Active one. Pay the invoice in the portal, then apply again; ${act.notSent}.`,
        )
      }
    },
  }
}

/**
 * The check of the keypair an order or a change installs: it must be in the pool the server or VM
 * takes its keypairs from (`resource` names that pool's keypair resource). The service refuses any
 * other id only when the order or the change is placed: after the steps before it have run, or, in a
 * replacement, after the live object was deleted. The API has no read by id, so the pool is listed,
 * and only a fresh listing says a keypair is not there (one made a moment ago by another process is
 * found). While the id is unknown (the keypair is created in the same apply) the check is skipped.
 * Used as a create check, or as a plan check with the context it brings (`X`).
 */
export function keypairCheck<A extends Attributes, X extends CreateCheckContext<Client, A> = CreateCheckContext<Client, A>>(
  attribute: keyof A & string,
  resource: string,
  /** The pool; with the keypair resource named for it when that depends on the object (a VM migrated to Lite Pro). */
  pool: (ctx: X) => KeypairApi | Promise<KeypairApi | { readonly keypairs: KeypairApi; readonly resource: string }>,
): { readonly attribute: keyof A & string; readonly references: true; check(ctx: X): Promise<string | null> } {
  return {
    attribute,
    references: true,
    async check(ctx) {
      const id = (ctx.input as Record<string, unknown>)[attribute]
      if (typeof id !== 'number') return null
      const found = await pool(ctx)
      const { keypairs, resource: named } = 'keypairs' in found ? found : { keypairs: found, resource }
      if ((await keypairs.findKeypair(id, { signal: ctx.signal })) !== null) return null
      return `must be a keypair of ${named}'s pool, which has no keypair ${id}`
    },
  }
}

/**
 * The product and cycle checks of a resource ordered from one product list: the product must be in
 * the list (`catalog` names it for the user), the cycle one the product offers.
 */
export function productAndCycleChecks<A extends Attributes>(
  names: { readonly product: keyof A & string; readonly cycle: keyof A & string },
  catalog: string,
  list: (client: Client, signal: AbortSignal) => Promise<readonly Product[]>,
): CreateCheck<Client, A>[] {
  const value = (input: unknown, name: string) => (input as Record<string, unknown>)[name]
  return [
    {
      attribute: names.product,
      async check({ client, input, signal }) {
        const id = value(input, names.product)
        return productRule(await list(client, signal), typeof id === 'number' ? id : 0, catalog)
      },
    },
    {
      attribute: names.cycle,
      async check({ client, input, signal }) {
        const id = value(input, names.product)
        const cycle = value(input, names.cycle)
        return cycleRule(productOf(await list(client, signal), typeof id === 'number' ? id : null), typeof cycle === 'string' ? cycle : '')
      },
    },
  ]
}

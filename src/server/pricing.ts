/**
 * The price of a plan: what each resource's plan orders, the running total of the plan this process
 * serves, the order limit setting checked against it, and the orders a plan adopts from an earlier
 * run instead of placing them again (learnt by rehearsing the create). Part of the provider server.
 */
import type { Client, Rehearsed } from '../api/index.js'
import {
  type AnyResource,
  type Diagnostic,
  error,
  type Plan,
  type PlanPrice,
  type PricedOrder,
  pricePlan,
  rehearseCreate,
  rehearseStep,
  type Session,
  type ValueMap,
  warning,
} from '../core/index.js'
import { withOperation } from './operation.js'

/** The order limit setting's name and value while it is set. */
export interface OrderLimit {
  readonly setting: string
  readonly total: number
}

export class PlanLedger {
  /**
   * The priced orders of the plan this process serves, by resource: Terraform plans each resource
   * in its own call and names none (each gets a fresh key), Pulumi names each by its URN (a preview
   * and the update of the same resource count once). One plan: it starts afresh at each configure
   * (clear), since a provider process Terraform reattaches to serves one command after another.
   */
  private readonly ledger = new Map<string, { readonly orders: readonly PricedOrder[]; readonly unpriced: readonly string[] }>()
  private planned = 0

  /** Forgets the orders of the plans served before: a new configure is a new command's plan. */
  clear(): void {
    this.ledger.clear()
  }

  /**
   * The price of what a plan of one resource orders, as one warning (nothing when it orders
   * nothing), with the running total of the plan so far in this process; and an error when that
   * total exceeds the order limit setting, naming every order counted. `key` names the resource
   * when the protocol does (a replan of it replaces its entry); without it every call adds one.
   * Pricing never fails the plan: what could not be priced is said in the same warning.
   */
  async price(
    definition: AnyResource,
    prior: ValueMap | null,
    plan: Plan,
    session: Session<unknown>,
    limit: OrderLimit | undefined,
    key?: string,
  ): Promise<Diagnostic[]> {
    const quoted = await pricePlan(definition, prior, plan, session)
    const { priced, adopted, taken } = await this.withoutAdopted(definition, prior, plan, session, quoted)
    if (priced.orders.length === 0 && priced.unpriced.length === 0) {
      if (key !== undefined) this.ledger.delete(key)
      return adopted === undefined
        ? []
        : [warning(`This plan adopts an order placed by an earlier run: ${adopted.summary}`, adopted.detail)]
    }
    this.ledger.set(key ?? `#${++this.planned}`, priced)
    const all = [...this.ledger.values()]
    const orders = all.flatMap((entry) => entry.orders)
    const unpriced = all.flatMap((entry) => entry.unpriced)
    const own = sum(priced.orders)
    const total = sum(orders)
    // An amount that is only the least an order costs makes every sum it is in a least amount too.
    const ownOrMore = priced.orders.some(lowerBound) ? ' or more' : ''
    const totalOrMore = orders.some(lowerBound) ? ' or more' : ''
    const lines = [
      ...(adopted === undefined ? [] : [adopted.detail]),
      ...(taken === undefined ? [] : [taken]),
      ...priced.orders.map(line),
      ...priced.unpriced.map((what) => `${what}: price unknown`),
      `These orders: ${own}${ownOrMore}${priced.unpriced.length > 0 ? ' plus what could not be priced' : ''}. ` +
        `All orders of this plan so far: ${total}${totalOrMore} for ${orders.length} priced order${orders.length === 1 ? '' : 's'}` +
        `${unpriced.length > 0 ? ` and ${unpriced.length} unpriced` : ''}.`,
      PRICE_NOTE,
    ]
    // The running total makes each resource's summary differ, so Terraform never folds one into another as "similar".
    // Orders whose price is unknown are not "0": the summary says the price is unknown rather than a sum.
    const shown =
      priced.unpriced.length === 0
        ? `${own}${ownOrMore}`
        : priced.orders.length === 0
          ? 'price unknown'
          : `${own}${ownOrMore} plus what could not be priced`
    const summary = `This plan places paid orders: ${shown} (all orders of the plan so far: ${total}${totalOrMore})`
    const diagnostics = [warning(summary, lines.join('\n'))]
    if (limit !== undefined && total > limit.total) {
      diagnostics.push(
        error(
          `The plan's orders exceed ${limit.setting}`,
          [
            `The orders of this plan so far cost ${totalOrMore === '' ? '' : 'at least '}${total}, more than ${limit.setting} = ${limit.total}; nothing is ordered. The orders:`,
            ...orders.map(line),
            `Raise ${limit.setting} or change the configuration to order less.`,
          ].join('\n'),
        ),
      )
    }
    return diagnostics
  }

  /**
   * A create's own order (its first quote) that the apply will not place, because the order journal
   * holds the same order of an earlier run whose account the apply takes over: the plan rehearses the
   * create (core's rehearseCreate, in a rehearsal operation) to learn what the apply will do with its
   * order. Taken over, the order is not priced, and the plan says which account it adopts; an earlier
   * order that had no answer is taken over too (sent again with its key, or waited for where the
   * service ignores keys), and since it may still have placed nothing it stays priced, with a line
   * saying so.
   */
  private async withoutAdopted(
    definition: AnyResource,
    prior: ValueMap | null,
    plan: Plan,
    session: Session<unknown>,
    quoted: PlanPrice,
  ): Promise<{ priced: PlanPrice; adopted?: { summary: string; detail: string }; taken?: string }> {
    const creating = prior === null || plan.replace.length > 0
    if (quoted.orders.length === 0) return { priced: quoted }
    if (!creating) return await this.withoutTakenSteps(definition, plan, session, quoted)
    const rehearsed = await rehearsal(session, (stopped) => rehearseCreate(definition, plan.planned, stopped))
    const [own, ...rest] = quoted.orders
    if (rehearsed?.kind === 'adopt' && own !== undefined) {
      const summary = `account ${rehearsed.accountId} (${definition.name}), not ordered again`
      const detail =
        `${definition.name}: adopts account ${rehearsed.accountId}, the order placed by an earlier run (Idempotency-Key ` +
        `${rehearsed.key}, sent ${sent(rehearsed.sentAt)}) instead of placing it again: ${own.what} (${own.amount} per ${own.cycle} ` +
        'cycle) is not ordered.'
      return { priced: { ...quoted, orders: rest }, adopted: { summary, detail } }
    }
    if (rehearsed?.kind === 'repeat') {
      const taken =
        `${definition.name}: takes over the order an earlier run sent ${sent(rehearsed.sentAt)} without an answer ` +
        `(Idempotency-Key ${rehearsed.key}): it is sent again with that key to a service that honours keys, or else waited ` +
        'for and its account adopted; if that order was placed, nothing is ordered again. If it made no account and a ' +
        'state names every account its stop named, a new order is placed.'
      return { priced: quoted, taken }
    }
    return { priced: quoted }
  }

  /**
   * The in-place steps' orders that a stopped run placed for the same change (killed after its order
   * was answered, before its state was saved): the apply takes each over instead of ordering it
   * again, so it is not priced. Each priced step is rehearsed (core's rehearseStep) as the apply runs
   * it; one sent without an answer stays priced, with a line saying it is taken over.
   */
  private async withoutTakenSteps(
    definition: AnyResource,
    plan: Plan,
    session: Session<unknown>,
    quoted: PlanPrice,
  ): Promise<{ priced: PlanPrice; adopted?: { summary: string; detail: string }; taken?: string }> {
    const adopted: string[] = []
    const taken: string[] = []
    const dropped = new Set<number>()
    for (const index of new Set(quoted.orders.flatMap((order) => (order.step === undefined ? [] : [order.step.index])))) {
      const orders = quoted.orders.filter((order) => order.step?.index === index)
      const step = orders[0]?.step
      if (step === undefined) continue
      const rehearsed = await rehearsal(session, (rehearsing) => rehearseStep(definition, plan.planned, step, rehearsing), true)
      const what = orders.map((order) => `${order.what} (${order.amount} per ${order.cycle} cycle)`).join(', ')
      if (rehearsed?.kind === 'adopt') {
        dropped.add(index)
        adopted.push(
          `${definition.name}: takes over the order an earlier run placed for this change (Idempotency-Key ${rehearsed.key}, ` +
            `sent ${sent(rehearsed.sentAt)}) instead of placing it again: ${what} is not ordered.`,
        )
      } else if (rehearsed?.kind === 'repeat') {
        taken.push(
          `${definition.name}: takes over the order an earlier run sent for this change ${sent(rehearsed.sentAt)} without an ` +
            `answer (Idempotency-Key ${rehearsed.key}): ${what} is placed only if that order was not.`,
        )
      }
    }
    const priced = { ...quoted, orders: quoted.orders.filter((order) => order.step === undefined || !dropped.has(order.step.index)) }
    return {
      priced,
      ...(adopted.length === 0
        ? {}
        : {
            adopted: { summary: `the change of ${definition.name} a stopped run ordered, not ordered again`, detail: adopted.join('\n') },
          }),
      ...(taken.length === 0 ? {} : { taken: taken.join('\n') }),
    }
  }
}

/**
 * What the apply would do with the first order `run` reaches, as a plan's rehearsal learns it (see
 * OperationFrame.rehearsal); undefined when it reached none. The client refuses every request but a
 * read in a rehearsal. Without `reads` the run's session is also cancelled from the start (a create
 * orders first), so that a client that could not see the rehearsal still sends nothing; a step reads
 * what it orders from first.
 */
async function rehearsal(
  session: Session<unknown>,
  run: (rehearsing: Session<unknown>) => Promise<void>,
  reads = false,
): Promise<Rehearsed | undefined> {
  let rehearsed: Rehearsed | undefined
  const stopped = new AbortController()
  if (!reads) stopped.abort(new Error("a plan's rehearsal"))
  // A rehearsal that reads runs only where the client is seen to refuse every change in it.
  const sees = () => (session.client as Partial<Pick<Client, 'rehearsing'>>).rehearsing?.() === true
  await withOperation(
    session,
    undefined,
    async () => {
      if (!reads) await run({ ...session, signal: stopped.signal })
      else if (sees()) await run(session)
    },
    undefined,
    (outcome) => {
      rehearsed ??= outcome
    },
  )
  return rehearsed
}

const sent = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z')

const PRICE_NOTE =
  "Prices are the catalog's, per cycle of each object, in its money unit, before any promocode; an upgrade is " +
  'billed the difference for the current cycle.'

function sum(orders: readonly PricedOrder[]): number {
  return orders.reduce((total, order) => total + order.amount, 0)
}

function lowerBound(order: PricedOrder): boolean {
  return order.atLeast !== undefined
}

function line(order: PricedOrder): string {
  const more = order.atLeast === undefined ? '' : `, or more: ${order.atLeast}`
  return `${order.resource}: ${order.what}: ${order.amount} per ${order.cycle} cycle${more}`
}

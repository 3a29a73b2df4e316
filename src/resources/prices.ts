/**
 * The price of what a plan orders, from the service's own catalog: a product's price for a
 * cycle, per unit for disk-like products, and the tiered components (storage above a VM's base
 * disk). Each helper answers the amount the service bills when the order is placed, as the definitions'
 * `priceCreate` and step `price` quote it; promocodes are left out (only the service knows them).
 */
import type { BillingOption, Client, PriceStep } from '../api/index.js'
import type { Attributes, CreateCheckContext, PlanCheckContext, Pricing, Quote } from '../core/index.js'
import { quoted } from './catalog-rules.js'

interface Priced {
  readonly product_id: number
  readonly name?: string
  readonly billing: readonly BillingOption[]
}

/** Thrown when the catalog does not price what is ordered (a product or cycle it does not list). */
export class NotPriced extends Error {}

/** The billing entry of `cycle` of the product `id` in `products`. */
export function billingOf<P extends Priced>(
  products: readonly P[],
  id: number | null,
  cycle: string | null,
): { product: P; option: BillingOption } {
  const product = products.find((p) => p.product_id === id)
  const option = product?.billing.find((b) => b.cycle === cycle)
  if (!product || !option) throw new NotPriced(`the catalog lists no price of product ${id} for cycle ${quoted([cycle ?? ''])}`)
  return { product, option }
}

/** What `quantity` units of a tiered component cost: each unit at the step it falls in. */
export function tiered(steps: readonly PriceStep[], quantity: number): number {
  let total = 0
  for (const step of steps) {
    const upper = step.qty_max === null ? quantity : Math.min(quantity, step.qty_max)
    if (upper >= step.qty_min) total += (upper - step.qty_min + 1) * step.price
  }
  return total
}

/** The steps of the component of a billing entry that prices the order field `field` (none: free). */
export function componentSteps(option: BillingOption, field: string): readonly PriceStep[] {
  return option.components?.find((c) => c.field === field)?.prices ?? []
}

/** A product's name for quotes: its id, and its catalog name as the service writes it. */
export function productLabel(product: Priced): string {
  return product.name === undefined ? `product ${product.product_id}` : `product ${product.product_id} ${quoted([product.name])}`
}

export function quote(what: string, amount: number, option: BillingOption): Quote {
  return { what, amount, cycle: option.label }
}

/** A number input known at plan time, or null (its price waits for apply). */
export function known(value: unknown): number | null {
  return typeof value === 'number' ? value : null
}

/**
 * The create of an object ordered from one product list at a cycle: the cycle price, times the size
 * for products priced per GB (`size` names the input and its default when unset).
 */
export function productPrice<A extends Attributes>(
  names: {
    readonly product: keyof A & string
    readonly cycle: keyof A & string
    readonly size?: { readonly name: keyof A & string; readonly default: number }
  },
  list: (client: Client, signal: AbortSignal) => Promise<readonly Priced[]>,
): Pricing<CreateCheckContext<Client, A>> {
  return async ({ client, input, signal }) => {
    const values = input as Record<string, unknown>
    const id = values[names.product]
    const cycle = values[names.cycle]
    const size = names.size === undefined ? undefined : (values[names.size.name] ?? names.size.default)
    // What is unknown until apply cannot be priced: ask nothing.
    if (typeof id !== 'number' || typeof cycle !== 'string' || (size !== undefined && typeof size !== 'number')) return null
    const { product, option } = billingOf(await list(client, signal), id, cycle)
    if (typeof size !== 'number') return [quote(`new ${productLabel(product)}`, option.price, option)]
    return [quote(`new ${productLabel(product)}, ${size} GB`, size * option.price, option)]
  }
}

/**
 * A size that grows on an existing object priced per GB: the GB added, at the prior product and cycle,
 * above the size the service has now (`current`): the recorded size is a floor the object may have
 * outgrown (see `growOnly`), and the step orders only what is missing.
 */
export function growthPrice<A extends Attributes>(
  names: { readonly product: keyof A & string; readonly cycle: keyof A & string; readonly size: keyof A & string },
  list: (client: Client, signal: AbortSignal) => Promise<readonly Priced[]>,
  current: (client: Client, id: string, signal: AbortSignal) => Promise<number>,
): Pricing<PlanCheckContext<Client, A>> {
  return async ({ client, input, prior, signal, id }) => {
    const recorded = (prior as Record<string, unknown>)[names.size]
    const after = known((input as Record<string, unknown>)[names.size])
    if (after === null) return null
    if (typeof recorded !== 'number' || after <= recorded) return []
    const before = Math.max(recorded, await current(client, id, signal))
    if (after <= before) return []
    const values = prior as Record<string, unknown>
    const { option } = billingOf(await list(client, signal), known(values[names.product]), String(values[names.cycle] ?? ''))
    return [quote(`upgrade from ${before} to ${after} GB`, (after - before) * option.price, option)]
  }
}

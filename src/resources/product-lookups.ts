/**
 * The catalog lookups, written once: a lookup that lists a catalog's products (`products`, one object
 * each), and the outputs they share (a product's id, name and description, and the billing entries of
 * the products priced per cycle or per GB), with the mappings from the API to them.
 */
import type { BillingOption, Client, Plan } from '../api/index.js'
import { type AnyDataSource, type Attributes, defineDataSource, int64, list, type ObjectOf, objectType, string } from '../core/index.js'

/** A lookup of a catalog: the `products` list, each product as `product` declares it and `show` maps it. */
export function productLookup<A extends Attributes, P>(spec: {
  readonly name: string
  readonly description: string
  readonly product: A
  /** The list's description: which products, in which order. */
  readonly every: string
  readonly products: (client: Client, signal: AbortSignal) => Promise<readonly P[]>
  readonly show: (product: P) => ObjectOf<A>
}): AnyDataSource {
  const attributes = { products: list(objectType(spec.product), { computed: true, description: spec.every }) }
  return defineDataSource<Client, typeof attributes>({
    name: spec.name,
    description: spec.description,
    attributes,
    async read({ client, signal }) {
      return { products: (await spec.products(client, signal)).map(spec.show) }
    },
  })
}

/** A product's id, name and description; `use` says where the id goes, qualified (`Use it as a disk \`provider_lite_disk.product_id\`.`): a bare `product_id` would name the product's own field. */
export function productOutputs(use: string) {
  return {
    product_id: int64({ computed: true, description: use }),
    name: string({ computed: true, description: 'Product name.' }),
    description: string({ computed: true, description: 'Product description.' }),
  }
}

/** The id, name and description of a catalog product, as `productOutputs` declares them. */
export function productFields(product: Pick<Plan, 'product_id' | 'name' | 'description'>) {
  return { product_id: product.product_id, name: product.name, description: product.description }
}

/** A product's `billing` list: one entry per cycle, with the price `price` describes (per cycle, per GB). */
export function billingOutput(price: string, cycle = 'Cycle code for `cycle` inputs.') {
  return list(
    objectType({
      label: string({ computed: true, description: 'Cycle label.' }),
      cycle: string({ computed: true, description: cycle }),
      price: int64({ computed: true, description: price }),
    }),
    { computed: true, description: 'One entry per offered billing cycle.' },
  )
}

/** The entries of a `billingOutput`, from the product's billing options. */
export function billingEntries(billing: readonly BillingOption[]) {
  return billing.map(({ label, cycle, price }) => ({ label, cycle, price }))
}

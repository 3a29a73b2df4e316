/** provider_lite_products and provider_lite_pro_products: the VM catalog of a family (the catalog product object, the lookups' calls). */
import type { Plan } from '../api/index.js'
import { bool, int64, list, object, objectType, string } from '../core/index.js'
import { productFields, productLookup, productOutputs } from './product-lookups.js'
import type { LiteFamily } from './lite-family.js'

const priceStep = objectType({
  qty_min: int64({ computed: true, description: 'First quantity of the step.' }),
  qty_max: int64({ computed: true, nullable: true, description: 'Last quantity of the step; null when unbounded.' }),
  price: int64({ computed: true, description: 'Price per unit per cycle.' }),
})

const component = objectType({
  label: string({ computed: true, description: 'What the component is, e.g. `Additional storage`.' }),
  field: string({ computed: true, description: 'The order field it prices, e.g. `disk_size`.' }),
  prices: list(priceStep, { computed: true, description: 'Tiered price steps: each unit is priced by the step it falls in.' }),
})

const billing = objectType({
  label: string({ computed: true, description: 'Cycle label, e.g. `Monthly`.' }),
  cycle: string({ computed: true, description: 'Cycle code for `cycle` inputs, e.g. `m`.' }),
  price: int64({ computed: true, description: 'Price of one cycle, in the smallest currency unit.' }),
  components: list(component, { computed: true, description: 'Priced add-ons; empty when none.' }),
})

/** A VM product, as `provider_<family>_products` shows it: its id goes to the family's VM resource. */
const productOf = (family: LiteFamily) => ({
  ...productOutputs(`Use it as a VM \`provider_${family.prefix}_vm.product_id\`.`),
  category_id: int64({ computed: true, description: 'Category id.' }),
  category_name: string({ computed: true, description: 'Category name.' }),
  options: object(
    {
      type: string({ computed: true, description: '`vps` or `vps-pro`.' }),
      cores: int64({ computed: true, description: 'vCPUs.' }),
      memory: int64({ computed: true, description: 'Memory in MB.' }),
      disk: int64({ computed: true, description: 'Base disk in GB.' }),
      allow_downgrade: bool({ computed: true, description: 'Whether change-package may move to a cheaper product.' }),
    },
    { computed: true, description: 'What the product offers.' },
  ),
  billing: list(billing, { computed: true, description: 'One entry per offered billing cycle.' }),
})

export function liteProducts(family: LiteFamily) {
  return productLookup<ReturnType<typeof productOf>, Plan>({
    name: `${family.prefix}_products`,
    description: `The ${family.title} VM products: ids for \`provider_${family.prefix}_vm\`, resources and prices per cycle.`,
    product: productOf(family),
    every: 'Every product, by ascending id.',
    products: (client, signal) => family.api(client).listProducts({ signal }),
    show: toProduct,
  })
}

function toProduct(plan: Plan) {
  const { options } = plan
  return {
    ...productFields(plan),
    category_id: plan.category_id ?? null,
    category_name: plan.category_name ?? null,
    options: {
      type: options.type,
      cores: options.cores ?? null,
      memory: options.memory ?? null,
      disk: options.disk ?? null,
      allow_downgrade: options.allow_downgrade ?? null,
    },
    billing: plan.billing.map((b) => ({
      label: b.label,
      cycle: b.cycle,
      price: b.price,
      components: (b.components ?? []).map((c) => ({
        label: c.label,
        field: c.field,
        prices: c.prices.map((p) => ({ qty_min: p.qty_min, qty_max: p.qty_max, price: p.price })),
      })),
    })),
  }
}

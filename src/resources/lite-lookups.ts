/** The smaller Lite and Lite Pro lookups: upgrade options, IP availability and the disk catalog (the lookups' calls). */
import type { Client, Plan } from '../api/index.js'
import { bool, defineDataSource, int64, list, objectType, string } from '../core/index.js'
import { raw, rawAttribute, rules } from './billing.js'
import type { LiteFamily } from './lite-family.js'

const accountArgument = (family: LiteFamily) =>
  int64({ required: true, validate: [rules.id], description: `The ${family.title} VM (its account id).` })

export function liteChangePackageOptions(family: LiteFamily) {
  const attributes = { account_id: accountArgument(family), raw: rawAttribute }
  return defineDataSource<Client, typeof attributes>({
    name: `${family.prefix}_change_package_options`,
    description: `The products a ${family.title} VM can change to, with their prices and the amount due, as \`raw\` JSON.`,
    attributes,
    async read({ client, input, signal }) {
      return { raw: raw(await family.api(client).getChangePackageOptions(input.account_id ?? 0, { signal })) }
    },
  })
}

export function liteStorageUpgradeOptions(family: LiteFamily) {
  const attributes = { account_id: accountArgument(family), raw: rawAttribute }
  return defineDataSource<Client, typeof attributes>({
    name: `${family.prefix}_storage_upgrade_options`,
    description: `The disk size, maximum and per-GB upgrade price of a ${family.title} VM, as \`raw\` JSON.`,
    attributes,
    async read({ client, input, signal }) {
      return { raw: raw(await family.api(client).getStorageOptions(input.account_id ?? 0, { signal })) }
    },
  })
}

export function liteIpAvailability(family: LiteFamily) {
  const attributes = {
    product_id: int64({ required: true, validate: [rules.id], description: `A ${family.title} VM product.` }),
    available: bool({
      computed: true,
      description: 'Whether a VM of this product can get an IP address now; when false, ordering it fails.',
    }),
  }
  return defineDataSource<Client, typeof attributes>({
    name: `${family.prefix}_ip_availability`,
    description: `Whether a ${family.title} product can be ordered now (an IP address is available for it).`,
    attributes,
    async read({ client, input, signal }) {
      const { available } = await family.api(client).getIpAvailability(input.product_id ?? 0, { signal })
      return { available }
    },
  })
}

const diskProduct = objectType({
  product_id: int64({ computed: true, description: 'Use it as a disk `product_id`.' }),
  name: string({ computed: true, description: 'Product name.' }),
  description: string({ computed: true, description: 'Product description.' }),
  min_size: int64({ computed: true, description: 'Smallest size in GB.' }),
  max_size: int64({ computed: true, description: 'Largest size in GB.' }),
  billing: list(
    objectType({
      label: string({ computed: true, description: 'Cycle label.' }),
      cycle: string({ computed: true, description: 'Cycle code.' }),
      price: int64({ computed: true, description: 'Price per GB per cycle, in the smallest currency unit.' }),
    }),
    { computed: true, description: 'One entry per offered billing cycle.' },
  ),
})

export function liteDiskProducts(family: LiteFamily) {
  const attributes = { products: list(diskProduct, { computed: true, description: 'Every disk product, by ascending id.' }) }
  return defineDataSource<Client, typeof attributes>({
    name: `${family.prefix}_disk_products`,
    description: `The ${family.title} extra-disk products: ids for \`provider_${family.prefix}_disk\`, size bounds and prices.`,
    attributes,
    async read({ client, signal }) {
      const plans = await family.api(client).listDiskProducts({ signal })
      return { products: plans.map(toDiskProduct) }
    },
  })
}

function toDiskProduct(plan: Plan) {
  return {
    product_id: plan.product_id,
    name: plan.name,
    description: plan.description,
    min_size: plan.options.min_size ?? null,
    max_size: plan.options.max_size ?? null,
    billing: plan.billing.map(({ label, cycle, price }) => ({ label, cycle, price })),
  }
}

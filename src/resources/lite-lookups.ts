/** The smaller Lite and Lite Pro lookups: upgrade options, IP availability and the disk catalog (the lookups' calls). */
import type { Client, Plan } from '../api/index.js'
import { bool, defineDataSource, int64 } from '../core/index.js'
import { raw, rawAttribute, rules } from './billing.js'
import { billingEntries, billingOutput, productFields, productLookup, productOutputs } from './product-lookups.js'
import type { LiteFamily } from './lite-family.js'

const accountArgument = (family: LiteFamily) =>
  int64({ required: true, validate: [rules.id], description: `The ${family.title} VM (its account id).` })

export function liteChangePackageOptions(family: LiteFamily) {
  const attributes = { account_id: accountArgument(family), raw: rawAttribute }
  return defineDataSource<Client, typeof attributes>({
    name: `${family.prefix}_change_package_options`,
    description: `The products a ${family.title} VM can change to, with their prices and the amount due, as \`raw\` JSON.`,
    attributes,
    notFound: { attribute: 'account_id', what: `a ${family.title} VM of this account` },
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
    notFound: { attribute: 'account_id', what: `a ${family.title} VM of this account` },
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
    notFound: { attribute: 'product_id', what: `a product of ${family.prefix}_products` },
    async read({ client, input, signal }) {
      const { available } = await family.api(client).getIpAvailability(input.product_id ?? 0, { signal })
      return { available }
    },
  })
}

/** A disk product, as `provider_<family>_disk_products` shows it: its id goes to the family's disk resource. */
const diskProductOf = (family: LiteFamily) => ({
  ...productOutputs(`Use it as a disk \`provider_${family.prefix}_disk.product_id\`.`),
  min_size: int64({ computed: true, description: 'Smallest size in GB.' }),
  max_size: int64({ computed: true, description: 'Largest size in GB.' }),
  billing: billingOutput('Price per GB per cycle, in the smallest currency unit.', 'Cycle code.'),
})

export function liteDiskProducts(family: LiteFamily) {
  return productLookup<ReturnType<typeof diskProductOf>, Plan>({
    name: `${family.prefix}_disk_products`,
    description: `The ${family.title} extra-disk products: ids for \`provider_${family.prefix}_disk\`, size bounds and prices.`,
    product: diskProductOf(family),
    every: 'Every disk product, by ascending id.',
    products: (client, signal) => family.api(client).listDiskProducts({ signal }),
    show: toDiskProduct,
  })
}

function toDiskProduct(plan: Plan) {
  return {
    ...productFields(plan),
    min_size: plan.options.min_size ?? null,
    max_size: plan.options.max_size ?? null,
    billing: billingEntries(plan.billing),
  }
}

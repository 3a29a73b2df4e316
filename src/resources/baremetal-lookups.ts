/** Metal lookups: products, rebuild OS list, OpenVPN profile, additional-IP catalog and regions, elastic storage catalog (the lookups' calls). */
import type { AdditionalIpProduct, BaremetalProduct, Client, ElasticStorageProduct } from '../api/index.js'
import { defineDataSource, int64, list, string, stringType } from '../core/index.js'
import { raw, rawAttribute, rules } from './billing.js'
import { billingEntries, billingOutput, productFields, productLookup, productOutputs } from './product-lookups.js'

/** A Metal server product: its id, name and description, and the whole product as `raw` JSON. */
const metalProduct = { ...productOutputs('Use it as a server `provider_baremetal.product_id`.'), raw: rawAttribute }

export const baremetalProducts = productLookup<typeof metalProduct, BaremetalProduct>({
  name: 'baremetal_products',
  description: 'The Metal server products: ids for `Baremetal` servers, with each product as `raw` JSON (stock, prices).',
  product: metalProduct,
  every: 'Every Metal product, by ascending id.',
  products: (client, signal) => client.baremetals.listProducts({ signal }),
  show: (p) => ({ ...productFields(p), raw: raw(p) }),
})

const rebuildAttributes = {
  account_id: int64({ required: true, validate: [rules.id], description: 'The Metal server (its account id).' }),
  oss: list(stringType, { computed: true, description: 'The valid values of a server’s `provider_baremetal.rebuild_os`.' }),
  raw: rawAttribute,
}

export const baremetalRebuildOsList = defineDataSource<Client, typeof rebuildAttributes>({
  name: 'baremetal_rebuild_os_list',
  description: 'The operating systems a Metal server can be rebuilt with: the valid values of its `provider_baremetal.rebuild_os`.',
  attributes: rebuildAttributes,
  notFound: { attribute: 'account_id', what: 'a Metal server of this account' },
  async read({ client, input, signal }) {
    const oss = await client.baremetals.listRebuildOss(input.account_id ?? 0, { signal })
    return { oss, raw: raw(oss) }
  },
})

const openvpnAttributes = {
  config: string({ computed: true, sensitive: true, description: 'The OpenVPN client profile for out-of-band access.' }),
  raw: rawAttribute,
}

export const baremetalOpenvpn = defineDataSource<Client, typeof openvpnAttributes>({
  name: 'baremetal_openvpn',
  description: 'The account-wide OpenVPN profile for out-of-band access to Metal servers. Secret.',
  attributes: openvpnAttributes,
  // Also an ephemeral resource, so a configuration can hand the profile on without storing it.
  ephemeral: true,
  async read({ client, signal }) {
    const answer = await client.baremetals.getOpenvpn({ signal })
    return { config: answer.config, raw: raw(answer, ['config']) }
  },
})

/** An additional-IP product: its id, name, description and prices per cycle. */
const ipProduct = {
  ...productOutputs('Use it as an additional IP `provider_baremetal_additional_ip.product_id`.'),
  billing: billingOutput('Price of one cycle, in the smallest currency unit.'),
}

export const baremetalAdditionalIpProducts = productLookup<typeof ipProduct, AdditionalIpProduct>({
  name: 'baremetal_additional_ip_products',
  description: 'The additional-IP products: ids for `BaremetalAdditionalIp` and their prices.',
  product: ipProduct,
  every: 'Every additional-IP product, by ascending id.',
  products: (client, signal) => client.additionalIps.listProducts({ signal }),
  show: (p) => ({ ...productFields(p), billing: billingEntries(p.billing) }),
})

/** An elastic storage product: its id, name, description, limits and prices per GB. */
const storageProduct = {
  ...productOutputs('Use it as an elastic storage `provider_baremetal_elastic_storage.product_id`.'),
  iops: int64({ computed: true, description: 'The IOPS of a volume of this product, when the catalog says.' }),
  min_size: int64({ computed: true, description: 'The smallest `size` in GB, when the catalog says.' }),
  max_size: int64({ computed: true, description: 'The largest `size` in GB, when the catalog says.' }),
  billing: billingOutput('Price of one GB for one cycle, in the smallest currency unit.'),
}

export const baremetalElasticStorageProducts = productLookup<typeof storageProduct, ElasticStorageProduct>({
  name: 'baremetal_elastic_storage_products',
  description: 'The elastic storage products: ids for `BaremetalElasticStorage`, their size limits and prices per GB.',
  product: storageProduct,
  every: 'Every elastic storage product, by ascending id.',
  products: (client, signal) => client.elasticStorages.listProducts({ signal }),
  show: (p) => ({
    ...productFields(p),
    iops: p.options.iops ?? null,
    min_size: p.options.min_size ?? null,
    max_size: p.options.max_size ?? null,
    billing: billingEntries(p.billing),
  }),
})

const regionsAttributes = {
  regions: list(stringType, { computed: true, description: 'Region codes valid for an additional IP `region`.' }),
}

export const baremetalAdditionalIpRegions = defineDataSource<Client, typeof regionsAttributes>({
  name: 'baremetal_additional_ip_regions',
  description: 'The regions an additional IP can be ordered in.',
  attributes: regionsAttributes,
  async read({ client, signal }) {
    return { regions: await client.additionalIps.listRegions({ signal }) }
  },
})

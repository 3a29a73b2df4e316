/** Metal lookups: products, rebuild OS list, OpenVPN profile, additional-IP catalog and regions, elastic storage catalog (the lookups' calls). */
import type { Client } from '../api/index.js'
import { defineDataSource, int64, list, objectType, string, stringType } from '../core/index.js'
import { raw, rawAttribute, rules } from './billing.js'

const billing = list(
  objectType({
    label: string({ computed: true, description: 'Cycle label.' }),
    cycle: string({ computed: true, description: 'Cycle code for `cycle` inputs.' }),
    price: int64({ computed: true, description: 'Price of one cycle, in the smallest currency unit.' }),
  }),
  { computed: true, description: 'One entry per offered billing cycle.' },
)

const productsAttributes = {
  products: list(
    objectType({
      product_id: int64({ computed: true, description: 'Use it as a server `productId`.' }),
      name: string({ computed: true, description: 'Product name.' }),
      description: string({ computed: true, description: 'Product description.' }),
      raw: rawAttribute,
    }),
    { computed: true, description: 'Every Metal product, by ascending id.' },
  ),
}

export const baremetalProducts = defineDataSource<Client, typeof productsAttributes>({
  name: 'baremetal_products',
  description: 'The Metal server products: ids for `Baremetal` servers, with each product as `raw` JSON (stock, prices).',
  attributes: productsAttributes,
  async read({ client, signal }) {
    const products = await client.baremetals.listProducts({ signal })
    return { products: products.map((p) => ({ product_id: p.product_id, name: p.name, description: p.description, raw: raw(p) })) }
  },
})

const rebuildAttributes = {
  account_id: int64({ required: true, validate: [rules.id], description: 'The Metal server (its account id).' }),
  oss: list(stringType, { computed: true, description: 'The valid values of the server’s `rebuildOs`.' }),
  raw: rawAttribute,
}

export const baremetalRebuildOsList = defineDataSource<Client, typeof rebuildAttributes>({
  name: 'baremetal_rebuild_os_list',
  description: 'The operating systems a Metal server can be rebuilt with: the valid values of its `rebuildOs`.',
  attributes: rebuildAttributes,
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

const ipProductsAttributes = {
  products: list(
    objectType({
      product_id: int64({ computed: true, description: 'Use it as an additional IP `productId`.' }),
      name: string({ computed: true, description: 'Product name.' }),
      description: string({ computed: true, description: 'Product description.' }),
      billing,
    }),
    { computed: true, description: 'Every additional-IP product, by ascending id.' },
  ),
}

export const baremetalAdditionalIpProducts = defineDataSource<Client, typeof ipProductsAttributes>({
  name: 'baremetal_additional_ip_products',
  description: 'The additional-IP products: ids for `BaremetalAdditionalIp` and their prices.',
  attributes: ipProductsAttributes,
  async read({ client, signal }) {
    const products = await client.additionalIps.listProducts({ signal })
    return {
      products: products.map((p) => ({
        product_id: p.product_id,
        name: p.name,
        description: p.description,
        billing: p.billing.map(({ label, cycle, price }) => ({ label, cycle, price })),
      })),
    }
  },
})

const storageProductsAttributes = {
  products: list(
    objectType({
      product_id: int64({ computed: true, description: 'Use it as an elastic storage `productId`.' }),
      name: string({ computed: true, description: 'Product name.' }),
      description: string({ computed: true, description: 'Product description.' }),
      iops: int64({ computed: true, description: 'The IOPS of a volume of this product, when the catalog says.' }),
      min_size: int64({ computed: true, description: 'The smallest `size` in GB, when the catalog says.' }),
      max_size: int64({ computed: true, description: 'The largest `size` in GB, when the catalog says.' }),
      billing: list(
        objectType({
          label: string({ computed: true, description: 'Cycle label.' }),
          cycle: string({ computed: true, description: 'Cycle code for `cycle` inputs.' }),
          price: int64({ computed: true, description: 'Price of one GB for one cycle, in the smallest currency unit.' }),
        }),
        { computed: true, description: 'One entry per offered billing cycle.' },
      ),
    }),
    { computed: true, description: 'Every elastic storage product, by ascending id.' },
  ),
}

export const baremetalElasticStorageProducts = defineDataSource<Client, typeof storageProductsAttributes>({
  name: 'baremetal_elastic_storage_products',
  description: 'The elastic storage products: ids for `BaremetalElasticStorage`, their size limits and prices per GB.',
  attributes: storageProductsAttributes,
  async read({ client, signal }) {
    const products = await client.elasticStorages.listProducts({ signal })
    return {
      products: products.map((p) => ({
        product_id: p.product_id,
        name: p.name,
        description: p.description,
        iops: p.options.iops ?? null,
        min_size: p.options.min_size ?? null,
        max_size: p.options.max_size ?? null,
        billing: p.billing.map(({ label, cycle, price }) => ({ label, cycle, price })),
      })),
    }
  },
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

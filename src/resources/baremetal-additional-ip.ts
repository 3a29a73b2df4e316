/** Additional IPs: the order of an extra IPv4 address for Metal servers, its status and its cancellation. */
import type { AdditionalIpAccount, Client } from '../api/index.js'
import { productPrice } from './prices.js'
import { defineResource, string } from '../core/index.js'
import { accountIds, cycleAttribute, cycleCode, digitsId, idInput, METAL_CYCLES, raw, rawAttribute, textRules } from './billing.js'
import { productAndCycleChecks, quoted } from './catalog-rules.js'
import { accountListing, accountOutputs, createdAtAttribute, orderedAccount, orderInputs } from './ordered-account.js'

const what = 'additional IP'

const ipAttributes = {
  product_id: idInput('The product, from `baremetalAdditionalIpProducts`.'),
  cycle: cycleAttribute(METAL_CYCLES, 'The billing cycle: `m` monthly or `a` annually.'),
  region: string({
    optional: true,
    default: 'wjv-1',
    createOnly: true,
    validate: textRules.free,
    description: 'The region, from `baremetalAdditionalIpRegions`.',
  }),
  ...orderInputs('the order'),
  ...accountOutputs('IP'),
  ip_address: string({ computed: true, description: 'The IPv4 address, known once the IP is Active.' }),
  created_at: createdAtAttribute,
  raw: rawAttribute,
}

function observeIp(account: AdditionalIpAccount) {
  return {
    ...accountIds(account),
    product_id: account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    region: account.extra_details.region,
    status: account.status,
    ip_address: account.extra_details.ip_address,
    created_at: account.date_created,
    raw: raw(account),
  }
}

export const baremetalAdditionalIp = defineResource<Client, typeof ipAttributes>({
  name: 'baremetal_additional_ip',
  description:
    'An additional (floating) IPv4 address for Metal servers. Creating it places a paid order and waits until it is Active. ' +
    'There is no update: a change of any input replaces it. Assign it with `BaremetalAdditionalIpAssignment`.',
  importId: digitsId('account id', '100080'),
  timeouts: { create: '60m', delete: '10m' },
  attributes: ipAttributes,
  updates: [],
  priceCreate: productPrice<typeof ipAttributes>({ product: 'product_id', cycle: 'cycle' }, (client, signal) =>
    client.additionalIps.listProducts({ signal }),
  ),
  createChecks: [
    ...productAndCycleChecks<typeof ipAttributes>(
      { product: 'product_id', cycle: 'cycle' },
      'baremetal_additional_ip_products',
      (client, signal) => client.additionalIps.listProducts({ signal }),
    ),
    {
      attribute: 'region',
      async check({ client, input, signal }) {
        const regions = await client.additionalIps.listRegions({ signal })
        return regions.includes(input.region ?? '') ? null : `must be one of the regions ${quoted(regions)}`
      },
    },
  ],
  ...orderedAccount<typeof ipAttributes, AdditionalIpAccount>({
    type: 'baremetal_additional_ip',
    what,
    calls: {
      get: (client, id, signal) => client.additionalIps.getIp(id, { signal }),
      delete: (client, id, signal) => client.additionalIps.deleteIp(id, { signal }),
    },
    observe: observeIp,
    order: ({ input, client, signal }, terms) =>
      client.additionalIps.createIp(
        { product_id: input.product_id ?? 0, cycle: input.cycle ?? '', region: input.region ?? undefined, ...terms },
        { signal },
      ),
    recordsOrder: false,
  }),
  list: accountListing<typeof ipAttributes>({
    accounts: (client, signal) => client.additionalIps.listIps({ signal }),
    filters: { region: { attribute: 'region', match: 'equals', description: 'Only IPs of this region, e.g. `wjv-1`.', example: 'wjv-1' } },
    plural: 'IPs',
    displayName: 'ip_address',
  }),
})

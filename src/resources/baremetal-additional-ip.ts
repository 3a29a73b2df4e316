/** Additional IPs and their assignment to servers (the additional-IP calls, the Metal resources' calls). */
import type { AdditionalIpAccount, Client, IpAssignment } from '../api/index.js'
import { productPrice } from './prices.js'
import { defineResource, string } from '../core/index.js'
import { accountIds, cycleAttribute, cycleCode, digitsId, idInput, METAL_CYCLES, raw, rawAttribute, rules, textRules } from './billing.js'
import { liveAccount, productAndCycleChecks, quoted } from './catalog-rules.js'
import { accountListing, accountOutputs, createdAtAttribute, isTerminated, orderedAccount, orderInputs } from './ordered-account.js'

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
    filters: { region: { attribute: 'region', match: 'equals', description: 'Only IPs of this region, e.g. `wjv-1`.' } },
    plural: 'IPs',
    displayName: 'ip_address',
  }),
})

const assignmentAttributes = {
  additional_ip_id: idInput('The additional IP (its account id).'),
  metal_account_id: idInput('The Metal server to route the IP to (its account id).'),
  status: string({ computed: true, description: 'The assignment status; `Active` once assigned.' }),
  raw: rawAttribute,
}

function observeAssignment(assignment: IpAssignment) {
  return {
    id: `${assignment.metal_account_id}:${assignment.additional_ip_id}`,
    additional_ip_id: Number(assignment.additional_ip_id),
    metal_account_id: Number(assignment.metal_account_id),
    status: assignment.status,
    raw: raw(assignment),
  }
}

/** `<metal_account_id>:<additional_ip_id>` → both ids. */
function splitId(id: string): [string, string] {
  const [server = '', ip = ''] = id.split(':')
  return [server, ip]
}

export const baremetalAdditionalIpAssignment = defineResource<Client, typeof assignmentAttributes>({
  name: 'baremetal_additional_ip_assignment',
  description:
    'Routes an additional IP to a Metal server. An IP serves one server at a time, so moving it to another server deletes ' +
    'the old assignment before creating the new one. Assignments are not billed and take effect at once.',
  importId: {
    format: '<metal_account_id>:<additional_ip_id>',
    example: '100070:100080',
    parse: (text) =>
      /^[0-9]+:[0-9]+$/.test(text) ? { id: text } : { error: `expected two account ids joined by a colon, got ${JSON.stringify(text)}` },
    parts: [
      { name: 'metal_account_id', type: 'int64', description: 'The account id of the Metal server.' },
      { name: 'additional_ip_id', type: 'int64', description: 'The account id of the additional IP.' },
    ],
    separator: ':',
  },
  timeouts: {},
  attributes: assignmentAttributes,
  updates: [],
  deleteBeforeReplace: true,
  // The old assignment is deleted first: what the new one needs is checked before, at plan.
  createChecks: [
    {
      attribute: 'additional_ip_id',
      async check({ client, input, signal }) {
        return liveAccount(() => client.additionalIps.getIp(input.additional_ip_id ?? 0, { signal }), 'an additional IP')
      },
    },
    {
      attribute: 'metal_account_id',
      async check({ client, input, signal }) {
        return liveAccount(() => client.baremetals.getServer(input.metal_account_id ?? 0, { signal }), 'a Metal server')
      },
    },
  ],
  async create({ client, input, signal }) {
    const assignment = await client.additionalIps.assign(
      input.additional_ip_id ?? 0,
      { metal_account_id: input.metal_account_id ?? 0 },
      { signal },
    )
    return observeAssignment(assignment)
  },
  async read({ client, id, signal }) {
    const [server, ip] = splitId(id)
    return observeAssignment(await client.additionalIps.getAssignment(ip, server, { signal }))
  },
  async delete({ client, id, signal }) {
    const [server, ip] = splitId(id)
    await client.additionalIps.unassign(ip, server, { signal })
  },
  list: {
    // The assignments of every IP the key can see (one call per IP; the service lists them per IP).
    async ids({ client, signal }) {
      const ids: string[] = []
      for (const ip of await client.additionalIps.listIps({ signal })) {
        if (isTerminated(ip)) continue
        for (const a of await client.additionalIps.listAssignments(ip.account_id, { signal })) ids.push(observeAssignment(a).id)
      }
      return ids
    },
    filters: {
      metal_account_id: {
        attribute: 'metal_account_id',
        match: 'equals',
        validate: [rules.digits],
        description: 'Only the assignments to the server with this account id.',
      },
      additional_ip_id: {
        attribute: 'additional_ip_id',
        match: 'equals',
        validate: [rules.digits],
        description: 'Only the assignments of the IP with this account id.',
      },
    },
  },
})

/**
 * The assignment of an additional IP to a Metal server: routing the IP to the server, and moving it to
 * another server by a replacement that deletes the old assignment first.
 */
import { type Client, type IpAssignment, withoutLeadingZeros } from '../api/index.js'
import { defineResource, ownCall, string } from '../core/index.js'
import { idInput, raw, rawAttribute, rules } from './billing.js'
import { accountCheck } from './catalog-rules.js'
import { isTerminated } from './ordered-account.js'

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
      /^[0-9]+:[0-9]+$/.test(text)
        ? { id: text.split(':').map(withoutLeadingZeros).join(':') }
        : { error: `expected two account ids joined by a colon, got ${JSON.stringify(text)}` },
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
    accountCheck<typeof assignmentAttributes>(
      'additional_ip_id',
      'an additional IP',
      (client, ip, signal) => client.additionalIps.getIp(ip, { signal }),
      async ({ client, input, replacing, signal }, ip) => {
        // An IP serves one server at a time: A1 answers 409 while it is routed to another.
        const server = input.metal_account_id
        const [held] = await client.additionalIps.listAssignments(ip, { signal })
        if (held === undefined || typeof server !== 'number') return null
        const holder = Number(held.metal_account_id)
        // The same server again is the same assignment (A1 answers it with the same object); the one this
        // replaces is deleted first (deleteBeforeReplace).
        if (holder === server || replacing === observeAssignment(held).id) return null
        return (
          `is additional IP ${ip}, which is routed to server ${holder}: an IP serves one server at a time, so the service ` +
          `would refuse to route it to server ${server}. Move the assignment instead (change metal_account_id of the ` +
          'resource that assigns it, which deletes the old assignment first), or remove that assignment first'
        )
      },
    ),
    accountCheck<typeof assignmentAttributes>('metal_account_id', 'a Metal server', (client, id, signal) =>
      client.baremetals.getServer(id, { signal }),
    ),
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
    return observeAssignment(await ownCall(client.additionalIps.getAssignment(ip, server, { signal })))
  },
  // The parts swapped (the IP first) name an assignment that exists: the message gives the id to use.
  async elsewhere({ client, id, signal }) {
    const [first, second] = splitId(id)
    await client.additionalIps.getAssignment(first, second, { signal })
    return `the id is <metal_account_id>:<additional_ip_id>, the server first: the assignment of additional IP ${first} to server ${second} is ${second}:${first}`
  },
  async delete({ client, id, signal }) {
    const [server, ip] = splitId(id)
    await ownCall(client.additionalIps.unassign(ip, server, { signal }))
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

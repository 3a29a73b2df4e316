/**
 * The assignment of an additional IP to a Metal server: routing the IP to the server, and moving it to
 * another server by a replacement that deletes the old assignment first. Terraform's
 * `create_before_destroy` creates first instead, which the provider is not told of: the move's create
 * then fails naming that setting, and a create of the assignment that already exists takes it over, so
 * that the old object's delete in the same run (its id is the same) leaves the IP routed.
 */
import { type Client, type IpAssignment, withoutLeadingZeros } from '../api/index.js'
import { defineResource, InputError, ownCall, string } from '../core/index.js'
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

/** The assignment of the IP to that server, when it exists (A2 lists the IP's one assignment). */
async function assignmentTo(client: Client, ip: number, server: number, signal: AbortSignal): Promise<IpAssignment | undefined> {
  const held = await client.additionalIps.listAssignments(ip, { signal })
  return held.find((a) => Number(a.metal_account_id) === server)
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
    'the old assignment before creating the new one. Assignments are not billed and take effect at once. In Terraform, do ' +
    'not set `lifecycle { create_before_destroy = true }` on it: a move would then create the new assignment while the ' +
    'old one still routes the IP, which the service refuses, so the move fails (before anything is deleted).',
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
        // Terraform's create_before_destroy plans a move as this check passes it (the old object is the
        // plan's prior), then creates first: the apply plans the new object alone, and ends here.
        return (
          `is additional IP ${ip}, which is routed to server ${holder}: an IP serves one server at a time, so the service ` +
          `would refuse to route it to server ${server}. If this resource is the one that routes it to server ${holder}, ` +
          `moved to server ${server} with lifecycle { create_before_destroy = true } (Terraform), that setting is the cause: ` +
          'it creates the new assignment while the old one still routes the IP. Remove create_before_destroy from this ' +
          'resource, which then deletes the old assignment first; when an apply already failed this way, first apply with ' +
          `metal_account_id back at server ${holder} (nothing changes in the service), then move it. Until then this ` +
          'stops a terraform destroy of this configuration too (its refresh plans the configuration first): apply the ' +
          'revert first, or run the destroy with -refresh=false. Otherwise, move the ' +
          'assignment that routes it (change metal_account_id of the resource that assigns it), or remove that assignment first'
        )
      },
    ),
    accountCheck<typeof assignmentAttributes>('metal_account_id', 'a Metal server', (client, id, signal) =>
      client.baremetals.getServer(id, { signal }),
    ),
  ],
  async create({ client, input, signal, takeOver, warn }) {
    const ip = input.additional_ip_id ?? 0
    const server = input.metal_account_id ?? 0
    // The same server again is the same assignment, which A1 answers with the same object: one that exists
    // is taken over, so that a delete of it later in this run (the old object of a create_before_destroy
    // replacement that keeps the server, or of a renamed resource) does not unassign what this one holds.
    const existing = await assignmentTo(client, ip, server, signal)
    if (existing !== undefined) {
      const observed = observeAssignment(existing)
      if (await takeOver(observed.id)) {
        warn(
          `Assignment ${observed.id} already existed: taken over`,
          `Additional IP ${ip} was already routed to server ${server} (in the portal, by another configuration or stack, or by ` +
            "this resource's old copy), so nothing is assigned again and this resource now manages that assignment: " +
            'destroying it unassigns the IP. If another configuration manages it too, remove it from one of them.',
        )
        return observed
      }
      // This run deleted it (the old half went first): once that delete is done the IP is free, unless it failed.
      if ((await assignmentTo(client, ip, server, signal)) !== undefined)
        throw new InputError(
          ['metal_account_id'],
          `Assignment ${observed.id} (additional IP ${ip} routed to server ${server}) is not taken over: a delete of it ` +
            'in this same run (of the resource it was in before: a renamed address or a replacement) has not removed it, ' +
            'most likely because that delete failed (see its error), so that resource still holds it and the next apply ' +
            'deletes it again. Apply again once that delete has succeeded: the IP is then routed anew.',
        )
    }
    const assignment = await client.additionalIps.assign(ip, { metal_account_id: server }, { signal })
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
        example: '100070',
      },
      additional_ip_id: {
        attribute: 'additional_ip_id',
        match: 'equals',
        validate: [rules.digits],
        description: 'Only the assignments of the IP with this account id.',
        example: '100080',
      },
    },
  },
})

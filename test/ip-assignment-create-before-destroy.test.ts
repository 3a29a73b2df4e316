// An IP assignment under Terraform's create_before_destroy, which the provider is not told of: moving it
// to another server plans as a replacement that deletes first, then creates first at apply, where the
// new assignment's plan (made alone, the old object deposed) must name that setting as the cause. The
// revert creates the assignment the old object still is (the same id), then deletes that old object:
// the delete must leave the IP routed, not unassign what the state says is assigned. Driven through the
// provider server, whose creates and deletes of one run share what a create took over.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type AnyProvider, checkPlanOnline, hasErrors, planResource, silentLogger, type ValueMap } from '../src/core/index.js'
import { ProviderServer } from '../src/server/provider-server.js'
import type { Naming } from '../src/server/registry.js'
import { baremetalAdditionalIp } from '../src/resources/baremetal-additional-ip.js'
import { baremetalAdditionalIpAssignment as assignment } from '../src/resources/baremetal-additional-ip-assignment.js'
import { baremetalServers } from './support/fixtures.js'
import { Harness } from './support/harness.js'

const NAMING: Naming = {
  resourceType: (n) => `provider_${n}`,
  dataSourceType: (n) => `provider_${n}`,
  lookup: 'data source',
  words: { resource: (n) => n, dataSource: (n) => n, attribute: (n) => n, setting: (n) => n, timeout: (n) => `timeouts.${n}` },
}

/** Two Metal servers and an additional IP routed to the first by `first`; a provider server (one run) over the same service. */
async function setup() {
  const h = new Harness()
  const servers = await baremetalServers(h)
  const [one, two] = [String(servers.server), String(servers.server2)]
  const address = await h.create(baremetalAdditionalIp, { product_id: 401, cycle: 'm' })
  const on = (server: string): ValueMap => ({ additional_ip_id: Number(address.id), metal_account_id: Number(server) })
  const first = await h.create(assignment, on(one))
  const provider: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => h.client }
  const run = () => {
    const server = new ProviderServer(
      { provider, resources: [assignment], dataSources: [] },
      { naming: NAMING, notConfigured: 'not configured' },
    )
    assert.deepEqual(server.configure({}, { userAgent: 'test', log: silentLogger }).issues, [])
    return server
  }
  await h.requests()
  return { h, one, two, ip: String(address.id), on, first, run }
}

/** The servers the service routes the IP to. */
async function routedTo(h: Harness, ip: string): Promise<string[]> {
  return (await h.client.additionalIps.listAssignments(ip)).map((a) => String(a.metal_account_id))
}

describe('provider_baremetal_additional_ip_assignment under create_before_destroy', () => {
  test('a move creates first: the new assignment, planned alone, is refused naming create_before_destroy and what to do', async () => {
    const { h, one, two, on, first } = await setup()
    // Terraform plans the move with the old object as prior: it passes, as a move that deletes first.
    const move = h.plan(assignment, first, on(two))
    assert.deepEqual(await checkPlanOnline(assignment, first, move, h.session), [])
    // create_before_destroy deposes the old object and plans the new one alone before creating it.
    const alone = await checkPlanOnline(assignment, null, h.plan(assignment, null, on(two)), h.session)
    assert.deepEqual(
      alone.map((d) => [d.severity, d.path]),
      [['error', ['additional_ip_id']]],
    )
    const detail = alone[0]?.detail ?? ''
    assert.match(detail, new RegExp(`routed to server ${one}: an IP serves one server at a time`))
    assert.match(detail, /with lifecycle \{ create_before_destroy = true \} \(Terraform\), that setting is the cause/)
    assert.match(detail, /Remove create_before_destroy from this resource/)
    assert.match(detail, new RegExp(`first apply with metal_account_id back at server ${one}`))
    assert.deepEqual(await h.mutations(), [], 'nothing is changed in the service')
  })

  test('the revert creates the assignment the old object still is, then deletes that old object: the IP stays routed', async () => {
    const { h, one, ip, on, first, run } = await setup()
    const server = run()
    // create_before_destroy: the create first, then the delete of the deposed object (the same id).
    const created = await server.create(
      assignment,
      planResource(assignment, null, on(one)).planned,
      server.session(undefined, silentLogger),
    )
    assert.ok(!hasErrors(created.diagnostics), JSON.stringify(created.diagnostics))
    assert.equal(created.state?.id, first.id, 'the same server again is the same assignment')
    const deposed = await server.delete(assignment, first, {}, server.session(undefined, silentLogger))
    assert.ok(!hasErrors(deposed.diagnostics), JSON.stringify(deposed.diagnostics))
    assert.equal(deposed.state, null, 'the old object leaves the state')
    assert.match(deposed.diagnostics[0]?.summary ?? '', new RegExp(`baremetal_additional_ip_assignment ${String(first.id)} is not deleted`))
    assert.deepEqual(await routedTo(h, ip), [one], 'the IP is still routed to the server the state says (no outage)')
    assert.deepEqual(await h.mutations(), [], 'neither a DELETE nor a PUT: the routing never changed')
    // The next plan finds what the state says.
    assert.notEqual(await h.read(assignment, created.state as ValueMap), null)
  })

  test('the delete of the old object first (no create_before_destroy, a Pulumi replacement), or beside the create: the IP is routed anew', async () => {
    for (const order of ['delete first', 'beside'] as const) {
      const { h, one, ip, on, first, run } = await setup()
      const server = run()
      const create = () =>
        server.create(assignment, planResource(assignment, null, on(one)).planned, server.session(undefined, silentLogger))
      const remove = () => server.delete(assignment, first, {}, server.session(undefined, silentLogger))
      const [deleted, created] = order === 'delete first' ? [await remove(), await create()] : await Promise.all([remove(), create()])
      assert.equal(deleted.state, null, order)
      assert.ok(!hasErrors(created.diagnostics), `${order}: ${JSON.stringify(created.diagnostics)}`)
      assert.equal(created.state?.id, first.id, order)
      assert.deepEqual(await routedTo(h, ip), [one], `${order}: the IP is routed to the server the state says`)
      assert.deepEqual(
        await h.mutations(),
        [`DELETE /v1/baremetal-additional-ips/${ip}/assigns/${one}`, `PUT /v1/baremetal-additional-ips/${ip}/assigns`],
        order,
      )
    }
  })

  test('a delete of the old object that fails leaves the create no assignment to share: it fails instead of holding one the next apply deletes', async () => {
    const { h, one, ip, on, first, run } = await setup()
    const server = run()
    await h.control('POST', '/faults', { method: 'DELETE', path: '/baremetal-additional-ips/**', status: 403, count: 1 })
    const failed = await server.delete(assignment, first, {}, server.session(undefined, silentLogger))
    assert.ok(hasErrors(failed.diagnostics), 'the delete failed: the old object stays in the state')
    assert.notEqual(failed.state, null)
    const created = await server.create(
      assignment,
      planResource(assignment, null, on(one)).planned,
      server.session(undefined, silentLogger),
    )
    assert.equal(created.state, null, 'two objects in the state with one id: the next apply would unassign the new one')
    assert.match(created.diagnostics[0]?.detail ?? '', /a delete of it in this same run .* has not removed it/)
    assert.deepEqual(await routedTo(h, ip), [one])
  })
})

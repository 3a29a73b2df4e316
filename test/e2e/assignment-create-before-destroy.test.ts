// Real terraform against the emulator launcher: an additional IP assignment with
// lifecycle { create_before_destroy = true }, which the provider is not told of. Moving it to another
// server creates first, which an IP serving one server at a time cannot take: the apply fails naming
// that setting, and changes nothing in the service. Reverting the change then creates the assignment
// the deposed old object still is (the same id) and destroys that old object: the IP must stay routed,
// as the state says. Without create_before_destroy, the move then works (the old assignment deleted first).
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const SERVER: Record<string, HclValue> = {
  product_id: 301,
  cycle: 'm',
  keypair_id: ref('provider_baremetal_keypair.k.keypair_id'),
}
const ASSIGNMENT = 'provider_baremetal_additional_ip_assignment.assign'

describe('an IP assignment with create_before_destroy', () => {
  const e2e = useEmulatorWorkspace()
  let assignedTo = 'a'
  let createFirst = true
  const ids: Record<string, string> = {}

  const config = () => {
    const assignment = block('resource', 'provider_baremetal_additional_ip_assignment', 'assign', {
      additional_ip_id: ref('provider_baremetal_additional_ip.ip.id'),
      metal_account_id: ref(`provider_baremetal.${assignedTo}.id`),
    })
    return [
      PROVIDER_BLOCKS,
      block('resource', 'provider_baremetal_keypair', 'k', { name: 'e2e-metal-cbd' }),
      block('resource', 'provider_baremetal', 'a', { ...SERVER, label: 'e2e-cbd-a' }),
      block('resource', 'provider_baremetal', 'b', { ...SERVER, label: 'e2e-cbd-b' }),
      block('resource', 'provider_baremetal_additional_ip', 'ip', { product_id: 401, cycle: 'm' }),
      createFirst ? assignment.replace(/}\n$/, '  lifecycle {\n    create_before_destroy = true\n  }\n}\n') : assignment,
    ].join('\n')
  }

  /** The servers the service routes the IP to (A2, as a user with curl would ask). */
  const routedTo = async () =>
    (await e2e.emulator.api<{ metal_account_id: number }[]>('GET', `/baremetal-additional-ips/${ids.ip}/assigns`)).map((a) =>
      String(a.metal_account_id),
    )

  before(async () => {
    await e2e.ws.write(config())
    const created = await e2e.ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    for (const name of ['a', 'b', 'ip']) {
      ids[name] = String((await e2e.ws.stateOf(`provider_baremetal${name === 'ip' ? '_additional_ip' : ''}.${name}`)).id)
    }
  })

  test('the move fails naming create_before_destroy as the cause, and changes nothing in the service', async () => {
    assignedTo = 'b'
    await e2e.ws.write(config())
    const { value: moved, mutations } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(moved.code, 1, describeRun(moved))
    const [error] = diagnostics(moved.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.match(error ?? '', /^Error: Invalid additional_ip_id /)
    assert.match(error ?? '', new RegExp(`routed to server ${ids.a}: an IP serves one server at a time`))
    assert.match(error ?? '', /create_before_destroy = true \} \(Terraform\), that setting is the cause/)
    assert.match(error ?? '', new RegExp(`Remove create_before_destroy from this resource.*metal_account_id back at server ${ids.a}`))
    assert.deepEqual(mutations, [])
    assert.deepEqual(await routedTo(), [ids.a])
  })

  test('after that failed move a destroy stops on the same check, and its message says how to get past it', async () => {
    // The destroy's refresh plans the configuration first, where the deposed assignment leaves the new one
    // to create: the provider cannot tell that plan from an apply's.
    const destroy = await e2e.ws.plan(['-destroy'])
    assert.equal(destroy.code, 1, describeRun(destroy))
    const [error] = diagnostics(destroy.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.match(error ?? '', /stops a terraform destroy of this configuration too .*or run the destroy with -refresh=false/)
    const unrefreshed = await e2e.ws.plan(['-destroy', '-refresh=false'])
    assert.equal(unrefreshed.code, 2, describeRun(unrefreshed))
  })

  test('reverting the move leaves the IP routed to the server the state names, and the next plan is empty', async () => {
    assignedTo = 'a'
    await e2e.ws.write(config())
    const { value: reverted, mutations } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(reverted.code, 0, describeRun(reverted))
    assert.deepEqual(mutations, [], 'no DELETE of the assignment the state keeps')
    assert.deepEqual(await routedTo(), [ids.a], 'the IP is routed, as the state says')
    assert.equal((await e2e.ws.stateOf(ASSIGNMENT)).id, `${ids.a}:${ids.ip}`)
    const [warning] = diagnostics(reverted.stdout + reverted.stderr, 'Warning').map((e) => e.replace(/\s+/g, ' '))
    assert.match(warning ?? '', new RegExp(`assignment ${ids.a}:${ids.ip} is not deleted`))
    const next = await e2e.ws.plan()
    assert.equal(next.code, 0, `the plan after the revert is not empty: ${describeRun(next)}`)
  })

  test('without create_before_destroy the move deletes the old assignment first', async () => {
    createFirst = false
    assignedTo = 'b'
    await e2e.ws.write(config())
    const { value: moved, mutations } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(moved.code, 0, describeRun(moved))
    assert.deepEqual(mutations, [
      `DELETE /v1/baremetal-additional-ips/${ids.ip}/assigns/${ids.a}`,
      `PUT /v1/baremetal-additional-ips/${ids.ip}/assigns`,
    ])
    assert.deepEqual(await routedTo(), [ids.b])
    const next = await e2e.ws.plan()
    assert.equal(next.code, 0, describeRun(next))
  })
})

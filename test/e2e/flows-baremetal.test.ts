// Real terraform against the emulator launcher: the Metal flows of "Complete the interface on Terraform".
// Two servers, an additional IP assigned to the first, and an elastic storage volume are created once; each
// step then changes the configuration and asserts exactly the mutating API calls the API contract lists for each Metal operation (request
// log, non-GET), the orders (order counters), and that the plan after it is empty.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, changeOf, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const SERVER: Record<string, HclValue> = {
  product_id: 301,
  cycle: 'm',
  keypair_id: ref('provider_baremetal_keypair.k.keypair_id'),
}

describe('Metal flows', () => {
  const e2e = useEmulatorWorkspace()
  let server: Record<string, HclValue> = { ...SERVER, label: 'e2e-metal-a' }
  let assignedTo = 'a'
  let storage: Record<string, HclValue> = {
    product_id: 501,
    cycle: 'm',
    storage_name: 'e2e-volume',
    metal_account_id: ref('provider_baremetal.a.id'),
    size: 100,
  }
  const ids: Record<string, string> = {}

  const config = () =>
    [
      PROVIDER_BLOCKS,
      block('resource', 'provider_baremetal_keypair', 'k', { name: 'e2e-metal-flows' }),
      block('resource', 'provider_baremetal', 'a', server),
      block('resource', 'provider_baremetal', 'b', { ...SERVER, label: 'e2e-metal-b' }),
      block('resource', 'provider_baremetal_additional_ip', 'ip', { product_id: 401, cycle: 'm' }),
      block('resource', 'provider_baremetal_additional_ip_assignment', 'assign', {
        additional_ip_id: ref('provider_baremetal_additional_ip.ip.id'),
        metal_account_id: ref(`provider_baremetal.${assignedTo}.id`),
      }),
      block('resource', 'provider_baremetal_elastic_storage', 'vol', storage),
    ].join('\n')

  /** Writes the configuration, applies it, and checks `Resources:` and the next empty plan. */
  async function applyStep(changed: number, replaced = 0) {
    await e2e.ws.write(config())
    const effects = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(effects.value.code, 0, describeRun(effects.value))
    assert.match(effects.value.stdout, new RegExp(`Resources: ${replaced} added, ${changed} changed, ${replaced} destroyed\\.`))
    const next = await e2e.ws.plan()
    assert.equal(next.code, 0, `the plan after the step is not empty: ${describeRun(next)}`)
    return effects
  }

  before(async () => {
    await e2e.ws.write(config())
    const created = await e2e.ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    for (const name of [
      'provider_baremetal.a',
      'provider_baremetal.b',
      'provider_baremetal_additional_ip.ip',
      'provider_baremetal_elastic_storage.vol',
    ]) {
      ids[name.split('.')[1] ?? ''] = String((await e2e.ws.stateOf(name)).id)
    }
  })

  test('the create placed one order per billed object and assigned the IP to the first server', async () => {
    assert.deepEqual((await e2e.emulator.orders()).by_kind, {
      'baremetal.create': 2,
      'additional_ip.create': 1,
      'elastic_storage.create': 1,
    })
    assert.equal(String((await e2e.emulator.account(ids.ip ?? ''))?.extra_details.metal_account_id), ids.a)
    assert.equal((await e2e.ws.stateOf('provider_baremetal_additional_ip_assignment.assign')).id, `${ids.a}:${ids.ip}`)
    const next = await e2e.ws.plan()
    assert.equal(next.code, 0, describeRun(next))
  })

  test('moving the assignment to the second server deletes the old assignment before the new PUT', async () => {
    assignedTo = 'b'
    await e2e.ws.write(config())
    const planned = await e2e.ws.planJson()
    const change = changeOf(planned.plan, 'provider_baremetal_additional_ip_assignment.assign')
    assert.deepEqual(change.actions, ['delete', 'create'], 'delete first: an IP serves one server at a time')
    assert.deepEqual(change.replace_paths, [['metal_account_id']])

    const { log, mutations, orders } = await applyStep(0, 1)
    assert.deepEqual(mutations, [
      `DELETE /v1/baremetal-additional-ips/${ids.ip}/assigns/${ids.a}`,
      `PUT /v1/baremetal-additional-ips/${ids.ip}/assigns`,
    ])
    const put = log.find((e) => e.method === 'PUT')
    assert.deepEqual(put?.body, { metal_account_id: Number(ids.b) })
    assert.equal(put?.status, 200)
    assert.deepEqual(orders, [])
    assert.equal(String((await e2e.emulator.account(ids.ip ?? ''))?.extra_details.metal_account_id), ids.b)
    assert.equal((await e2e.ws.stateOf('provider_baremetal_additional_ip_assignment.assign')).id, `${ids.b}:${ids.ip}`)
    assert.deepEqual(await e2e.emulator.api('GET', `/baremetal-additional-ips/assignments-by-metal-account-id/${ids.a}`), [])
  })

  test('a second assignment of the IP, to the server it is not routed to: refused at plan, naming the server that has it', async () => {
    const second = block('resource', 'provider_baremetal_additional_ip_assignment', 'other', {
      additional_ip_id: ref('provider_baremetal_additional_ip.ip.id'),
      metal_account_id: ref('provider_baremetal.a.id'),
    })
    await e2e.ws.write([config(), second].join('\n'))
    const { value: planned, mutations } = await e2e.emulator.effectsOf(() => e2e.ws.plan())
    assert.equal(planned.code, 1, describeRun(planned))
    const [error] = diagnostics(planned.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.match(error ?? '', /^Error: Invalid additional_ip_id /)
    assert.match(error ?? '', /with provider_baremetal_additional_ip_assignment\.other,/)
    assert.match(error ?? '', new RegExp(`routed to server ${ids.b}: an IP serves one server at a time`))
    assert.deepEqual(mutations, [])
    await e2e.ws.write(config())
  })

  test('elastic storage growth and change-package in one apply: PUT, a wait for Active, then POST; one order each', async () => {
    storage = { ...storage, size: 150, product_id: 502 }
    const { log, mutations, orders } = await applyStep(1)
    const path = `/v1/baremetal-elastic-storages/${ids.vol}`
    assert.deepEqual(mutations, [`PUT ${path}`, `POST ${path}`])
    const put = log.findIndex((e) => e.method === 'PUT' && e.path === path)
    const post = log.findIndex((e) => e.method === 'POST' && e.path === path)
    assert.deepEqual(log[put]?.body, { size: 150, pay_invoice_with_cc: true })
    assert.deepEqual(log[post]?.body, { new_product_id: 502, pay_invoice_with_cc: true })
    const between = log.slice(put + 1, post)
    assert.ok(
      between.some((e) => e.method === 'GET' && e.path === path && e.status === 200),
      `no GET of the storage account between the resize and the change-package: ${JSON.stringify(between.map((e) => `${e.method} ${e.path}`))}`,
    )
    // The change-package was accepted: it was sent once the resize made the account Active again (the status model).
    assert.equal(log[put]?.status, 200)
    assert.equal(log[post]?.status, 200)
    assert.deepEqual(
      orders.map((o) => [o.kind, o.account_id]),
      [
        ['elastic_storage.resize', ids.vol],
        ['elastic_storage.change_package', ids.vol],
      ],
    )
    const counters = await e2e.emulator.orders()
    assert.equal(counters.by_kind['elastic_storage.resize'], 1)
    assert.equal(counters.by_kind['elastic_storage.change_package'], 1)
    const account = await e2e.emulator.account(ids.vol ?? '')
    assert.equal(account?.status, 'Active')
    assert.equal(account?.product_id, 502)
    assert.equal(account?.extra_details.size, 150)
  })

  interface Step {
    name: string
    change: Record<string, HclValue>
    call: string
    body: unknown
    check: () => Promise<void>
  }
  const state = () => e2e.emulator.api<{ state: string }>('GET', `/baremetals/accounts/${ids.a}/state`)
  const steps: Step[] = [
    {
      name: 'label changes the label',
      change: { label: 'e2e-metal-a2' },
      call: 'PUT /v1/baremetals/{id}',
      body: { label: 'e2e-metal-a2' },
      check: async () => assert.equal((await e2e.emulator.account(ids.a ?? ''))?.extra_details.label, 'e2e-metal-a2'),
    },
    {
      name: 'power_state "off" powers the server off',
      change: { power_state: 'off' },
      call: 'PUT /v1/baremetals/accounts/{id}/state/off',
      body: null,
      check: async () => assert.equal((await state()).state, 'off'),
    },
    {
      name: 'power_state "on" powers it on again',
      change: { power_state: 'on' },
      call: 'PUT /v1/baremetals/accounts/{id}/state/on',
      body: null,
      check: async () => assert.equal((await state()).state, 'on'),
    },
    {
      name: 'reset_trigger hard-resets the server once',
      change: { reset_trigger: 'reset-1' },
      call: 'PUT /v1/baremetals/accounts/{id}/state/reset',
      body: null,
      check: async () => assert.equal((await state()).state, 'on'),
    },
    {
      name: 'a new reset_trigger value re-fires the reset',
      change: { reset_trigger: 'reset-2' },
      call: 'PUT /v1/baremetals/accounts/{id}/state/reset',
      body: null,
      check: async () => assert.equal((await state()).state, 'on'),
    },
    {
      name: 'rebuild_os "debian-12" (from the rebuild list) reinstalls the server',
      change: { rebuild_os: 'debian-12' },
      call: 'PUT /v1/baremetals/{id}/rebuild',
      body: { os: 'debian-12' },
      check: async () => {
        const account = await e2e.emulator.account(ids.a ?? '')
        assert.equal(account?.status, 'Active')
        assert.equal(account?.extra_details.select_os, 'debian-12')
      },
    },
  ]
  for (const step of steps) {
    test(step.name, async () => {
      server = { ...server, ...step.change }
      const { log, mutations, orders } = await applyStep(1)
      const call = step.call.replace('{id}', ids.a ?? '')
      assert.deepEqual(mutations, [call])
      assert.deepEqual(log.find((e) => `${e.method} ${e.path}` === call)?.body ?? null, step.body)
      assert.deepEqual(orders, [])
      await step.check()
    })
  }

  test('a rebuild_os not in the server rebuild list fails at plan naming rebuild_os, with no mutating call', async () => {
    server = { ...server, rebuild_os: 'windows-2022' }
    await e2e.ws.write(config())
    const counters = await e2e.emulator.orders()
    const { value: results, mutations, orders } = await e2e.emulator.effectsOf(async () => [await e2e.ws.plan(), await e2e.ws.apply()])
    for (const result of results) {
      assert.equal(result.code, 1, describeRun(result))
      const errors = diagnostics(result.stderr)
      assert.equal(errors.length, 1, describeRun(result))
      // The attribute path: terraform quotes the attribute's own line.
      assert.match(errors[0] ?? '', /^\s*\d+:\s+rebuild_os = "windows-2022"$/m)
      assert.match(errors[0] ?? '', /with provider_baremetal\.a,/)
      assert.match(errors[0] ?? '', /debian-12/, 'the message lists the valid values')
      assert.doesNotMatch(result.stdout, /Plan:|Apply complete/)
    }
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    assert.deepEqual(await e2e.emulator.orders(), counters)
    assert.equal((await e2e.emulator.account(ids.a ?? ''))?.extra_details.select_os, 'debian-12')
  })

  test('that error names rebuild_os in its text, not the Pulumi name rebuildOs', async () => {
    const planned = await e2e.ws.plan()
    assert.equal(planned.code, 1, describeRun(planned))
    assert.match(diagnostics(planned.stderr)[0] ?? '', /^Error: .*rebuild_os/)
    assert.doesNotMatch(planned.stderr, /rebuildOs/)
  })
})

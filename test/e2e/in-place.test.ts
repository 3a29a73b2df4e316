// Real terraform against the emulator launcher: each in-place change of a Lite VM makes exactly the API
// calls the API contract lists for a VM update (request log, non-GET) and the orders it must (order counters), and nothing else;
// the plan after each change is empty.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  block,
  changeOf,
  describeRun,
  type HclValue,
  PROVIDER_BLOCKS,
  type PlannedChange,
  ref,
  type Workspace,
} from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const BASE_VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.first.keypair_id'),
  cycle: 'm',
  vm_name: 'e2e-inplace-1',
}

/** Two keypairs exist from the start, so that switching keypairs creates nothing during the switch. */
function config(vm: Record<string, HclValue>): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'first', { name: 'e2e-inplace-first' }),
    block('resource', 'provider_lite_keypair', 'second', { name: 'e2e-inplace-second' }),
    block('resource', 'provider_lite_vm', 'vm', vm),
  ].join('\n')
}

interface Step {
  name: string
  change: Record<string, HclValue>
  /** The non-GET requests of the apply, `{id}` standing for the account id. */
  calls: string[]
  /** The kinds of the orders the apply placed. */
  orders: string[]
  /** What the emulator's account shows afterwards. */
  check?: (account: Record<string, unknown>, extra: Record<string, unknown>, ws: Workspace) => void | Promise<void>
  /** Whether terraform reports the VM changed (a record-only change is an update that calls nothing). */
  changed?: false
  /** The hypervisor status vm-details reports afterwards. */
  hypervisor?: 'running' | 'stopped'
  /** What the plan of the change shows, checked before it is applied. */
  planned?: (change: PlannedChange) => void
}

/** The attributes a plan shows as "(known after apply)". */
const unknownIn = (change: PlannedChange) => Object.keys(change.after_unknown ?? {}).filter((k) => change.after_unknown?.[k] === true)

// Cumulative: each step's change applies on top of the previous ones, in this order.
const STEPS: Step[] = [
  {
    name: 'vm_name renames the VM',
    change: { vm_name: 'e2e-inplace-2' },
    calls: ['PUT /v1/lites/accounts/{id}/change-vm-name'],
    orders: [],
    check: (_, extra) => assert.equal(extra.name, 'e2e-inplace-2'),
  },
  {
    name: 'keypair_id switches to the second keypair',
    change: { keypair_id: ref('provider_lite_keypair.second.keypair_id') },
    calls: ['PUT /v1/lites/accounts/{id}/keypair'],
    orders: [],
    check: async (_, extra, ws) => assert.equal(extra.keypair_id, (await ws.stateOf('provider_lite_keypair.second')).keypair_id),
  },
  {
    name: 'product_id 101 -> 102 changes the package (one paid order)',
    change: { product_id: 102 },
    calls: ['POST /v1/lites/accounts/{id}/change-package'],
    orders: ['lite.vm.change_package'],
    check: (account) => assert.equal(account.product_id, 102),
    // Only what a package change can move is unknown; the apply then records every kept value
    // unchanged (terraform would fail with an inconsistent result otherwise).
    planned: (change) => {
      assert.deepEqual(unknownIn(change).sort(), [
        'cpus',
        'disk_size',
        'last_invoice',
        'maxdisk',
        'maxmem',
        'mem',
        'product_name',
        'raw',
        'recurring_amount',
        'status',
        'uptime',
      ])
      for (const kept of ['region', 'region_label', 'order_id', 'ciuser', 'cipassword', 'osname', 'billingcycle', 'next_due']) {
        assert.notEqual(change.before?.[kept], undefined, kept)
        assert.deepEqual(change.after?.[kept], change.before?.[kept], kept)
      }
    },
  },
  {
    name: 'disk_size growth upgrades the storage (one paid order)',
    change: { disk_size: 60 },
    calls: ['PUT /v1/lites/accounts/{id}/storage'],
    orders: ['lite.vm.storage'],
    check: (_, extra) => assert.equal(String(extra.disk_size), '60'),
  },
  {
    name: 'power_state "stop" stops the VM',
    change: { power_state: 'stop' },
    calls: ['PUT /v1/lites/accounts/{id}/vm-state/stop'],
    orders: [],
    hypervisor: 'stopped',
  },
  {
    name: 'power_state "start" starts it again',
    change: { power_state: 'start' },
    calls: ['PUT /v1/lites/accounts/{id}/vm-state/start'],
    orders: [],
    hypervisor: 'running',
  },
  {
    name: 'removing power_state from the configuration calls nothing',
    change: { power_state: undefined },
    changed: false, // optional and computed: it keeps the value in state
    calls: [],
    orders: [],
    hypervisor: 'running',
  },
  {
    name: 'rebuild_os reinstalls the VM',
    change: { rebuild_os: 'Debian-12' },
    calls: ['PUT /v1/lites/accounts/{id}/rebuild'],
    orders: [],
    check: (_, extra) => assert.equal(extra.osname, 'Debian-12'),
  },
  {
    name: 'removing rebuild_os from the configuration calls nothing and changes nothing',
    change: { rebuild_os: undefined },
    changed: false, // an action keeps its last value in state
    calls: [],
    orders: [],
    check: (_, extra) => assert.equal(extra.osname, 'Debian-12'),
  },
  {
    name: 'setting rebuild_os to a new OS fires the rebuild again',
    change: { rebuild_os: 'Rocky-9' },
    calls: ['PUT /v1/lites/accounts/{id}/rebuild'],
    orders: [],
    check: (_, extra) => assert.equal(extra.osname, 'Rocky-9'),
  },
  {
    name: 'pay_with_credit_card only records the new flag',
    change: { pay_with_credit_card: false },
    calls: [],
    orders: [],
  },
]

describe('in-place changes of provider_lite_vm', () => {
  const e2e = useEmulatorWorkspace()
  let id = ''
  let vm: Record<string, HclValue> = { ...BASE_VM }

  test('create', async () => {
    await e2e.ws.write(config(vm))
    const created = await e2e.ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    id = String((await e2e.ws.stateOf('provider_lite_vm.vm')).id)
    assert.match(id, /^\d+$/)
  })

  test('a rename plans only what it can change: the figures, status and invoice keep their values', async () => {
    await e2e.ws.write(config({ ...vm, vm_name: 'e2e-renamed-x' }))
    const { run, plan } = await e2e.ws.planJson()
    assert.equal(run.code, 2, describeRun(run))
    const change = changeOf(plan, 'provider_lite_vm.vm')
    assert.deepEqual(change.actions, ['update'])
    assert.deepEqual(unknownIn(change), ['raw'])
    for (const kept of ['cpus', 'status', 'next_due', 'maxmem', 'product_name', 'last_invoice']) {
      assert.deepEqual(change.after?.[kept], change.before?.[kept], kept)
    }
    await e2e.ws.write(config(vm))
  })

  for (const step of STEPS) {
    test(step.name, async () => {
      assert.ok(id, 'the VM was created')
      vm = { ...vm, ...step.change }
      await e2e.ws.write(config(vm))
      if (step.planned) {
        const { run, plan } = await e2e.ws.planJson()
        assert.equal(run.code, 2, describeRun(run))
        step.planned(changeOf(plan, 'provider_lite_vm.vm'))
      }
      const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
      assert.equal(applied.code, 0, describeRun(applied))
      assert.match(applied.stdout, new RegExp(`Resources: 0 added, ${step.changed === false ? 0 : 1} changed, 0 destroyed\\.`))
      assert.deepEqual(
        mutations,
        step.calls.map((call) => call.replace('{id}', id)),
      )
      assert.deepEqual(
        orders.map((order) => order.kind),
        step.orders,
      )
      for (const order of orders) assert.equal(order.account_id, id, 'an upgrade order keeps the account id')

      const account = await e2e.emulator.account(id)
      assert.equal(account?.status, 'Active')
      await step.check?.(account as unknown as Record<string, unknown>, account?.extra_details ?? {}, e2e.ws)
      if (step.hypervisor) {
        const details = await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)
        assert.equal(details.status, step.hypervisor)
      }

      const next = await e2e.ws.plan()
      assert.equal(next.code, 0, `the plan after "${step.name}" is not empty: ${describeRun(next)}`)
    })
  }
})

// Real terraform against the emulator launcher: order-time inputs (core's `orderTime`: the promocode and
// the payment flag) never destroy a live object. A promocode the service refuses, a removed promocode
// and a changed payment flag on existing objects are recorded with a warning that they take effect at
// the next order: no DELETE, no order, the same ids and the same IP address. `terraform apply
// -replace=<address>` still orders the object again, with the recorded values.
// Runs under every pinned Terraform-protocol client (scripts/test.mjs, PER_CLIENT_PARTS).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { block, changeOf, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, type RunResult, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM = 'provider_lite_vm.vm'
const SNAPSHOT = 'provider_lite_snapshot.snap'
const RESTORED = 'provider_lite_vm_from_snapshot.restored'
const IP = 'provider_baremetal_additional_ip.ip'

/** A VM ordered with a promocode, its snapshot and a VM restored from it, and a Metal additional IP. */
function config(vm: Record<string, HclValue>, ip: Record<string, HclValue>): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-ordertime-key' }),
    block('resource', 'provider_lite_vm', 'vm', {
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      vm_name: 'e2e-ordertime',
      ...vm,
    }),
    block('resource', 'provider_lite_snapshot', 'snap', { lite_account_id: ref(`${VM}.id`), cycle: 'm', name: 'ordertime-snap' }),
    block('resource', 'provider_lite_vm_from_snapshot', 'restored', {
      snapshot_id: ref(`${SNAPSHOT}.id`),
      product_id: 101,
      cycle: 'm',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      name: 'ordertime-copy',
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
    }),
    block('resource', 'provider_baremetal_additional_ip', 'ip', { product_id: 401, cycle: 'm', ...ip }),
  ].join('\n')
}

/** The warnings of a run that say `name` takes effect at the next order. */
function orderTimeWarnings(run: RunResult, name: string): string[] {
  return diagnostics(run.stdout + run.stderr, 'Warning').filter((w) => w.includes(`${name} takes effect at the next order`))
}

describe('order-time inputs (promocode, pay_with_credit_card) never destroy a live object', () => {
  const e2e = useEmulatorWorkspace()
  const ids: Record<string, string> = {}
  let address = ''
  let vm: Record<string, HclValue> = { promocode: 'PROMO10' }
  let ip: Record<string, HclValue> = {}

  /** The ids every step must keep. */
  async function assertKept(what: string): Promise<void> {
    for (const [at, id] of Object.entries(ids)) {
      assert.equal(String((await e2e.ws.stateOf(at)).id), id, `${what}: ${at} keeps its id`)
      assert.ok(await e2e.emulator.account(id), `${what}: the service still has ${at} (${id})`)
    }
    assert.equal((await e2e.ws.stateOf(IP)).ip_address, address, `${what}: the IP keeps its address`)
  }

  /** Plans the current configuration: only `changed` is updated, in place; everything else is untouched. */
  async function assertPlannedInPlace(changed: readonly string[], name: string): Promise<void> {
    const { run, plan } = await e2e.ws.planJson()
    assert.equal(run.code, 2, describeRun(run))
    for (const at of [VM, SNAPSHOT, RESTORED, IP]) {
      const expected = changed.includes(at) ? ['update'] : ['no-op']
      assert.deepEqual(changeOf(plan, at).actions, expected, `${at} is planned ${expected.join()}`)
    }
    assert.equal(orderTimeWarnings(run, name).length, changed.length, `the plan warns once per object:\n${run.stdout}`)
  }

  /** Applies the current configuration: recorded, with the warning, and nothing deleted or ordered. */
  async function assertRecordedOnly(at: string, name: string, value: HclValue): Promise<void> {
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Resources: 0 added, 1 changed, 0 destroyed\./)
    assert.deepEqual(mutations, [], 'no DELETE and no other call that changes anything')
    assert.deepEqual(orders, [], 'no order')
    // Terraform wraps the detail at 80 columns.
    const warning = orderTimeWarnings(applied, name)[0]?.replace(/\s+/g, ' ')
    assert.ok(warning, `the apply warns that ${name} takes effect at the next order:\n${applied.stdout}`)
    assert.match(warning, /nothing is deleted/)
    assert.match(warning, /terraform apply -replace=/)
    assert.equal((await e2e.ws.stateOf(at))[name], value ?? null, `the state records the new ${name}`)
    await assertKept(`after changing ${name}`)
    const again = await e2e.ws.plan()
    assert.equal(again.code, 0, `the next plan is empty: ${describeRun(again)}`)
  }

  test('create: a VM with a promocode, its snapshot, a VM restored from it, an additional IP', async () => {
    await e2e.ws.write(config(vm, ip))
    const created = await e2e.ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    for (const at of [VM, SNAPSHOT, RESTORED, IP]) ids[at] = String((await e2e.ws.stateOf(at)).id)
    address = String((await e2e.ws.stateOf(IP)).ip_address)
    assert.match(address, /^\d+\.\d+\.\d+\.\d+$/)
  })

  test('a promocode the service refuses, on the existing VM, is recorded with a warning: no DELETE, no order', async () => {
    assert.ok(ids[VM], 'created')
    vm = { ...vm, promocode: 'NO-SUCH-CODE' }
    await e2e.ws.write(config(vm, ip))
    await assertPlannedInPlace([VM], 'promocode')
    await assertRecordedOnly(VM, 'promocode', 'NO-SUCH-CODE')
  })

  test('removing the promocode destroys neither the VM nor its snapshot nor the VM restored from it', async () => {
    assert.ok(ids[VM], 'created')
    vm = { ...vm, promocode: undefined }
    await e2e.ws.write(config(vm, ip))
    await assertPlannedInPlace([VM], 'promocode')
    await assertRecordedOnly(VM, 'promocode', null)
  })

  test('changing pay_with_credit_card on the additional IP keeps it and its address', async () => {
    assert.ok(ids[IP], 'created')
    ip = { ...ip, pay_with_credit_card: false }
    await e2e.ws.write(config(vm, ip))
    await assertPlannedInPlace([IP], 'pay_with_credit_card')
    await assertRecordedOnly(IP, 'pay_with_credit_card', false)
  })

  test('terraform apply -replace orders the IP again, with the promocode and payment flag recorded for it', async () => {
    assert.ok(ids[IP], 'created')
    ip = { ...ip, pay_with_credit_card: true, promocode: 'PROMO10' }
    await e2e.ws.write(config(vm, ip))
    const recorded = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(recorded.value.code, 0, describeRun(recorded.value))
    assert.deepEqual(recorded.mutations, [], 'recording them calls nothing')

    const { value: replaced, log, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply([`-replace=${IP}`]))
    assert.equal(replaced.code, 0, describeRun(replaced))
    assert.match(replaced.stdout, /Resources: 1 added, 0 changed, 1 destroyed\./)
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['additional_ip.create'],
      'one new order',
    )
    assert.ok(mutations.includes(`DELETE /v1/baremetal-additional-ips/${ids[IP]}`), mutations.join('\n'))
    const posted = log.find((e) => e.method === 'POST' && e.path === '/v1/baremetal-additional-ips')
    assert.deepEqual(
      [(posted?.body as Record<string, unknown>)?.promocode, (posted?.body as Record<string, unknown>)?.pay_invoice_with_cc],
      ['PROMO10', true],
      'the new order carries the recorded promocode and payment flag',
    )
    const newId = String((await e2e.ws.stateOf(IP)).id)
    assert.notEqual(newId, ids[IP], 'a new IP')
    assert.equal((await e2e.emulator.account(ids[IP] ?? '').then((a) => a?.status ?? 'gone')) === 'Active', false, 'the old IP is gone')
    const again = await e2e.ws.plan()
    assert.equal(again.code, 0, `the next plan is empty: ${describeRun(again)}`)
  })
})

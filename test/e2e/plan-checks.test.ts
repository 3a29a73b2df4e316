// Real terraform against the emulator launcher: what must be decided at plan time. A shrinking disk and
// every spec Limit are refused before any API call, and each create-only change is planned as a replacement.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, changeOf, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
  vm_name: 'e2e-plan-checks',
  disk_size: 30,
}

function config(vm: Record<string, HclValue>): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-plan-checks' }),
    block('resource', 'provider_lite_vm', 'vm', vm),
  ].join('\n')
}

describe('plan-time decisions on provider_lite_vm', () => {
  const e2e = useEmulatorWorkspace()
  before(async () => {
    await e2e.ws.write(config(VM))
    const created = await e2e.ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
  })

  test('a VM created with disk_size above the base disk gets it (a second order)', async () => {
    const id = String((await e2e.ws.stateOf('provider_lite_vm.vm')).id)
    assert.deepEqual(
      (await e2e.emulator.orders()).orders.map((o) => [o.kind, o.account_id]),
      [
        ['lite.vm.create', id],
        ['lite.vm.storage', id],
      ],
    )
    assert.equal(String((await e2e.emulator.account(id))?.extra_details.disk_size), '30')
  })

  test('shrinking disk_size fails at plan, naming disk_size, with no mutating request and no order', async () => {
    await e2e.ws.write(config({ ...VM, disk_size: 25 }))
    const { value: results, mutations, orders } = await e2e.emulator.effectsOf(async () => [await e2e.ws.plan(), await e2e.ws.apply()])
    for (const result of results) {
      assert.equal(result.code, 1, describeRun(result))
      const errors = diagnostics(result.stderr)
      assert.equal(errors.length, 1, describeRun(result))
      assert.match(errors[0] ?? '', /disk_size/)
      assert.match(errors[0] ?? '', /with provider_lite_vm\.vm/)
      assert.doesNotMatch(result.stdout, /Plan:|Apply complete/)
    }
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    const id = String((await e2e.ws.stateOf('provider_lite_vm.vm')).id)
    assert.equal(String((await e2e.emulator.account(id))?.extra_details.disk_size), '30')
  })

  /** The planned replacement of `field` when the configuration is `vm`; plans only, so nothing is called. */
  async function assertReplaced(vm: Record<string, HclValue>, field: string) {
    await e2e.ws.write(config(vm))
    const { value: planned, mutations } = await e2e.emulator.effectsOf(() => e2e.ws.planJson())
    assert.equal(planned.run.code, 2, describeRun(planned.run))
    const change = changeOf(planned.plan, 'provider_lite_vm.vm')
    assert.ok(
      JSON.stringify(change.actions) === '["delete","create"]' || JSON.stringify(change.actions) === '["create","delete"]',
      `actions ${JSON.stringify(change.actions)}`,
    )
    assert.deepEqual(change.replace_paths, [[field]])
    assert.match(planned.run.stdout, /# provider_lite_vm\.vm must be replaced/)
    assert.match(planned.run.stdout, new RegExp(`^\\s*[~+-] ${field}\\s+=.*# forces replacement$`, 'm'))
    assert.match(planned.run.stdout, /Plan: 1 to add, 0 to change, 1 to destroy\./)
    assert.deepEqual(changeOf(planned.plan, 'provider_lite_keypair.k').actions, ['no-op'])
    assert.deepEqual(mutations, [])
  }

  const createOnly: [string, HclValue][] = [
    ['ssh_and_console_user', 'deployer2'],
    ['console_password', 'N3wPassword7'],
    ['select_os', 'Debian-12'],
    ['cycle', 'a'],
    ['description', 'another description'],
  ]
  for (const [field, value] of createOnly) {
    test(`changing ${field} plans a replacement`, () => assertReplaced({ ...VM, [field]: value }, field))
  }

  // promocode is an order-time input (core's orderTime): the service reads it only when an order is
  // placed, so setting or changing it on an existing VM only records it (test/e2e/order-time.test.ts).
  test('setting promocode on a VM that has none records it, with no API call and no order', async () => {
    await e2e.ws.write(config({ ...VM, promocode: 'PROMO10' }))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    assert.equal((await e2e.ws.stateOf('provider_lite_vm.vm')).promocode, 'PROMO10')
    const next = await e2e.ws.plan()
    assert.equal(next.code, 0, describeRun(next))
  })

  test('changing promocode plans an update that only records it, never a replacement', async () => {
    await e2e.ws.write(config({ ...VM, promocode: 'PROMO20' }))
    const { run, plan } = await e2e.ws.planJson()
    assert.equal(run.code, 2, describeRun(run))
    assert.deepEqual(changeOf(plan, 'provider_lite_vm.vm').actions, ['update'])
    assert.match(run.stdout, /promocode takes effect at the next order/)
  })
})

describe('every spec Limit of provider_lite_vm is refused at plan', () => {
  const e2e = useEmulatorWorkspace()

  const valid: Record<string, HclValue> = {
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    keypair_id: 1,
    cycle: 'm',
  }
  // Each VM breaks several Limits at once: all of them must be reported together, each on its attribute.
  const invalid: Record<string, Record<string, HclValue>> = {
    a: { ssh_and_console_user: 'short', console_password: 'Ab1', vm_name: 'five5', cycle: 'x', power_state: 'reboot', disk_size: -1 },
    b: { ssh_and_console_user: 'u'.repeat(33), console_password: 'NoDigitsHere', vm_name: 'seventeen-chars17', disk_size: 0 },
    c: { ssh_and_console_user: 'bad_user', console_password: 'nouppercase1' },
    d: { ssh_and_console_user: 'with space', console_password: 'Symbols!9a' },
    e: { console_password: 'NOLOWERCASE1' },
  }

  test('all issues of one configuration are reported together, each naming its attribute, and nothing is called', async () => {
    const vms = Object.entries(invalid).map(([name, broken]) => block('resource', 'provider_lite_vm', name, { ...valid, ...broken }))
    await e2e.ws.write([PROVIDER_BLOCKS, ...vms].join('\n'))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 1, describeRun(applied))
    assert.doesNotMatch(applied.stdout, /Plan:|Creating|Apply complete/)
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])

    const errors = diagnostics(applied.stderr)
    const expected = Object.entries(invalid).flatMap(([name, broken]) => Object.keys(broken).map((attribute) => ({ name, attribute })))
    for (const { name, attribute } of expected) {
      const found = errors.filter(
        (error) =>
          error.includes(`with provider_lite_vm.${name},`) &&
          // The snippet terraform quotes is the attribute's own line: the diagnostic carries its path;
          // not for the password, which is sensitive: its line would show the value.
          (attribute === 'console_password' || new RegExp(`^\\s*\\d+:\\s+${attribute} = `, 'm').test(error)) &&
          new RegExp(`^Error: .*${attribute}`).test(error),
      )
      assert.ok(found.length >= 1, `no error for provider_lite_vm.${name}.${attribute}:\n${applied.stderr}`)
    }
    // Nothing but these: a valid attribute is never blamed.
    for (const error of errors) {
      const blamed = expected.some(({ name, attribute }) => error.includes(`with provider_lite_vm.${name},`) && error.includes(attribute))
      assert.ok(blamed, `unexpected error:\n${error}`)
    }
    // Nothing shows a rejected password, not even Terraform's quote of the configuration line.
    for (const broken of Object.values(invalid)) {
      const password = String(broken.console_password)
      assert.ok(!applied.stderr.includes(password), `the output shows ${password}:\n${applied.stderr}`)
    }
  })
})

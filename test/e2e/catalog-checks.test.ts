// Real terraform: a create-only input the catalog can check (an OS name, a product id, stock, a region)
// is refused at plan, so a replacement never deletes a live object whose new half is known to fail; a
// size above the maximum the service states is refused at plan too. Messages keep API paths and the
// service's own words as they are.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { block, describeRun, diagnostics, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
}
const SERVER: Record<string, HclValue> = {
  product_id: 301,
  cycle: 'm',
  keypair_id: ref('provider_baremetal_keypair.m.keypair_id'),
  label: 'e2e-catalog',
}
const IP: Record<string, HclValue> = { product_id: 401, cycle: 'm' }

function config(vm: Record<string, HclValue>, server: Record<string, HclValue>, ip: Record<string, HclValue>, extra = ''): string {
  return [
    PROVIDER_BLOCKS,
    block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-catalog' }),
    block('resource', 'provider_baremetal_keypair', 'm', { name: 'e2e-catalog' }),
    block('resource', 'provider_lite_vm', 'vm', vm),
    block('resource', 'provider_baremetal', 'server', server),
    block('resource', 'provider_baremetal_additional_ip', 'ip', ip),
    extra,
  ].join('\n')
}

describe('catalog checks at plan, through the terraform CLI', () => {
  const e2e = useEmulatorWorkspace()
  const ids: Record<string, string> = {}
  before(async () => {
    await e2e.ws.write(config(VM, SERVER, IP))
    const created = await e2e.ws.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    for (const address of ['provider_lite_vm.vm', 'provider_baremetal.server', 'provider_baremetal_additional_ip.ip']) {
      ids[address] = String((await e2e.ws.stateOf(address)).id)
    }
  })

  async function assertStillActive() {
    for (const [address, id] of Object.entries(ids)) {
      assert.equal((await e2e.emulator.account(id))?.status, 'Active', `${address} ${id} is untouched`)
      assert.equal(String((await e2e.ws.stateOf(address)).id), id)
    }
  }

  test('a typo in a create-only input fails the plan, naming it: nothing is deleted, nothing ordered', async () => {
    const bad: [string, string, string, Record<string, HclValue>, Record<string, HclValue>, Record<string, HclValue>][] = [
      ['provider_lite_vm.vm', 'select_os', 'must be an OS of product 101', { ...VM, select_os: 'Windows-11' }, SERVER, IP],
      // product_id changes in place (change-package): the packages this VM can change to are checked.
      ['provider_lite_vm.vm', 'product_id', 'must be a package VM', { ...VM, product_id: 999 }, SERVER, IP],
      ['provider_lite_vm.vm', 'select_os', 'must be an OS of product 102', { ...VM, select_os: 'Windows-11', product_id: 102 }, SERVER, IP],
      ['provider_baremetal.server', 'select_os', 'must be an OS of product 301', VM, { ...SERVER, select_os: 'ubuntu-99' }, IP],
      ['provider_baremetal.server', 'product_id', 'out of stock', VM, { ...SERVER, product_id: 303 }, IP],
      ['provider_baremetal_additional_ip.ip', 'region', 'must be one of the regions "wjv-1"', VM, SERVER, { ...IP, region: 'mars-1' }],
      [
        'provider_baremetal_additional_ip.ip',
        'product_id',
        'must be a product of provider_baremetal_additional_ip_products',
        VM,
        SERVER,
        { ...IP, product_id: 999 },
      ],
    ]
    for (const [address, field, rule, vm, server, ip] of bad) {
      await e2e.ws.write(config(vm, server, ip))
      const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
      assert.equal(applied.code, 1, describeRun(applied))
      const errors = diagnostics(applied.stderr).map((e) => e.replace(/\s+/g, ' '))
      assert.equal(errors.length, 1, describeRun(applied))
      assert.match(errors[0] ?? '', new RegExp(`Error: Invalid ${field} .*with ${address.replace('.', '\\.')},`))
      assert.ok(errors[0]?.includes(rule), `${address} ${field}: ${errors[0]}`)
      assert.doesNotMatch(applied.stdout, /Destroying|Creating|Apply complete/)
      assert.deepEqual(mutations, [])
      assert.deepEqual(orders, [])
    }
    await assertStillActive()
  })

  test('disk_size above the maximum of an existing VM fails the plan, with no storage order', async () => {
    await e2e.ws.write(config({ ...VM, disk_size: 501 }, SERVER, IP))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 1, describeRun(applied))
    const errors = diagnostics(applied.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.equal(errors.length, 1, describeRun(applied))
    assert.match(errors[0] ?? '', /Invalid disk_size .*disk_size must be at most 500 GB/)
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    await assertStillActive()
  })

  test('a new VM with disk_size above the maximum fails the plan (issue 15, case 5): no VM is ordered', async () => {
    const second = block('resource', 'provider_lite_vm', 'second', { ...VM, vm_name: 'e2e-second', disk_size: 600 })
    await e2e.ws.write(config(VM, SERVER, IP, second))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 1, describeRun(applied))
    const errors = diagnostics(applied.stderr).map((e) => e.replace(/\s+/g, ' '))
    assert.equal(errors.length, 1, describeRun(applied))
    assert.match(errors[0] ?? '', /Invalid disk_size .*disk_size must be at most 500 GB for a Lite VM/)
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    await assertStillActive()
  })

  test('the timeouts block of every resource that has one is described, with its defaults', async () => {
    const shown = await e2e.ws.ok(['providers', 'schema', '-json'])
    type Block = {
      block_types?: Record<string, { block: { description?: string; attributes?: Record<string, { description?: string }> } }>
    }
    const schemas = (
      JSON.parse(shown.stdout) as { provider_schemas: Record<string, { resource_schemas: Record<string, { block: Block }> }> }
    ).provider_schemas
    const resources = Object.values(schemas)[0]?.resource_schemas ?? {}
    const withTimeouts = Object.entries(resources).filter(([, r]) => r.block.block_types?.timeouts)
    assert.ok(withTimeouts.length > 5)
    for (const [type, r] of withTimeouts) {
      const timeouts = r.block.block_types?.timeouts?.block
      assert.match(timeouts?.description ?? '', /How long each operation may wait .* Defaults: create \d+m/, type)
      for (const [name, attribute] of Object.entries(timeouts?.attributes ?? {}))
        assert.ok(attribute.description, `${type} timeouts.${name}`)
    }
    assert.match(resources.provider_lite_vm?.block.block_types?.timeouts?.block.description ?? '', /create 20m, update 20m, delete 10m/)
  })

  test('an API error shows the request path and the service text exactly as they are', async () => {
    await e2e.emulator.control('POST', '/faults', {
      method: 'POST',
      path: '/baremetal-elastic-storages',
      mode: 'error',
      status: 409,
      detail: 'baremetal storage pool busy',
    })
    const storage = block('resource', 'provider_baremetal_elastic_storage', 'data', {
      product_id: 501,
      cycle: 'm',
      storage_name: 'e2e-data',
      metal_account_id: ref('provider_baremetal.server.id'),
    })
    await e2e.ws.write(config(VM, SERVER, IP, storage))
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 1, describeRun(applied))
    const text = applied.stderr.replace(/\s+/g, ' ')
    assert.match(text, /POST \/baremetal-elastic-storages/)
    assert.match(text, /baremetal storage pool busy/)
    assert.doesNotMatch(text, /provider_baremetal-|\/provider_|provider_baremetal storage pool/)
  })
})

// Real terraform against the emulator launcher: every resource of the registry (14 types) is imported, by
// `import {}` blocks and, for a few, by `terraform import`, with no mutating API call and no order, and the
// plan that follows is empty. The originating configuration sets every input away from its default, plus the
// inputs the API cannot return (each resource doc page lists them under Import); the importing
// configurations leave those out.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { block, changeOf, describeRun, Emulator, type HclValue, importBlock, PROVIDER_BLOCKS, ref, Workspace } from './harness.js'

/** A fresh OpenSSH ed25519 public key line, for a Metal keypair created through the import endpoint. */
function openSshPublicKey(comment: string): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(bytes.length)
    return Buffer.concat([length, bytes])
  }
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`
}
const PUBLIC_KEY = openSshPublicKey('e2e@import-all')

type Blocks = Record<string, Record<string, HclValue>>

/** Every input the API returns, away from its default where there is one. Address → attributes. */
const RETURNED: Blocks = {
  'provider_lite_keypair.k': { name: 'e2e-import-all' },
  'provider_lite_vm.vm': {
    ssh_and_console_user: 'importer.user',
    console_password: 'Imp0rtedPass',
    product_id: 102,
    select_os: 'Ubuntu-24.04',
    keypair_id: ref('provider_lite_keypair.k.keypair_id'),
    cycle: 'q',
    vm_name: 'e2e-import-vm',
    description: 'made to be imported',
    disk_size: 50,
    power_state: 'stop',
  },
  'provider_lite_snapshot.snap': { lite_account_id: ref('provider_lite_vm.vm.id'), cycle: 'a', name: 'e2e-import-snap', description: 'a snapshot' },
  'provider_lite_vm_from_snapshot.restored': {
    snapshot_id: ref('provider_lite_snapshot.snap.id'),
    product_id: 103,
    cycle: 's',
    keypair_id: ref('provider_lite_keypair.k.keypair_id'),
    name: 'e2e-import-rest',
    ssh_and_console_user: 'restorer',
    console_password: 'R3storedPass',
    description: 'restored to be imported',
  },
  'provider_lite_disk.d': { product_id: 60, cycle: 'b', lite_account_id: ref('provider_lite_vm.vm.id'), service_name: 'e2e-import-disk', size: 80 },
  'provider_lite_pro_keypair.k': { name: 'e2e-import-all-pro' },
  'provider_lite_pro_vm.vm': {
    ssh_and_console_user: 'pro-importer',
    console_password: 'Pr0Imported',
    product_id: 202,
    select_os: 'Rocky-9',
    keypair_id: ref('provider_lite_pro_keypair.k.keypair_id'),
    cycle: 't',
    vm_name: 'e2e-import-pro',
    description: 'a Pro VM',
    disk_size: 120,
    power_state: 'suspend',
  },
  'provider_lite_pro_snapshot.snap': { lite_account_id: ref('provider_lite_pro_vm.vm.id'), cycle: 'p4', name: 'e2e-import-psnap', description: 'pro snap' },
  'provider_lite_pro_disk.d': { product_id: 61, cycle: 'p5', lite_account_id: ref('provider_lite_pro_vm.vm.id'), service_name: 'e2e-import-pdisk', size: 45 },
  'provider_baremetal_keypair.generated': { name: 'e2e-import-metal-gen' },
  'provider_baremetal_keypair.imported': { name: 'e2e-import-metal-imp', public_key: PUBLIC_KEY },
  'provider_baremetal.m': {
    product_id: 302,
    cycle: 'a',
    select_os: 'rocky-9',
    keypair_id: ref('provider_baremetal_keypair.generated.keypair_id'),
    label: 'e2e-import-metal',
    power_state: 'off',
  },
  'provider_baremetal_additional_ip.ip': { product_id: 401, cycle: 'a', region: 'cjv-1' },
  'provider_baremetal_additional_ip_assignment.assign': {
    additional_ip_id: ref('provider_baremetal_additional_ip.ip.id'),
    metal_account_id: ref('provider_baremetal.m.id'),
  },
  'provider_baremetal_elastic_storage.vol': {
    product_id: 502,
    cycle: 'a',
    storage_name: 'e2e-import-volume',
    metal_account_id: ref('provider_baremetal.m.id'),
    size: 250,
  },
}

/** The inputs the API cannot return (docs: Import), set only in the originating configuration. */
const ORIGIN_ONLY: Blocks = {
  'provider_lite_vm.vm': { promocode: 'PROMO10', pay_with_credit_card: true },
  'provider_lite_snapshot.snap': { promocode: 'PROMO10', pay_with_credit_card: true },
  'provider_lite_vm_from_snapshot.restored': { promocode: 'PROMO10', pay_with_credit_card: true },
  'provider_lite_disk.d': { promocode: 'PROMO10', pay_with_credit_card: true },
  'provider_lite_pro_vm.vm': { promocode: 'PROMO10', pay_with_credit_card: true },
  'provider_lite_pro_snapshot.snap': { promocode: 'PROMO10' },
  'provider_lite_pro_disk.d': { promocode: 'PROMO10' },
  // Given at create, the triggers are only recorded; the service does not keep them.
  'provider_baremetal.m': { promocode: 'PROMO10', pay_with_credit_card: true, reset_trigger: 'first', rebuild_os: 'debian-12' },
  'provider_baremetal_additional_ip.ip': { promocode: 'PROMO10' },
  'provider_baremetal_elastic_storage.vol': { promocode: 'PROMO10', pay_with_credit_card: true },
}

const RESOURCE_TYPES = new Set(Object.keys(RETURNED).map((address) => address.split('.')[0]))

function config(blocks: Blocks, extra: Blocks = {}, imports = ''): string {
  return [
    PROVIDER_BLOCKS,
    imports,
    ...Object.entries(blocks).map(([address, values]) => {
      const [type = '', name = ''] = address.split('.')
      return block('resource', type, name, { ...values, ...extra[address] })
    }),
  ].join('\n')
}

describe('import of every resource of the registry', () => {
  let emulator: Emulator
  const workspaces: Workspace[] = []
  const workspace = async (configuration: string) => {
    const ws = await Workspace.create(emulator)
    workspaces.push(ws)
    await ws.write(configuration)
    return ws
  }
  /** Address → the import id of the object the originating configuration created. */
  const importIds: Record<string, string> = {}

  before(async () => {
    emulator = await Emulator.start()
    const origin = await workspace(config(RETURNED, ORIGIN_ONLY))
    const created = await origin.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    for (const address of Object.keys(RETURNED)) importIds[address] = String((await origin.stateOf(address)).id)
  })
  after(async () => {
    for (const ws of workspaces) await ws.cleanup()
    await emulator?.stop()
  })

  test('the registry has 14 resource types and every one is covered', async () => {
    const ws = await workspace(PROVIDER_BLOCKS)
    await ws.init()
    const shown = await ws.ok(['providers', 'schema', '-json'])
    const schemas = JSON.parse(shown.stdout) as { provider_schemas: Record<string, { resource_schemas: Record<string, unknown> }> }
    const served = Object.values(schemas.provider_schemas).flatMap((p) => Object.keys(p.resource_schemas))
    assert.deepEqual([...served].sort(), [...RESOURCE_TYPES].sort())
    assert.equal(RESOURCE_TYPES.size, 14)
    const assignment = importIds['provider_baremetal_additional_ip_assignment.assign'] ?? ''
    assert.equal(assignment, `${importIds['provider_baremetal.m']}:${importIds['provider_baremetal_additional_ip.ip']}`)
  })

  test('import {} blocks for all of them: planned as no-op imports, applied without a call, then an empty plan', async () => {
    const imports = Object.entries(importIds)
      .map(([address, id]) => importBlock(address, id))
      .join('\n')
    const ws = await workspace(config(RETURNED, {}, imports))
    const count = Object.keys(RETURNED).length
    const planned = await emulator.effectsOf(() => ws.planJson())
    assert.match(planned.value.run.stdout, new RegExp(`Plan: ${count} to import, 0 to add, 0 to change, 0 to destroy\\.`), describeRun(planned.value.run))
    for (const address of Object.keys(RETURNED)) {
      const change = changeOf(planned.value.plan, address)
      assert.deepEqual(change.actions, ['no-op'], `${address} after import`)
      assert.ok(change.importing, `${address} is imported`)
    }
    assert.deepEqual(planned.mutations, [])

    const { value: applied, mutations, orders } = await emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, new RegExp(`Resources: ${count} imported, 0 added, 0 changed, 0 destroyed\\.`))
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])

    // What the import could not recover is null (or the spec default), what it could is the service's.
    const vm = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(vm.promocode, null)
    assert.equal(vm.pay_with_credit_card, true)
    assert.equal(vm.power_state, 'stop')
    assert.equal(vm.disk_size, 50)
    assert.equal((await ws.stateOf('provider_lite_pro_vm.vm')).power_state, 'suspend')
    const metal = await ws.stateOf('provider_baremetal.m')
    assert.equal(metal.power_state, 'off')
    assert.equal(metal.select_os, 'rocky-9')
    assert.equal(metal.reset_trigger, null)
    assert.equal(metal.rebuild_os, null)
    assert.equal((await ws.stateOf('provider_baremetal_keypair.imported')).public_key, PUBLIC_KEY)
    assert.equal((await ws.stateOf('provider_baremetal_keypair.generated')).public_key, null)
    for (const address of ['provider_lite_keypair.k', 'provider_lite_pro_keypair.k', 'provider_baremetal_keypair.generated']) {
      assert.equal((await ws.stateOf(address)).private_key, null, `${address}.private_key after import`)
    }
    assert.equal((await ws.stateOf('provider_baremetal_additional_ip_assignment.assign')).id, importIds['provider_baremetal_additional_ip_assignment.assign'])

    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the imports is not empty: ${describeRun(next)}`)
  })

  test('terraform import of the assignment (<metal_account_id>:<additional_ip_id>), the server, the storage, a restored VM and a Pro disk', async () => {
    const server = importIds['provider_baremetal.m'] ?? ''
    const ip = importIds['provider_baremetal_additional_ip.ip'] ?? ''
    const metalKeypair = importIds['provider_baremetal_keypair.generated'] ?? ''
    // Literal ids instead of references: only these five objects are in this configuration.
    const literal = (address: string, values: Record<string, HclValue>) => ({ [address]: { ...RETURNED[address], ...values } })
    const subset: Blocks = {
      ...literal('provider_baremetal_additional_ip_assignment.assign', { additional_ip_id: Number(ip), metal_account_id: Number(server) }),
      ...literal('provider_baremetal.m', { keypair_id: Number(metalKeypair) }),
      ...literal('provider_baremetal_elastic_storage.vol', { metal_account_id: Number(server) }),
      ...literal('provider_lite_vm_from_snapshot.restored', {
        snapshot_id: Number(importIds['provider_lite_snapshot.snap']),
        keypair_id: Number(importIds['provider_lite_keypair.k']),
      }),
      ...literal('provider_lite_pro_disk.d', { lite_account_id: Number(importIds['provider_lite_pro_vm.vm']) }),
    }
    const ws = await workspace(config(subset))
    await ws.init()

    const malformed = await ws.import('provider_baremetal_additional_ip_assignment.assign', ip)
    assert.equal(malformed.code, 1, describeRun(malformed))
    assert.match(malformed.stderr, /Invalid import id/)
    assert.match(malformed.stderr, /100070:100080/)

    const { value: runs, mutations, orders } = await emulator.effectsOf(async () => {
      const results = []
      for (const address of Object.keys(subset)) results.push(await ws.import(address, importIds[address] ?? ''))
      return results
    })
    for (const run of runs) {
      assert.equal(run.code, 0, describeRun(run))
      assert.match(run.stdout, /Import successful!/)
    }
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    const assignment = await ws.stateOf('provider_baremetal_additional_ip_assignment.assign')
    assert.equal(assignment.metal_account_id, Number(server))
    assert.equal(assignment.additional_ip_id, Number(ip))
    assert.equal(assignment.status, 'Active')

    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after terraform import is not empty: ${describeRun(next)}`)
  })

  test(
    'a malformed assignment import id is explained in Terraform names: <metal_account_id>:<additional_ip_id>',
    async () => {
      const ws = await workspace(config({ 'provider_baremetal_additional_ip_assignment.assign': { additional_ip_id: 1, metal_account_id: 1 } }))
      const run = await ws.import('provider_baremetal_additional_ip_assignment.assign', '100001')
      assert.equal(run.code, 1, describeRun(run))
      assert.match(run.stderr, /<metal_account_id>:<additional_ip_id>/)
      assert.match(run.stderr, /provider_baremetal_additional_ip_assignment/)
    },
  )
})

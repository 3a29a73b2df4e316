// Test data of the lifecycle suite, one example per resource of the registry: how to set up what it
// depends on in a fresh emulator, a create configuration, a valid other value per create-only input,
// one in-place change per updatable input, the orders each places, and the inputs an import cannot
// recover. Values come from the seed catalog of backend-api §5.2. Names are canonical (the spec's case).
import type { AnyResource } from '../../src/core/index.js'
import { generateEd25519 } from '../../src/emulator/openssh.js'
import { type LiteFamily, liteFamilies } from '../../src/resources/lite-family.js'
import { resources } from '../../src/resources/index.js'
import type { Harness } from '../harness.js'
import type { Config } from './driver.js'

/** Ids and values the setup made, referenced by the configurations. */
export type Deps = Readonly<Record<string, number | string>>

/** Order kinds (backend-api §5.5) and how many of each an operation places. */
export type Orders = Readonly<Record<string, number>>

export type Alternative =
  /** A valid other value: the replacement is planned and applied. */
  | { readonly value: (d: Deps) => unknown }
  /** The seed catalog has no other valid value: the plan refuses this one, naming the input, and nothing is replaced. */
  | { readonly value: (d: Deps) => unknown; readonly notInCatalog: string }
  /** No other value passes validation at all, so no replacement can even be planned. */
  | { readonly impossible: string }

export interface InPlaceChange {
  readonly name: string
  /** Merged into the create configuration. */
  readonly change: (d: Deps) => Config
  readonly orders: Orders
}

export interface Example {
  /** Creates the dependencies in a fresh emulator (through core and the API client, not a front end). */
  readonly setup: (h: Harness) => Promise<Deps>
  readonly create: (d: Deps) => Config
  /** Orders the create places. */
  readonly orders: Orders
  /** One entry per create-only input. */
  readonly replace: Readonly<Record<string, Alternative>>
  readonly inPlace: readonly InPlaceChange[]
  /** Inputs the API cannot return: the import check leaves them out of the configuration. */
  readonly unrecoverable: readonly string[]
  /**
   * Further imports that must be followed by an empty plan: an object created with `create`, imported,
   * then planned with `plan` (the configuration a user keeps). `todo` names a known provider bug.
   */
  readonly importCases?: readonly { readonly name: string; readonly create: (d: Deps) => Config; readonly plan: (d: Deps) => Config; readonly todo?: string }[]
  /** Removes the object behind the provider's back (default: purge the account through the control API). */
  readonly removeOutOfBand?: (h: Harness, id: string) => Promise<void>
}

export function definitionNamed(name: string): AnyResource {
  const found = resources.find((r) => r.name === name)
  if (!found) throw new Error(`the registry has no resource ${name}`)
  return found
}

const PAY_LATER: InPlaceChange = { name: 'the payment flag is only recorded', change: () => ({ pay_with_credit_card: false }), orders: {} }
const PAY_LATER_METAL: InPlaceChange = { name: 'the payment flag is only recorded', change: () => ({ payWithCreditCard: false }), orders: {} }

async function metalKeypairs(h: Harness): Promise<Deps> {
  const a = await h.client.baremetals.createKeypair({ name: 'metal-key-a' })
  const b = await h.client.baremetals.createKeypair({ name: 'metal-key-b' })
  return { keypair: a.keypair_id, keypair2: b.keypair_id }
}

async function metalServers(h: Harness): Promise<Deps> {
  const keys = await metalKeypairs(h)
  const server = definitionNamed('baremetal')
  const config = { productId: 301, cycle: 'm', keypairId: keys.keypair!, label: 'host-a' }
  const a = await h.create(server, config)
  const b = await h.create(server, { ...config, label: 'host-b' })
  return { ...keys, server: Number(a.id), server2: Number(b.id) }
}

function metalExamples(): Record<string, Example> {
  return {
    baremetal: {
      setup: metalKeypairs,
      create: (d) => ({ productId: 301, cycle: 'm', keypairId: d.keypair, label: 'web-01', promocode: 'PROMO10' }),
      orders: { 'baremetal.create': 1 },
      replace: {
        productId: { value: () => 302 },
        cycle: { value: () => 'a' },
        selectOs: { value: () => 'debian-12' },
        keypairId: { value: (d) => d.keypair2 },
        publicIp: { impossible: 'only 1 public IP is offered (oneOf [1]), and it is the default' },
        promocode: { value: () => null },
      },
      inPlace: [
        { name: 'label', change: () => ({ label: 'web-02' }), orders: {} },
        { name: 'powerState off', change: () => ({ powerState: 'off' }), orders: {} },
        { name: 'resetTrigger fires a reset', change: () => ({ resetTrigger: 'reset-1' }), orders: {} },
        { name: 'rebuildOs reinstalls', change: () => ({ rebuildOs: 'debian-12' }), orders: {} },
        PAY_LATER_METAL,
      ],
      unrecoverable: ['promocode', 'payWithCreditCard', 'resetTrigger', 'rebuildOs'],
    },
    baremetal_keypair: {
      setup: async () => ({ publicKey: generateEd25519('laptop').publicKey }),
      create: () => ({ name: 'deploy-key' }),
      orders: {},
      replace: {
        name: { value: () => 'deploy-key-2' },
        publicKey: { value: (d) => d.publicKey },
      },
      inPlace: [],
      unrecoverable: [],
      importCases: [
        {
          name: 'an imported public key written with surrounding whitespace',
          create: (d) => ({ name: 'laptop', publicKey: `  ${d.publicKey}\n` }),
          plan: (d) => ({ name: 'laptop', publicKey: `  ${d.publicKey}\n` }),
        },
      ],
      removeOutOfBand: async (h, id) => h.client.baremetals.deleteKeypair(Number(id)),
    },
    baremetal_additional_ip: {
      setup: async () => ({}),
      create: () => ({ productId: 401, cycle: 'm', promocode: 'PROMO10' }),
      orders: { 'additional_ip.create': 1 },
      replace: {
        productId: { value: () => 402, notInCatalog: 'the seed catalog has one additional IP product (401)' },
        cycle: { value: () => 'a' },
        region: { value: () => 'cjv-1' },
        promocode: { value: () => null },
        payWithCreditCard: { value: () => false },
      },
      inPlace: [],
      unrecoverable: ['promocode', 'payWithCreditCard'],
      importCases: [
        {
          name: 'an IP ordered with payWithCreditCard false',
          create: () => ({ productId: 401, cycle: 'm', payWithCreditCard: false }),
          plan: () => ({ productId: 401, cycle: 'm', payWithCreditCard: false }),
        },
      ],
    },
    baremetal_additional_ip_assignment: {
      setup: async (h) => {
        const servers = await metalServers(h)
        const ip = definitionNamed('baremetal_additional_ip')
        const a = await h.create(ip, { productId: 401, cycle: 'm' })
        const b = await h.create(ip, { productId: 401, cycle: 'm' })
        return { ...servers, ip: Number(a.id), ip2: Number(b.id) }
      },
      create: (d) => ({ additionalIpId: d.ip, metalAccountId: d.server }),
      orders: {},
      replace: {
        additionalIpId: { value: (d) => d.ip2 },
        metalAccountId: { value: (d) => d.server2 },
      },
      inPlace: [],
      unrecoverable: [],
      removeOutOfBand: async (h, id) => {
        const [server = '', ip = ''] = id.split(':')
        await h.client.additionalIps.unassign(ip, server)
      },
    },
    baremetal_elastic_storage: {
      setup: metalServers,
      create: (d) => ({ productId: 501, cycle: 'm', storageName: 'data-01', metalAccountId: d.server, promocode: 'PROMO10' }),
      orders: { 'elastic_storage.create': 1 },
      replace: {
        cycle: { value: () => 'a' },
        storageName: { value: () => 'data-02' },
        metalAccountId: { value: (d) => d.server2 },
        promocode: { value: () => null },
      },
      inPlace: [
        { name: 'size grows', change: () => ({ size: 200 }), orders: { 'elastic_storage.resize': 1 } },
        { name: 'productId changes package', change: () => ({ productId: 502 }), orders: { 'elastic_storage.change_package': 1 } },
        PAY_LATER_METAL,
      ],
      unrecoverable: ['promocode', 'payWithCreditCard'],
    },
  }
}

interface FamilyCatalog {
  readonly product: number
  readonly product2: number
  readonly diskProduct: number
  readonly snapshotProduct: number
}

const CATALOG: Record<LiteFamily['prefix'], FamilyCatalog> = {
  lite: { product: 101, product2: 102, diskProduct: 60, snapshotProduct: 70 },
  lite_pro: { product: 201, product2: 202, diskProduct: 61, snapshotProduct: 71 },
}

function liteExamples(family: LiteFamily): Record<string, Example> {
  const p = family.prefix
  const api = (h: Harness) => family.api(h.client)
  const catalog = CATALOG[p]
  const vmConfig = (d: Deps, name: string) => ({
    product_id: catalog.product,
    cycle: 'm',
    select_os: 'Ubuntu-22.04',
    keypair_id: d.keypair!,
    ssh_and_console_user: 'deployer',
    console_password: 'Secret123',
    vm_name: name,
  })
  const keypairs = async (h: Harness): Promise<Deps> => {
    const a = await api(h).createKeypair({ name: `${p}-key-a` })
    const b = await api(h).createKeypair({ name: `${p}-key-b` })
    return { keypair: a.keypair_id, keypair2: b.keypair_id }
  }
  const vms = async (h: Harness): Promise<Deps> => {
    const keys = await keypairs(h)
    const vm = definitionNamed(`${p}_vm`)
    const a = await h.create(vm, vmConfig(keys, 'source-vm-a'))
    const b = await h.create(vm, vmConfig(keys, 'source-vm-b'))
    return { ...keys, vm: Number(a.id), vm2: Number(b.id) }
  }
  const examples: Record<string, Example> = {
    [`${p}_keypair`]: {
      setup: async () => ({}),
      create: () => ({ name: 'deploy-key' }),
      orders: {},
      replace: { name: { value: () => 'deploy-key-2' } },
      inPlace: [],
      unrecoverable: [],
      removeOutOfBand: async (h, id) => api(h).deleteKeypair(Number(id)),
    },
    [`${p}_vm`]: {
      setup: keypairs,
      create: (d) => ({ ...vmConfig(d, 'web-server-01'), description: 'conformance', promocode: 'PROMO10' }),
      orders: { [`${p}.vm.create`]: 1 },
      replace: {
        ssh_and_console_user: { value: () => 'operator' },
        console_password: { value: () => 'Other456x' },
        select_os: { value: () => 'Debian-12' },
        cycle: { value: () => 'a' },
        description: { value: () => 'another one' },
        promocode: { value: () => null },
      },
      inPlace: [
        { name: 'vm_name', change: () => ({ vm_name: 'web-server-02' }), orders: {} },
        { name: 'keypair_id', change: (d) => ({ keypair_id: d.keypair2 }), orders: {} },
        { name: 'product_id changes package', change: () => ({ product_id: catalog.product2 }), orders: { [`${p}.vm.change_package`]: 1 } },
        { name: 'disk_size grows', change: () => ({ disk_size: 120 }), orders: { [`${p}.vm.storage`]: 1 } },
        { name: 'power_state stop', change: () => ({ power_state: 'stop' }), orders: {} },
        { name: 'rebuild_os reinstalls', change: () => ({ rebuild_os: 'Debian-12' }), orders: {} },
        ...(family.migratesToPro
          ? [{ name: 'migrate_to_pro migrates', change: () => ({ migrate_to_pro: '201' }), orders: { 'lite.vm.migrate': 1 } }]
          : []),
        PAY_LATER,
      ],
      unrecoverable: ['promocode', 'pay_with_credit_card', 'rebuild_os', ...(family.migratesToPro ? ['migrate_to_pro'] : [])],
    },
    [`${p}_snapshot`]: {
      setup: vms,
      create: (d) => ({ lite_account_id: d.vm, cycle: 'm', name: 'nightly-01', description: 'conformance', promocode: 'PROMO10' }),
      orders: { [`${p}.snapshot.create`]: 1 },
      replace: {
        lite_account_id: { value: (d) => d.vm2 },
        cycle: { value: () => 'a' },
        name: { value: () => 'nightly-02' },
        description: { value: () => 'another one' },
        promocode: { value: () => null },
      },
      inPlace: [PAY_LATER],
      unrecoverable: ['promocode', 'pay_with_credit_card'],
    },
    [`${p}_disk`]: {
      setup: vms,
      create: (d) => ({ product_id: catalog.diskProduct, cycle: 'm', lite_account_id: d.vm, service_name: 'data-disk-01', promocode: 'PROMO10' }),
      orders: { [`${p}.disk.create`]: 1 },
      replace: {
        product_id: { value: () => catalog.diskProduct + 100, notInCatalog: `the ${family.title} disk catalog has one product (${catalog.diskProduct})` },
        cycle: { value: () => 'a' },
        lite_account_id: { value: (d) => d.vm2 },
        service_name: { value: () => 'data-disk-02' },
        promocode: { value: () => null },
      },
      inPlace: [{ name: 'size grows', change: () => ({ size: family.diskMinimum + 20 }), orders: { [`${p}.disk.upgrade`]: 1 } }, PAY_LATER],
      unrecoverable: ['promocode', 'pay_with_credit_card'],
    },
  }
  if (family.restoresSnapshots) {
    examples[`${p}_vm_from_snapshot`] = {
      setup: async (h) => {
        const deps = await vms(h)
        const snapshot = definitionNamed(`${p}_snapshot`)
        const a = await h.create(snapshot, { lite_account_id: deps.vm!, cycle: 'm', name: 'source-snap-a' })
        const b = await h.create(snapshot, { lite_account_id: deps.vm2!, cycle: 'm', name: 'source-snap-b' })
        return { ...deps, snapshot: Number(a.id), snapshot2: Number(b.id) }
      },
      create: (d) => ({
        snapshot_id: d.snapshot,
        product_id: catalog.product,
        cycle: 'm',
        keypair_id: d.keypair,
        name: 'restored-01',
        ssh_and_console_user: 'deployer',
        console_password: 'Secret123',
        description: 'conformance',
        promocode: 'PROMO10',
      }),
      orders: { [`${p}.snapshot.restore_vm`]: 1 },
      replace: {
        snapshot_id: { value: (d) => d.snapshot2 },
        product_id: { value: () => catalog.product2 },
        cycle: { value: () => 'a' },
        keypair_id: { value: (d) => d.keypair2 },
        name: { value: () => 'restored-02' },
        ssh_and_console_user: { value: () => 'operator' },
        console_password: { value: () => 'Other456x' },
        description: { value: () => 'another one' },
        promocode: { value: () => null },
      },
      inPlace: [PAY_LATER],
      unrecoverable: ['promocode', 'pay_with_credit_card'],
    }
  }
  return examples
}

/** Every example, by the definition's canonical name. */
export const examples: Readonly<Record<string, Example>> = {
  ...metalExamples(),
  ...Object.assign({}, ...liteFamilies.map(liteExamples)),
}

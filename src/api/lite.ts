// The Lite and Lite Pro families (the Lite and Lite Pro calls): one set of calls, built per group path.
import {
  accountId,
  array,
  boolean,
  field,
  type JsonObject,
  nullable,
  number,
  numericId,
  object,
  string,
  idInteger,
  idText,
  optionalText,
} from './decode.js'
import { type KeypairApi, keypairApi } from './keypairs.js'
import {
  type Account,
  decodeAccount,
  decodeList,
  decodePlan,
  type Id,
  type Order,
  type OrderPayment,
  type PaidOrder,
  paid,
  payment,
  type Plan,
} from './models.js'
import { compact, type FamilyContext, type ListOptions, rejectingSync, statusQuery } from './family.js'
import { type OrderOptions, type PlacedOn, reconcileBy } from './orders/orders.js'
import { ApiError } from './errors.js'
import type { CallOptions } from './transport.js'

export type LiteGroup = '/lites' | '/lite-pros'

/** `extra_details` of a Lite or Lite Pro VM (the Lite VM account). */
export interface LiteVmExtra {
  region: string
  region_label: string
  /** The VM name. */
  name: string
  ciuser: string
  /** Secret. */
  cipassword: string
  keypair_id: number | null
  /** The OS installed, updated by rebuilds. */
  osname: string
  /** GB; a string of digits on the wire. */
  disk_size: number
  /** Source snapshot (account id) of a restored VM, else null. */
  snapshot_id: string | null
}

/** `extra_details` of a snapshot (the snapshot calls). */
export interface LiteSnapshotExtra {
  name: string
  /** The source VM. */
  lite_account_id: string
  region: string
  region_label: string
}

/** `extra_details` of an extra disk (the extra-disk calls). */
export interface LiteDiskExtra {
  service_name: string
  /** GB. */
  size: number
  /** The VM it is attached to. */
  lite_account_id: string
  region: string
  region_label: string
}

export type LiteVmAccount = Account<LiteVmExtra>
export type LiteSnapshotAccount = Account<LiteSnapshotExtra>
export type LiteDiskAccount = Account<LiteDiskExtra>

/** L4 (the vm-details call): the hypervisor's view. Sizes in bytes. */
export interface VmDetails {
  vmid: number
  name: string
  /** `running`, `stopped` or `paused`. */
  status: string
  uptime: number
  maxdisk: number
  maxmem: number
  mem: number
  cpus: number
}

/** L5 actions. */
export type VmAction = 'start' | 'stop' | 'shutdown' | 'suspend' | 'resume' | 'reset'

/** C3: one OS template; `name` is what `select_os` takes. */
export interface OsTemplate {
  vmid: number
  node: string
  name: string
  maxmem: number
  maxcpu: number
}

export interface PackageOption {
  product_id: number
  name: string
  description: string
  cores: number
  memory: number
  disk: number
  price: number
  amount_due: number
}

/** L9 (the Lite option lookups). */
export interface ChangePackageOptions {
  account_id: string
  current_product_id: number
  billingcycle: string
  packages: PackageOption[]
}

/** L11 (the Lite option lookups). */
export interface StorageOptions {
  account_id: string
  disk_size: number
  max_disk_size: number
  unit: string
  billingcycle: string
  price_per_gb: number
}

/** L1 body (the Lite VM create body). */
export interface LiteVmCreate extends PaidOrder {
  product_id: number
  cycle: string
  select_os: string
  keypair_id: number
  ssh_and_console_user: string
  console_password: string
  vm_name?: string
  description?: string
}

/** S1 body. */
export interface LiteSnapshotCreate extends PaidOrder {
  cycle: string
  name?: string
  description?: string
}

/** S4 body. */
export interface LiteVmFromSnapshotCreate extends PaidOrder {
  product_id: number
  cycle: string
  keypair_id: number
  /** Becomes the VM name. */
  name: string
  ssh_and_console_user: string
  console_password: string
  description?: string
}

/** D1 body. */
export interface LiteDiskCreate extends PaidOrder {
  product_id: number
  cycle: string
  /** A VM of the same family. */
  lite_account_id: Id
  service_name?: string
  /** GB; product `min_size` when omitted. */
  size?: number
}

/** The calls of one Lite group. Lite and Lite Pro share it; only Lite adds `LiteMigrationApi`. */
export interface LiteApi extends KeypairApi, LiteVmApi, LiteSnapshotApi, LiteDiskApi, LiteCatalogApi {
  readonly group: LiteGroup
}

/** The VM calls of one Lite group (L1-L15). */
export interface LiteVmApi {
  /** L1. */
  createVm(body: LiteVmCreate, options?: OrderOptions): Promise<Order>
  /** L2. */
  listVms(options?: ListOptions): Promise<LiteVmAccount[]>
  /** L3. */
  getVm(accountId: Id, options?: CallOptions): Promise<LiteVmAccount>
  /** L4. 409 unless Active or Suspended. */
  getVmDetails(accountId: Id, options?: CallOptions): Promise<VmDetails>
  /** L5: hypervisor power state only. */
  setVmState(accountId: Id, action: VmAction, options?: CallOptions): Promise<void>
  /** L6: wipes the disk; the account goes Pending, then Active. */
  rebuildVm(accountId: Id, body: { select_os: string }, options?: CallOptions): Promise<void>
  /** L7. */
  renameVm(accountId: Id, body: { name: string }, options?: CallOptions): Promise<void>
  /** L8. */
  changeVmKeypair(accountId: Id, body: { keypair_id: number }, options?: CallOptions): Promise<void>
  /** L9. */
  getChangePackageOptions(accountId: Id, options?: CallOptions): Promise<ChangePackageOptions>
  /** L10: order on the same account. */
  changePackage(accountId: Id, body: { new_product_id: number } & OrderPayment, options?: OrderOptions): Promise<Order>
  /** L11. */
  getStorageOptions(accountId: Id, options?: CallOptions): Promise<StorageOptions>
  /** L12: `disk_size` is the absolute target in GB. Order on the same account. */
  upgradeStorage(accountId: Id, body: { disk_size: number } & OrderPayment, options?: OrderOptions): Promise<Order>
  /** L15. 404 when already gone. */
  deleteVm(accountId: Id, options?: CallOptions): Promise<void>
}

/** The snapshot calls of one Lite group (S1-S7). */
export interface LiteSnapshotApi {
  /** S1: `vmAccountId` is the source VM; the order's `account_id` is the new snapshot. */
  createSnapshot(vmAccountId: Id, body: LiteSnapshotCreate, options?: OrderOptions): Promise<Order>
  /** S2. */
  listSnapshots(options?: ListOptions): Promise<LiteSnapshotAccount[]>
  /** S3. */
  getSnapshot(accountId: Id, options?: CallOptions): Promise<LiteSnapshotAccount>
  /** S4: the order's `account_id` is the new VM. */
  createVmFromSnapshot(snapshotId: Id, body: LiteVmFromSnapshotCreate, options?: OrderOptions): Promise<Order>
  /** S5: in-place restore onto the source VM (not used by the providers). */
  restoreSnapshot(snapshotId: Id, options?: CallOptions): Promise<void>
  /** S6. */
  deleteSnapshot(accountId: Id, options?: CallOptions): Promise<void>
  /** S7. */
  listSnapshotProducts(options?: CallOptions): Promise<Plan[]>
  getSnapshotProduct(productId: number, options?: CallOptions): Promise<Plan>
}

/** The disk calls of one Lite group (D1-D6). */
export interface LiteDiskApi {
  /** D1: the order's `account_id` is the new disk. */
  createDisk(body: LiteDiskCreate, options?: OrderOptions): Promise<Order>
  /** D2. */
  listDisks(options?: ListOptions): Promise<LiteDiskAccount[]>
  /** D3. */
  getDisk(accountId: Id, options?: CallOptions): Promise<LiteDiskAccount>
  /** D4: `additional_size` is the increment in GB. Order on the same account. */
  upgradeDisk(accountId: Id, body: { additional_size: number } & OrderPayment, options?: OrderOptions): Promise<Order>
  /** D5. */
  deleteDisk(accountId: Id, options?: CallOptions): Promise<void>
  /** D6. */
  listDiskProducts(options?: CallOptions): Promise<Plan[]>
  getDiskProduct(productId: number, options?: CallOptions): Promise<Plan>
}

/** The catalog of one Lite group (C1-C4). */
export interface LiteCatalogApi {
  /** C1. */
  listProducts(options?: CallOptions): Promise<Plan[]>
  /** C2. */
  getProduct(productId: number, options?: CallOptions): Promise<Plan>
  /** C3. */
  listOss(productId: number, options?: CallOptions): Promise<OsTemplate[]>
  /** C4. */
  getIpAvailability(productId: number, options?: CallOptions): Promise<{ available: boolean }>
}

/** Calls only `/lites` has. */
export interface LiteMigrationApi {
  /** L13: Pro products the VM may move to. */
  listMigrateToProProducts(accountId: Id, options?: CallOptions): Promise<Plan[]>
  /**
   * L14: order on the same account id, which from the answer on lives under `/lite-pros`
   * (wait with `client.litePros.getVm`).
   */
  migrateToPro(accountId: Id, body: { lite_pro_product_id: number } & OrderPayment, options?: OrderOptions): Promise<Order>
}

export function decodeLiteVmExtra(o: JsonObject, at: string): LiteVmExtra {
  return {
    ...o,
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
    name: field(o, 'name', at, optionalText),
    ciuser: field(o, 'ciuser', at, optionalText),
    cipassword: field(o, 'cipassword', at, optionalText),
    keypair_id: field(o, 'keypair_id', at, (v, p) => nullable(v, p, numericId)),
    osname: field(o, 'osname', at, optionalText),
    disk_size: field(o, 'disk_size', at, number),
    snapshot_id: field(o, 'snapshot_id', at, (v, p) => nullable(v, p, accountId)),
  }
}

function decodeSnapshotExtra(o: JsonObject, at: string): LiteSnapshotExtra {
  return {
    ...o,
    name: field(o, 'name', at, optionalText),
    lite_account_id: field(o, 'lite_account_id', at, accountId),
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
  }
}

function decodeDiskExtra(o: JsonObject, at: string): LiteDiskExtra {
  return {
    ...o,
    service_name: field(o, 'service_name', at, optionalText),
    size: field(o, 'size', at, number),
    lite_account_id: field(o, 'lite_account_id', at, accountId),
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
  }
}

const decodeVm = (value: unknown, at = 'data') => decodeAccount(value, decodeLiteVmExtra, at)
const decodeSnapshot = (value: unknown, at = 'data') => decodeAccount(value, decodeSnapshotExtra, at)
const decodeDisk = (value: unknown, at = 'data') => decodeAccount(value, decodeDiskExtra, at)

function decodeVmDetails(value: unknown): VmDetails {
  const o = object(value, 'data')
  const n = (key: string) => field(o, key, 'data', number)
  return {
    ...o,
    vmid: field(o, 'vmid', 'data', numericId),
    name: field(o, 'name', 'data', optionalText),
    status: field(o, 'status', 'data', string),
    uptime: n('uptime'),
    maxdisk: n('maxdisk'),
    maxmem: n('maxmem'),
    mem: n('mem'),
    cpus: n('cpus'),
  }
}

function decodeOsTemplate(value: unknown, at: string): OsTemplate {
  const o = object(value, at)
  return {
    ...o,
    vmid: field(o, 'vmid', at, numericId),
    node: field(o, 'node', at, optionalText),
    name: field(o, 'name', at, string),
    maxmem: field(o, 'maxmem', at, number),
    maxcpu: field(o, 'maxcpu', at, number),
  }
}

function decodePackageOption(value: unknown, at: string): PackageOption {
  const o = object(value, at)
  const n = (key: string) => field(o, key, at, number)
  return {
    ...o,
    product_id: field(o, 'product_id', at, numericId),
    name: field(o, 'name', at, string),
    description: field(o, 'description', at, optionalText),
    cores: n('cores'),
    memory: n('memory'),
    disk: n('disk'),
    price: n('price'),
    amount_due: n('amount_due'),
  }
}

function decodeChangePackageOptions(value: unknown): ChangePackageOptions {
  const o = object(value, 'data')
  return {
    ...o,
    account_id: field(o, 'account_id', 'data', accountId),
    current_product_id: field(o, 'current_product_id', 'data', numericId),
    billingcycle: field(o, 'billingcycle', 'data', optionalText),
    packages: field(o, 'packages', 'data', (v, p) => array(v, p, decodePackageOption)),
  }
}

function decodeStorageOptions(value: unknown): StorageOptions {
  const o = object(value, 'data')
  return {
    ...o,
    account_id: field(o, 'account_id', 'data', accountId),
    disk_size: field(o, 'disk_size', 'data', number),
    max_disk_size: field(o, 'max_disk_size', 'data', number),
    unit: field(o, 'unit', 'data', optionalText),
    billingcycle: field(o, 'billingcycle', 'data', optionalText),
    price_per_gb: field(o, 'price_per_gb', 'data', number),
  }
}

function decodeAvailability(value: unknown): { available: boolean } {
  const o = object(value, 'data')
  return { ...o, available: field(o, 'available', 'data', boolean) }
}

const ignore = (): undefined => undefined

/** What the calls of one Lite group share: its path, its id checks and its lists. */
interface Group extends FamilyContext {
  readonly group: LiteGroup
  readonly id: (value: Id) => string
  readonly product: (value: number) => string
  /** An account's path under the group. */
  readonly account: (path: string) => string
  readonly list: <T>(path: string, decode: (value: unknown, at: string) => T, options?: ListOptions) => Promise<T[]>
}

function groupOf(context: FamilyContext, group: LiteGroup): Group {
  return {
    ...context,
    group,
    id: (value) => idText(value, 'account id'),
    product: (value) => idText(value, 'product id'),
    account: (path) => `${group}/accounts/${path}`,
    list: (path, decode, options) =>
      context.transport.request({
        method: 'GET',
        path,
        query: statusQuery(options),
        signal: options?.signal,
        decode: decodeList(decode),
      }),
  }
}

/** The calls of one Lite group: Lite and Lite Pro alike. */
function liteApi(context: FamilyContext, group: LiteGroup): LiteApi {
  const g = groupOf(context, group)
  return rejectingSync<LiteApi>({
    group,
    ...keypairApi(context.transport, group),
    ...vmCalls(g),
    ...snapshotCalls(g),
    ...diskCalls(g),
    ...catalogCalls(g),
  })
}

/** How a new VM of this family (a create or a restore) is told among the listed ones: every input its account shows. */
function newVm(
  { group, list }: Group,
  body: { product_id: number; cycle: string; description?: string; keypair_id: Id; ssh_and_console_user: string },
  details: Readonly<Record<string, unknown>>,
) {
  return reconcileBy(`${group}/accounts`, (path) => list(path, decodeVm), {
    product_id: body.product_id,
    cycle: body.cycle,
    description: body.description ?? '',
    extra_details: { ...details, keypair_id: body.keypair_id, ciuser: body.ssh_and_console_user },
  })
}

/** How an order on a VM shows once placed: the VM's last invoice (see PlacedOn). */
function placedOnVm({ transport, account, id }: Group, accountId: Id, invoiceType: string): PlacedOn {
  return {
    read: (signal) => transport.get(account(id(accountId)), (p) => decodeVm(p), { signal }, id(accountId)),
    invoiceType,
  }
}

function vmCalls(g: Group): LiteVmApi {
  const { transport, orders, group, id, account, list } = g
  return {
    createVm: (body, options) =>
      orders.order(
        'POST',
        group,
        compact({
          product_id: body.product_id,
          cycle: body.cycle,
          select_os: body.select_os,
          keypair_id: body.keypair_id,
          ssh_and_console_user: body.ssh_and_console_user,
          console_password: body.console_password,
          vm_name: body.vm_name,
          description: body.description,
          ...paid(body),
        }),
        {
          ...options,
          reconcile: newVm(g, body, { name: body.vm_name, osname: body.select_os }),
        },
      ),
    listVms: (options) => list(`${group}/accounts`, decodeVm, options),
    getVm: (accountId, options) => transport.get(account(id(accountId)), (p) => decodeVm(p), options, id(accountId)),
    getVmDetails: (accountId, options) => transport.get(`${account(id(accountId))}/vm-details`, decodeVmDetails, options, id(accountId)),
    setVmState: (accountId, action, options) => {
      const path = `${account(id(accountId))}/vm-state/${encodeURIComponent(action)}`
      // A reset is destructive and one-shot: it goes through the order journal like a rebuild.
      if (action === 'reset') return orders.action('PUT', path, undefined, options, id(accountId))
      // An action already in effect is accepted and changes nothing (L5): safe to send again.
      return transport.send('PUT', path, undefined, ignore, options, id(accountId), true)
    },
    rebuildVm: (accountId, body, options) =>
      orders.action('PUT', `${account(id(accountId))}/rebuild`, { select_os: body.select_os }, options, id(accountId)),
    // The same name or keypair set again changes nothing more (L7, L8): safe to send again.
    renameVm: (accountId, body, options) =>
      transport.send('PUT', `${account(id(accountId))}/change-vm-name`, { name: body.name }, ignore, options, id(accountId), true),
    changeVmKeypair: (accountId, body, options) =>
      transport.send(
        'PUT',
        `${account(id(accountId))}/keypair`,
        { keypair_id: idInteger(body.keypair_id, 'keypair id') },
        ignore,
        options,
        id(accountId),
        true,
      ),
    getChangePackageOptions: (accountId, options) =>
      transport.get(`${account(id(accountId))}/change-package`, decodeChangePackageOptions, options, id(accountId)),
    changePackage: (accountId, body, options) =>
      orders.order(
        'POST',
        `${account(id(accountId))}/change-package`,
        compact({ new_product_id: body.new_product_id, ...payment(body) }),
        { ...options, placedOn: placedOnVm(g, accountId, 'change_package') },
        id(accountId),
      ),
    getStorageOptions: (accountId, options) =>
      transport.get(`${account(id(accountId))}/storage`, decodeStorageOptions, options, id(accountId)),
    upgradeStorage: (accountId, body, options) =>
      orders.order(
        'PUT',
        `${account(id(accountId))}/storage`,
        compact({ disk_size: body.disk_size, ...payment(body) }),
        { ...options, placedOn: placedOnVm(g, accountId, 'upgrade') },
        id(accountId),
      ),
    deleteVm: (accountId, options) => orders.remove(`${group}/${id(accountId)}`, options, id(accountId)),
  }
}

function snapshotCalls(g: Group): LiteSnapshotApi {
  const { transport, orders, group, id, product, account, list } = g
  return {
    createSnapshot: (vmAccountId, body, options) =>
      orders.order(
        'POST',
        `${account(id(vmAccountId))}/snapshot`,
        compact({ cycle: body.cycle, name: body.name, description: body.description, ...paid(body) }),
        {
          ...options,
          reconcile: reconcileBy(`${group}/snapshots/accounts`, (path) => list(path, decodeSnapshot), {
            cycle: body.cycle,
            description: body.description ?? '',
            extra_details: { name: body.name, lite_account_id: id(vmAccountId) },
          }),
        },
        id(vmAccountId),
      ),
    listSnapshots: (options) => list(`${group}/snapshots/accounts`, decodeSnapshot, options),
    getSnapshot: (accountId, options) =>
      transport.get(`${group}/snapshots/accounts/${id(accountId)}`, (p) => decodeSnapshot(p), options, id(accountId)),
    createVmFromSnapshot: (snapshotId, body, options) =>
      orders.order(
        'POST',
        `${group}/snapshots/accounts/${id(snapshotId)}/create`,
        compact({
          product_id: body.product_id,
          cycle: body.cycle,
          keypair_id: body.keypair_id,
          name: body.name,
          ssh_and_console_user: body.ssh_and_console_user,
          console_password: body.console_password,
          description: body.description,
          ...paid(body),
        }),
        {
          ...options,
          reconcile: newVm(g, body, { name: body.name, snapshot_id: id(snapshotId) }),
        },
        id(snapshotId),
      ),
    restoreSnapshot: (snapshotId, options) =>
      orders.action('PUT', `${group}/snapshots/accounts/${id(snapshotId)}/restore`, undefined, options, id(snapshotId)),
    deleteSnapshot: (accountId, options) => orders.remove(`${group}/snapshots/${id(accountId)}`, options, id(accountId)),
    listSnapshotProducts: (options) => list(`${group}/snapshots/products`, decodePlan, options),
    getSnapshotProduct: (productId, options) =>
      transport.get(`${group}/snapshots/products/${product(productId)}`, (p) => decodePlan(p), options),
  }
}

function diskCalls({ transport, orders, group, id, product, list }: Group): LiteDiskApi {
  return {
    createDisk: (body, options) =>
      orders.order(
        'POST',
        `${group}/disks`,
        compact({
          product_id: body.product_id,
          cycle: body.cycle,
          lite_account_id: idInteger(body.lite_account_id, 'lite_account_id'),
          service_name: body.service_name,
          size: body.size,
          ...paid(body),
        }),
        {
          ...options,
          reconcile: reconcileBy(`${group}/disks/accounts`, (path) => list(path, decodeDisk), {
            product_id: body.product_id,
            cycle: body.cycle,
            extra_details: { service_name: body.service_name, lite_account_id: body.lite_account_id, size: body.size },
          }),
        },
      ),
    listDisks: (options) => list(`${group}/disks/accounts`, decodeDisk, options),
    getDisk: (accountId, options) =>
      transport.get(`${group}/disks/accounts/${id(accountId)}`, (p) => decodeDisk(p), options, id(accountId)),
    upgradeDisk: (accountId, body, options) =>
      orders.order(
        'PUT',
        `${group}/disks/accounts/${id(accountId)}`,
        compact({ additional_size: body.additional_size, ...payment(body) }),
        {
          ...options,
          placedOn: {
            read: (signal) => transport.get(`${group}/disks/accounts/${id(accountId)}`, (p) => decodeDisk(p), { signal }, id(accountId)),
            invoiceType: 'upgrade',
          },
        },
        id(accountId),
      ),
    deleteDisk: (accountId, options) => orders.remove(`${group}/disks/${id(accountId)}`, options, id(accountId)),
    listDiskProducts: (options) => list(`${group}/disks/products`, decodePlan, options),
    getDiskProduct: (productId, options) => transport.get(`${group}/disks/products/${product(productId)}`, (p) => decodePlan(p), options),
  }
}

function catalogCalls({ transport, group, product, list }: Group): LiteCatalogApi {
  return {
    listProducts: (options) => list(`${group}/products`, decodePlan, options),
    getProduct: (productId, options) => transport.get(`${group}/products/${product(productId)}`, (p) => decodePlan(p), options),
    listOss: (productId, options) => transport.get(`${group}/products/${product(productId)}/oss`, decodeList(decodeOsTemplate), options),
    getIpAvailability: (productId, options) =>
      transport.get(`${group}/products/${product(productId)}/ip-availability`, decodeAvailability, options),
  }
}

function liteMigrationApi({ transport, orders }: FamilyContext): LiteMigrationApi {
  const id = (value: Id) => idText(value, 'account id')
  return rejectingSync<LiteMigrationApi>({
    listMigrateToProProducts: (accountId, options) =>
      transport.get(`/lites/accounts/${id(accountId)}/migrate-to-pro/products`, decodeList(decodePlan), options, id(accountId)),
    migrateToPro: (accountId, body, options) =>
      orders.order(
        'POST',
        `/lites/accounts/${id(accountId)}/migrate-to-pro`,
        compact({ lite_pro_product_id: body.lite_pro_product_id, ...payment(body) }),
        {
          ...options,
          // A migration placed moves the VM to Lite Pro at once; until then it is a Lite VM.
          placedOn: {
            read: async (signal) => {
              const read = (group: string) =>
                transport.get(`${group}/accounts/${id(accountId)}`, (p) => decodeVm(p), { signal }, id(accountId))
              try {
                return await read('/lite-pros')
              } catch (error) {
                if (error instanceof ApiError && error.notFound) return read('/lites')
                throw error
              }
            },
            invoiceType: 'migrate',
          },
        },
        id(accountId),
      ),
  })
}

/** Lite (`/lites`), with the migration to Lite Pro. */
export const lites = (context: FamilyContext): LiteApi & LiteMigrationApi => ({
  ...liteApi(context, '/lites'),
  ...liteMigrationApi(context),
})

/** Lite Pro (`/lite-pros`): the same calls, without migration. */
export const litePros = (context: FamilyContext): LiteApi => liteApi(context, '/lite-pros')

// The Lite and Lite Pro families' routes (the Lite calls): VMs, their snapshots and extra disks, the
// catalog and the migration to Lite Pro, for one family descriptor each (lite-catalog.ts), and the family
// objects the registry lists. /lite-pros is the same code with another descriptor (the Lite Pro group).
import {
  ACTIVE,
  cancel,
  diskSize,
  listAccounts,
  newAccount,
  NOT_TERMINATED,
  order,
  productInPath,
  productRoutes,
  requireStatus,
  RUNNING_STATES,
  schedule,
} from '../accounts.js'
import { type Cycle, cycleOrMonthly, cyclePrice, DEFAULT_REGION_FIELDS } from '../catalog.js'
import { conflict } from '../envelope.js'
import type { Family, PortalChanges } from '../family.js'
import type { Json } from '../json.js'
import type { Account } from '../model.js'
import { paramId, type Route, type RouteContext } from '../router.js'
import type { CustomerStore } from '../customer-store.js'
import { type BodyReader, PASSWORD_PATTERN, USER_PATTERN } from '../validation.js'
import {
  diskPlan,
  kindsOf,
  LITE,
  LITE_PRO,
  type LiteChange,
  type LiteFamily,
  liteKinds,
  OS_TEMPLATES,
  osTemplates,
  snapshotPlan,
  tieredPrice,
  tierOf,
  type VmProduct,
  vmDescription,
  vmDiskSize,
  vmPlan,
} from './lite-catalog.js'

const POWER_ACTIONS = ['start', 'stop', 'shutdown', 'suspend', 'resume', 'reset'] as const
type PowerAction = (typeof POWER_ACTIONS)[number]
const OS_NAMES = OS_TEMPLATES.map((os) => os.name)

/** Every route of one family, in the order the router breaks ties in. */
function liteRoutes(family: LiteFamily): Route[] {
  return [
    ...vmRoutes(family),
    ...vmChangeRoutes(family),
    ...snapshotRoutes(family),
    ...diskRoutes(family),
    ...catalogRoutes(family),
    ...migrateRoutes(family),
  ]
}

// Shared by the units below

const vmProduct = (family: LiteFamily, id: number | undefined) => family.vmProducts.find((x) => x.product_id === id)
const productOf = (family: LiteFamily, account: Account) => vmProduct(family, account.product_id)
const pathAccount = (ctx: RouteContext, kind: string) => ctx.store.get(paramId(ctx, 'id'), kind)

/** Reads a VM product reference from the body; an unknown one is a 422 of that field. */
function readVmProduct(family: LiteFamily, v: BodyReader, field: string): VmProduct | undefined {
  const id = v.int(field, { required: true })
  if (id === undefined) return undefined
  return vmProduct(family, id) ?? v.fail(field, `unknown product ${id}`)
}

function readKeypair(family: LiteFamily, ctx: RouteContext, v: BodyReader): number | undefined {
  const id = v.int('keypair_id', { required: true })
  if (id === undefined) return undefined
  const known = ctx.store.keypairs().some((k) => k.keypair_id === id && k.pool === family.prefix)
  return known ? id : v.fail('keypair_id', `unknown keypair ${id} in the ${family.prefix} pool`)
}

function readLogin(v: BodyReader) {
  return {
    user: v.string('ssh_and_console_user', {
      required: true,
      min: 6,
      max: 32,
      pattern: USER_PATTERN,
      patternMsg: 'only letters, digits, hyphens and periods',
    }),
    password: readPassword(v),
  }
}

function readPassword(v: BodyReader): string | undefined {
  const password = v.string('console_password', { required: true, min: 8 })
  if (password === undefined) return undefined
  if (!PASSWORD_PATTERN.test(password)) {
    return v.fail('console_password', 'must contain only letters and digits, with an upper-case letter, a lower-case letter and a digit')
  }
  return password
}

interface NewVm {
  product: VmProduct
  cycle: Cycle
  name: string
  user: string
  password: string
  keypairId: number
  osname: string
  diskSize: number
  snapshotId: number | null
  description: string
  pay: boolean
  promocode: string | null
  kind: string
}

/** A VM order: from the catalog (V1) or from a snapshot (S4). */
function newVm(ctx: RouteContext, family: LiteFamily, fields: NewVm): Json {
  const store = ctx.store
  const account = newAccount(store, kindsOf(family).vm, fields.product.product_id, fields.product.name, fields.cycle, {
    ...DEFAULT_REGION_FIELDS,
    name: fields.name,
    ciuser: fields.user,
    cipassword: fields.password,
    keypair_id: fields.keypairId,
    osname: fields.osname,
    disk_size: String(fields.diskSize),
    snapshot_id: fields.snapshotId,
  })
  account.description = fields.description
  account.vm = { vmid: store.next('vmid'), power: 'stopped', started_at: store.now() }
  account.pending = { type: 'create' }
  return order(ctx, account, fields.kind, 'new', fields.pay, fields.promocode, account.recurring_amount)
}

/** The price difference of a move to `target`, never negative. */
function upgradeDue(family: LiteFamily, account: Account, target: VmProduct): number {
  const cycle = cycleOrMonthly(account.cycle)
  const current = productOf(family, account)
  return Math.max(0, cyclePrice(target.monthly, cycle) - (current ? cyclePrice(current.monthly, cycle) : 0))
}

// VMs

function orderVm(family: LiteFamily, ctx: RouteContext): Json {
  const v = ctx.reader(true)
  const product = readVmProduct(family, v, 'product_id')
  const cycle = v.cycle()
  const osname = v.oneOf('select_os', OS_NAMES, { required: true })
  const keypairId = readKeypair(family, ctx, v)
  const { user, password } = readLogin(v)
  const name = v.string('vm_name', { min: 6, max: 16 }) ?? 'server-name'
  const description = v.description()
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  if (!product || !cycle || !osname || keypairId === undefined || !user || !password) return null
  if (ctx.store.config.ip_unavailable_product_ids.includes(product.product_id)) {
    throw conflict(`no IP address available for product ${product.product_id}`)
  }
  const kind = `${family.key}.vm.create`
  return newVm(ctx, family, {
    product,
    cycle,
    name,
    user,
    password,
    keypairId,
    osname,
    diskSize: product.disk,
    snapshotId: null,
    description,
    pay,
    promocode,
    kind,
  })
}

function vmRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const kind = kindsOf(family).vm
  return [
    { method: 'POST', pattern: p, handler: (ctx) => orderVm(family, ctx) },
    { method: 'GET', pattern: `${p}/accounts`, handler: (ctx) => listAccounts(ctx, kind) },
    { method: 'GET', pattern: `${p}/accounts/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx, kind)) },
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/vm-details`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        requireStatus(account, RUNNING_STATES)
        return vmDetails(ctx.store, account, productOf(family, account))
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/vm-state/:action`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(false)
        const action = ctx.params.action ?? ''
        if (!(POWER_ACTIONS as readonly string[]).includes(action)) {
          v.fail('action', `must be one of ${POWER_ACTIONS.join(', ')}`, 'value_error', 'path')
        }
        v.done()
        requireStatus(account, ACTIVE)
        setPower(ctx.store, account, action as PowerAction)
        return `${action} accepted`
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/rebuild`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(true)
        const osname = v.oneOf('select_os', OS_NAMES, { required: true })
        v.done()
        requireStatus(account, ACTIVE)
        schedule(ctx.store, account, { type: 'os', osname: osname ?? '' } satisfies LiteChange)
        return 'rebuild scheduled'
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/change-vm-name`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(true)
        const name = v.string('name', { required: true, min: 6, max: 16 })
        v.done()
        requireStatus(account, NOT_TERMINATED)
        account.extra_details.name = name ?? ''
        return true
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/keypair`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(true)
        const keypairId = readKeypair(family, ctx, v)
        v.done()
        requireStatus(account, ACTIVE)
        account.extra_details.keypair_id = keypairId ?? null
        return true
      },
    },
  ]
}

/** Changes that are orders: another package, more storage; and the cancellation. */
function vmChangeRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const kind = kindsOf(family).vm
  return [
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/change-package`,
      handler: (ctx) => changePackageOptions(family, pathAccount(ctx, kind)),
    },
    {
      method: 'POST',
      pattern: `${p}/accounts/:id/change-package`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(true)
        const id = v.int('new_product_id', { required: true })
        const offered = packagesFor(family, account)
        const target = id === undefined ? undefined : offered.find((x) => x.product_id === id)
        if (id !== undefined && !target) {
          const ids = offered.map((x) => x.product_id).join(', ')
          v.fail('new_product_id', `product ${id} is not offered for this account (${ids ? `offered: ${ids}` : 'none is'})`)
        }
        const pay = v.pay()
        v.done()
        requireStatus(account, ACTIVE)
        if (!target) return null
        const due = upgradeDue(family, account, target)
        account.pending = { type: 'product', product_id: target.product_id } satisfies LiteChange
        return order(ctx, account, `${family.key}.vm.change_package`, 'change_package', pay, null, due)
      },
    },
    { method: 'GET', pattern: `${p}/accounts/:id/storage`, handler: (ctx) => storageView(family, pathAccount(ctx, kind)) },
    { method: 'PUT', pattern: `${p}/accounts/:id/storage`, handler: (ctx) => growStorage(family, ctx) },
    { method: 'DELETE', pattern: `${p}/:id`, handler: (ctx) => cancel(ctx, kind) },
  ]
}

function storageView(family: LiteFamily, account: Account): Json {
  const cycle = cycleOrMonthly(account.cycle)
  const size = vmDiskSize(account)
  const extra = Math.max(0, size - (productOf(family, account)?.disk ?? size))
  return {
    account_id: String(account.account_id),
    disk_size: size,
    max_disk_size: family.maxDiskSize,
    unit: 'GB',
    billingcycle: account.billingcycle,
    price_per_gb: tierOf(family.storageTiers, extra + 1).monthly * cycle.months,
  }
}

function growStorage(family: LiteFamily, ctx: RouteContext): Json {
  const account = pathAccount(ctx, kindsOf(family).vm)
  const v = ctx.reader(true)
  const current = vmDiskSize(account)
  let target = v.int('disk_size', { required: true })
  if (target !== undefined && target <= current) target = v.fail('disk_size', `must be greater than current size ${current}`)
  else if (target !== undefined && target > family.maxDiskSize) {
    target = v.fail('disk_size', `must be at most ${family.maxDiskSize}`)
  }
  const pay = v.pay()
  v.done()
  requireStatus(account, ACTIVE)
  if (target === undefined) return null
  const base = productOf(family, account)?.disk ?? current
  const cycle = cycleOrMonthly(account.cycle)
  const due =
    tieredPrice(family.storageTiers, Math.max(0, target - base), cycle) -
    tieredPrice(family.storageTiers, Math.max(0, current - base), cycle)
  account.pending = { type: 'vm_disk', disk_size: target } satisfies LiteChange
  return order(ctx, account, `${family.key}.vm.storage`, 'upgrade', pay, null, Math.max(0, due))
}

// Snapshots

function takeSnapshot(family: LiteFamily, ctx: RouteContext): Json {
  const kinds = kindsOf(family)
  const vm = pathAccount(ctx, kinds.vm)
  const v = ctx.reader(true)
  const cycle = v.cycle()
  const name = v.string('name', { min: 6, max: 16 }) ?? 'snapshot-name'
  const description = v.description()
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  requireStatus(vm, ACTIVE)
  if (!cycle) return null
  const product = family.snapshotProduct
  const account = newAccount(ctx.store, kinds.snapshot, product.product_id, product.name, cycle, {
    name,
    lite_account_id: vm.account_id,
    ...DEFAULT_REGION_FIELDS,
  })
  account.description = description
  account.captured = { osname: String(vm.extra_details.osname ?? ''), disk_size: vmDiskSize(vm) }
  return order(ctx, account, `${family.key}.snapshot.create`, 'new', pay, promocode, account.recurring_amount)
}

/** S4: a new VM from the snapshot, with at least the disk it captured. */
function vmFromSnapshot(family: LiteFamily, ctx: RouteContext): Json {
  const snapshot = pathAccount(ctx, kindsOf(family).snapshot)
  const v = ctx.reader(true)
  const product = readVmProduct(family, v, 'product_id')
  const cycle = v.cycle()
  const keypairId = readKeypair(family, ctx, v)
  const name = v.string('name', { required: true, min: 6, max: 16 })
  const { user, password } = readLogin(v)
  const description = v.description()
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  requireStatus(snapshot, ACTIVE)
  if (!product || !cycle || keypairId === undefined || !name || !user || !password) return null
  const captured = snapshot.captured ?? { osname: OS_TEMPLATES[0].name, disk_size: 0 }
  return newVm(ctx, family, {
    product,
    cycle,
    name,
    user,
    password,
    keypairId,
    osname: captured.osname,
    diskSize: Math.max(captured.disk_size, product.disk),
    snapshotId: snapshot.account_id,
    description,
    pay,
    promocode,
    kind: `${family.key}.snapshot.restore_vm`,
  })
}

function snapshotRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const kind = kindsOf(family).snapshot
  return [
    { method: 'POST', pattern: `${p}/accounts/:id/snapshot`, handler: (ctx) => takeSnapshot(family, ctx) },
    { method: 'GET', pattern: `${p}/snapshots/accounts`, handler: (ctx) => listAccounts(ctx, kind) },
    { method: 'GET', pattern: `${p}/snapshots/accounts/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx, kind)) },
    { method: 'POST', pattern: `${p}/snapshots/accounts/:id/create`, handler: (ctx) => vmFromSnapshot(family, ctx) },
    {
      method: 'PUT',
      pattern: `${p}/snapshots/accounts/:id/restore`,
      handler: (ctx) => {
        const snapshot = pathAccount(ctx, kind)
        ctx.reader(false).done()
        requireStatus(snapshot, ACTIVE)
        const source = ctx.store.find(Number(snapshot.extra_details.lite_account_id))
        if (!source?.vm) throw conflict(`the source VM of snapshot ${snapshot.account_id} no longer exists`)
        requireStatus(source, ACTIVE)
        const osname = snapshot.captured?.osname ?? String(source.extra_details.osname)
        schedule(ctx.store, source, { type: 'os', osname } satisfies LiteChange)
        return 'restore scheduled'
      },
    },
    { method: 'DELETE', pattern: `${p}/snapshots/:id`, handler: (ctx) => cancel(ctx, kind) },
    ...productRoutes(`${p}/snapshots`, [family.snapshotProduct], () => snapshotPlan(family)),
  ]
}

// Extra disks

function orderDisk(family: LiteFamily, ctx: RouteContext): Json {
  const kinds = kindsOf(family)
  const v = ctx.reader(true)
  const product = family.diskProduct
  const productId = v.int('product_id', { required: true })
  if (productId !== undefined && productId !== product.product_id) v.fail('product_id', `unknown disk product ${productId}`)
  const cycle = v.cycle()
  const vmId = v.int('lite_account_id', { required: true })
  const vm = vmId === undefined ? undefined : ctx.store.find(vmId)
  if (vmId !== undefined && vm?.kind !== kinds.vm) v.fail('lite_account_id', `unknown VM ${vmId}`)
  const serviceName = v.string('service_name', { min: 6, max: 16 }) ?? 'service-name'
  const size = v.int('size', { min: product.min_size, max: product.max_size }) ?? product.min_size
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  if (!cycle || !vm) return null
  requireStatus(vm, ACTIVE)
  const account = newAccount(ctx.store, kinds.disk, product.product_id, product.name, cycle, {
    service_name: serviceName,
    size,
    lite_account_id: vm.account_id,
    ...DEFAULT_REGION_FIELDS,
  })
  return order(ctx, account, `${family.key}.disk.create`, 'new', pay, promocode, account.recurring_amount)
}

function growDisk(family: LiteFamily, ctx: RouteContext): Json {
  const account = pathAccount(ctx, kindsOf(family).disk)
  const v = ctx.reader(true)
  const current = diskSize(account)
  const max = family.diskProduct.max_size
  let increment = v.int('additional_size', { required: true, min: 1 })
  if (increment !== undefined && current + increment > max) {
    increment = v.fail('additional_size', `current size ${current} plus the increment must be at most ${max}`)
  }
  const pay = v.pay()
  v.done()
  requireStatus(account, ACTIVE)
  if (increment === undefined) return null
  const due = increment * cyclePrice(family.diskProduct.monthly, cycleOrMonthly(account.cycle))
  account.pending = { type: 'disk_size', size: current + increment } satisfies LiteChange
  return order(ctx, account, `${family.key}.disk.upgrade`, 'upgrade', pay, null, due)
}

function diskRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const kind = kindsOf(family).disk
  return [
    { method: 'POST', pattern: `${p}/disks`, handler: (ctx) => orderDisk(family, ctx) },
    { method: 'GET', pattern: `${p}/disks/accounts`, handler: (ctx) => listAccounts(ctx, kind) },
    { method: 'GET', pattern: `${p}/disks/accounts/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx, kind)) },
    { method: 'PUT', pattern: `${p}/disks/accounts/:id`, handler: (ctx) => growDisk(family, ctx) },
    { method: 'DELETE', pattern: `${p}/disks/:id`, handler: (ctx) => cancel(ctx, kind) },
    ...productRoutes(`${p}/disks`, [family.diskProduct], () => diskPlan(family)),
  ]
}

// Catalog

function catalogRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const catalogProduct = (ctx: RouteContext) => productInPath(ctx, family.vmProducts)
  return [
    ...productRoutes(p, family.vmProducts, (x) => vmPlan(family, x)),
    { method: 'GET', pattern: `${p}/products/:product_id/oss`, handler: (ctx) => osTemplates(catalogProduct(ctx)) },
    {
      method: 'GET',
      pattern: `${p}/products/:product_id/ip-availability`,
      handler: (ctx) => ({
        available: !ctx.store.config.ip_unavailable_product_ids.includes(catalogProduct(ctx).product_id),
      }),
    },
  ]
}

// The migration to another family (Lite to Lite Pro)

function migrateRoutes(family: LiteFamily): Route[] {
  const target = family.migrateTo
  if (!target) return []
  const p = family.prefix
  const kind = kindsOf(family).vm
  const migrateProducts = (account: Account) => target.vmProducts.filter((x) => x.disk >= vmDiskSize(account))
  return [
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/migrate-to-pro/products`,
      handler: (ctx) => migrateProducts(pathAccount(ctx, kind)).map((x) => vmPlan(target, x)),
    },
    {
      method: 'POST',
      pattern: `${p}/accounts/:id/migrate-to-pro`,
      handler: (ctx) => {
        const account = pathAccount(ctx, kind)
        const v = ctx.reader(true)
        const id = v.int('lite_pro_product_id', { required: true })
        const product = id === undefined ? undefined : migrateProducts(account).find((x) => x.product_id === id)
        if (id !== undefined && !product) v.fail('lite_pro_product_id', `product ${id} is not a migration target`)
        const pay = v.pay()
        v.done()
        requireStatus(account, ACTIVE)
        if (!product) return null
        const due = upgradeDue(family, account, product)
        // The migration to Lite Pro: the account is a Pro VM from this response on, not when it becomes Active.
        account.kind = kindsOf(target).vm
        account.product_id = product.product_id
        account.product_name = product.name
        account.extra_details.disk_size = String(Math.max(product.disk, vmDiskSize(account)))
        account.recurring_amount = ctx.store.recurringAmount(account, account.recurring_amount)
        account.pending = { type: 'migrate' }
        return order(ctx, account, `${family.key}.vm.migrate`, 'migrate', pay, null, due)
      },
    },
  ]
}

// Answers

function packagesFor(family: LiteFamily, account: Account): VmProduct[] {
  const current = productOf(family, account)
  return family.vmProducts.filter(
    (x) => x.product_id !== account.product_id && (current === undefined || current.allow_downgrade === 1 || x.monthly >= current.monthly),
  )
}

function changePackageOptions(family: LiteFamily, account: Account): Json {
  const cycle = cycleOrMonthly(account.cycle)
  const current = productOf(family, account)
  const currentPrice = current ? cyclePrice(current.monthly, cycle) : 0
  return {
    account_id: String(account.account_id),
    current_product_id: account.product_id,
    billingcycle: account.billingcycle,
    packages: packagesFor(family, account).map((x) => ({
      product_id: x.product_id,
      name: x.name,
      description: vmDescription(x),
      cores: x.cores,
      memory: x.memory,
      disk: x.disk,
      price: cyclePrice(x.monthly, cycle),
      amount_due: Math.max(0, cyclePrice(x.monthly, cycle) - currentPrice),
    })),
  }
}

const GIB = 1024 * 1024 * 1024

function vmDetails(store: CustomerStore, account: Account, product: VmProduct | undefined): Json {
  const vm = account.vm ?? { vmid: 0, power: 'stopped', started_at: store.now() }
  const running = vm.power === 'running'
  const maxmem = (product?.memory ?? 1024) * 1024 * 1024
  return {
    vmid: vm.vmid,
    name: account.extra_details.name ?? null,
    status: vm.power,
    uptime: running ? Math.max(0, Math.floor((store.now() - vm.started_at) / 1000)) : 0,
    maxdisk: vmDiskSize(account) * GIB,
    maxmem,
    mem: vm.power === 'stopped' ? 0 : Math.floor(maxmem / 4),
    cpus: product?.cores ?? 1,
  }
}

/** A power action (of the vm-details call) applies at once; an action already in effect changes nothing. */
function setPower(store: CustomerStore, account: Account, action: PowerAction): void {
  const vm = account.vm
  if (!vm) return
  switch (action) {
    case 'start':
    case 'resume':
      if (vm.power === 'stopped') vm.started_at = store.now()
      vm.power = 'running'
      return
    case 'reset':
      vm.power = 'running'
      vm.started_at = store.now()
      return
    case 'stop':
    case 'shutdown':
      vm.power = 'stopped'
      return
    case 'suspend':
      vm.power = 'paused'
      return
  }
}

/** What a customer changes on a VM in the portal, through the same calls as the API's (the console offers them). */
function vmPortal(family: LiteFamily, account: Account): PortalChanges {
  const at = `${family.prefix}/accounts/${account.account_id}`
  return {
    rename: { method: 'PUT', path: `${at}/change-vm-name`, input: { field: 'name', type: 'string' } },
    stop: { method: 'PUT', path: `${at}/vm-state/stop` },
    start: { method: 'PUT', path: `${at}/vm-state/start` },
    resize: {
      method: 'POST',
      path: `${at}/change-package`,
      body: { pay_invoice_with_cc: false },
      input: { field: 'new_product_id', type: 'integer' },
    },
  }
}

/** One Lite family: its routes, its three account kinds, the VM id sequence (shared by every Lite family), its VMs' portal. */
function liteFamily(family: LiteFamily): Family {
  return {
    name: family.key,
    title: family.category.name,
    routes: liteRoutes(family),
    kinds: liteKinds(family),
    sequences: { vmid: 1001 },
    portal: { [kindsOf(family).vm]: (account) => vmPortal(family, account) },
  }
}

export const lite: Family = liteFamily(LITE)
export const litePro: Family = liteFamily(LITE_PRO)

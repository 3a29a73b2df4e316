import {
  ACTIVE,
  cancel,
  listAccounts,
  newAccount,
  NOT_TERMINATED,
  order,
  requireStatus,
  RUNNING_STATES,
  schedule,
} from './account-routes.js'
import { recurringAmount } from './billing.js'
import {
  type Cycle,
  CYCLES,
  cycleOf,
  cyclePrice,
  DEFAULT_REGION,
  diskPlan,
  type LiteFamily,
  OS_TEMPLATES,
  osTemplates,
  REGIONS,
  snapshotPlan,
  tieredPrice,
  tierOf,
  type VmProduct,
  vmDescription,
  vmPlan,
} from './catalog.js'
import { conflict, notFound } from './envelope.js'
import type { Json } from './json.js'
import { type Account, type AccountKind, diskSize, vmDiskSize } from './model.js'
import { paramId, type Route, type RouteContext } from './router.js'
import type { Store } from './store.js'
import { type BodyReader, PASSWORD_PATTERN, USER_PATTERN } from './validation.js'

const POWER_ACTIONS = ['start', 'stop', 'shutdown', 'suspend', 'resume', 'reset'] as const
const OS_NAMES = OS_TEMPLATES.map((os) => os.name)
const region = { region: DEFAULT_REGION, region_label: REGIONS[DEFAULT_REGION] }

/** The Lite API (the Lite calls) for one family; /lite-pros is the same code with another descriptor (the Lite Pro group). */
export function liteRoutes(family: LiteFamily): Route[] {
  const p = family.prefix
  const kinds = {
    vm: `${family.key}.vm`,
    snapshot: `${family.key}.snapshot`,
    disk: `${family.key}.disk`,
  } as const satisfies Record<string, AccountKind>
  const get = (ctx: RouteContext, kind: AccountKind) => ctx.store.get(paramId(ctx, 'id'), kind)
  const vmProduct = (id: number | undefined) => family.vmProducts.find((x) => x.product_id === id)
  const productOf = (account: Account) => vmProduct(account.product_id)

  /** Reads a VM product reference from the body; an unknown one is a 422 of that field. */
  const readVmProduct = (v: BodyReader, field: string): VmProduct | undefined => {
    const id = v.int(field, { required: true })
    if (id === undefined) return undefined
    return vmProduct(id) ?? v.fail(field, `unknown product ${id}`)
  }
  const readKeypair = (ctx: RouteContext, v: BodyReader): number | undefined => {
    const id = v.int('keypair_id', { required: true })
    if (id === undefined) return undefined
    const known = ctx.store.state.keypairs.some((k) => k.keypair_id === id && k.pool === p)
    return known ? id : v.fail('keypair_id', `unknown keypair ${id} in the ${p} pool`)
  }
  const readLogin = (v: BodyReader) => ({
    user: v.string('ssh_and_console_user', {
      required: true,
      min: 6,
      max: 32,
      pattern: USER_PATTERN,
      patternMsg: 'only letters, digits, hyphens and periods',
    }),
    password: readPassword(v),
  })

  const newVm = (
    ctx: RouteContext,
    fields: {
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
    },
  ) => {
    const store = ctx.store
    const account = newAccount(store, kinds.vm, fields.product.product_id, fields.product.name, fields.cycle, {
      ...region,
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

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: p,
      handler: (ctx) => {
        const v = ctx.reader(true)
        const product = readVmProduct(v, 'product_id')
        const cycle = v.cycle()
        const osname = v.oneOf('select_os', OS_NAMES, { required: true })
        const keypairId = readKeypair(ctx, v)
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
        return newVm(ctx, {
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
          kind: `${family.key}.vm.create`,
        })
      },
    },
    { method: 'GET', pattern: `${p}/accounts`, handler: (ctx) => listAccounts(ctx, kinds.vm) },
    { method: 'GET', pattern: `${p}/accounts/:id`, handler: (ctx) => ctx.store.view(get(ctx, kinds.vm)) },
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/vm-details`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
        requireStatus(account, RUNNING_STATES)
        return vmDetails(ctx.store, account, productOf(account))
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/vm-state/:action`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
        const v = ctx.reader(false)
        const action = ctx.params.action ?? ''
        if (!(POWER_ACTIONS as readonly string[]).includes(action)) {
          v.fail('action', `must be one of ${POWER_ACTIONS.join(', ')}`, 'value_error', 'path')
        }
        v.done()
        requireStatus(account, ACTIVE)
        setPower(ctx.store, account, action as (typeof POWER_ACTIONS)[number])
        return `${action} accepted`
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/rebuild`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
        const v = ctx.reader(true)
        const osname = v.oneOf('select_os', OS_NAMES, { required: true })
        v.done()
        requireStatus(account, ACTIVE)
        schedule(ctx.store, account, { type: 'os', osname: osname ?? '' })
        return 'rebuild scheduled'
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/change-vm-name`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
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
        const account = get(ctx, kinds.vm)
        const v = ctx.reader(true)
        const keypairId = readKeypair(ctx, v)
        v.done()
        requireStatus(account, ACTIVE)
        account.extra_details.keypair_id = keypairId ?? null
        return true
      },
    },
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/change-package`,
      handler: (ctx) => changePackageOptions(family, get(ctx, kinds.vm)),
    },
    {
      method: 'POST',
      pattern: `${p}/accounts/:id/change-package`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
        const v = ctx.reader(true)
        const id = v.int('new_product_id', { required: true })
        const offered = packagesFor(family, account)
        const target = id === undefined ? undefined : offered.find((x) => x.product_id === id)
        if (id !== undefined && !target) v.fail('new_product_id', `product ${id} is not offered for this account`)
        const pay = v.pay()
        v.done()
        requireStatus(account, ACTIVE)
        if (!target) return null
        const cycle = cycleOfAccount(account)
        const current = productOf(account)
        const due = Math.max(0, cyclePrice(target.monthly, cycle) - (current ? cyclePrice(current.monthly, cycle) : 0))
        account.pending = { type: 'product', product_id: target.product_id }
        return order(ctx, account, `${family.key}.vm.change_package`, 'change_package', pay, null, due)
      },
    },
    {
      method: 'GET',
      pattern: `${p}/accounts/:id/storage`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
        const cycle = cycleOfAccount(account)
        const size = vmDiskSize(account)
        const extra = Math.max(0, size - (productOf(account)?.disk ?? size))
        return {
          account_id: String(account.account_id),
          disk_size: size,
          max_disk_size: family.maxDiskSize,
          unit: 'GB',
          billingcycle: account.billingcycle,
          price_per_gb: tierOf(family.storageTiers, extra + 1).monthly * cycle.months,
        }
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/accounts/:id/storage`,
      handler: (ctx) => {
        const account = get(ctx, kinds.vm)
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
        const base = productOf(account)?.disk ?? current
        const cycle = cycleOfAccount(account)
        const due =
          tieredPrice(family.storageTiers, Math.max(0, target - base), cycle) -
          tieredPrice(family.storageTiers, Math.max(0, current - base), cycle)
        account.pending = { type: 'vm_disk', disk_size: target }
        return order(ctx, account, `${family.key}.vm.storage`, 'upgrade', pay, null, Math.max(0, due))
      },
    },
    {
      method: 'DELETE',
      pattern: `${p}/:id`,
      handler: (ctx) => cancel(ctx, kinds.vm),
    },
    // Snapshots
    {
      method: 'POST',
      pattern: `${p}/accounts/:id/snapshot`,
      handler: (ctx) => {
        const vm = get(ctx, kinds.vm)
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
          ...region,
        })
        account.description = description
        account.captured = { osname: String(vm.extra_details.osname ?? ''), disk_size: vmDiskSize(vm) }
        return order(ctx, account, `${family.key}.snapshot.create`, 'new', pay, promocode, account.recurring_amount)
      },
    },
    { method: 'GET', pattern: `${p}/snapshots/accounts`, handler: (ctx) => listAccounts(ctx, kinds.snapshot) },
    { method: 'GET', pattern: `${p}/snapshots/accounts/:id`, handler: (ctx) => ctx.store.view(get(ctx, kinds.snapshot)) },
    {
      method: 'POST',
      pattern: `${p}/snapshots/accounts/:id/create`,
      handler: (ctx) => {
        const snapshot = get(ctx, kinds.snapshot)
        const v = ctx.reader(true)
        const product = readVmProduct(v, 'product_id')
        const cycle = v.cycle()
        const keypairId = readKeypair(ctx, v)
        const name = v.string('name', { required: true, min: 6, max: 16 })
        const { user, password } = readLogin(v)
        const description = v.description()
        const promocode = v.promocode()
        const pay = v.pay()
        v.done()
        requireStatus(snapshot, ACTIVE)
        if (!product || !cycle || keypairId === undefined || !name || !user || !password) return null
        const captured = snapshot.captured ?? { osname: OS_TEMPLATES[0].name, disk_size: 0 }
        return newVm(ctx, {
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
      },
    },
    {
      method: 'PUT',
      pattern: `${p}/snapshots/accounts/:id/restore`,
      handler: (ctx) => {
        const snapshot = get(ctx, kinds.snapshot)
        ctx.reader(false).done()
        requireStatus(snapshot, ACTIVE)
        const source = ctx.store.find(Number(snapshot.extra_details.lite_account_id))
        if (!source?.vm) throw conflict(`the source VM of snapshot ${snapshot.account_id} no longer exists`)
        requireStatus(source, ACTIVE)
        schedule(ctx.store, source, { type: 'os', osname: snapshot.captured?.osname ?? String(source.extra_details.osname) })
        return 'restore scheduled'
      },
    },
    { method: 'DELETE', pattern: `${p}/snapshots/:id`, handler: (ctx) => cancel(ctx, kinds.snapshot) },
    { method: 'GET', pattern: `${p}/snapshots/products`, handler: () => [snapshotPlan(family)] },
    {
      method: 'GET',
      pattern: `${p}/snapshots/products/:product_id`,
      handler: (ctx) => {
        if (paramId(ctx, 'product_id') !== family.snapshotProduct.product_id) throw notFound('product not found')
        return snapshotPlan(family)
      },
    },
    // Extra disks
    {
      method: 'POST',
      pattern: `${p}/disks`,
      handler: (ctx) => {
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
          ...region,
        })
        return order(ctx, account, `${family.key}.disk.create`, 'new', pay, promocode, account.recurring_amount)
      },
    },
    { method: 'GET', pattern: `${p}/disks/accounts`, handler: (ctx) => listAccounts(ctx, kinds.disk) },
    { method: 'GET', pattern: `${p}/disks/accounts/:id`, handler: (ctx) => ctx.store.view(get(ctx, kinds.disk)) },
    {
      method: 'PUT',
      pattern: `${p}/disks/accounts/:id`,
      handler: (ctx) => {
        const account = get(ctx, kinds.disk)
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
        const due = increment * cyclePrice(family.diskProduct.monthly, cycleOfAccount(account))
        account.pending = { type: 'disk_size', size: current + increment }
        return order(ctx, account, `${family.key}.disk.upgrade`, 'upgrade', pay, null, due)
      },
    },
    { method: 'DELETE', pattern: `${p}/disks/:id`, handler: (ctx) => cancel(ctx, kinds.disk) },
    { method: 'GET', pattern: `${p}/disks/products`, handler: () => [diskPlan(family)] },
    {
      method: 'GET',
      pattern: `${p}/disks/products/:product_id`,
      handler: (ctx) => {
        if (paramId(ctx, 'product_id') !== family.diskProduct.product_id) throw notFound('product not found')
        return diskPlan(family)
      },
    },
    // Catalog
    { method: 'GET', pattern: `${p}/products`, handler: () => family.vmProducts.map((x) => vmPlan(family, x)) },
    { method: 'GET', pattern: `${p}/products/:product_id`, handler: (ctx) => vmPlan(family, catalogProduct(ctx)) },
    { method: 'GET', pattern: `${p}/products/:product_id/oss`, handler: (ctx) => osTemplates(catalogProduct(ctx)) },
    {
      method: 'GET',
      pattern: `${p}/products/:product_id/ip-availability`,
      handler: (ctx) => ({
        available: !ctx.store.config.ip_unavailable_product_ids.includes(catalogProduct(ctx).product_id),
      }),
    },
  ]

  function catalogProduct(ctx: RouteContext): VmProduct {
    const product = vmProduct(paramId(ctx, 'product_id'))
    if (!product) throw notFound('product not found')
    return product
  }

  const target = family.migrateTo
  if (target) {
    const migrateProducts = (account: Account) => target.vmProducts.filter((x) => x.disk >= vmDiskSize(account))
    routes.push(
      {
        method: 'GET',
        pattern: `${p}/accounts/:id/migrate-to-pro/products`,
        handler: (ctx) => migrateProducts(get(ctx, kinds.vm)).map((x) => vmPlan(target, x)),
      },
      {
        method: 'POST',
        pattern: `${p}/accounts/:id/migrate-to-pro`,
        handler: (ctx) => {
          const account = get(ctx, kinds.vm)
          const v = ctx.reader(true)
          const id = v.int('lite_pro_product_id', { required: true })
          const product = id === undefined ? undefined : migrateProducts(account).find((x) => x.product_id === id)
          if (id !== undefined && !product) v.fail('lite_pro_product_id', `product ${id} is not a migration target`)
          const pay = v.pay()
          v.done()
          requireStatus(account, ACTIVE)
          if (!product) return null
          const cycle = cycleOfAccount(account)
          const current = productOf(account)
          const due = Math.max(0, cyclePrice(product.monthly, cycle) - (current ? cyclePrice(current.monthly, cycle) : 0))
          // The migration to Lite Pro: the account is a Pro VM from this response on, not when it becomes Active.
          account.kind = `${target.key}.vm`
          account.product_id = product.product_id
          account.product_name = product.name
          account.extra_details.disk_size = String(Math.max(product.disk, vmDiskSize(account)))
          account.recurring_amount = recurringAmount(account, account.recurring_amount)
          account.pending = { type: 'migrate' }
          return order(ctx, account, `${family.key}.vm.migrate`, 'migrate', pay, null, due)
        },
      },
    )
  }
  return routes
}

function readPassword(v: BodyReader): string | undefined {
  const password = v.string('console_password', { required: true, min: 8 })
  if (password === undefined) return undefined
  if (!PASSWORD_PATTERN.test(password)) {
    return v.fail('console_password', 'must contain only letters and digits, with an upper-case letter, a lower-case letter and a digit')
  }
  return password
}

/** Drift may leave a cycle code we do not know; pricing then falls back to one month. */
function cycleOfAccount(account: Account): Cycle {
  return cycleOf(account.cycle) ?? CYCLES[0]
}

function packagesFor(family: LiteFamily, account: Account): VmProduct[] {
  const current = family.vmProducts.find((x) => x.product_id === account.product_id)
  return family.vmProducts.filter(
    (x) => x.product_id !== account.product_id && (current === undefined || current.allow_downgrade === 1 || x.monthly >= current.monthly),
  )
}

function changePackageOptions(family: LiteFamily, account: Account): Json {
  const cycle = cycleOfAccount(account)
  const current = family.vmProducts.find((x) => x.product_id === account.product_id)
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

function vmDetails(store: Store, account: Account, product: VmProduct | undefined): Json {
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
function setPower(store: Store, account: Account, action: (typeof POWER_ACTIONS)[number]): void {
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

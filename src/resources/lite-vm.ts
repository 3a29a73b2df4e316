/**
 * provider_lite_vm and provider_lite_pro_vm: one definition, built per family (the Lite VM's calls). Its
 * attributes, its reads and waits, and its update steps and methods are in the lite-vm-* modules beside
 * it; the checks and price of a new VM here are shared with the VM restored from a snapshot.
 */
import type { Client } from '../api/index.js'
import {
  type AnyResource,
  type Attributes,
  type CreateCheck,
  type CreateCheckContext,
  defineResource,
  type MoveFrom,
  type OperationContext,
  ownCall,
  type PlanCheck,
  type PlanCheckContext,
  type Pricing,
} from '../core/index.js'
import { registerAccountKind } from './account-kinds.js'
import { awaitingPayment, digitsId, orderedPending, untilChangesTaken } from './billing.js'
import { cycleRule, isNotFound, keypairCheck, productOf, productRule, quoted, sizeRule } from './catalog-rules.js'
import { type LiteFamily, lite, litePro } from './lite-family.js'
import { finish, inGroup, locate, otherFamilyVm, readVm, vmKind, vmNoun } from './lite-vm-account.js'
import { type Vm, type VmAttributes, vmAttributes } from './lite-vm-attributes.js'
import { movedToPro, resumePrice, vmMethods, vmSteps } from './lite-vm-steps.js'
import { accountListing, ORDER_TIME_INPUTS, orderTerms } from './ordered-account.js'
import { billingOf, componentSteps, productLabel, quote, tiered } from './prices.js'

/**
 * What a new VM of the family orders: the product at its cycle and, when `disk_size` asks for more
 * than the product's base disk, the storage upgrade ordered right after it (the tiered price of the
 * GB above the base). A VM restored from a snapshot is priced with the disk the snapshot gives it
 * (lite-vm-from-snapshot's restorePrice).
 */
export function newVmPrice<A extends Attributes>(family: LiteFamily): Pricing<CreateCheckContext<Client, A>> {
  type Input = { product_id?: number | null; cycle?: string | null; disk_size?: number | null }
  return async ({ client, input, signal }) => {
    const { product_id: id, cycle, disk_size: size } = input as Input
    // What is unknown until apply cannot be priced (an unknown disk size included): ask nothing.
    if (typeof id !== 'number' || typeof cycle !== 'string' || (size !== null && size !== undefined && typeof size !== 'number'))
      return null
    const { product, option } = billingOf(await family.api(client).listProducts({ signal }), id, cycle)
    const quotes = [quote(`new ${productLabel(product)}`, option.price, option)]
    const base = product.options?.disk ?? 0
    if (typeof size === 'number' && size > base) {
      quotes.push(
        quote(`storage of ${size - base} GB above the base disk`, tiered(componentSteps(option, 'disk_size'), size - base), option),
      )
    }
    return quotes
  }
}

/**
 * The catalog checks of a new VM of the family, shared with the VM restored from a snapshot: the
 * product (and, with `ipAvailability`, whether it has an IP address to give: the service refuses only
 * a new VM's order, L1, for that, not a restore), the cycle it offers and, when `os` is given, the OS
 * names of the product.
 */
export function newVmChecks<A extends Attributes>(
  family: LiteFamily,
  options: { os: boolean; diskSize?: boolean; ipAvailability: boolean },
): CreateCheck<Client, A>[] {
  type Input = { product_id?: number | null; cycle?: string | null; select_os?: string | null; disk_size?: number | null }
  const catalog = `${family.prefix}_products`
  const checks: CreateCheck<Client, A>[] = [
    {
      attribute: 'product_id' as keyof A & string,
      async check({ client, input, signal }) {
        const id = (input as Input).product_id ?? 0
        const wrong = productRule(await family.api(client).listProducts({ signal }), id, catalog)
        if (wrong || !options.ipAvailability) return wrong
        const { available } = await family.api(client).getIpAvailability(id, { signal })
        return available
          ? null
          : `is product ${id}, which has no IP address to give now, so its order would be refused; choose another product or try later`
      },
    },
    {
      attribute: 'cycle' as keyof A & string,
      async check({ client, input, signal }) {
        const product = productOf(await family.api(client).listProducts({ signal }), (input as Input).product_id)
        return cycleRule(product, (input as Input).cycle ?? '')
      },
    },
    keypairCheck<A>('keypair_id' as keyof A & string, `${family.prefix}_keypair`, ({ client }) => family.api(client)),
  ]
  if (options.diskSize) {
    checks.push({
      attribute: 'disk_size' as keyof A & string,
      async check({ client, input, signal, warn }) {
        const size = (input as Input).disk_size
        if (typeof size !== 'number') return null
        const api = family.api(client)
        const product = productOf(await api.listProducts({ signal }), (input as Input).product_id)
        const base = product?.options?.disk ?? 0
        // A new VM has its product's disk; disk_size only grows it (L12 takes a larger size only). Not an
        // error: Pulumi carries an unset disk_size over from the object a replacement replaces, whose
        // product may have a smaller base.
        if (product !== undefined && size < base) {
          warn(
            `disk_size is below the base disk of product ${product.product_id}`,
            `disk_size ${size} is below the ${base} GB disk that product ${product.product_id} comes with: nothing is ordered for it, ` +
              `the new VM has ${base} GB, and a later disk_size up to ${base} orders nothing either. Set disk_size to ${base} or more, ` +
              'or leave it unset to follow the disk the VM has.',
          )
          return null
        }
        // The catalog states no maximum; every VM's storage options state its family's (L11). Any VM of
        // the family in the account answers it before the VM order; with none, the storage order after
        // the VM's is the first place it can be checked (see the attribute's description).
        const vm = (await api.listVms({ signal }))[0]
        if (vm === undefined) {
          // Nothing states the maximum before a VM of the family exists: say so when a storage order follows.
          if (product !== undefined && size > base) {
            warn(
              `Cannot check disk_size before the VM is ordered`,
              `disk_size ${size} asks for a storage order after the VM's (its product's base disk is ${base} GB), and its maximum cannot be checked yet: ` +
                `the service states the maximum only in an existing VM's storage options, and this account has no ${family.title} VM. ` +
                'The VM is ordered first; if the size is above the maximum the storage order is then refused, and the VM stays at its base disk. ' +
                'To be sure first, create the VM without disk_size and raise it in a later apply, which the plan checks.',
            )
          }
          return null
        }
        const storage = await api.getStorageOptions(vm.account_id, { signal })
        return sizeRule(
          size,
          { max: storage.max_disk_size },
          `a ${family.title} VM (the maximum that the storage options of VM ${vm.account_id} state)`,
        )
      },
    })
  }
  if (options.os) {
    checks.push({
      attribute: 'select_os' as keyof A & string,
      async check({ client, input, signal }) {
        const product = (input as Input).product_id
        if (typeof product !== 'number') return null
        let names: string[]
        try {
          names = (await family.api(client).listOss(product, { signal })).map((o) => o.name)
        } catch (thrown) {
          if (isNotFound(thrown)) return null // an unknown product: the product_id check says so
          throw thrown
        }
        return names.includes((input as Input).select_os ?? '') ? null : `must be an OS of product ${product}: ${quoted(names)}`
      },
    })
  }
  return checks
}

export function liteVm(family: LiteFamily): AnyResource {
  registerAccountKind(vmKind(family))
  return defineResource<Client, VmAttributes>({
    name: `${family.prefix}_vm`,
    description:
      `A ${vmNoun(family)}. Creating it places a paid order and waits until the VM is Active; name, keypair, package, ` +
      'disk size, power state and OS rebuild change in place, in that order.',
    importId: digitsId('account id'),
    timeouts: { create: '20m', update: '20m', delete: '10m' },
    attributes: vmAttributes(family),
    updates: vmSteps(family),
    methods: vmMethods(family),
    createChecks: newVmChecks<VmAttributes>(family, { os: true, diskSize: true, ipAvailability: true }),
    priceCreate: newVmPrice<VmAttributes>(family),
    priceResume: (ctx) => resumePrice(family, ctx),
    // A Lite VM migrated with migrate_to_pro is a Lite Pro VM: its lite_vm state can move here.
    movesFrom: family.migratesToPro ? [] : [movedFromLite(family)],
    planChecks: vmPlanChecks(family),
    async create(ctx) {
      const { input } = ctx
      const order = await family.api(ctx.client).createVm(
        {
          product_id: input.product_id ?? 0,
          cycle: input.cycle ?? '',
          select_os: input.select_os ?? '',
          keypair_id: input.keypair_id ?? 0,
          ssh_and_console_user: input.ssh_and_console_user ?? '',
          console_password: input.console_password ?? '',
          vm_name: input.vm_name ?? undefined,
          description: input.description ?? undefined,
          ...orderTerms(input),
        },
        { signal: ctx.signal },
      )
      ctx.checkpoint(orderedPending(order))
      const observed = await finish(family, { ...ctx, id: order.account_id }, family.api(ctx.client), null)
      return { ...observed, power_state: input.power_state ?? null }
    },
    async resume(ctx) {
      const { api } = await locate(family, ctx, ctx.id, ctx.prior)
      return finish(family, ctx, api, ctx.prior)
    },
    read: (ctx) => readVm(family, ctx, ctx.id, ctx.prior, ctx.importing),
    elsewhere: (ctx) => otherFamilyVm(family, ctx, ctx.id),
    readyForChanges: (ctx) => untilChangesTaken(ctx, vmNoun(family), () => vmInItsGroup(family, ctx)),
    changesRefused: (ctx) => awaitingPayment(ctx, vmNoun(family), () => vmInItsGroup(family, ctx)),
    async delete(ctx) {
      await ownCall(inGroup(family, ctx.client, ctx.prior, (api) => api.deleteVm(ctx.id, { signal: ctx.signal })))
    },
    unrecoverable: [...ORDER_TIME_INPUTS, 'rebuild_os', ...(family.migratesToPro ? (['migrate_to_pro'] as const) : [])],
    // The service reports the OS the VM runs (osname), which rebuild_os changes.
    importReadsCurrent: ['select_os'],
    list: accountListing<VmAttributes>({
      // A VM restored from a snapshot is listed by its own type, as its import requires.
      accounts: async (client, signal) =>
        (await family.api(client).listVms({ signal })).filter((vm) => !family.restoresSnapshots || vm.extra_details.snapshot_id === null),
      filters: {
        vm_name_prefix: { attribute: 'vm_name', match: 'prefix', description: 'Only VMs whose name starts with this.', example: 'web-' },
      },
      plural: 'VMs',
      displayName: 'vm_name',
    }),
  })
}

/** The VM's account as its group shows it now (Lite Pro's once migrated). */
async function vmInItsGroup(
  family: LiteFamily,
  ctx: OperationContext<Client> & { readonly id: string; readonly prior: Partial<Vm> | null },
) {
  const { value } = await inGroup(family, ctx.client, ctx.prior, (api) => api.getVm(ctx.id, { signal: ctx.signal }))
  return value
}

/** The state of a Lite VM managed as lite_vm that migrated to Lite Pro, as this family's (Lite Pro's). */
function movedFromLite(family: LiteFamily): MoveFrom<Client> {
  return {
    from: `${lite.prefix}_vm`,
    when: 'once its migration to Lite Pro (migrate_to_pro) has happened; set product_id to the Lite Pro product it moved to',
    async move(source, ctx) {
      const target = source.migrate_to_pro
      if (typeof target !== 'string' || target === '') {
        return 'Only a Lite VM migrated to Lite Pro can move: its migrate_to_pro is not set. Migrate it first.'
      }
      let productId = Number(target)
      if (ctx) {
        try {
          productId = (await family.api(ctx.client).getVm(ctx.id, { signal: ctx.signal })).product_id
        } catch (thrown) {
          if (!isNotFound(thrown)) throw thrown
          return `VM ${ctx.id} is not a Lite Pro VM: its migration to ${target} was recorded but has not happened. Apply it as lite_vm first.`
        }
      }
      const { migrate_to_pro: _migrated, ...kept } = source
      return { ...kept, product_id: productId }
    },
  }
}

/**
 * The disk a migration planned beside a package change or a disk growth will move (those steps run
 * before it): the largest of the disk now, the new package's own disk and the disk_size target; null
 * when neither changes, or when the new package is not known yet (the apply's plan checks it then).
 */
async function diskBeforeMigration(family: LiteFamily, ctx: PlanCheckContext<Client, VmAttributes>): Promise<number | null> {
  const { client, id, prior, input, signal } = ctx
  const packageChanges = input.product_id !== prior.product_id
  const target = typeof input.disk_size === 'number' && input.disk_size !== prior.disk_size ? input.disk_size : 0
  if (!packageChanges && target === 0) return null
  if (packageChanges && typeof input.product_id !== 'number') return null
  const { value: vm } = await inGroup(family, client, prior, (api) => api.getVm(id, { signal }))
  const products = packageChanges ? await family.api(client).listProducts({ signal }) : []
  const base = products.find((p) => p.product_id === input.product_id)?.options?.disk ?? 0
  return Math.max(vm.extra_details.disk_size, base, target)
}

/** The checks only the service can tell, planned when the attribute changes on an existing VM. */
function vmPlanChecks(family: LiteFamily): PlanCheck<Client, VmAttributes>[] {
  return [
    // The keypair step runs first, in the group the VM is in now (a migration comes later).
    keypairCheck<VmAttributes, PlanCheckContext<Client, VmAttributes>>('keypair_id', `${family.prefix}_keypair`, async (ctx) => {
      const { api } = await inGroup(family, ctx.client, ctx.prior, (a) => a.getVm(ctx.id, { signal: ctx.signal }))
      // A VM migrated to Lite Pro takes Lite Pro keypairs from then on (the migration to Lite Pro).
      const moved = api !== family.api(ctx.client)
      return { keypairs: api, resource: moved ? `${litePro.prefix}_keypair` : `${family.prefix}_keypair` }
    }),
    {
      attribute: 'product_id',
      async check({ client, id, prior, input, signal }) {
        const { value: options } = await inGroup(family, client, prior, (api) => api.getChangePackageOptions(id, { signal }))
        const ids = options.packages.map((p) => p.product_id)
        if (ids.includes(input.product_id ?? 0)) return null
        // The VM may have it already: a change whose answer a killed run lost, planned from a state
        // saved before it (Pulumi's `up` does not read first). The order journal answers the step.
        const { api, value: vm } = await inGroup(family, client, prior, (a) => a.getVm(id, { signal }))
        if (vm.product_id === input.product_id) return null
        // Why the service offers no more (L9): a product that allows no downgrade leaves out the cheaper ones.
        const products = await api.listProducts({ signal })
        const current = productOf(products, vm.product_id)
        const target = productOf(products, input.product_id ?? null)
        const cheaper = (p: typeof target) => p?.billing.find((b) => b.cycle === 'm')?.price ?? 0
        const why =
          current?.options?.allow_downgrade === false && target !== undefined && cheaper(target) < cheaper(current)
            ? ` (its product ${vm.product_id} allows no downgrade, and product ${target.product_id} costs less)`
            : ''
        return ids.length === 0
          ? `cannot change: VM ${id} has no package to change to${why}`
          : `must be a package VM ${id} can change to: ${quoted(ids)}${why}`
      },
    },
    {
      attribute: 'disk_size',
      async check({ client, id, prior, input, signal }) {
        const { value: storage } = await inGroup(family, client, prior, (api) => api.getStorageOptions(id, { signal }))
        return sizeRule(input.disk_size ?? 0, { max: storage.max_disk_size }, `VM ${id}`)
      },
    },
    {
      attribute: 'rebuild_os',
      async check({ client, input, signal }) {
        // The package change runs before the rebuild, so the planned product's OS list applies; while
        // that product is unknown (set from another resource), the apply's plan checks it.
        if (typeof input.product_id !== 'number') return null
        const oss = await family.api(client).listOss(input.product_id, { signal })
        const names = oss.map((o) => o.name)
        return names.includes(input.rebuild_os ?? '') ? null : `must be one of ${names.map((n) => JSON.stringify(n)).join(', ')}`
      },
    },
    ...(family.migration
      ? [
          {
            attribute: 'migrate_to_pro' as const,
            async check(ctx: PlanCheckContext<Client, VmAttributes>) {
              const { client, id, prior, input, signal } = ctx
              const migration = family.migration?.(client)
              if (!migration) return null
              // A VM moves to Lite Pro once: from then on it has no migration (L14 answers 404), and its Pro
              // package changes with product_id. The product it has already asks for nothing (the step skips it).
              const moved = await movedToPro(family, ctx)
              if (moved !== null) {
                if (String(moved.product_id) === input.migrate_to_pro) return null
                const kept = prior.migrate_to_pro ? `, or keep migrate_to_pro at ${JSON.stringify(prior.migrate_to_pro)}` : ''
                return (
                  `cannot change: VM ${id} is a Lite Pro VM already (product ${moved.product_id}), and a VM migrates only once. ` +
                  `To move it to another Lite Pro product, change product_id to it (a package change)${kept}`
                )
              }
              const products = await migration.listMigrateToProProducts(id, { signal })
              // The service lists the Pro products whose disk holds the VM's disk now; the package change
              // and the disk growth of the same apply run first, and the move must hold the disk they leave.
              const disk = await diskBeforeMigration(family, ctx)
              const ids = products.filter((p) => disk === null || (p.options?.disk ?? 0) >= disk).map((p) => String(p.product_id))
              if (ids.includes(input.migrate_to_pro ?? '')) return null
              const after = disk === null ? '' : ` with the ${disk} GB disk the steps before the move leave it`
              return `must be one of the Lite Pro products this VM can move to${after}: ${ids.length > 0 ? ids.join(', ') : 'none'}`
            },
          },
        ]
      : []),
  ]
}

/**
 * What changes a Lite or Lite Pro VM in place: its update steps in the order they run (name, keypair,
 * package, disk, rebuild, migration, power), the price of each paid one as the service bills it, what
 * each changes, and the methods that make the same calls on demand (Terraform actions, Pulumi methods).
 */
import type { Client, LiteVmAccount, VmAction } from '../api/index.js'
import {
  type AnyMethod,
  defineMethod,
  oneOf,
  type PlanCheckContext,
  type Quote,
  type StepContext,
  string,
  type UpdateStep,
  valuesEqual,
} from '../core/index.js'
import { keepAndWait, POWER_NOTE, textRules } from './billing.js'
import { isNotFound, quoted } from './catalog-rules.js'
import { type LiteFamily, litePro } from './lite-family.js'
import { inGroup, settle, vmNoun } from './lite-vm-account.js'
import { POWER_STATES, type Vm, type VmAttributes } from './lite-vm-attributes.js'
import { payFlag } from './ordered-account.js'
import { billingOf, componentSteps, known, productLabel, quote, tiered } from './prices.js'

type Step = UpdateStep<Client, VmAttributes>
type Ctx = StepContext<Client, VmAttributes>
type PriceCtx = PlanCheckContext<Client, VmAttributes>
type Affected = Step['affects']

// What an order on the VM changes (the account object, the status model): the status (Pending until Active), the hypervisor
// figures (the VM may restart), the price and the latest invoice. Never the order that created it
// (order_id), the cloud-init user and password, the OS, the region or the cycle; next_due is
// date_created plus the cycle's months.
const ordered = ['status', 'uptime', 'mem', 'recurring_amount', 'last_invoice', 'raw'] as const
/** A package change: another product, so other capacities, and the disk at least the new base (L10). */
const packageChange: Affected = [...ordered, 'maxdisk', 'maxmem', 'cpus', 'product_name', 'disk_size']
/** A storage upgrade: the disk and its capacity (L12). */
const storageUpgrade: Affected = [...ordered, 'maxdisk', 'disk_size']
/**
 * A rebuild: no order and no invoice, but Pending until Active, a new OS and a reinstalled VM
 * (its hypervisor figures are taken again from the template) (L6).
 */
const reinstall: Affected = ['status', 'uptime', 'mem', 'maxdisk', 'maxmem', 'cpus', 'osname', 'raw']
/**
 * A migration: a Pro product at once, in another group (L14, the migration to Lite Pro). Only the keypair, name,
 * cloud-init user and password and OS are said to be kept, so the region and billing may change too.
 */
const migration: Affected = [...packageChange, 'region', 'region_label', 'billingcycle', 'next_due']

/**
 * The VM's update steps, in the order they run. The paid ones are priced as the service bills them:
 * the difference of the cycle prices (never below 0) for a package change or migration, the tiered
 * storage price of the GB added for a bigger disk.
 */
export function vmSteps(family: LiteFamily): Step[] {
  return [
    // `affects`: what a plan shows as unknown; a rename or a key change touches no figure or invoice.
    // The service takes a rename on a Pending account (its status rules): no unpaid invoice refuses it.
    { attributes: ['vm_name'], affects: ['raw'], cosmetic: true, apply: (ctx) => rename(family, ctx) },
    { attributes: ['keypair_id'], affects: ['raw'], apply: (ctx) => changeKeypair(family, ctx) },
    {
      attributes: ['product_id'],
      affects: packageChange,
      apply: (ctx) => changePackage(family, ctx),
      price: (ctx) => packageChangePrice(family, ctx),
      placedWith: ['pay_with_credit_card'],
    },
    {
      attributes: ['disk_size'],
      affects: storageUpgrade,
      apply: (ctx) => growDisk(family, ctx),
      price: (ctx) => storageUpgradePrice(family, ctx),
      placedWith: ['pay_with_credit_card'],
    },
    { attributes: ['rebuild_os'], affects: reinstall, apply: (ctx) => rebuild(family, ctx) },
    ...(family.migratesToPro
      ? [
          {
            attributes: ['migrate_to_pro'] as ('migrate_to_pro' & keyof VmAttributes)[],
            affects: migration,
            apply: (ctx: Ctx) => migrate(family, ctx),
            price: (ctx: PriceCtx) => migrationPrice(family, ctx),
            placedWith: ['pay_with_credit_card'] as const,
          },
        ]
      : []),
    { attributes: ['power_state'], affects: ['uptime', 'mem', 'raw'], apply: (ctx) => setPower(family, ctx) },
  ]
}

async function rename(family: LiteFamily, ctx: Ctx) {
  await inGroup(family, ctx.client, ctx.prior, (api) => api.renameVm(ctx.id, { name: ctx.input.vm_name ?? '' }, { signal: ctx.signal }))
  return undefined
}

async function changeKeypair(family: LiteFamily, ctx: Ctx) {
  await inGroup(family, ctx.client, ctx.prior, (api) =>
    api.changeVmKeypair(ctx.id, { keypair_id: ctx.input.keypair_id ?? 0 }, { signal: ctx.signal }),
  )
  return undefined
}

async function changePackage(family: LiteFamily, ctx: Ctx) {
  const { api, value: order } = await inGroup(family, ctx.client, ctx.prior, (a) =>
    a.changePackage(ctx.id, { new_product_id: ctx.input.product_id ?? 0, pay_invoice_with_cc: payFlag(ctx.input) }, { signal: ctx.signal }),
  )
  await keepAndWait(ctx, order, undefined, (id) => api.getVm(id, { signal: ctx.signal }), vmNoun(family))
  return undefined
}

async function growDisk(family: LiteFamily, ctx: Ctx) {
  const target = ctx.input.disk_size
  if (typeof target !== 'number') return undefined
  const { api, value: account } = await inGroup(family, ctx.client, ctx.prior, (a) => a.getVm(ctx.id, { signal: ctx.signal }))
  if (target <= account.extra_details.disk_size) return undefined
  const order = await api.upgradeStorage(ctx.id, { disk_size: target, pay_invoice_with_cc: payFlag(ctx.input) }, { signal: ctx.signal })
  await keepAndWait(ctx, order, undefined, (id) => api.getVm(id, { signal: ctx.signal }), vmNoun(family))
  return undefined
}

async function rebuild(family: LiteFamily, ctx: Ctx) {
  const os = ctx.input.rebuild_os ?? ''
  const { api } = await inGroup(family, ctx.client, ctx.prior, (a) => a.rebuildVm(ctx.id, { select_os: os }, { signal: ctx.signal }))
  const startedAt = ctx.client.now()
  ctx.checkpoint() // destructive: never fired twice for one change, even if the wait fails
  ctx.note(POWER_NOTE, 'OS rebuild (rebuild_os)') // the VM runs once Active again (L6), whatever power_state says
  await settle(family, ctx, api, ctx.id, ctx.timeoutMs, startedAt)
  return undefined
}

/**
 * The VM's account when it is a Lite Pro VM already (migrated by an earlier apply, or outside): it
 * answers only under /lite-pros, where no migration exists (L14 answers 404 for it). Null while it is
 * in its own family's group.
 */
export async function movedToPro(
  family: LiteFamily,
  { client, signal, prior, id }: { client: Client; signal: AbortSignal; prior: Partial<Vm> | null; id: string },
): Promise<LiteVmAccount | null> {
  if (!family.migratesToPro) return null
  const { api, value } = await inGroup(family, client, prior, (a) => a.getVm(id, { signal }))
  return api === family.api(client) ? null : value
}

async function migrate(family: LiteFamily, ctx: Ctx) {
  const productId = Number(ctx.input.migrate_to_pro)
  const migration = family.migration?.(ctx.client)
  if (!migration) throw new Error(`${vmNoun(family)}s cannot migrate to Lite Pro`)
  // On Lite Pro already, with this product (a migration whose answer was lost, or a package change
  // there): nothing to order. With another one, the plan refused the change (vmPlanChecks).
  const moved = await movedToPro(family, ctx)
  if (moved !== null && moved.product_id === productId) return undefined
  const order = await migration.migrateToPro(
    ctx.id,
    { lite_pro_product_id: productId, pay_invoice_with_cc: payFlag(ctx.input) },
    { signal: ctx.signal },
  )
  ctx.note(POWER_NOTE, 'migration to Lite Pro (migrate_to_pro)') // the service starts the VM once it is Active again
  // From the answer on, the VM lives under /lite-pros (the migration to Lite Pro).
  await keepAndWait(ctx, order, undefined, (id) => litePro.api(ctx.client).getVm(id, { signal: ctx.signal }), vmNoun(family))
  return undefined
}

async function setPower(family: LiteFamily, ctx: Ctx) {
  const action = ctx.input.power_state as VmAction
  await inGroup(family, ctx.client, ctx.prior, (api) => api.setVmState(ctx.id, action, { signal: ctx.signal }))
  ctx.note(POWER_NOTE, null)
  return undefined
}

/**
 * The VM as the service has it now, and the catalog of the group it lives in: what its paid changes
 * are priced from, as their steps decide from the same read. After a migration the VM is a Lite Pro
 * one, with a Pro product (the state keeps the Lite `product_id` until a package change there), and a
 * package change or a grown disk outside (the portal, support) shows only here.
 */
async function asBilled(family: LiteFamily, { client, signal, prior, id }: PriceCtx) {
  const { api, value: account } = await inGroup(family, client, prior, (a) => a.getVm(id, { signal }))
  return { account, products: await api.listProducts({ signal }) }
}

async function packageChangePrice(family: LiteFamily, ctx: PriceCtx): Promise<readonly Quote[] | null> {
  const { account, products } = await asBilled(family, ctx)
  const target = billingOf(products, ctx.input.product_id ?? 0, ctx.prior.cycle)
  const current = billingOf(products, account.product_id, ctx.prior.cycle)
  return [
    quote(`package change to ${productLabel(target.product)}`, Math.max(0, target.option.price - current.option.price), target.option),
  ]
}

async function storageUpgradePrice(family: LiteFamily, ctx: PriceCtx): Promise<readonly Quote[] | null> {
  const { prior, input } = ctx
  const target = known(input.disk_size)
  if (target === null || target <= (prior.disk_size ?? 0)) return []
  // A package change in the same plan runs first, so `prior` has the planned product (the base
  // disk is its own), which may be known only after apply (then so is this price).
  if (known(prior.product_id) === null) return null
  return storageQuote(ctx, target, await asBilled(family, ctx))
}

function storageQuote(
  { prior }: PriceCtx,
  target: number,
  { account, products }: Awaited<ReturnType<typeof asBilled>>,
): readonly Quote[] | null {
  const planned = known(prior.product_id)
  if (planned === null) return null
  // A product of the VM's group: the planned one, or, while the state keeps the Lite product of a
  // migrated VM, the Pro product the service shows.
  const productId = products.some((p) => p.product_id === planned) ? planned : account.product_id
  const { product, option } = billingOf(products, productId, prior.cycle)
  const base = product.options?.disk ?? 0
  // The step orders only above the disk the VM will have: as the service shows it (grown outside
  // too), or as the package change that runs first leaves it (its product's own disk). Not the size in
  // state: a target an earlier apply recorded but has not reached (its order unpaid, or a create's
  // growth still to come) is ordered from what the VM has.
  const current = Math.max(account.extra_details.disk_size, base)
  if (target <= current) return []
  const steps = componentSteps(option, 'disk_size')
  const due = tiered(steps, Math.max(0, target - base)) - tiered(steps, Math.max(0, current - base))
  return [quote(`storage upgrade from ${current} to ${target} GB`, Math.max(0, due), option)]
}

/**
 * What a resumed create still orders (ResourceDefinition.priceResume): the disk grown to disk_size
 * beyond what the VM has, unless this plan changes disk_size (its step orders it, priced there, and the
 * resume then has none left). On the package the plan's steps leave, since they run first.
 */
export async function resumePrice(family: LiteFamily, ctx: PriceCtx): Promise<readonly Quote[] | null> {
  const { prior, input } = ctx
  const target = known(input.disk_size)
  if (target === null || !valuesEqual(target, prior.disk_size ?? null)) return []
  // Required: null here is a value known only at apply.
  if (input.product_id === null || input.product_id === undefined) return null
  const billed = await asBilled(family, ctx)
  // The storage order is placed already (its wait ran out, or waits for payment): the resume only
  // waits for it. A package change in flight leaves the disk of the planned product, as priced below.
  const { status, last_invoice: invoice } = billed.account
  if (status === 'Pending' && invoice?.invoice_type === 'upgrade') return []
  return storageQuote({ ...ctx, prior: { ...prior, product_id: input.product_id } }, target, billed)
}

async function migrationPrice(family: LiteFamily, { client, signal, prior, input }: PriceCtx): Promise<readonly Quote[] | null> {
  const migration = family.migration?.(client)
  if (!migration) return []
  // A VM on Lite Pro already is moved no more: nothing is ordered (or the plan refuses the change).
  if ((await movedToPro(family, { client, signal, prior, id: prior.id })) !== null) return []
  const targets = await migration.listMigrateToProProducts(prior.id, { signal })
  const target = billingOf(targets, Number(input.migrate_to_pro), prior.cycle)
  // A package change of the same apply runs first: the move is priced from the package it leaves.
  const from = typeof input.product_id === 'number' ? input.product_id : prior.product_id
  const current = billingOf(await family.api(client).listProducts({ signal }), from, prior.cycle)
  return [
    quote(`migration to Lite Pro ${productLabel(target.product)}`, Math.max(0, target.option.price - current.option.price), target.option),
  ]
}

/** The same calls as the power_state and rebuild_os steps, run on demand (Terraform actions, Pulumi methods). */
export function vmMethods(family: LiteFamily): AnyMethod[] {
  return [powerMethod(family), rebuildMethod(family)]
}

function powerMethod(family: LiteFamily): AnyMethod {
  const what = vmNoun(family)
  return defineMethod<Client, { state: ReturnType<typeof string> }>({
    name: 'power',
    description: `Runs a power action on the ${what}: \`start\`, \`stop\` (hard), \`shutdown\` (graceful), \`suspend\` or \`resume\`.`,
    inputs: {
      state: string({ required: true, validate: [oneOf(POWER_STATES)], description: 'The power action to run.' }),
    },
    timeout: '5m',
    async run(ctx) {
      const action = ctx.input.state as VmAction
      await inGroup(family, ctx.client, null, (api) => api.setVmState(ctx.id, action, { signal: ctx.signal }))
      ctx.progress(`power action ${action} sent to ${what} ${ctx.id}`)
    },
  })
}

function rebuildMethod(family: LiteFamily): AnyMethod {
  const what = vmNoun(family)
  return defineMethod<Client, { os: ReturnType<typeof string> }>({
    name: 'rebuild',
    description: `Destructive: reinstalls the ${what} with this OS and wipes its disk, then waits until it is Active again.`,
    inputs: {
      os: string({
        required: true,
        validate: textRules.free,
        description: "The OS to install: a `name` from the OS list of the VM's product, checked at plan once the VM's id is known.",
      }),
    },
    timeout: '20m',
    destructive: true,
    checks: [
      {
        attribute: 'os',
        async check({ client, id, input, signal }) {
          // The OS list of the product the VM has now, in the group that serves it (a migrated Lite VM's is Pro).
          let located: Awaited<ReturnType<typeof inGroup<LiteVmAccount>>>
          try {
            located = await inGroup(family, client, null, (api) => api.getVm(id, { signal }))
          } catch (thrown) {
            if (isNotFound(thrown)) return null // no such VM: the rebuild itself says so
            throw thrown
          }
          const product = located.value.product_id
          const names = (await located.api.listOss(product, { signal })).map((o) => o.name)
          return names.includes(input.os ?? '') ? null : `must be an OS of product ${product}: ${quoted(names)}`
        },
      },
    ],
    async run(ctx) {
      const os = ctx.input.os ?? ''
      const { api } = await inGroup(family, ctx.client, null, (a) => a.rebuildVm(ctx.id, { select_os: os }, { signal: ctx.signal }))
      const startedAt = ctx.client.now()
      ctx.progress(`rebuild of ${what} ${ctx.id} with ${os} started; waiting until it is Active again`)
      await settle(family, ctx, api, ctx.id, ctx.timeoutMs, startedAt)
      ctx.progress(`${what} ${ctx.id} is Active again with ${os}`)
    },
  })
}

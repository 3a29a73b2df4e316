/** provider_lite_vm and provider_lite_pro_vm: one definition, built per family (the Lite VM's calls). */
import type { Client, LiteApi, LiteVmAccount, VmAction, VmDetails } from '../api/index.js'
import { billingOf, componentSteps, known, productLabel, quote, tiered } from './prices.js'
import {
  type Attributes,
  type CreateCheck,
  type CreateCheckContext,
  defineMethod,
  defineResource,
  InputError,
  int64,
  length,
  type OperationContext,
  oneOf,
  type PlanCheckContext,
  pattern,
  type Pricing,
  type State,
  string,
  type UpdateStep,
} from '../core/index.js'
import {
  cycleAttribute,
  cycleCode,
  digitsId,
  invoiceState,
  keepAndWait,
  LITE_CYCLES,
  lastInvoiceAttribute,
  raw,
  rawAttribute,
  rules,
  waitForOrder,
  textRules,
  statusFilter,
  accountIdAttribute,
  accountNumber,
} from './billing.js'
import { cycleRule, isNotFound, productOf, productRule, quoted, sizeRule } from './catalog-rules.js'
import { type LiteFamily, lite, litePro } from './lite-family.js'
import { isTerminated, ORDER_TIME_INPUTS, orderInputs, orderTerms, payFlag } from './ordered-account.js'

/** The rules of the console user and password (the Lite VM create body), shared with the restored VM. */
export const consoleUserRules = [length({ min: 6, max: 32 }), pattern(/^[A-Za-z0-9.-]*$/, 'letters, digits, hyphens and periods only')]
// The password states no maximum, so the service's cap of every other string applies (the API's
// request-body rules: 255 characters); a longer one was refused only by the order.
export const consolePasswordRules = [
  length({ min: 8, max: 255 }),
  pattern(/^[A-Za-z0-9]*$/, 'letters and digits only'),
  pattern(/^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])/, 'made of at least one upper-case letter, one lower-case letter and one digit'),
]

/**
 * The console password in its two forms, shared with the restored VM: `console_password`, kept in
 * state (sensitive), and `console_password_wo`, write-only, with the version that stands for it in
 * plans. The service has no call to change a password, so both are create-only: a change of
 * `console_password`, or of the version, replaces the VM. `echoes` are the read-only attributes
 * holding the password as the service reports it.
 */
export function consolePasswordAttributes(what: string, echoes: readonly string[] = []) {
  const rule = '8 to 255 letters and digits, with an upper-case letter, a lower-case letter and a digit'
  return {
    console_password: string({
      optional: true,
      sensitive: true,
      createOnly: true,
      validate: consolePasswordRules,
      description: `The console password: ${rule}.`,
    }),
    console_password_wo: string({
      optional: true,
      sensitive: true,
      validate: consolePasswordRules,
      writeOnly: { alternative: 'console_password', version: 'console_password_wo_version', echoes, required: true },
      description: `The console password, ${rule}, sent with the order of the ${what} and never stored. Changing it alone does nothing: change \`console_password_wo_version\` too.`,
    }),
    console_password_wo_version: int64({
      optional: true,
      createOnly: true,
      description:
        `The version of \`console_password_wo\`, e.g. \`1\`, kept in state in its place. The service cannot change a password, so changing the version replaces the ${what} (a new order, with the new password). ` +
        'Setting it on an existing object that was created with `console_password` only records the switch, when `console_password_wo` holds the same password; a different password replaces it.',
    }),
  }
}

const POWER_STATES = ['start', 'stop', 'suspend', 'resume', 'shutdown'] as const
/** What vm-details reports once each power action is in effect. */
const POWER_EFFECT: Record<string, string> = {
  start: 'running',
  resume: 'running',
  stop: 'stopped',
  shutdown: 'stopped',
  suspend: 'paused',
}
/** The reverse, for import (the import rules). */
const POWER_FROM_STATUS: Record<string, string> = { running: 'start', stopped: 'stop', paused: 'suspend' }

function vmAttributes(family: LiteFamily) {
  return {
    ssh_and_console_user: string({
      required: true,
      createOnly: true,
      validate: consoleUserRules,
      description: 'The SSH and console user (the cloud-init user).',
    }),
    ...consolePasswordAttributes('VM', ['cipassword']),
    product_id: int64({
      required: true,
      validate: [rules.id],
      description: `The product, from \`provider_${family.prefix}_products\`. A change runs change-package (a paid order) and waits for Active.`,
    }),
    select_os: string({
      required: true,
      createOnly: true,
      validate: textRules.free,
      description: `The OS to install, a \`name\` from \`provider_${family.prefix}_os_list\`. To change the OS of an existing VM use \`rebuild_os\`.`,
    }),
    keypair_id: int64({
      required: true,
      validate: [rules.id],
      description: `The keypair, from \`provider_${family.prefix}_keypair\`. A change installs the new key (change-keypair).`,
    }),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle: `m` monthly, `a` annually, or `q s b t p4 p5`.'),
    vm_name: string({
      optional: true,
      default: 'server-name',
      validate: textRules.shortName,
      description: 'The VM name, 6-16 characters. Changed in place.',
    }),
    description: string({
      optional: true,
      default: '',
      createOnly: true,
      validate: textRules.description,
      description: 'A description of the order.',
    }),
    ...orderInputs(
      {
        description:
          'Charge the card on file for every order. With `false` the order is placed and its invoice stays unpaid: the VM stays `Pending` until it is paid in the portal.',
      },
      'pay_with_credit_card',
    ),
    power_state: string({
      optional: true,
      computed: true,
      action: true,
      validate: [oneOf(POWER_STATES)],
      description:
        'A power action, applied when the value changes: `start`, `stop` (hard), `shutdown` (graceful), `suspend`, `resume`. Given at create, it is applied once the VM is Active. Removing it calls nothing.',
    }),
    rebuild_os: string({
      optional: true,
      action: true,
      validate: textRules.free,
      description:
        'Destructive: reinstall the VM with this OS (a `name` from the OS list) whenever the value changes. The disk is wiped. Given at create, it is only recorded.',
    }),
    ...(family.migratesToPro
      ? {
          migrate_to_pro: string({
            optional: true,
            action: true,
            validate: [rules.digits],
            description:
              'One-shot migration to Lite Pro: the value is a product id from `provider_lite_pro_products`. The VM keeps being managed by this resource after it moves. Given at create, it is only recorded.',
          }),
        }
      : {}),
    disk_size: int64({
      optional: true,
      computed: true,
      follows: true,
      growOnly: true,
      validate: [rules.id],
      description:
        'The disk size in GB, an absolute target. Grow-only: raising it orders a storage upgrade (a paid order); lowering it is refused at plan time. Unset, it reports the current size. ' +
        "The maximum is checked at plan time, from the VM's storage options (for a new VM, those of another VM of the family in the account; with none, the plan warns that the service checks it only at the storage order, after the VM is ordered).",
    }),
    account_id: accountIdAttribute,
    status: string({ computed: true, description: '`Active`, `Pending`, `Suspended` or `Terminated`.' }),
    order_id: string({ computed: true, stable: true, description: 'The order that created the VM.' }),
    uptime: int64({
      computed: true,
      live: true,
      description:
        'Seconds since the last start; 0 when not running. A live figure: recorded by each apply, and by a refresh only when it finds another change, so a refresh that finds nothing else changed leaves the state as it was.',
    }),
    maxdisk: int64({ computed: true, description: 'Disk capacity in bytes.' }),
    maxmem: int64({ computed: true, description: 'Memory capacity in bytes.' }),
    mem: int64({
      computed: true,
      live: true,
      description: 'Memory in use in bytes. A live figure, recorded as `uptime` is.',
    }),
    cpus: int64({ computed: true, description: 'Number of vCPUs.' }),
    ciuser: string({ computed: true, stable: true, description: 'The cloud-init user.' }),
    cipassword: string({ computed: true, sensitive: true, stable: true, description: 'The cloud-init password.' }),
    osname: string({ computed: true, description: 'The installed OS.' }),
    region: string({ computed: true, stable: true, description: 'Region code.' }),
    region_label: string({ computed: true, stable: true, description: 'Region name.' }),
    next_due: string({ computed: true, description: 'Next billing date.' }),
    recurring_amount: int64({ computed: true, description: 'Renewal price of one cycle, in the smallest currency unit.' }),
    billingcycle: string({ computed: true, stable: true, description: 'The billing cycle as the service names it.' }),
    product_name: string({ computed: true, description: 'Name of the current product.' }),
    last_invoice: lastInvoiceAttribute,
    raw: rawAttribute,
  }
}

/**
 * What a new VM of the family orders: the product at its cycle and, when `disk_size` asks for more
 * than the product's base disk, the storage upgrade ordered right after it (the tiered price of the
 * GB above the base). A VM restored from a snapshot has no `disk_size`: its product is quoted alone.
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
 * product (and whether it has an IP address to give), the cycle it offers and, when `os` is given,
 * the OS names of the product.
 */
export function newVmChecks<A extends Attributes>(
  family: LiteFamily,
  options: { os: boolean; diskSize?: boolean },
): CreateCheck<Client, A>[] {
  type Input = { product_id?: number | null; cycle?: string | null; select_os?: string | null; disk_size?: number | null }
  const catalog = `${family.prefix}_products`
  const checks: CreateCheck<Client, A>[] = [
    {
      attribute: 'product_id' as keyof A & string,
      async check({ client, input, signal }) {
        const id = (input as Input).product_id ?? 0
        const wrong = productRule(await family.api(client).listProducts({ signal }), id, catalog)
        if (wrong) return wrong
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
  ]
  if (options.diskSize) {
    checks.push({
      attribute: 'disk_size' as keyof A & string,
      async check({ client, input, signal, warn }) {
        const size = (input as Input).disk_size
        if (typeof size !== 'number') return null
        // The catalog states no maximum; every VM's storage options state its family's (L11). Any VM of
        // the family in the account answers it before the VM order; with none, the storage order after
        // the VM's is the first place it can be checked (see the attribute's description).
        const api = family.api(client)
        const vm = (await api.listVms({ signal }))[0]
        if (vm === undefined) {
          // Nothing states the maximum before a VM of the family exists: say so when a storage order follows.
          const product = productOf(await api.listProducts({ signal }), (input as Input).product_id)
          const base = product?.options?.disk ?? 0
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

type VmAttributes = ReturnType<typeof vmAttributes>
type Vm = State<VmAttributes>
type Located = { api: LiteApi; account: LiteVmAccount; migrated: boolean }

export function liteVm(family: LiteFamily) {
  const attributes = vmAttributes(family)
  const what = `${family.title} VM`

  /** The group the VM lives in: a migrated Lite VM answers only under `/lite-pros` (the migration to Lite Pro). */
  function groups(client: Client, prior: Partial<Vm> | null): LiteApi[] {
    if (!family.migratesToPro) return [family.api(client)]
    const own = family.api(client)
    const pro = litePro.api(client)
    const fired = typeof prior?.migrate_to_pro === 'string' && prior.migrate_to_pro !== ''
    return fired ? [pro, own] : [own, pro]
  }

  /** Runs `call` in the VM's group, trying the other group on 404. */
  async function inGroup<T>(
    client: Client,
    prior: Partial<Vm> | null,
    call: (api: LiteApi) => Promise<T>,
  ): Promise<{ api: LiteApi; value: T }> {
    const [first, second] = groups(client, prior)
    try {
      return { api: first!, value: await call(first!) }
    } catch (thrown) {
      if (!second || !(thrown as { notFound?: boolean }).notFound) throw thrown
      return { api: second, value: await call(second) }
    }
  }

  async function locate(ctx: OperationContext<Client>, id: string, prior: Partial<Vm> | null): Promise<Located> {
    const { api, value } = await inGroup(ctx.client, prior, (a) => a.getVm(id, { signal: ctx.signal }))
    return { api, account: value, migrated: api !== family.api(ctx.client) }
  }

  /** L4, or null while the VM is not Active or Suspended (409): the previous values are kept. */
  async function details(ctx: OperationContext<Client>, api: LiteApi, account: LiteVmAccount): Promise<VmDetails | null> {
    if (account.status !== 'Active' && account.status !== 'Suspended') return null
    try {
      return await api.getVmDetails(account.account_id, { signal: ctx.signal })
    } catch (thrown) {
      if ((thrown as { status?: number }).status === 409) return null
      throw thrown
    }
  }

  /** The one mapping from the API to state, for every read. */
  function observe(located: Located, vmDetails: VmDetails | null, prior: Partial<Vm> | null, importing: boolean) {
    const { account, migrated } = located
    const extra = account.extra_details
    const serverDisk = extra.disk_size
    const priorDisk = prior?.disk_size ?? null
    return {
      id: account.account_id,
      account_id: accountNumber(account.account_id),
      // After a migration the product is a Pro one; it is never copied into the Lite input (the import rules).
      ...(migrated ? {} : { product_id: account.product_id }),
      // A migration whose answer was lost (a kill, or a 502 from a service that ignores keys) shows in
      // the service: the VM now answers as a Pro VM. Recording its Pro product as done means the next
      // plan does not migrate it again; a value already recorded stays (a later package change moves
      // the Pro product, not the migration that was asked).
      ...((migrated && 'migrate_to_pro' in attributes && !(prior as { migrate_to_pro?: string | null } | null)?.migrate_to_pro && !importing
        ? { migrate_to_pro: String(account.product_id) }
        : {}) as Record<never, never>),
      cycle: cycleCode(account.billingcycle) ?? undefined,
      keypair_id: extra.keypair_id ?? undefined,
      vm_name: extra.name,
      ssh_and_console_user: extra.ciuser,
      console_password: extra.cipassword,
      description: account.description,
      // A floor: change-package and migration may raise the disk above the target, which is no drift.
      disk_size: importing || priorDisk === null || serverDisk < priorDisk ? serverDisk : undefined,
      ...(importing
        ? {
            select_os: extra.osname,
            power_state: vmDetails ? (POWER_FROM_STATUS[vmDetails.status] ?? null) : null,
          }
        : {}),
      status: account.status,
      order_id: account.order_id,
      ...(vmDetails
        ? { uptime: vmDetails.uptime, maxdisk: vmDetails.maxdisk, maxmem: vmDetails.maxmem, mem: vmDetails.mem, cpus: vmDetails.cpus }
        : prior
          ? {}
          : { uptime: null, maxdisk: null, maxmem: null, mem: null, cpus: null }),
      ciuser: extra.ciuser,
      cipassword: extra.cipassword,
      osname: extra.osname,
      region: extra.region,
      region_label: extra.region_label,
      next_due: account.next_due,
      recurring_amount: account.recurring_amount,
      billingcycle: account.billingcycle,
      product_name: account.product_name,
      last_invoice: invoiceState(account.last_invoice),
      raw: raw(account),
    }
  }

  async function readVm(ctx: OperationContext<Client>, id: string, prior: Partial<Vm> | null, importing: boolean) {
    let located: Located
    try {
      located = await locate(ctx, id, prior)
    } catch (thrown) {
      if (importing && isNotFound(thrown)) await refuseOtherFamily(ctx, id)
      throw thrown
    }
    if (isTerminated(located.account)) return null
    if (importing) refuseOtherType(id, located)
    return observe(located, await details(ctx, located.api, located.account), prior, importing)
  }

  /**
   * An import takes only a VM of this resource type: a Lite Pro VM (a migrated Lite VM is one) or a
   * VM restored from a snapshot is managed by its own type, whose delete and steps fit it.
   */
  function refuseOtherType(id: string, { account, migrated }: Located): void {
    if (migrated) {
      throw new InputError(
        [],
        `VM ${id} is a Lite Pro VM (a Lite VM moved with migrate_to_pro is one from then on): import it as lite_pro_vm, ` +
          'or move a lite_vm already managed to lite_pro_vm with a moved block.',
      )
    }
    if (family.restoresSnapshots && account.extra_details.snapshot_id !== null) {
      throw new InputError(
        [],
        `VM ${id} was restored from snapshot ${account.extra_details.snapshot_id}: import it as ${family.prefix}_vm_from_snapshot.`,
      )
    }
  }

  /** A VM this family does not have may be one of the other family: the message names its type. */
  async function refuseOtherFamily(ctx: OperationContext<Client>, id: string): Promise<void> {
    const other = family.migratesToPro ? null : lite
    if (!other) return
    try {
      await other.api(ctx.client).getVm(id, { signal: ctx.signal })
    } catch {
      return // not there either: the import reports a missing object
    }
    throw new InputError([], `VM ${id} is a ${other.title} VM, not a ${family.title} one: import it as ${other.prefix}_vm.`)
  }

  /** Waits for an order on the VM: the Active account, or null when it waits for payment. */
  async function settle(ctx: OperationContext<Client>, api: LiteApi, id: string, timeoutMs: number, orderedAt: number, orderId?: string) {
    const read = () => api.getVm(id, { signal: ctx.signal })
    const { account, unpaid } = await waitForOrder(ctx, read, { account_id: id, order_id: orderId }, { timeoutMs, orderedAt, what })
    return unpaid ? null : account
  }

  /**
   * Everything a create does once the order answered: wait, grow the disk, apply the power state.
   * Also the resumption of a create or step whose wait did not finish, so each call here is guarded
   * by what the server reports and never repeats an order that took effect.
   */
  async function finish(
    ctx: OperationContext<Client> & { id: string; input: Partial<Vm>; timeoutMs: number; resumeLater(): void },
    api: LiteApi,
    prior: Partial<Vm> | null,
  ) {
    const deadline = ctx.client.now() + ctx.timeoutMs
    const remaining = () => Math.max(1, deadline - ctx.client.now())
    const migrated = api !== family.api(ctx.client)
    const pending = (account: LiteVmAccount) => {
      // Waiting for payment: a disk size or power state asked for is applied by a later apply.
      if (typeof ctx.input.disk_size === 'number' || (ctx.input.power_state ?? '') !== '') ctx.resumeLater()
      return observe({ api, account, migrated }, null, prior, false)
    }
    let account = await settle(ctx, api, ctx.id, remaining(), ctx.client.now())
    if (!account) return pending(await api.getVm(ctx.id, { signal: ctx.signal }))
    const target = ctx.input.disk_size
    if (typeof target === 'number' && target > account.extra_details.disk_size) {
      const order = await api.upgradeStorage(ctx.id, { disk_size: target, pay_invoice_with_cc: payFlag(ctx.input) }, { signal: ctx.signal })
      account = await settle(ctx, api, ctx.id, remaining(), ctx.client.now(), order.order_id)
      if (!account) return pending(await api.getVm(ctx.id, { signal: ctx.signal }))
    }
    let current = await details(ctx, api, account)
    const power = ctx.input.power_state
    if (current && typeof power === 'string' && power !== '' && current.status !== POWER_EFFECT[power]) {
      await api.setVmState(ctx.id, power as VmAction, { signal: ctx.signal })
      current = await details(ctx, api, account)
    }
    return observe({ api, account, migrated }, current, prior, false)
  }

  type Step = UpdateStep<Client, VmAttributes>['apply']

  const rename: Step = async (ctx) => {
    await inGroup(ctx.client, ctx.prior, (api) => api.renameVm(ctx.id, { name: ctx.input.vm_name ?? '' }, { signal: ctx.signal }))
    return undefined
  }
  const changeKeypair: Step = async (ctx) => {
    await inGroup(ctx.client, ctx.prior, (api) =>
      api.changeVmKeypair(ctx.id, { keypair_id: ctx.input.keypair_id ?? 0 }, { signal: ctx.signal }),
    )
    return undefined
  }
  const changePackage: Step = async (ctx) => {
    const { api, value: order } = await inGroup(ctx.client, ctx.prior, (a) =>
      a.changePackage(
        ctx.id,
        { new_product_id: ctx.input.product_id ?? 0, pay_invoice_with_cc: payFlag(ctx.input) },
        { signal: ctx.signal },
      ),
    )
    await keepAndWait(ctx, order, undefined, (id) => api.getVm(id, { signal: ctx.signal }), what)
    return undefined
  }
  const growDisk: Step = async (ctx) => {
    const target = ctx.input.disk_size
    if (typeof target !== 'number') return undefined
    const { api, value: account } = await inGroup(ctx.client, ctx.prior, (a) => a.getVm(ctx.id, { signal: ctx.signal }))
    if (target <= account.extra_details.disk_size) return undefined
    const order = await api.upgradeStorage(ctx.id, { disk_size: target, pay_invoice_with_cc: payFlag(ctx.input) }, { signal: ctx.signal })
    await keepAndWait(ctx, order, undefined, (id) => api.getVm(id, { signal: ctx.signal }), what)
    return undefined
  }
  const rebuild: Step = async (ctx) => {
    const os = ctx.input.rebuild_os ?? ''
    const { api } = await inGroup(ctx.client, ctx.prior, (a) => a.rebuildVm(ctx.id, { select_os: os }, { signal: ctx.signal }))
    const startedAt = ctx.client.now()
    ctx.checkpoint() // destructive: never fired twice for one change, even if the wait fails
    await settle(ctx, api, ctx.id, ctx.timeoutMs, startedAt)
    return undefined
  }
  const migrate: Step = async (ctx) => {
    const productId = Number(ctx.input.migrate_to_pro)
    const migration = family.migration?.(ctx.client)
    if (!migration) throw new Error(`${what}s cannot migrate to Lite Pro`)
    const order = await migration.migrateToPro(
      ctx.id,
      { lite_pro_product_id: productId, pay_invoice_with_cc: payFlag(ctx.input) },
      { signal: ctx.signal },
    )
    // From the answer on, the VM lives under /lite-pros (the migration to Lite Pro).
    await keepAndWait(ctx, order, undefined, (id) => litePro.api(ctx.client).getVm(id, { signal: ctx.signal }), what)
    return undefined
  }
  const setPower: Step = async (ctx) => {
    const action = ctx.input.power_state as VmAction
    await inGroup(ctx.client, ctx.prior, (api) => api.setVmState(ctx.id, action, { signal: ctx.signal }))
    return undefined
  }

  // The orders of the paid steps, priced as the service bills them: the difference of the cycle
  // prices (never below 0) for a package change or migration, the tiered storage price of the GB
  // added for a bigger disk.
  const stepPrices: Record<string, UpdateStep<Client, VmAttributes>['price']> = {
    product_id: async ({ client, signal, prior, input }) => {
      const products = await family.api(client).listProducts({ signal })
      const target = billingOf(products, input.product_id ?? 0, prior.cycle)
      const current = billingOf(products, prior.product_id, prior.cycle)
      return [
        quote(`package change to ${productLabel(target.product)}`, Math.max(0, target.option.price - current.option.price), target.option),
      ]
    },
    disk_size: async ({ client, signal, prior, input }) => {
      const target = known(input.disk_size)
      const current = prior.disk_size ?? 0
      if (target === null || target <= current) return []
      // A package change in the same plan runs first, so `prior` has the planned product (the base
      // disk is its own), which may be known only after apply (then so is this price).
      const productId = known(prior.product_id)
      if (productId === null) return null
      const { product, option } = billingOf(await family.api(client).listProducts({ signal }), productId, prior.cycle)
      const base = product.options?.disk ?? current
      const steps = componentSteps(option, 'disk_size')
      const due = tiered(steps, Math.max(0, target - base)) - tiered(steps, Math.max(0, current - base))
      return [quote(`storage upgrade from ${current} to ${target} GB`, Math.max(0, due), option)]
    },
    migrate_to_pro: async ({ client, signal, prior, input }) => {
      const migration = family.migration?.(client)
      if (!migration) return []
      const targets = await migration.listMigrateToProProducts(prior.id, { signal })
      const target = billingOf(targets, Number(input.migrate_to_pro), prior.cycle)
      const current = billingOf(await family.api(client).listProducts({ signal }), prior.product_id, prior.cycle)
      return [
        quote(
          `migration to Lite Pro ${productLabel(target.product)}`,
          Math.max(0, target.option.price - current.option.price),
          target.option,
        ),
      ]
    },
  }

  type Affected = UpdateStep<Client, VmAttributes>['affects']
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

  const steps: UpdateStep<Client, VmAttributes>[] = [
    // `affects`: what a plan shows as unknown; a rename or a key change touches no figure or invoice.
    { attributes: ['vm_name'], affects: ['raw'], apply: rename },
    { attributes: ['keypair_id'], affects: ['raw'], apply: changeKeypair },
    { attributes: ['product_id'], affects: packageChange, apply: changePackage },
    { attributes: ['disk_size'], affects: storageUpgrade, apply: growDisk },
    { attributes: ['rebuild_os'], affects: reinstall, apply: rebuild },
    ...(family.migratesToPro
      ? [{ attributes: ['migrate_to_pro'] as ('migrate_to_pro' & keyof VmAttributes)[], affects: migration, apply: migrate }]
      : []),
    { attributes: ['power_state'], affects: ['uptime', 'mem', 'raw'], apply: setPower },
  ]

  // The same calls as the power_state and rebuild_os steps, run on demand (Terraform actions, Pulumi methods).
  const methods = [
    defineMethod<Client, { state: ReturnType<typeof string> }>({
      name: 'power',
      description: `Runs a power action on the ${what}: \`start\`, \`stop\` (hard), \`shutdown\` (graceful), \`suspend\` or \`resume\`.`,
      inputs: {
        state: string({ required: true, validate: [oneOf(POWER_STATES)], description: 'The power action to run.' }),
      },
      timeout: '5m',
      async run(ctx) {
        const action = ctx.input.state as VmAction
        await inGroup(ctx.client, null, (api) => api.setVmState(ctx.id, action, { signal: ctx.signal }))
        ctx.progress(`power action ${action} sent to ${what} ${ctx.id}`)
      },
    }),
    defineMethod<Client, { os: ReturnType<typeof string> }>({
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
              located = await inGroup(client, null, (api) => api.getVm(id, { signal }))
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
        const { api } = await inGroup(ctx.client, null, (a) => a.rebuildVm(ctx.id, { select_os: os }, { signal: ctx.signal }))
        const startedAt = ctx.client.now()
        ctx.progress(`rebuild of ${what} ${ctx.id} with ${os} started; waiting until it is Active again`)
        await settle(ctx, api, ctx.id, ctx.timeoutMs, startedAt)
        ctx.progress(`${what} ${ctx.id} is Active again with ${os}`)
      },
    }),
  ]

  const pricedSteps = steps.map((step) => {
    const price = stepPrices[step.attributes[0] as string]
    return price ? { ...step, price } : step
  })

  return defineResource<Client, VmAttributes>({
    name: `${family.prefix}_vm`,
    description:
      `A ${what}. Creating it places a paid order and waits until the VM is Active; name, keypair, package, ` +
      'disk size, power state and OS rebuild change in place, in that order.',
    importId: digitsId('account id'),
    timeouts: { create: '20m', update: '20m', delete: '10m' },
    attributes,
    updates: pricedSteps,
    methods,
    createChecks: newVmChecks<VmAttributes>(family, { os: true, diskSize: true }),
    priceCreate: newVmPrice<VmAttributes>(family),
    // A Lite VM migrated with migrate_to_pro is a Lite Pro VM: its lite_vm state can move here.
    movesFrom: family.migratesToPro
      ? []
      : [
          {
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
          },
        ],
    planChecks: [
      {
        attribute: 'product_id',
        async check({ client, id, prior, input, signal }) {
          const { value: options } = await inGroup(client, prior, (api) => api.getChangePackageOptions(id, { signal }))
          const ids = options.packages.map((p) => p.product_id)
          if (ids.includes(input.product_id ?? 0)) return null
          // The VM may have it already: a change whose answer a killed run lost, planned from a state
          // saved before it (Pulumi's `up` does not read first). The order journal answers the step.
          const { value: vm } = await inGroup(client, prior, (api) => api.getVm(id, { signal }))
          if (vm.product_id === input.product_id) return null
          return ids.length === 0
            ? `cannot change: VM ${id} has no package to change to`
            : `must be a package VM ${id} can change to: ${quoted(ids)}`
        },
      },
      {
        attribute: 'disk_size',
        async check({ client, id, prior, input, signal }) {
          const { value: storage } = await inGroup(client, prior, (api) => api.getStorageOptions(id, { signal }))
          return sizeRule(input.disk_size ?? 0, { max: storage.max_disk_size }, `VM ${id}`)
        },
      },
      {
        attribute: 'rebuild_os',
        async check({ client, input, signal }) {
          // The package change runs before the rebuild, so the planned product's OS list applies.
          const oss = await family.api(client).listOss(input.product_id ?? 0, { signal })
          const names = oss.map((o) => o.name)
          return names.includes(input.rebuild_os ?? '') ? null : `must be one of ${names.map((n) => JSON.stringify(n)).join(', ')}`
        },
      },
      ...(family.migration
        ? [
            {
              attribute: 'migrate_to_pro' as const,
              async check({ client, id, prior, input, signal }: PlanCheckContext<Client, VmAttributes>) {
                const migration = family.migration?.(client)
                if (!migration) return null
                const api = groups(client, prior)[0]
                if (api !== family.api(client)) return null // already moved: the step is skipped by the service's 404
                const products = await migration.listMigrateToProProducts(id, { signal })
                const ids = products.map((p) => String(p.product_id))
                return ids.includes(input.migrate_to_pro ?? '')
                  ? null
                  : `must be one of the Lite Pro products this VM can move to: ${ids.join(', ')}`
              },
            },
          ]
        : []),
    ],
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
      ctx.checkpoint({ id: order.account_id, order_id: order.order_id, status: 'Pending' })
      const observed = await finish({ ...ctx, id: order.account_id }, family.api(ctx.client), null)
      return { ...observed, power_state: input.power_state ?? null }
    },
    async resume(ctx) {
      const { api } = await locate(ctx, ctx.id, ctx.prior)
      return finish(ctx, api, ctx.prior)
    },
    read: (ctx) => readVm(ctx, ctx.id, ctx.prior, ctx.importing),
    async delete(ctx) {
      await inGroup(ctx.client, ctx.prior, (api) => api.deleteVm(ctx.id, { signal: ctx.signal }))
    },
    unrecoverable: [...ORDER_TIME_INPUTS, 'rebuild_os', ...(family.migratesToPro ? (['migrate_to_pro'] as const) : [])],
    list: {
      // A VM restored from a snapshot is listed by its own type, as its import requires.
      ids: async ({ client, signal }) =>
        (await family.api(client).listVms({ signal }))
          .filter((vm) => !family.restoresSnapshots || vm.extra_details.snapshot_id === null)
          .map((vm) => vm.account_id),
      filters: {
        vm_name_prefix: { attribute: 'vm_name', match: 'prefix', description: 'Only VMs whose name starts with this.' },
        status: statusFilter('VMs'),
      },
      displayName: 'vm_name',
    },
  })
}

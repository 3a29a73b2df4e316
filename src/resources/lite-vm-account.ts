/**
 * A Lite or Lite Pro VM as the service answers for it: the group that serves it (a migrated Lite VM
 * answers only under `/lite-pros`), its read and import (the one mapping from the API to state), and
 * the waits after an order, shared by the VM's create, resume, update steps and methods.
 */
import type { Client, LiteApi, LiteVmAccount, VmAction, VmDetails } from '../api/index.js'
import { InputError, type OperationContext, ownCall } from '../core/index.js'
import { accountIds, cycleCode, invoiceState, POWER_NOTE, type PowerReadContext, raw, waitForOrder, warnPowerChanged } from './billing.js'
import { type AccountKind, accountElsewhere } from './account-kinds.js'
import { isNotFound } from './catalog-rules.js'
import { type LiteFamily, lite, litePro } from './lite-family.js'
import { POWER_EFFECT, POWER_FROM_STATUS, type Vm } from './lite-vm-attributes.js'
import { isTerminated, payFlag } from './ordered-account.js'

/** What the VM is called in messages: `Lite VM`, `Lite Pro VM`. */
export const vmNoun = (family: LiteFamily) => `${family.title} VM`

/** Where the VM was found: the group's API, its account, and whether it moved to Lite Pro. */
type Located = { api: LiteApi; account: LiteVmAccount; migrated: boolean }

/** The group the VM lives in: a migrated Lite VM answers only under `/lite-pros` (the migration to Lite Pro). */
export function groups(family: LiteFamily, client: Client, prior: Partial<Vm> | null): LiteApi[] {
  if (!family.migratesToPro) return [family.api(client)]
  const own = family.api(client)
  const pro = litePro.api(client)
  const fired = typeof prior?.migrate_to_pro === 'string' && prior.migrate_to_pro !== ''
  return fired ? [pro, own] : [own, pro]
}

/**
 * Runs `call` in the VM's group, trying the other group on 404. When neither group has the VM, the
 * first group's answer is the one reported: a Lite VM's missing id is not a Lite Pro path's 404.
 */
export async function inGroup<T>(
  family: LiteFamily,
  client: Client,
  prior: Partial<Vm> | null,
  call: (api: LiteApi) => Promise<T>,
): Promise<{ api: LiteApi; value: T }> {
  const [first, second] = groups(family, client, prior)
  try {
    return { api: first!, value: await call(first!) }
  } catch (thrown) {
    if (!second || !isNotFound(thrown)) throw thrown
    try {
      return { api: second, value: await call(second) }
    } catch (again) {
      throw isNotFound(again) ? thrown : again
    }
  }
}

export async function locate(family: LiteFamily, ctx: OperationContext<Client>, id: string, prior: Partial<Vm> | null): Promise<Located> {
  const { api, value } = await inGroup(family, ctx.client, prior, (a) => a.getVm(id, { signal: ctx.signal }))
  return { api, account: value, migrated: api !== family.api(ctx.client) }
}

/**
 * L4, or null while the VM is not Active or Suspended (409), or while its details are not found (404,
 * 410): the previous values are kept. The account read just found the VM, so a not-found here says
 * nothing of the VM (core takes only its own call's as gone: ownCall), nor fails the refresh.
 */
async function details(ctx: OperationContext<Client>, api: LiteApi, account: LiteVmAccount): Promise<VmDetails | null> {
  if (account.status !== 'Active' && account.status !== 'Suspended') return null
  try {
    return await api.getVmDetails(account.account_id, { signal: ctx.signal })
  } catch (thrown) {
    if ((thrown as { status?: number }).status === 409 || isNotFound(thrown)) return null
    throw thrown
  }
}

/** The one mapping from the API to state, for every read. */
function observe(family: LiteFamily, located: Located, vmDetails: VmDetails | null, prior: Partial<Vm> | null, importing: boolean) {
  const { account, migrated } = located
  const extra = account.extra_details
  const serverDisk = extra.disk_size
  const priorDisk = prior?.disk_size ?? null
  return {
    ...accountIds(account),
    // After a migration the product is a Pro one; it is never copied into the Lite input (the import rules).
    ...(migrated ? {} : { product_id: account.product_id }),
    // A migration whose answer was lost (a kill, or a 502 from a service that ignores keys) shows in
    // the service: the VM now answers as a Pro VM. Recording its Pro product as done means the next
    // plan does not migrate it again; a value already recorded stays (a later package change moves
    // the Pro product, not the migration that was asked).
    ...((migrated && family.migratesToPro && !(prior as { migrate_to_pro?: string | null } | null)?.migrate_to_pro && !importing
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

export async function readVm(family: LiteFamily, ctx: PowerReadContext, id: string, prior: Partial<Vm> | null, importing: boolean) {
  const located = await ownCall(locate(family, ctx, id, prior))
  if (isTerminated(located.account)) return null
  if (importing) refuseOtherType(family, id, located)
  const vmDetails = await details(ctx, located.api, located.account)
  const setting = prior?.power_state
  if (!importing && vmDetails && typeof setting === 'string' && setting !== '') {
    const expected = POWER_EFFECT[setting]
    const matching = POWER_FROM_STATUS[vmDetails.status]
    if (vmDetails.status === expected) ctx.note(POWER_NOTE, null)
    if (expected !== undefined && matching !== undefined && vmDetails.status !== expected) {
      warnPowerChanged(ctx, {
        what: `${vmNoun(family)} ${id}`,
        found: vmDetails.status,
        setting,
        matching,
        action: `provider_${family.prefix}_vm_power`,
        cause: vmDetails.status === 'running' ? (ctx.notes[POWER_NOTE] ?? null) : null,
      })
    }
  }
  return observe(family, located, vmDetails, prior, importing)
}

/**
 * An import takes only a VM of this resource type: a Lite Pro VM (a migrated Lite VM is one) or a
 * VM restored from a snapshot is managed by its own type, whose delete and steps fit it.
 */
function refuseOtherType(family: LiteFamily, id: string, { account, migrated }: Located): void {
  if (migrated) {
    throw new InputError(
      [],
      `VM ${id} is a Lite Pro VM (a Lite VM moved with migrate_to_pro is one from then on): import it as lite_pro_vm. ` +
        'A lite_vm already managed moves to lite_pro_vm with a moved block in Terraform; in Pulumi, remove it from the ' +
        'stack (pulumi state delete <urn>, which deletes nothing in the service) and import it as lite_pro_vm.',
    )
  }
  if (family.restoresSnapshots && account.extra_details.snapshot_id !== null) {
    throw new InputError(
      [],
      `VM ${id} was restored from snapshot ${account.extra_details.snapshot_id}: import it as ${family.prefix}_vm_from_snapshot.`,
    )
  }
}

/**
 * The VMs of a family as a kind of account: read by L3, imported as a VM restored from a snapshot when
 * the account says it was (extra_details.snapshot_id), else as a VM.
 */
export function vmKind(family: LiteFamily): AccountKind {
  return {
    type: `${family.prefix}_vm`,
    what: vmNoun(family),
    get: (client, id, signal) => family.api(client).getVm(id, { signal }),
    importAs: (account) =>
      (account as LiteVmAccount).extra_details?.snapshot_id ? `${family.prefix}_vm_from_snapshot` : `${family.prefix}_vm`,
    alike: [`${family.prefix}_vm_from_snapshot`],
  }
}

/**
 * `elsewhere` of a VM: an id a Lite Pro VM import does not find may be a Lite VM, whose type the message
 * names (a Lite VM import finds a Lite Pro one itself, and refuses it as migrated: refuseOtherType), or
 * another kind of account.
 */
export async function otherFamilyVm(family: LiteFamily, ctx: OperationContext<Client>, id: string): Promise<string | undefined> {
  const other = family.migratesToPro ? null : lite
  if (other) {
    try {
      await other.api(ctx.client).getVm(id, { signal: ctx.signal })
      return `VM ${id} is a ${other.title} VM, not a ${family.title} one: import it as ${other.prefix}_vm`
    } catch (thrown) {
      if (!isNotFound(thrown)) throw thrown
    }
  }
  // Not a VM of either family: perhaps another kind of account (a disk, a snapshot, a Metal server).
  return accountElsewhere(`${family.prefix}_vm`, ctx.client, id, ctx.signal)
}

/** Waits for an order on the VM: the Active account, or null when it waits for payment. */
export async function settle(
  family: LiteFamily,
  ctx: OperationContext<Client>,
  api: LiteApi,
  id: string,
  timeoutMs: number,
  orderedAt: number,
  orderId?: string,
) {
  const read = () => api.getVm(id, { signal: ctx.signal })
  const { account, unpaid } = await waitForOrder(
    ctx,
    read,
    { account_id: id, order_id: orderId },
    { timeoutMs, orderedAt, what: vmNoun(family) },
  )
  return unpaid ? null : account
}

/**
 * Everything a create does once the order answered: wait, grow the disk, apply the power state.
 * Also the resumption of a create or step whose wait did not finish, so each call here is guarded
 * by what the server reports and never repeats an order that took effect.
 */
export async function finish(
  family: LiteFamily,
  ctx: OperationContext<Client> & { id: string; input: Partial<Vm>; timeoutMs: number; resumeLater(): void; waitOnly?: boolean },
  api: LiteApi,
  prior: Partial<Vm> | null,
) {
  const deadline = ctx.client.now() + ctx.timeoutMs
  const remaining = () => Math.max(1, deadline - ctx.client.now())
  const migrated = api !== family.api(ctx.client)
  const pending = (account: LiteVmAccount) => {
    // Waiting for payment: a disk size or power state asked for is applied by a later apply.
    if (typeof ctx.input.disk_size === 'number' || (ctx.input.power_state ?? '') !== '') ctx.resumeLater()
    return observe(family, { api, account, migrated }, null, prior, false)
  }
  let account = await settle(family, ctx, api, ctx.id, remaining(), ctx.client.now())
  // Steps of the same update follow (a package change): the disk and the power come after them, in a
  // second call (or, while the invoice is unpaid, in the next apply's resume: the mark stays).
  if (ctx.waitOnly === true) {
    const shown = account ?? (await api.getVm(ctx.id, { signal: ctx.signal }))
    return observe(family, { api, account: shown, migrated }, null, prior, false)
  }
  if (!account) return pending(await api.getVm(ctx.id, { signal: ctx.signal }))
  const target = ctx.input.disk_size
  if (typeof target === 'number' && target > account.extra_details.disk_size) {
    const order = await api.upgradeStorage(ctx.id, { disk_size: target, pay_invoice_with_cc: payFlag(ctx.input) }, { signal: ctx.signal })
    account = await settle(family, ctx, api, ctx.id, remaining(), ctx.client.now(), order.order_id)
    if (!account) return pending(await api.getVm(ctx.id, { signal: ctx.signal }))
  }
  let current = await details(ctx, api, account)
  const power = ctx.input.power_state
  if (current && typeof power === 'string' && power !== '' && current.status !== POWER_EFFECT[power]) {
    await api.setVmState(ctx.id, power as VmAction, { signal: ctx.signal })
    current = await details(ctx, api, account)
  }
  return observe(family, { api, account, migrated }, current, prior, false)
}

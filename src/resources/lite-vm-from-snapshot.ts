/** provider_lite_vm_from_snapshot: a new VM restored from a snapshot (S4); deleting it never touches the snapshot. */
import type { Client, LiteSnapshotAccount, LiteVmAccount } from '../api/index.js'
import { type Attributes, type CreateCheckContext, defineResource, InputError, ownCall, type Pricing, string } from '../core/index.js'
import { accountIds, cycleAttribute, cycleCode, digitsId, idInput, LITE_CYCLES, textRules } from './billing.js'
import type { LiteFamily } from './lite-family.js'
import { accountListing, isTerminated, orderDescriptionAttribute, orderedAccount, orderedOutputs, orderInputs } from './ordered-account.js'
import { accountCheck, isNotFound, productOf } from './catalog-rules.js'
import { newVmChecks, newVmPrice } from './lite-vm.js'
import { known } from './prices.js'
import { inGroup, vmKind } from './lite-vm-account.js'
import { consolePasswordAttributes, consoleUserRules } from './lite-vm-attributes.js'

export function liteVmFromSnapshot(family: LiteFamily) {
  const what = `${family.title} VM`
  const attributes = {
    snapshot_id: idInput('The snapshot to restore (its account id).'),
    product_id: idInput(`The product of the new VM, from \`provider_${family.prefix}_products\`.`),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle of the new VM: `m a q s b t p4 p5`.'),
    keypair_id: idInput(`A keypair of the ${family.title} pool.`),
    name: string({
      required: true,
      createOnly: true,
      validate: textRules.shortName,
      description: 'The VM name, 6-16 characters.',
    }),
    ssh_and_console_user: string({
      required: true,
      createOnly: true,
      validate: consoleUserRules,
      description: 'The SSH and console user.',
    }),
    ...consolePasswordAttributes('VM'),
    description: orderDescriptionAttribute,
    ...orderInputs('the order'),
    ...orderedOutputs('VM'),
  }
  // A restored VM is a Lite VM: it can move to Lite Pro (in the portal, or with the API's migration),
  // and from then on answers only under /lite-pros. It stays managed here, and its Pro product is never
  // copied into the Lite product_id input (that would plan a replacement: a second paid restore).
  const observe = (account: LiteVmAccount, migrated = false) => ({
    ...accountIds(account),
    snapshot_id: account.extra_details.snapshot_id === null ? undefined : Number(account.extra_details.snapshot_id),
    product_id: migrated ? undefined : account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    keypair_id: account.extra_details.keypair_id ?? undefined,
    name: account.extra_details.name,
    ssh_and_console_user: account.extra_details.ciuser,
    console_password: account.extra_details.cipassword,
    description: account.description,
    status: account.status,
    order_id: account.order_id,
  })
  return defineResource<Client, typeof attributes>({
    name: `${family.prefix}_vm_from_snapshot`,
    description:
      `A new ${what} restored from a snapshot. Creating it places an order and waits until the VM is Active. ` +
      'Every input except the payment flag is create-only. Deleting it deletes the VM, never the snapshot.',
    importId: digitsId('account id'),
    timeouts: { create: '60m', delete: '10m' },
    attributes,
    updates: [],
    createChecks: [
      accountCheck<typeof attributes>('snapshot_id', `a ${family.title} snapshot`, (client, id, signal) =>
        family.api(client).getSnapshot(id, { signal }),
      ),
      ...newVmChecks<typeof attributes>(family, { os: false, ipAvailability: false }),
    ],
    priceCreate: restorePrice<typeof attributes>(family),
    ...orderedAccount<typeof attributes, LiteVmAccount>({
      type: `${family.prefix}_vm_from_snapshot`,
      kind: vmKind(family),
      what,
      calls: {
        get: async (client, id, signal) => (await inGroup(family, client, null, (api) => api.getVm(id, { signal }))).value,
        delete: async (client, id, signal) => {
          await inGroup(family, client, null, (api) => api.deleteVm(id, { signal }))
        },
      },
      observe: (account) => observe(account),
      order: ({ input, client, signal }, terms) =>
        family.api(client).createVmFromSnapshot(
          input.snapshot_id ?? 0,
          {
            product_id: input.product_id ?? 0,
            cycle: input.cycle ?? '',
            keypair_id: input.keypair_id ?? 0,
            name: input.name ?? '',
            ssh_and_console_user: input.ssh_and_console_user ?? '',
            console_password: input.console_password ?? '',
            description: input.description ?? undefined,
            ...terms,
          },
          { signal },
        ),
      recordsOrder: true,
    }),
    // An import of a VM that was not restored from a snapshot is refused: it is a lite_vm.
    async read({ client, id, importing, signal }) {
      const { api, value: account } = await ownCall(inGroup(family, client, null, (a) => a.getVm(id, { signal })))
      if (isTerminated(account)) return null
      const migrated = api !== family.api(client)
      if (importing && migrated) {
        throw new InputError([], `VM ${id} is a Lite Pro VM (a Lite VM moved to Lite Pro is one from then on): import it as lite_pro_vm.`)
      }
      if (importing && account.extra_details.snapshot_id === null) {
        throw new InputError([], `VM ${id} was not restored from a snapshot: import it as ${family.prefix}_vm.`)
      }
      return observe(account, migrated)
    },
    list: accountListing<typeof attributes>({
      accounts: async (client, signal) =>
        (await family.api(client).listVms({ signal })).filter((vm) => vm.extra_details.snapshot_id !== null),
      filters: {
        name_prefix: { attribute: 'name', match: 'prefix', description: 'Only VMs whose name starts with this.', example: 'restored-' },
      },
      plural: 'VMs',
      displayName: 'name',
    }),
  })
}

/**
 * The restore's order as the service bills it (S4): a new VM of the product with the disk the snapshot
 * gives it, the larger of the snapshot's size and the product's base disk, so a snapshot larger than
 * the base is billed the storage above it, as a new VM of that disk size is. When that size cannot be
 * told at plan time, the product's price is quoted as the least the order costs, saying why.
 */
function restorePrice<A extends Attributes>(family: LiteFamily): Pricing<CreateCheckContext<Client, A>> {
  const newVm = newVmPrice<A>(family)
  const atLeast = (quotes: Awaited<ReturnType<typeof newVm>>, why: string) =>
    quotes === null
      ? null
      : quotes.map((q) => ({
          ...q,
          atLeast: `${why}; a snapshot larger than the product's base disk is billed the storage above the base too`,
        }))
  return async (ctx) => {
    const { snapshot_id: snapshotId, product_id: productId } = ctx.input as { snapshot_id?: unknown; product_id?: unknown }
    if (typeof snapshotId !== 'number') return atLeast(await newVm(ctx), 'the snapshot is known only after apply')
    const disk = await snapshotDisk(family, ctx.client, snapshotId, ctx.signal)
    // Priced as a new VM of that disk size (its input has no disk_size of its own).
    if (typeof disk === 'number') return newVm(withDisk(ctx, disk))
    const base = productOf(await family.api(ctx.client).listProducts({ signal: ctx.signal }), known(productId))?.options?.disk
    // The snapshot is no larger than its VM is now (a VM's disk never shrinks): within the base, no storage is billed.
    if (disk.atMost !== null && typeof base === 'number' && disk.atMost <= base) return newVm(ctx)
    return atLeast(await newVm(ctx), disk.why)
  }
}

function withDisk<X extends { readonly input: unknown }>(ctx: X, disk: number): X {
  return { ...ctx, input: { ...(ctx.input as object), disk_size: disk } }
}

/**
 * The disk size (GB) snapshot `id` captured of its VM, which the service does not show (a snapshot
 * account has no size, S2/S3): it is the size its source VM has now when no order has been placed on
 * that VM since the snapshot (the service takes a snapshot only of an Active VM, which has every
 * change ordered before applied; only an order changes a VM's disk). Otherwise the most it can be (the
 * VM's size now: a disk never shrinks; null when the VM is gone) and why it cannot be told.
 */
async function snapshotDisk(
  family: LiteFamily,
  client: Client,
  id: number,
  signal: AbortSignal,
): Promise<number | { atMost: number | null; why: string }> {
  const api = family.api(client)
  const snapshot = await api.getSnapshot(id, { signal })
  const source = snapshot.extra_details.lite_account_id
  let vm: LiteVmAccount
  try {
    vm = await api.getVm(source, { signal })
  } catch (thrown) {
    if (!isNotFound(thrown)) throw thrown
    return {
      atMost: null,
      why: `the service does not show the disk size snapshot ${id} captured, and its source VM ${source} is gone from the ${family.title} pool`,
    }
  }
  const size = vm.extra_details.disk_size
  if (orderedBefore(vm, snapshot)) return size
  return {
    atMost: size,
    why:
      `the service does not show the disk size snapshot ${id} captured, and its source VM ${source} (${size} GB now) ` +
      'has had an order since the snapshot, so its disk may have grown after it',
  }
}

/**
 * Whether every order placed on `vm` came before `snapshot` was taken: the VM's latest invoice is
 * dated before the snapshot's creation, or on the same day with an earlier number than the snapshot's
 * own first invoice (the service numbers invoices in the order it makes them).
 */
function orderedBefore(vm: LiteVmAccount, snapshot: LiteSnapshotAccount): boolean {
  const last = vm.last_invoice
  const first = snapshot.last_invoice
  if (last === null || !snapshot.date_created) return false
  if (last.date < snapshot.date_created) return true
  const created = first !== null && first.invoice_type === 'new' && first.date === snapshot.date_created
  return created && last.date === snapshot.date_created && last.id < first.id
}

/** provider_lite_disk and provider_lite_pro_disk: an extra disk attached to a VM (the extra-disk calls, the other Lite resources' calls). */
import type { Client, LiteDiskAccount } from '../api/index.js'
import { growthPrice, productPrice } from './prices.js'
import { type AnyResource, defineResource, int64, range, string } from '../core/index.js'
import {
  cycleAttribute,
  cycleCode,
  digitsId,
  idInput,
  keepAndWait,
  LITE_CYCLES,
  raw,
  rawAttribute,
  rules,
  textRules,
  accountIds,
} from './billing.js'
import { accountCheck, productAndCycleChecks, productOf, sizeRule } from './catalog-rules.js'
import type { LiteFamily } from './lite-family.js'
import { accountListing, orderedAccount, orderedOutputs, orderInputs, payFlag } from './ordered-account.js'

/** The disk's attributes, built per family (the catalog it names, the VM it attaches to, its minimum size). */
function diskAttributes(family: LiteFamily) {
  return {
    product_id: idInput(`The disk product, from \`provider_${family.prefix}_disk_products\`.`),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle of the disk: `m a q s b t p4 p5`.'),
    lite_account_id: idInput(`The ${family.title} VM the disk is attached to (its account id). There is no re-attach call.`),
    service_name: string({
      optional: true,
      default: 'service-name',
      createOnly: true,
      validate: textRules.shortName,
      description: 'The disk name, 6-16 characters.',
    }),
    size: int64({
      optional: true,
      default: family.diskMinimum,
      growOnly: true,
      validate: [range({ min: family.diskMinimum })],
      description:
        `The size in GB, at least ${family.diskMinimum}. Grow-only: raising it orders an upgrade of the difference from the disk's size (a paid order). ` +
        'A floor: a disk grown larger outside (the portal, support) is no drift and the state keeps the value (`raw` shows the size it has); lowering it is refused at plan time.',
    }),
    ...orderInputs('every order', 'pay_with_credit_card'),
    ...orderedOutputs('disk'),
    raw: rawAttribute,
  }
}

type DiskAttributes = ReturnType<typeof diskAttributes>

/** The one mapping from the API to state, for every read. */
function observe(account: LiteDiskAccount) {
  return {
    ...accountIds(account),
    product_id: account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    lite_account_id: Number(account.extra_details.lite_account_id),
    service_name: account.extra_details.service_name,
    size: account.extra_details.size,
    status: account.status,
    order_id: account.order_id,
    raw: raw(account),
  }
}

export function liteDisk(family: LiteFamily): AnyResource {
  const what = `${family.title} disk`
  const attributes = diskAttributes(family)
  return defineResource<Client, DiskAttributes>({
    name: `${family.prefix}_disk`,
    description:
      `An extra disk attached to a ${family.title} VM, billed as its own account. Creating it places an order and waits until ` +
      'it is Active. The size only grows: an upgrade orders the difference.',
    importId: digitsId('disk account id', '100060'),
    timeouts: { create: '20m', update: '20m', delete: '10m' },
    attributes,
    updates: [
      {
        attributes: ['size'],
        // Pending until Active (D4); the order that created the disk never changes.
        affects: ['status', 'raw'],
        placedWith: ['pay_with_credit_card'],
        price: growthPrice<typeof attributes>(
          { product: 'product_id', cycle: 'cycle', size: 'size' },
          (client, signal) => family.api(client).listDiskProducts({ signal }),
          async (client, id, signal) => (await family.api(client).getDisk(id, { signal })).extra_details.size,
        ),
        async apply(ctx) {
          const api = family.api(ctx.client)
          const target = ctx.input.size ?? family.diskMinimum
          const current = await api.getDisk(ctx.id, { signal: ctx.signal })
          const increment = target - current.extra_details.size
          if (increment <= 0) return undefined
          const order = await api.upgradeDisk(
            ctx.id,
            { additional_size: increment, pay_invoice_with_cc: payFlag(ctx.input) },
            // The increment starts from this read (see OrderOptions.basis).
            { signal: ctx.signal, basis: current },
          )
          await keepAndWait(ctx, order, undefined, (id) => api.getDisk(id, { signal: ctx.signal }), what)
          return undefined
        },
      },
    ],
    priceCreate: productPrice<typeof attributes>(
      { product: 'product_id', cycle: 'cycle', size: { name: 'size', default: family.diskMinimum } },
      (client, signal) => family.api(client).listDiskProducts({ signal }),
    ),
    createChecks: [
      ...productAndCycleChecks<typeof attributes>(
        { product: 'product_id', cycle: 'cycle' },
        `${family.prefix}_disk_products`,
        (client, signal) => family.api(client).listDiskProducts({ signal }),
      ),
      accountCheck<typeof attributes>('lite_account_id', `a ${family.title} VM`, (client, id, signal) =>
        family.api(client).getVm(id, { signal }),
      ),
      {
        attribute: 'size',
        async check({ client, input, signal }) {
          const product = productOf(await family.api(client).listDiskProducts({ signal }), input.product_id)
          return product
            ? sizeRule(
                input.size ?? family.diskMinimum,
                { min: product.options.min_size, max: product.options.max_size },
                `product ${product.product_id}`,
              )
            : null
        },
      },
    ],
    planChecks: [
      {
        attribute: 'size',
        async check({ client, prior, input, signal }) {
          const product = productOf(await family.api(client).listDiskProducts({ signal }), prior.product_id)
          return product
            ? sizeRule(input.size ?? family.diskMinimum, { max: product.options.max_size }, `product ${product.product_id}`)
            : null
        },
      },
    ],
    ...orderedAccount<DiskAttributes, LiteDiskAccount>({
      what,
      calls: {
        get: (client, id, signal) => family.api(client).getDisk(id, { signal }),
        delete: (client, id, signal) => family.api(client).deleteDisk(id, { signal }),
      },
      type: `${family.prefix}_disk`,
      observe,
      order: ({ input, client, signal }, terms) =>
        family.api(client).createDisk(
          {
            product_id: input.product_id ?? 0,
            cycle: input.cycle ?? '',
            lite_account_id: input.lite_account_id ?? 0,
            service_name: input.service_name ?? undefined,
            size: input.size ?? undefined,
            ...terms,
          },
          { signal },
        ),
      recordsOrder: true,
    }),
    list: accountListing<DiskAttributes>({
      accounts: (client, signal) => family.api(client).listDisks({ signal }),
      filters: {
        lite_account_id: {
          attribute: 'lite_account_id',
          match: 'equals',
          validate: [rules.digits],
          description: 'Only the disks of the VM with this account id.',
          example: '100001',
        },
      },
      plural: 'disks',
      displayName: 'service_name',
    }),
  })
}

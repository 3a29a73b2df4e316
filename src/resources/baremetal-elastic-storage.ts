/** provider:index:BaremetalElasticStorage (provider_baremetal_elastic_storage): a volume bound to a server (the elastic-storage calls). */
import type { Client, ElasticStorageAccount } from '../api/index.js'
import { billingOf, growthPrice, known, productLabel, productPrice, quote } from './prices.js'
import { defineResource, int64, type OperationContext, range, string } from '../core/index.js'
import {
  accountIds,
  cycleAttribute,
  cycleCode,
  digitsId,
  idInput,
  keepAndWait,
  METAL_CYCLES,
  raw,
  rawAttribute,
  rules,
  textRules,
} from './billing.js'
import { accountCheck, productAndCycleChecks, productOf, productRule, sizeRule } from './catalog-rules.js'
import { accountListing, accountOutputs, createdAtAttribute, orderedAccount, orderInputs, payFlag } from './ordered-account.js'

const what = 'elastic storage'
const CATALOG = 'baremetal_elastic_storage_products'

const attributes = {
  product_id: int64({
    required: true,
    validate: [rules.id],
    description: 'The storage product, from `baremetalElasticStorageProducts`. A change runs change-package (a paid order).',
  }),
  cycle: cycleAttribute(METAL_CYCLES, 'The billing cycle: `m` monthly or `a` annually.'),
  storage_name: string({ required: true, createOnly: true, validate: textRules.free, description: 'The volume name.' }),
  metal_account_id: idInput('The Metal server the volume is bound to for life (there is no re-attach call).'),
  size: int64({
    optional: true,
    default: 100,
    growOnly: true,
    // The bounds are the product's `min_size` and `max_size` (E1), checked against the catalog at plan.
    validate: [range({ min: 1 })],
    description:
      "The size in GB, an absolute target, within the product's `min_size` and `max_size`. Grow-only: raising it orders a resize (a paid order) of what the volume lacks. " +
      'A floor: a volume grown larger outside (the portal, support) is no drift and the state keeps the value (`raw` shows the size it has); lowering it is refused at plan time.',
  }),
  ...orderInputs('every order'),
  ...accountOutputs('storage'),
  created_at: createdAtAttribute,
  raw: rawAttribute,
}

function observe(account: ElasticStorageAccount) {
  const extra = account.extra_details
  return {
    ...accountIds(account),
    product_id: account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    storage_name: extra.storage_name,
    metal_account_id: Number(extra.metal_account_id),
    size: extra.size,
    status: account.status,
    created_at: account.date_created,
    raw: raw(account),
  }
}

/** What an order on the volume changes: the status (Pending until Active) and the account read (E4, E5). */
const ORDERED = ['status', 'raw'] as const

/** One volume's account, in any status. */
const getStorage = (client: Client, id: string, signal: AbortSignal) => client.elasticStorages.getStorage(id, { signal })
/** The account read of a wait, bound to the operation's cancellation. */
const read = (ctx: OperationContext<Client>) => (id: string) => getStorage(ctx.client, id, ctx.signal)
const storageProducts = (client: Client, signal: AbortSignal) => client.elasticStorages.listProducts({ signal })
const storageSize = async (client: Client, id: string, signal: AbortSignal) =>
  (await client.elasticStorages.getStorage(id, { signal })).extra_details.size

export const baremetalElasticStorage = defineResource<Client, typeof attributes>({
  name: 'baremetal_elastic_storage',
  description:
    'An elastic storage volume bound to a Metal server. Creating it places a paid order and waits until it is Active. ' +
    'The size only grows, and the product can change (change-package); each is a paid order, one at a time.',
  importId: digitsId('account id', '100090'),
  timeouts: { create: '60m', update: '60m', delete: '10m' },
  attributes,
  updates: [
    {
      attributes: ['size'],
      affects: ORDERED,
      price: growthPrice<typeof attributes>({ product: 'product_id', cycle: 'cycle', size: 'size' }, storageProducts, storageSize),
      placedWith: ['pay_with_credit_card'],
      async apply(ctx) {
        const target = ctx.input.size ?? 100
        const current = await ctx.client.elasticStorages.getStorage(ctx.id, { signal: ctx.signal })
        if (target <= current.extra_details.size) return undefined
        const order = await ctx.client.elasticStorages.resizeStorage(
          ctx.id,
          { size: target, pay_invoice_with_cc: payFlag(ctx.input) },
          { signal: ctx.signal },
        )
        await keepAndWait(ctx, order, undefined, read(ctx), what)
        return undefined
      },
    },
    {
      attributes: ['product_id'],
      affects: ORDERED,
      placedWith: ['pay_with_credit_card'],
      // The service bills the difference of the per-GB prices for every GB, never below 0 (E5), on
      // the size the resize before it leaves (`prior` has it), or the larger one the volume has.
      async price({ client, input, prior, signal, id }) {
        // An unknown product or size cannot be priced: ask nothing.
        const productId = known(input.product_id)
        const planned = known(prior.size)
        if (productId === null || planned === null) return null
        const size = Math.max(planned, await storageSize(client, id, signal))
        const products = await storageProducts(client, signal)
        const target = billingOf(products, productId, prior.cycle)
        const current = billingOf(products, prior.product_id, prior.cycle)
        const due = Math.max(0, size * (target.option.price - current.option.price))
        return [quote(`change to ${productLabel(target.product)} for ${size} GB`, due, target.option)]
      },
      async apply(ctx) {
        const order = await ctx.client.elasticStorages.changeStorageProduct(
          ctx.id,
          { new_product_id: ctx.input.product_id ?? 0, pay_invoice_with_cc: payFlag(ctx.input) },
          { signal: ctx.signal },
        )
        await keepAndWait(ctx, order, undefined, read(ctx), what)
        return undefined
      },
    },
  ],
  priceCreate: productPrice<typeof attributes>(
    { product: 'product_id', cycle: 'cycle', size: { name: 'size', default: 100 } },
    storageProducts,
  ),
  createChecks: [
    ...productAndCycleChecks<typeof attributes>({ product: 'product_id', cycle: 'cycle' }, CATALOG, (client, signal) =>
      client.elasticStorages.listProducts({ signal }),
    ),
    accountCheck<typeof attributes>('metal_account_id', 'a Metal server', (client, id, signal) =>
      client.baremetals.getServer(id, { signal }),
    ),
    {
      attribute: 'size',
      async check({ client, input, signal }) {
        const product = productOf(await client.elasticStorages.listProducts({ signal }), input.product_id)
        return product
          ? sizeRule(input.size ?? 100, { min: product.options.min_size, max: product.options.max_size }, `product ${product.product_id}`)
          : null
      },
    },
  ],
  planChecks: [
    {
      // The resize runs before a change of product, so the current product's limit applies.
      attribute: 'size',
      async check({ client, prior, input, signal }) {
        const product = productOf(await client.elasticStorages.listProducts({ signal }), prior.product_id)
        return product ? sizeRule(input.size ?? 100, { max: product.options.max_size }, `product ${product.product_id}`) : null
      },
    },
    {
      attribute: 'product_id',
      async check({ client, input, signal }) {
        return productRule(await client.elasticStorages.listProducts({ signal }), input.product_id ?? 0, CATALOG)
      },
    },
  ],
  ...orderedAccount<typeof attributes, ElasticStorageAccount>({
    type: 'baremetal_elastic_storage',
    what,
    calls: { get: getStorage, delete: (client, id, signal) => client.elasticStorages.deleteStorage(id, { signal }) },
    observe,
    order: ({ input, client, signal }, terms) =>
      client.elasticStorages.createStorage(
        {
          product_id: input.product_id ?? 0,
          cycle: input.cycle ?? '',
          storage_name: input.storage_name ?? '',
          metal_account_id: input.metal_account_id ?? 0,
          size: input.size ?? undefined,
          ...terms,
        },
        { signal },
      ),
    recordsOrder: false,
  }),
  list: accountListing<typeof attributes>({
    accounts: (client, signal) => client.elasticStorages.listStorages({ signal }),
    filters: {
      storage_name_prefix: {
        attribute: 'storage_name',
        match: 'prefix',
        description: 'Only volumes whose name starts with this.',
        example: 'data-',
      },
    },
    plural: 'volumes',
    displayName: 'storage_name',
  }),
})

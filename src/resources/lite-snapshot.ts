/** provider_lite_snapshot and provider_lite_pro_snapshot: a paid snapshot of a VM, its own account (the snapshot calls). */
import type { Client, LiteSnapshotAccount } from '../api/index.js'
import { billingOf, productLabel, quote } from './prices.js'
import { defineResource, string } from '../core/index.js'
import { accountIds, cycleAttribute, cycleCode, digitsId, idInput, LITE_CYCLES, textRules } from './billing.js'
import { accountCheck, cycleRule } from './catalog-rules.js'
import type { LiteFamily } from './lite-family.js'
import { accountListing, orderDescriptionAttribute, orderedAccount, orderedOutputs, orderInputs } from './ordered-account.js'

export function liteSnapshot(family: LiteFamily) {
  const what = `${family.title} snapshot`
  const attributes = {
    lite_account_id: idInput(`The ${family.title} VM to snapshot (its account id).`),
    cycle: cycleAttribute(LITE_CYCLES, 'The billing cycle of the snapshot: `m a q s b t p4 p5`.'),
    name: string({
      optional: true,
      default: 'snapshot-name',
      createOnly: true,
      validate: textRules.shortName,
      description: 'The snapshot name, 6-16 characters.',
    }),
    description: orderDescriptionAttribute,
    ...orderInputs('the order', 'pay_with_credit_card'),
    ...orderedOutputs('snapshot'),
  }
  const observe = (account: LiteSnapshotAccount) => ({
    ...accountIds(account),
    lite_account_id: Number(account.extra_details.lite_account_id),
    cycle: cycleCode(account.billingcycle) ?? undefined,
    name: account.extra_details.name,
    description: account.description,
    status: account.status,
    order_id: account.order_id,
  })
  return defineResource<Client, typeof attributes>({
    name: `${family.prefix}_snapshot`,
    description:
      `A paid snapshot of a ${family.title} VM, billed as its own account. Creating it places an order and waits until ` +
      'the snapshot is Active. Every input except the payment flag is create-only. Deleting the VM does not delete its snapshots.',
    importId: digitsId('snapshot account id', '100051'),
    timeouts: { create: '60m', delete: '10m' },
    attributes,
    updates: [],
    // The family has one snapshot product: it is what a snapshot orders.
    async priceCreate({ client, input, signal }) {
      // An unknown cycle cannot be priced: ask nothing.
      if (typeof input.cycle !== 'string') return null
      const products = await family.api(client).listSnapshotProducts({ signal })
      const { product, option } = billingOf(products, products[0]?.product_id ?? null, input.cycle)
      return [quote(`new ${productLabel(product)}`, option.price, option)]
    },
    createChecks: [
      accountCheck<typeof attributes>('lite_account_id', `a ${family.title} VM`, (client, id, signal) =>
        family.api(client).getVm(id, { signal }),
      ),
      {
        // The family has one snapshot product: the cycle must be one it offers.
        attribute: 'cycle',
        async check({ client, input, signal }) {
          const [product] = await family.api(client).listSnapshotProducts({ signal })
          return cycleRule(product, input.cycle ?? '')
        },
      },
    ],
    ...orderedAccount<typeof attributes, LiteSnapshotAccount>({
      what,
      calls: {
        get: (client, id, signal) => family.api(client).getSnapshot(id, { signal }),
        delete: (client, id, signal) => family.api(client).deleteSnapshot(id, { signal }),
      },
      type: `${family.prefix}_snapshot`,
      observe,
      order: ({ input, client, signal }, terms) =>
        family.api(client).createSnapshot(
          input.lite_account_id ?? 0,
          {
            cycle: input.cycle ?? '',
            name: input.name ?? undefined,
            description: input.description ?? undefined,
            ...terms,
          },
          { signal },
        ),
      recordsOrder: true,
    }),
    list: accountListing<typeof attributes>({
      accounts: (client, signal) => family.api(client).listSnapshots({ signal }),
      filters: {
        name_prefix: { attribute: 'name', match: 'prefix', description: 'Only snapshots whose name starts with this.', example: 'backup-' },
      },
      plural: 'snapshots',
      displayName: 'name',
    }),
  })
}

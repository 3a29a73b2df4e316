// Elastic storage bound to a Metal server (the elastic-storage calls, E1-E7).
import { ACTIVE, cancel, listAccounts, newAccount, order, requireStatus } from './account-routes.js'
import {
  CYCLES,
  cycleOf,
  cyclePrice,
  DEFAULT_REGION,
  type BaremetalProduct,
  baremetalCycles,
  baremetalPlan,
  baremetalProductsOf,
  REGIONS,
} from './catalog.js'
import { notFound } from './envelope.js'
import { diskSize } from './model.js'
import { paramId, type Route, type RouteContext } from './router.js'

const P = '/baremetal-elastic-storages'
const KIND = 'elastic_storage'
const SERVER = 'baremetal'
const DEFAULT_SIZE = 100

const storageProducts = baremetalProductsOf('elastic_storage')
const bounds = (p: BaremetalProduct) => ({ min: p.min_size ?? 1, max: p.max_size ?? 10240 })

export function elasticStorageRoutes(): Route[] {
  const get = (ctx: RouteContext) => ctx.store.get(paramId(ctx, 'id'), KIND)
  const product = (id: number | undefined) => storageProducts.find((p) => p.product_id === id)
  const catalogProduct = (ctx: RouteContext): BaremetalProduct => {
    const found = product(paramId(ctx, 'product_id'))
    if (!found) throw notFound('product not found')
    return found
  }

  return [
    {
      method: 'POST',
      pattern: P,
      handler: (ctx) => {
        const v = ctx.reader(true)
        const productId = v.int('product_id', { required: true })
        const chosen = product(productId)
        if (productId !== undefined && !chosen) v.fail('product_id', `unknown product ${productId}`)
        const cycle = v.cycle(baremetalCycles)
        const name = v.string('storage_name', { required: true })
        const serverId = v.int('metal_account_id', { required: true })
        const server = serverId === undefined ? undefined : ctx.store.find(serverId)
        if (serverId !== undefined && server?.kind !== SERVER) v.fail('metal_account_id', `unknown Metal server ${serverId}`)
        // Every seed product has the same bounds; an unknown product is reported on its own field.
        const size = v.int('size', bounds(chosen ?? storageProducts[0]!)) ?? DEFAULT_SIZE
        const promocode = v.promocode()
        const pay = v.pay()
        v.done()
        if (!chosen || !cycle || name === undefined || !server) return null
        // The status model: the server the body references must be Active.
        requireStatus(server, ACTIVE)
        const account = newAccount(ctx.store, KIND, chosen.product_id, chosen.name, cycle, {
          storage_name: name,
          size,
          metal_account_id: server.account_id,
          region: DEFAULT_REGION,
          region_label: REGIONS[DEFAULT_REGION],
        })
        return order(ctx, account, 'elastic_storage.create', 'new', pay, promocode, account.recurring_amount)
      },
    },
    { method: 'GET', pattern: P, handler: (ctx) => listAccounts(ctx, KIND) },
    { method: 'GET', pattern: `${P}/products`, handler: () => storageProducts.map(baremetalPlan) },
    { method: 'GET', pattern: `${P}/products/:product_id`, handler: (ctx) => baremetalPlan(catalogProduct(ctx)) },
    { method: 'GET', pattern: `${P}/:id`, handler: (ctx) => ctx.store.view(get(ctx)) },
    {
      method: 'PUT',
      pattern: `${P}/:id`,
      handler: (ctx) => {
        const account = get(ctx)
        const v = ctx.reader(true)
        const current = diskSize(account)
        const max = bounds(product(account.product_id) ?? storageProducts[0]!).max
        let target = v.int('size', { required: true })
        if (target !== undefined && target <= current) target = v.fail('size', `must be greater than current size ${current}`)
        else if (target !== undefined && target > max) target = v.fail('size', `must be at most ${max}`)
        const pay = v.pay()
        v.done()
        requireStatus(account, ACTIVE)
        if (target === undefined) return null
        const monthly = product(account.product_id)?.monthly ?? 0
        const due = (target - current) * cyclePrice(monthly, cycleOf(account.cycle) ?? CYCLES[0])
        account.pending = { type: 'disk_size', size: target }
        return order(ctx, account, 'elastic_storage.resize', 'upgrade', pay, null, due)
      },
    },
    {
      method: 'POST',
      pattern: `${P}/:id`,
      handler: (ctx) => {
        const account = get(ctx)
        const v = ctx.reader(true)
        const id = v.int('new_product_id', { required: true })
        const target = id === account.product_id ? undefined : product(id)
        if (id !== undefined && !target) {
          v.fail('new_product_id', id === account.product_id ? `product ${id} is the current product` : `unknown product ${id}`)
        }
        const pay = v.pay()
        v.done()
        requireStatus(account, ACTIVE)
        if (!target) return null
        const cycle = cycleOf(account.cycle) ?? CYCLES[0]
        const currentMonthly = product(account.product_id)?.monthly ?? 0
        const due = Math.max(0, diskSize(account) * (cyclePrice(target.monthly, cycle) - cyclePrice(currentMonthly, cycle)))
        account.pending = { type: 'storage_product', product_id: target.product_id }
        return order(ctx, account, 'elastic_storage.change_package', 'change_package', pay, null, due)
      },
    },
    { method: 'DELETE', pattern: `${P}/:id`, handler: (ctx) => cancel(ctx, KIND) },
  ]
}

// The elastic-storage family (the elastic-storage calls, E1-E7): volumes bound to a Metal server, their
// products (E7), their price per GB, their resize and product change, and their routes.
import { ACTIVE, cancel, diskSize, listAccounts, newAccount, order, productRoutes, requireStatus } from '../accounts.js'
import { type Cycle, cycleOrMonthly, cyclePrice, DEFAULT_REGION_FIELDS, METAL_CYCLES, priceList } from '../catalog.js'
import type { Family } from '../family.js'
import type { Json, JsonObject } from '../json.js'
import type { KindRules } from '../kinds.js'
import type { Account } from '../model.js'
import { paramId, type Route, type RouteContext } from '../router.js'
import { SERVER_KIND } from './baremetal.js'

const P = '/baremetal-elastic-storages'
const KIND = 'elastic_storage'
const SERVER = SERVER_KIND
const DEFAULT_SIZE = 100

/** E7: a storage product, priced per GB. */
interface StorageProduct {
  readonly product_id: number
  readonly name: string
  readonly description: string
  readonly monthly: number
  readonly iops: number
  readonly min_size: number
  readonly max_size: number
}

const STORAGE_PRODUCTS: readonly StorageProduct[] = [
  { product_id: 501, name: 'Elastic Storage Standard', description: '5,000 IOPS', monthly: 1000, iops: 5000, min_size: 1, max_size: 10240 },
  {
    product_id: 502,
    name: 'Elastic Storage UltraFast',
    description: '10,000 IOPS',
    monthly: 2000,
    iops: 10000,
    min_size: 1,
    max_size: 10240,
  },
]

/** The E7 plan object: no category, `billing` for `m` and `a` without components. */
function storagePlan(p: StorageProduct): JsonObject {
  return {
    product_id: p.product_id,
    name: p.name,
    description: p.description,
    options: { iops: p.iops, min_size: p.min_size, max_size: p.max_size },
    billing: priceList(p.monthly, METAL_CYCLES),
  }
}

const bounds = (p: StorageProduct) => ({ min: p.min_size, max: p.max_size })
const product = (id: number | undefined) => STORAGE_PRODUCTS.find((p) => p.product_id === id)

/** The changes a volume waits for, besides `create`. */
type StorageChange = { type: 'disk_size'; size: number } | { type: 'storage_product'; product_id: number }

const storageRules: KindRules = {
  recurringAmount(account: Account, cycle: Cycle) {
    const found = product(account.product_id)
    return found ? diskSize(account) * cyclePrice(found.monthly, cycle) : undefined
  },
  applyChange(account, change) {
    if (change.type === 'disk_size') account.extra_details.size = change.size ?? null
    if (change.type !== 'storage_product') return
    const found = product(typeof change.product_id === 'number' ? change.product_id : undefined)
    if (!found) return
    account.product_id = found.product_id
    account.product_name = found.name
  },
}

/** The account in the path, of this family's kind, or 404. */
const pathAccount = (ctx: RouteContext) => ctx.store.get(paramId(ctx, 'id'), KIND)

/** E1: a volume order, bound to an Active server. */
function orderStorage(ctx: RouteContext): Json {
  const v = ctx.reader(true)
  const productId = v.int('product_id', { required: true })
  const chosen = product(productId)
  if (productId !== undefined && !chosen) v.fail('product_id', `unknown product ${productId}`)
  const cycle = v.cycle(METAL_CYCLES)
  const name = v.string('storage_name', { required: true })
  const serverId = v.int('metal_account_id', { required: true })
  const server = serverId === undefined ? undefined : ctx.store.find(serverId)
  if (serverId !== undefined && server?.kind !== SERVER) v.fail('metal_account_id', `unknown Metal server ${serverId}`)
  // Every seed product has the same bounds; an unknown product is reported on its own field.
  const size = v.int('size', bounds(chosen ?? STORAGE_PRODUCTS[0]!)) ?? DEFAULT_SIZE
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
    ...DEFAULT_REGION_FIELDS,
  })
  return order(ctx, account, 'elastic_storage.create', 'new', pay, promocode, account.recurring_amount)
}

/** E4: a larger volume is an upgrade order. */
function resize(ctx: RouteContext): Json {
  const account = pathAccount(ctx)
  const v = ctx.reader(true)
  const current = diskSize(account)
  const max = bounds(product(account.product_id) ?? STORAGE_PRODUCTS[0]!).max
  let target = v.int('size', { required: true })
  if (target !== undefined && target <= current) target = v.fail('size', `must be greater than current size ${current}`)
  else if (target !== undefined && target > max) target = v.fail('size', `must be at most ${max}`)
  const pay = v.pay()
  v.done()
  requireStatus(account, ACTIVE)
  if (target === undefined) return null
  const monthly = product(account.product_id)?.monthly ?? 0
  const due = (target - current) * cyclePrice(monthly, cycleOrMonthly(account.cycle))
  account.pending = { type: 'disk_size', size: target } satisfies StorageChange
  return order(ctx, account, 'elastic_storage.resize', 'upgrade', pay, null, due)
}

/** E5: another product for the same size is a change-package order. */
function changeProduct(ctx: RouteContext): Json {
  const account = pathAccount(ctx)
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
  const cycle = cycleOrMonthly(account.cycle)
  const currentMonthly = product(account.product_id)?.monthly ?? 0
  const due = Math.max(0, diskSize(account) * (cyclePrice(target.monthly, cycle) - cyclePrice(currentMonthly, cycle)))
  account.pending = { type: 'storage_product', product_id: target.product_id } satisfies StorageChange
  return order(ctx, account, 'elastic_storage.change_package', 'change_package', pay, null, due)
}

function elasticStorageRoutes(): Route[] {
  return [
    { method: 'POST', pattern: P, handler: orderStorage },
    { method: 'GET', pattern: P, handler: (ctx) => listAccounts(ctx, KIND) },
    ...productRoutes(P, STORAGE_PRODUCTS, storagePlan),
    { method: 'GET', pattern: `${P}/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx)) },
    { method: 'PUT', pattern: `${P}/:id`, handler: resize },
    { method: 'POST', pattern: `${P}/:id`, handler: changeProduct },
    { method: 'DELETE', pattern: `${P}/:id`, handler: (ctx) => cancel(ctx, KIND) },
  ]
}

export const elasticStorage: Family = {
  name: 'elastic_storage',
  title: 'Elastic storage',
  routes: elasticStorageRoutes(),
  kinds: { [KIND]: storageRules },
}

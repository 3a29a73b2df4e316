// Elastic storage bound to a Metal server (the elastic-storage calls, E1-E7).
import {
  accountId,
  array,
  field,
  idInteger,
  idText,
  type JsonObject,
  nullable,
  number,
  numericId,
  object,
  string,
  optionalText,
} from './decode.js'
import {
  type Account,
  type BillingOption,
  decodeAccount,
  decodeBillingOption,
  decodeList,
  type Id,
  type Order,
  type OrderPayment,
  type PaidOrder,
  paid,
  payment,
} from './models.js'
import { compact, type FamilyContext, type ListOptions, rejectingSync, statusQuery } from './family.js'
import { type OrderOptions, type PlacedOn, reconcileBy } from './orders/orders.js'
import type { CallOptions } from './transport.js'

/** `extra_details` of an elastic storage. */
export interface ElasticStorageExtra {
  storage_name: string
  /** GB. */
  size: number
  /** The server it is bound to for life. */
  metal_account_id: string
  region: string
  region_label: string
}

export type ElasticStorageAccount = Account<ElasticStorageExtra>

/** E1 body. */
export interface ElasticStorageCreate extends PaidOrder {
  product_id: number
  /** `m` or `a`. */
  cycle: string
  storage_name: string
  metal_account_id: Id
  /** GB, default 100. */
  size?: number
}

/** E7. Prices are per GB per cycle. */
export interface ElasticStorageProduct {
  product_id: number
  name: string
  description: string
  options: { iops?: number; min_size?: number; max_size?: number }
  billing: BillingOption[]
}

export interface ElasticStorageApi {
  /** E1. */
  createStorage(body: ElasticStorageCreate, options?: OrderOptions): Promise<Order>
  /** E2. */
  listStorages(options?: ListOptions): Promise<ElasticStorageAccount[]>
  /** E3. */
  getStorage(accountId: Id, options?: CallOptions): Promise<ElasticStorageAccount>
  /** E4: `size` is the absolute new size in GB, above the current one. Order on the same account. */
  resizeStorage(accountId: Id, body: { size: number } & OrderPayment, options?: OrderOptions): Promise<Order>
  /** E5. Order on the same account. */
  changeStorageProduct(accountId: Id, body: { new_product_id: number } & OrderPayment, options?: OrderOptions): Promise<Order>
  /** E6. */
  deleteStorage(accountId: Id, options?: CallOptions): Promise<void>
  /** E7. */
  listProducts(options?: CallOptions): Promise<ElasticStorageProduct[]>
  getProduct(productId: number, options?: CallOptions): Promise<ElasticStorageProduct>
}

function decodeStorageExtra(o: JsonObject, at: string): ElasticStorageExtra {
  return {
    ...o,
    storage_name: field(o, 'storage_name', at, optionalText),
    size: field(o, 'size', at, number),
    metal_account_id: field(o, 'metal_account_id', at, accountId),
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
  }
}

const decodeStorage = (value: unknown, at = 'data') => decodeAccount(value, decodeStorageExtra, at)

function decodeProduct(value: unknown, at = 'data'): ElasticStorageProduct {
  const o = object(value, at)
  const optionsAt = `${at}.options`
  const options = object(o.options ?? {}, optionsAt)
  const decodedOptions: JsonObject = { ...options }
  for (const key of ['iops', 'min_size', 'max_size']) {
    const v = field(options, key, optionsAt, (w, p) => nullable(w, p, number))
    if (v !== null) decodedOptions[key] = v
  }
  return {
    ...o,
    product_id: field(o, 'product_id', at, numericId),
    name: field(o, 'name', at, string),
    description: field(o, 'description', at, optionalText),
    options: decodedOptions,
    billing: field(o, 'billing', at, (v, p) => nullable(v, p, (w, q) => array(w, q, decodeBillingOption))) ?? [],
  }
}

const GROUP = '/baremetal-elastic-storages'

/** Elastic storage (`/baremetal-elastic-storages`). */
export function elasticStorages({ transport, orders }: FamilyContext): ElasticStorageApi {
  const id = (value: Id) => idText(value, 'account id')
  /** How an order on a volume shows once placed: the volume's last invoice (see PlacedOn). */
  const placedOn = (accountId: Id, invoiceType: string): PlacedOn => ({
    read: (signal) => transport.get(`${GROUP}/${id(accountId)}`, (p) => decodeStorage(p), { signal }, id(accountId)),
    invoiceType,
  })
  return rejectingSync<ElasticStorageApi>({
    createStorage: (body, options) =>
      orders.order(
        'POST',
        GROUP,
        compact({
          product_id: body.product_id,
          cycle: body.cycle,
          storage_name: body.storage_name,
          metal_account_id: idInteger(body.metal_account_id, 'metal_account_id'),
          size: body.size,
          ...paid(body),
        }),
        {
          ...options,
          reconcile: reconcileBy(GROUP, (path) => transport.request({ method: 'GET', path, decode: decodeList(decodeStorage) }), {
            product_id: body.product_id,
            cycle: body.cycle,
            extra_details: { storage_name: body.storage_name, size: body.size, metal_account_id: body.metal_account_id },
          }),
        },
      ),
    listStorages: (options) =>
      transport.request({
        method: 'GET',
        path: GROUP,
        query: statusQuery(options),
        signal: options?.signal,
        decode: decodeList(decodeStorage),
      }),
    getStorage: (accountId, options) => transport.get(`${GROUP}/${id(accountId)}`, (p) => decodeStorage(p), options, id(accountId)),
    resizeStorage: (accountId, body, options) =>
      orders.order(
        'PUT',
        `${GROUP}/${id(accountId)}`,
        compact({ size: body.size, ...payment(body) }),
        { ...options, placedOn: placedOn(accountId, 'upgrade') },
        id(accountId),
      ),
    changeStorageProduct: (accountId, body, options) =>
      orders.order(
        'POST',
        `${GROUP}/${id(accountId)}`,
        compact({ new_product_id: body.new_product_id, ...payment(body) }),
        { ...options, placedOn: placedOn(accountId, 'change_package') },
        id(accountId),
      ),
    deleteStorage: (accountId, options) => orders.remove(`${GROUP}/${id(accountId)}`, options, id(accountId)),
    listProducts: (options) => transport.get(`${GROUP}/products`, decodeList(decodeProduct), options),
    getProduct: (productId, options) =>
      transport.get(`${GROUP}/products/${idText(productId, 'product id')}`, (p) => decodeProduct(p), options),
  })
}

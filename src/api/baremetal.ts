// Metal servers (the Metal server calls, M1-M13) and the Metal keypair pool.
import {
  array,
  boolean,
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
import { type KeypairApi, keypairApi } from './keypairs.js'
import {
  type Account,
  type BillingOption,
  decodeAccount,
  decodeBillingOption,
  decodeList,
  type Id,
  type Order,
  type PaidOrder,
  paid,
} from './models.js'
import { compact, type FamilyContext, type ListOptions, rejectingSync, statusQuery } from './family.js'
import { type OrderOptions, reconcileBy } from './orders/orders.js'
import type { CallOptions } from './transport.js'

/** `extra_details` of a Metal server. */
export interface BaremetalServerExtra {
  label: string
  /** Updated by rebuilds. */
  select_os: string
  keypair_id: number | null
  public_ip: number
  /** Null until the server is first Active. */
  ip_address: string | null
  region: string
  region_label: string
}

export type BaremetalServerAccount = Account<BaremetalServerExtra>

/** M1 body (the Metal create body). */
export interface BaremetalServerCreate extends PaidOrder {
  product_id: number
  /** `m` or `a`. */
  cycle: string
  select_os?: string
  keypair_id: number
  label: string
  public_ip?: number
}

/** M11. `stock` is informative; only `out_of_stock` refuses orders. */
export interface BaremetalProduct {
  product_id: number
  name: string
  description: string
  out_of_stock: boolean
  stock: number
  billing: BillingOption[]
}

/** M12 items, keyed by OS family (`linux`). `value` is what `select_os` takes. */
export interface BaremetalOsOption {
  label: string
  value: string
}

export type BaremetalPowerState = 'on' | 'off'

export interface BaremetalApi extends KeypairApi {
  /** M1. */
  createServer(body: BaremetalServerCreate, options?: OrderOptions): Promise<Order>
  /** M2. */
  listServers(options?: ListOptions): Promise<BaremetalServerAccount[]>
  /** M3. */
  getServer(accountId: Id, options?: CallOptions): Promise<BaremetalServerAccount>
  /** M4. 409 unless Active or Suspended. */
  getPowerState(accountId: Id, options?: CallOptions): Promise<{ state: BaremetalPowerState | (string & {}) }>
  /** M5: `reset` is a hard reset that leaves the server on. */
  setPowerState(accountId: Id, state: BaremetalPowerState | 'reset', options?: CallOptions): Promise<void>
  /** M6. */
  listPowerStates(options?: CallOptions): Promise<string[]>
  /** M7. */
  setLabel(accountId: Id, body: { label: string }, options?: CallOptions): Promise<void>
  /** M8: the server goes Pending, then Active. */
  rebuildServer(accountId: Id, body: { os: string }, options?: CallOptions): Promise<void>
  /** M9. */
  listRebuildOss(accountId: Id, options?: CallOptions): Promise<string[]>
  /** M10. */
  deleteServer(accountId: Id, options?: CallOptions): Promise<void>
  /** M11. */
  listProducts(options?: CallOptions): Promise<BaremetalProduct[]>
  getProduct(productId: number, options?: CallOptions): Promise<BaremetalProduct>
  /** M12. */
  listProductOss(productId: number, options?: CallOptions): Promise<Record<string, BaremetalOsOption[]>>
  /** M13: a secret; redact its `config` with `redact(value, { extraKeys: ['config'] })`. */
  getOpenvpn(options?: CallOptions): Promise<{ config: string }>
}

function decodeServerExtra(o: JsonObject, at: string): BaremetalServerExtra {
  return {
    ...o,
    label: field(o, 'label', at, optionalText),
    select_os: field(o, 'select_os', at, optionalText),
    keypair_id: field(o, 'keypair_id', at, (v, p) => nullable(v, p, numericId)),
    public_ip: field(o, 'public_ip', at, (v, p) => nullable(v, p, number)) ?? 1,
    ip_address: field(o, 'ip_address', at, (v, p) => nullable(v, p, string)),
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
  }
}

const decodeServer = (value: unknown, at = 'data') => decodeAccount(value, decodeServerExtra, at)

function decodeProduct(value: unknown, at = 'data'): BaremetalProduct {
  const o = object(value, at)
  return {
    ...o,
    product_id: field(o, 'product_id', at, numericId),
    name: field(o, 'name', at, string),
    description: field(o, 'description', at, optionalText),
    out_of_stock: field(o, 'out_of_stock', at, (v, p) => nullable(v, p, boolean)) ?? false,
    stock: field(o, 'stock', at, (v, p) => nullable(v, p, number)) ?? 0,
    billing: field(o, 'billing', at, (v, p) => nullable(v, p, (w, q) => array(w, q, decodeBillingOption))) ?? [],
  }
}

function decodeOsFamilies(value: unknown): Record<string, BaremetalOsOption[]> {
  const o = object(value, 'data')
  const out: Record<string, BaremetalOsOption[]> = {}
  for (const [family, items] of Object.entries(o)) {
    out[family] = array(items, `data.${family}`, (item, at) => {
      const i = object(item, at)
      return { ...i, label: field(i, 'label', at, optionalText), value: field(i, 'value', at, string) }
    })
  }
  return out
}

const ignore = (): undefined => undefined

/** Metal servers (`/baremetals`) and the Metal keypair pool. */
export function baremetals({ transport, orders }: FamilyContext): BaremetalApi {
  const id = (value: Id) => idText(value, 'account id')
  const product = (value: number) => idText(value, 'product id')
  return rejectingSync<BaremetalApi>({
    ...keypairApi(transport, '/baremetals'),
    createServer: (body, options) =>
      orders.order(
        'POST',
        '/baremetals',
        compact({
          product_id: body.product_id,
          cycle: body.cycle,
          select_os: body.select_os,
          keypair_id: idInteger(body.keypair_id, 'keypair id'),
          label: body.label,
          public_ip: body.public_ip,
          ...paid(body),
        }),
        {
          ...options,
          reconcile: reconcileBy(
            '/baremetals/accounts',
            (path) => transport.request({ method: 'GET', path, decode: decodeList(decodeServer) }),
            {
              product_id: body.product_id,
              cycle: body.cycle,
              extra_details: { label: body.label, select_os: body.select_os, keypair_id: body.keypair_id },
            },
          ),
        },
      ),
    listServers: (options) =>
      transport.request({
        method: 'GET',
        path: '/baremetals/accounts',
        query: statusQuery(options),
        signal: options?.signal,
        decode: decodeList(decodeServer),
      }),
    getServer: (accountId, options) =>
      transport.get(`/baremetals/accounts/${id(accountId)}`, (p) => decodeServer(p), options, id(accountId)),
    getPowerState: (accountId, options) =>
      transport.get(
        `/baremetals/accounts/${id(accountId)}/state`,
        (p) => {
          const o = object(p, 'data')
          return { ...o, state: field(o, 'state', 'data', string) }
        },
        options,
        id(accountId),
      ),
    setPowerState: (accountId, state, options) => {
      const path = `/baremetals/accounts/${id(accountId)}/state/${encodeURIComponent(state)}`
      // A reset is destructive and one-shot: it goes through the order journal like a rebuild.
      if (state === 'reset') return orders.action('PUT', path, undefined, options, id(accountId))
      // `on` or `off` already in effect is accepted with no change (M5): safe to send again.
      return transport.send('PUT', path, undefined, ignore, options, id(accountId), true)
    },
    listPowerStates: (options) => transport.get('/baremetals/states', decodeList(string), options),
    setLabel: (accountId, body, options) =>
      // The same label set again changes nothing: safe to send again.
      transport.send('PUT', `/baremetals/${id(accountId)}`, { label: body.label }, ignore, options, id(accountId), true),
    rebuildServer: (accountId, body, options) =>
      orders.action('PUT', `/baremetals/${id(accountId)}/rebuild`, { os: body.os }, options, id(accountId)),
    listRebuildOss: (accountId, options) =>
      transport.get(`/baremetals/${id(accountId)}/rebuild/oss`, decodeList(string), options, id(accountId)),
    deleteServer: (accountId, options) => orders.remove(`/baremetals/${id(accountId)}`, options, id(accountId)),
    listProducts: (options) => transport.get('/baremetals/products', decodeList(decodeProduct), options),
    getProduct: (productId, options) => transport.get(`/baremetals/products/${product(productId)}`, (p) => decodeProduct(p), options),
    listProductOss: (productId, options) => transport.get(`/baremetals/products/${product(productId)}/oss`, decodeOsFamilies, options),
    getOpenvpn: (options) =>
      transport.get(
        '/baremetals/openvpn',
        (p) => {
          const o = object(p, 'data')
          return { ...o, config: field(o, 'config', 'data', string) }
        },
        options,
      ),
  })
}

// Additional IPs and their assignments to Metal servers (the additional-IP calls, I1-I6, A1-A5).
import { accountId, array, field, idInteger, idText, type JsonObject, nullable, numericId, object, string, optionalText } from './decode.js'
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

/** `extra_details` of an additional IP. */
export interface AdditionalIpExtra {
  /** Null until the IP is first Active. */
  ip_address: string | null
  region: string
  region_label: string
  /** The server it is assigned to, or null. */
  metal_account_id: string | null
}

export type AdditionalIpAccount = Account<AdditionalIpExtra>

/** I1 body. */
export interface AdditionalIpCreate extends PaidOrder {
  product_id: number
  /** `m` or `a`. */
  cycle: string
  /** Default `wjv-1`; one of I6. */
  region?: string
}

/** A1-A5. Ids are account ids, hence strings. */
export interface IpAssignment {
  additional_ip_id: string
  metal_account_id: string
  ip_address: string
  status: string
  assigned_at: string
}

/** I5. */
export interface AdditionalIpProduct {
  product_id: number
  name: string
  description: string
  billing: BillingOption[]
}

export interface AdditionalIpApi {
  /** I1. */
  createIp(body: AdditionalIpCreate, options?: OrderOptions): Promise<Order>
  /** I2. */
  listIps(options?: ListOptions): Promise<AdditionalIpAccount[]>
  /** I3. */
  getIp(accountId: Id, options?: CallOptions): Promise<AdditionalIpAccount>
  /** I4: also removes its assignment. */
  deleteIp(accountId: Id, options?: CallOptions): Promise<void>
  /** I5. */
  listProducts(options?: CallOptions): Promise<AdditionalIpProduct[]>
  getProduct(productId: number, options?: CallOptions): Promise<AdditionalIpProduct>
  /** I6. */
  listRegions(options?: CallOptions): Promise<string[]>
  /** A1: assigning again to the same server answers the same assignment. */
  assign(ipAccountId: Id, body: { metal_account_id: Id }, options?: CallOptions): Promise<IpAssignment>
  /** A2: zero or one item. */
  listAssignments(ipAccountId: Id, options?: CallOptions): Promise<IpAssignment[]>
  /** A3: 404 also when the IP is not assigned to that server. */
  getAssignment(ipAccountId: Id, metalAccountId: Id, options?: CallOptions): Promise<IpAssignment>
  /** A4. */
  unassign(ipAccountId: Id, metalAccountId: Id, options?: CallOptions): Promise<void>
  /** A5. */
  listAssignmentsOfServer(metalAccountId: Id, options?: CallOptions): Promise<IpAssignment[]>
}

function decodeIpExtra(o: JsonObject, at: string): AdditionalIpExtra {
  return {
    ...o,
    ip_address: field(o, 'ip_address', at, (v, p) => nullable(v, p, string)),
    region: field(o, 'region', at, optionalText),
    region_label: field(o, 'region_label', at, optionalText),
    metal_account_id: field(o, 'metal_account_id', at, (v, p) => nullable(v, p, accountId)),
  }
}

const decodeIp = (value: unknown, at = 'data') => decodeAccount(value, decodeIpExtra, at)

function decodeAssignment(value: unknown, at = 'data'): IpAssignment {
  const o = object(value, at)
  return {
    ...o,
    additional_ip_id: field(o, 'additional_ip_id', at, accountId),
    metal_account_id: field(o, 'metal_account_id', at, accountId),
    ip_address: field(o, 'ip_address', at, optionalText),
    status: field(o, 'status', at, optionalText),
    assigned_at: field(o, 'assigned_at', at, optionalText),
  }
}

function decodeProduct(value: unknown, at = 'data'): AdditionalIpProduct {
  const o = object(value, at)
  return {
    ...o,
    product_id: field(o, 'product_id', at, numericId),
    name: field(o, 'name', at, string),
    description: field(o, 'description', at, optionalText),
    billing: field(o, 'billing', at, (v, p) => nullable(v, p, (w, q) => array(w, q, decodeBillingOption))) ?? [],
  }
}

const ignore = (): undefined => undefined
const GROUP = '/baremetal-additional-ips'

/** Additional IPs and their assignments (`/baremetal-additional-ips`). */
export function additionalIps({ transport, orders }: FamilyContext): AdditionalIpApi {
  const id = (value: Id) => idText(value, 'account id')
  const server = (value: Id) => idText(value, 'metal account id')
  return rejectingSync<AdditionalIpApi>({
    createIp: (body, options) =>
      orders.order('POST', GROUP, compact({ product_id: body.product_id, cycle: body.cycle, region: body.region, ...paid(body) }), {
        ...options,
        reconcile: reconcileBy(GROUP, (path) => transport.request({ method: 'GET', path, decode: decodeList(decodeIp) }), {
          product_id: body.product_id,
          cycle: body.cycle,
          extra_details: { region: body.region },
        }),
      }),
    listIps: (options) =>
      transport.request({
        method: 'GET',
        path: GROUP,
        query: statusQuery(options),
        signal: options?.signal,
        decode: decodeList(decodeIp),
      }),
    getIp: (accountId, options) => transport.get(`${GROUP}/${id(accountId)}`, (p) => decodeIp(p), options, id(accountId)),
    deleteIp: (accountId, options) => orders.remove(`${GROUP}/${id(accountId)}`, options, id(accountId)),
    listProducts: (options) => transport.get(`${GROUP}/products`, decodeList(decodeProduct), options),
    getProduct: (productId, options) =>
      transport.get(`${GROUP}/products/${idText(productId, 'product id')}`, (p) => decodeProduct(p), options),
    listRegions: (options) => transport.get(`${GROUP}/regions`, decodeList(string), options),
    assign: (ipAccountId, body, options) =>
      transport.send(
        'PUT',
        `${GROUP}/${id(ipAccountId)}/assigns`,
        { metal_account_id: idInteger(body.metal_account_id, 'metal_account_id') },
        (p) => decodeAssignment(p),
        options,
        id(ipAccountId),
        // The same assignment again answers the same object (A1): safe to send again.
        true,
      ),
    listAssignments: (ipAccountId, options) =>
      transport.get(`${GROUP}/${id(ipAccountId)}/assigns`, decodeList(decodeAssignment), options, id(ipAccountId)),
    getAssignment: (ipAccountId, metalAccountId, options) =>
      transport.get(`${GROUP}/${id(ipAccountId)}/assigns/${server(metalAccountId)}`, (p) => decodeAssignment(p), options, id(ipAccountId)),
    unassign: (ipAccountId, metalAccountId, options) =>
      transport.send(
        'DELETE',
        `${GROUP}/${id(ipAccountId)}/assigns/${server(metalAccountId)}`,
        undefined,
        ignore,
        options,
        id(ipAccountId),
      ),
    listAssignmentsOfServer: (metalAccountId, options) =>
      transport.get(
        `${GROUP}/assignments-by-metal-account-id/${server(metalAccountId)}`,
        decodeList(decodeAssignment),
        options,
        server(metalAccountId),
      ),
  })
}

// The additional-IP family (the additional-IP calls, I1-I6) and its assignments to Metal servers (A1-A5):
// its product, its price, the address it gets at its first Active, and the rule that a cancelled IP or
// server ends the assignment between them (I4, M10).
import { ACTIVE, addressAt, cancel, listAccounts, newAccount, order, productRoutes, requireStatus } from '../accounts.js'
import { type Cycle, cyclePrice, DEFAULT_REGION, METAL_CYCLES, priceList, REGIONS } from '../catalog.js'
import { formatDateTime } from '../clock.js'
import { conflict, notFound } from '../envelope.js'
import type { Family } from '../family.js'
import type { Json, JsonObject } from '../json.js'
import type { KindRules, Ledger } from '../kinds.js'
import type { Account } from '../model.js'
import { paramId, type Route, type RouteContext } from '../router.js'
import type { CustomerStore } from '../customer-store.js'
import { SERVER_KIND } from './baremetal.js'

const P = '/baremetal-additional-ips'
const KIND = 'additional_ip'
const SERVER = SERVER_KIND
const REGION_CODES = Object.keys(REGIONS) as (keyof typeof REGIONS)[]

/** I5: the one additional-IP product. */
interface IpProduct {
  readonly product_id: number
  readonly name: string
  readonly description: string
  readonly monthly: number
}
const IP_PRODUCTS: readonly IpProduct[] = [
  { product_id: 401, name: 'Additional IPv4', description: 'One public IPv4 address', monthly: 75_000 },
]

/** The I5 plan object: no category, `billing` for `m` and `a` without components. */
function ipPlan(p: IpProduct): JsonObject {
  return { product_id: p.product_id, name: p.name, description: p.description, billing: priceList(p.monthly, METAL_CYCLES) }
}

/** The first address IPs are handed out from, one step per IP (the emulator's start-up options). */
const ADDITIONAL_IP_BASE = '198.51.100.2'

/** The server an additional IP is assigned to (A1-A5); drift may have left anything there. */
function assignedServer(account: Account): number | null {
  const id = account.extra_details.metal_account_id
  return typeof id === 'number' && Number.isInteger(id) ? id : null
}

/** A1: the IP now belongs to the server. */
function assign(ip: Account, serverId: number, now: number): void {
  ip.extra_details.metal_account_id = serverId
  ip.assigned_at = formatDateTime(now)
}

function unassign(ip: Account): void {
  ip.extra_details.metal_account_id = null
  ip.assigned_at = null
}

const ipRules: KindRules = {
  recurringAmount(account: Account, cycle: Cycle) {
    const product = IP_PRODUCTS.find((p) => p.product_id === account.product_id)
    return product ? cyclePrice(product.monthly, cycle) : undefined
  },
  activated(account, _change, _at, ledger) {
    if (account.extra_details.ip_address == null) {
      account.extra_details.ip_address = addressAt(ADDITIONAL_IP_BASE, ledger.next('additional_ip'))
    }
  },
  // I4: a cancelled IP leaves its server.
  terminated: unassign,
}

/** M10 (and a purge): every IP assigned to a server that leaves is released. */
function released(account: Account, ledger: Ledger): void {
  if (account.kind !== SERVER) return
  for (const ip of ledger.state.accounts) {
    if (ip.kind === KIND && assignedServer(ip) === account.account_id) unassign(ip)
  }
}

/** The A1-A5 object; `status` is always `Active` (the additional-IP calls). */
function assignmentView(store: CustomerStore, ip: Account, serverId: number): JsonObject {
  return {
    additional_ip_id: ip.account_id,
    metal_account_id: serverId,
    ip_address: (ip.extra_details.ip_address as string | null | undefined) ?? null,
    status: 'Active',
    // Drift may have assigned the IP out of band, without a time: the read time stands in.
    assigned_at: ip.assigned_at ?? formatDateTime(store.now()),
  }
}

/** The account in the path, of this family's kind, or 404. */
const pathAccount = (ctx: RouteContext) => ctx.store.get(paramId(ctx, 'id'), KIND)

/** I1: an additional-IP order. */
function orderIp(ctx: RouteContext): Json {
  const v = ctx.reader(true)
  const productId = v.int('product_id', { required: true })
  const product = productId === undefined ? undefined : IP_PRODUCTS.find((p) => p.product_id === productId)
  if (productId !== undefined && !product) v.fail('product_id', `unknown product ${productId}`)
  const cycle = v.cycle(METAL_CYCLES)
  const region = v.oneOf('region', REGION_CODES) ?? DEFAULT_REGION
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  if (!product || !cycle) return null
  const account = newAccount(ctx.store, KIND, product.product_id, product.name, cycle, {
    ip_address: null,
    region,
    region_label: REGIONS[region],
    metal_account_id: null,
  })
  account.assigned_at = null
  return order(ctx, account, 'additional_ip.create', 'new', pay, promocode, account.recurring_amount)
}

/** A1: assigns the IP to a server; assigning it again to the same server changes nothing. */
function assignToServer(ctx: RouteContext): Json {
  const ip = pathAccount(ctx)
  const v = ctx.reader(true)
  const serverId = v.int('metal_account_id', { required: true })
  const server = serverId === undefined ? undefined : ctx.store.find(serverId)
  if (serverId !== undefined && server?.kind !== SERVER) v.fail('metal_account_id', `unknown Metal server ${serverId}`)
  v.done()
  if (!server) return null
  // The status model: both the IP in the path and the server in the body must be Active.
  requireStatus(ip, ACTIVE)
  requireStatus(server, ACTIVE)
  const current = assignedServer(ip)
  if (current === server.account_id) return assignmentView(ctx.store, ip, current)
  if (current !== null) throw conflict(`additional IP ${ip.account_id} is assigned to server ${current}`)
  assign(ip, server.account_id, ctx.store.now())
  return assignmentView(ctx.store, ip, server.account_id)
}

function additionalIpRoutes(): Route[] {
  /** A3, A4: the IP in the path, assigned to the server in the path, or 404. */
  const assignedTo = (ctx: RouteContext): { ip: Account; serverId: number } => {
    const ip = pathAccount(ctx)
    const serverId = paramId(ctx, 'metal_account_id')
    if (assignedServer(ip) !== serverId) throw notFound(`additional IP ${ip.account_id} is not assigned to server ${serverId}`)
    return { ip, serverId }
  }

  return [
    { method: 'POST', pattern: P, handler: orderIp },
    { method: 'GET', pattern: P, handler: (ctx) => listAccounts(ctx, KIND) },
    ...productRoutes(P, IP_PRODUCTS, ipPlan),
    { method: 'GET', pattern: `${P}/regions`, handler: () => [...REGION_CODES] },
    { method: 'GET', pattern: `${P}/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx)) },
    // I4: the store's terminate also removes the IP's assignment.
    { method: 'DELETE', pattern: `${P}/:id`, handler: (ctx) => cancel(ctx, KIND) },
    { method: 'PUT', pattern: `${P}/:id/assigns`, handler: assignToServer },
    {
      method: 'GET',
      pattern: `${P}/:id/assigns`,
      handler: (ctx) => {
        const ip = pathAccount(ctx)
        const serverId = assignedServer(ip)
        return serverId === null ? [] : [assignmentView(ctx.store, ip, serverId)]
      },
    },
    {
      method: 'GET',
      pattern: `${P}/:id/assigns/:metal_account_id`,
      handler: (ctx) => {
        const { ip, serverId } = assignedTo(ctx)
        return assignmentView(ctx.store, ip, serverId)
      },
    },
    {
      method: 'DELETE',
      pattern: `${P}/:id/assigns/:metal_account_id`,
      handler: (ctx) => {
        const { ip } = assignedTo(ctx)
        ctx.reader(false).done()
        unassign(ip)
        return true
      },
    },
    {
      method: 'GET',
      pattern: `${P}/assignments-by-metal-account-id/:metal_account_id`,
      handler: (ctx) => {
        const serverId = paramId(ctx, 'metal_account_id')
        ctx.store.get(serverId, SERVER)
        return ctx.store
          .accounts()
          .filter((a) => a.kind === KIND && assignedServer(a) === serverId)
          .sort((a, b) => a.account_id - b.account_id)
          .map((a) => assignmentView(ctx.store, a, serverId))
      },
    },
  ]
}

export const additionalIp: Family = {
  name: 'additional_ip',
  title: 'Additional IPs',
  routes: additionalIpRoutes(),
  kinds: { [KIND]: ipRules },
  sequences: { additional_ip: 0 },
  released,
}

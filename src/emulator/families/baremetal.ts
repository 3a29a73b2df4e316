// The Metal server family (the Metal server calls, M1-M13): its products and OS lists, its price, what
// activation (power, a public address), suspension and cancellation do to a server, and its routes.
// The Metal keypair pool is keypairs.ts' `/baremetals` pool; IPs assigned to a server are additional-ip.ts'.
import {
  ACTIVE,
  addressAt,
  cancel,
  listAccounts,
  newAccount,
  NOT_TERMINATED,
  order,
  productInPath,
  productRoutes,
  requireStatus,
  RUNNING_STATES,
  schedule,
} from '../accounts.js'
import { type Cycle, cyclePrice, DEFAULT_REGION_FIELDS, METAL_CYCLES, priceList } from '../catalog.js'
import { conflict } from '../envelope.js'
import type { Family, PortalChanges } from '../family.js'
import type { Json, JsonObject } from '../json.js'
import type { KindRules } from '../kinds.js'
import type { Account, BaremetalPower } from '../model.js'
import { paramId, type Route, type RouteContext } from '../router.js'

/** The account kind of a server, which additional IPs and elastic storage refer to. */
export const SERVER_KIND = 'baremetal'

/** M11: a server product; `stock` is informative, only `out_of_stock` refuses an order. */
interface ServerProduct {
  readonly product_id: number
  readonly name: string
  readonly description: string
  readonly monthly: number
  readonly stock: number
  readonly out_of_stock: boolean
}

const SERVER_PRODUCTS: readonly ServerProduct[] = [
  { product_id: 301, name: 'Metal S', description: '4 cores, 32 GB RAM, 2x480 GB SSD', monthly: 1_500_000, stock: 5, out_of_stock: false },
  { product_id: 302, name: 'Metal M', description: '8 cores, 64 GB RAM, 2x960 GB SSD', monthly: 2_500_000, stock: 2, out_of_stock: false },
  { product_id: 303, name: 'Metal L', description: '16 cores, 128 GB RAM, 4x960 GB SSD', monthly: 4_000_000, stock: 0, out_of_stock: true },
]

const METAL_OS = ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'] as const
/** M12: every Metal OS value with its label, keyed by OS family. */
const METAL_OS_FAMILIES = {
  linux: [
    { label: 'Ubuntu 22.04', value: 'ubuntu-22' },
    { label: 'Ubuntu 24.04', value: 'ubuntu-24' },
    { label: 'Debian 12', value: 'debian-12' },
    { label: 'Rocky Linux 9', value: 'rocky-9' },
  ],
} as const satisfies Record<string, readonly { label: string; value: (typeof METAL_OS)[number] }[]>

/** M13: an invented but well-formed OpenVPN client profile (its text is left to us). */
const OPENVPN_CONFIG = [
  'client',
  'dev tun',
  'proto udp',
  'remote vpn.example.invalid 1194',
  'resolv-retry infinite',
  'nobind',
  'persist-key',
  'persist-tun',
  'remote-cert-tls server',
  'cipher AES-256-GCM',
  'verb 3',
  '<ca>',
  '-----BEGIN CERTIFICATE-----',
  'MIIBszCCAVmgAwIBAgIUZW11bGF0b3Itb3BlbnZwbi1jYTAKBggqhkjOPQQDAjAf',
  'MR0wGwYDVQQDDBRlbXVsYXRvciBvcGVudnBuIGNhMB4XDTI1MDEwMTAwMDAwMFoX',
  '-----END CERTIFICATE-----',
  '</ca>',
  '',
].join('\n')

/** The M11 plan object: no category, `billing` for `m` and `a` without components. */
function serverPlan(p: ServerProduct): JsonObject {
  return {
    product_id: p.product_id,
    name: p.name,
    description: p.description,
    out_of_stock: p.out_of_stock,
    stock: p.stock,
    billing: priceList(p.monthly, METAL_CYCLES),
  }
}

/** The first address servers are handed out from, one step per server (the emulator's start-up options). */
const SERVER_IP_BASE = '203.0.113.10'

/** A created or rebuilt server is on once Active; its public address is handed out at the first Active. */
const serverRules: KindRules = {
  recurringAmount(account: Account, cycle: Cycle) {
    const product = SERVER_PRODUCTS.find((p) => p.product_id === account.product_id)
    return product ? cyclePrice(product.monthly, cycle) : undefined
  },
  applyChange(account, change) {
    if (change.type === 'metal_os') account.extra_details.select_os = change.select_os ?? null
  },
  activated(account, change, _at, ledger) {
    if (change && (change.type === 'create' || change.type === 'metal_os')) account.server_power = 'on'
    if (account.extra_details.ip_address == null) account.extra_details.ip_address = addressAt(SERVER_IP_BASE, ledger.next('server_ip'))
  },
  suspended(account) {
    account.server_power = 'off'
  },
  unsuspended(account) {
    account.server_power = 'on'
  },
  terminated(account) {
    account.server_power = 'off'
  },
}

const P = '/baremetals'
const KIND = SERVER_KIND
const KEYPAIR_POOL = '/baremetals'
const STATES = ['on', 'off', 'reset'] as const
const DEFAULT_OS = 'ubuntu-22'

/** The account in the path, of this family's kind, or 404. */
const pathAccount = (ctx: RouteContext) => ctx.store.get(paramId(ctx, 'id'), KIND)

/** M1: a server order. */
function orderServer(ctx: RouteContext): Json {
  const v = ctx.reader(true)
  const productId = v.int('product_id', { required: true })
  const product = productId === undefined ? undefined : SERVER_PRODUCTS.find((p) => p.product_id === productId)
  if (productId !== undefined && !product) v.fail('product_id', `unknown product ${productId}`)
  const cycle = v.cycle(METAL_CYCLES)
  const os = v.oneOf('select_os', METAL_OS) ?? DEFAULT_OS
  const keypairId = v.int('keypair_id', { required: true })
  const keypairKnown = ctx.store.keypairs().some((k) => k.keypair_id === keypairId && k.pool === KEYPAIR_POOL)
  if (keypairId !== undefined && !keypairKnown) v.fail('keypair_id', `unknown keypair ${keypairId} in the ${KEYPAIR_POOL} pool`)
  const label = v.string('label', { required: true })
  const publicIp = v.int('public_ip') ?? 1
  if (publicIp !== 1) v.fail('public_ip', 'only 1 public IPv4 address is offered')
  const promocode = v.promocode()
  const pay = v.pay()
  v.done()
  if (!product || !cycle || keypairId === undefined || label === undefined) return null
  // M11: `stock` is informative; only `out_of_stock` refuses the order.
  if (product.out_of_stock) throw conflict(`product ${product.product_id} is out of stock`)
  const account = newAccount(ctx.store, KIND, product.product_id, product.name, cycle, {
    label,
    select_os: os,
    keypair_id: keypairId,
    public_ip: publicIp,
    ip_address: null,
    ...DEFAULT_REGION_FIELDS,
  })
  account.server_power = 'off'
  return order(ctx, account, 'baremetal.create', 'new', pay, promocode, account.recurring_amount)
}

function baremetalRoutes(): Route[] {
  return [
    { method: 'POST', pattern: P, handler: orderServer },
    { method: 'GET', pattern: `${P}/accounts`, handler: (ctx) => listAccounts(ctx, KIND) },
    { method: 'GET', pattern: `${P}/accounts/:id`, handler: (ctx) => ctx.store.view(pathAccount(ctx)) },
    {
      method: 'GET',
      pattern: `${P}/accounts/:id/state`,
      handler: (ctx) => {
        const account = pathAccount(ctx)
        requireStatus(account, RUNNING_STATES)
        return { state: account.server_power ?? 'off' }
      },
    },
    {
      method: 'PUT',
      pattern: `${P}/accounts/:id/state/:state`,
      handler: (ctx) => {
        const account = pathAccount(ctx)
        const v = ctx.reader(false)
        const state = ctx.params.state ?? ''
        if (!(STATES as readonly string[]).includes(state)) {
          v.fail('state', `must be one of ${STATES.join(', ')}`, 'value_error', 'path')
        }
        v.done()
        requireStatus(account, ACTIVE)
        // `on`/`off` already in effect change nothing; `reset` is a hard reset that leaves the server on.
        const power: BaremetalPower = state === 'off' ? 'off' : 'on'
        account.server_power = power
        return `${state} accepted`
      },
    },
    { method: 'GET', pattern: `${P}/states`, handler: () => [...STATES] },
    {
      method: 'PUT',
      pattern: `${P}/:id`,
      handler: (ctx) => {
        const account = pathAccount(ctx)
        const v = ctx.reader(true)
        const label = v.string('label', { required: true })
        v.done()
        requireStatus(account, NOT_TERMINATED)
        account.extra_details.label = label ?? ''
        return true
      },
    },
    {
      method: 'PUT',
      pattern: `${P}/:id/rebuild`,
      handler: (ctx) => {
        const account = pathAccount(ctx)
        const v = ctx.reader(true)
        const os = v.oneOf('os', METAL_OS, { required: true })
        v.done()
        requireStatus(account, ACTIVE)
        schedule(ctx.store, account, { type: 'metal_os', select_os: os ?? DEFAULT_OS })
        return 'rebuild scheduled'
      },
    },
    {
      method: 'GET',
      pattern: `${P}/:id/rebuild/oss`,
      handler: (ctx) => {
        pathAccount(ctx)
        return [...METAL_OS]
      },
    },
    {
      method: 'DELETE',
      pattern: `${P}/:id`,
      // M10: the store's terminate also releases the server's IP assignments.
      handler: (ctx) => cancel(ctx, KIND),
    },
    ...productRoutes(P, SERVER_PRODUCTS, serverPlan),
    {
      method: 'GET',
      pattern: `${P}/products/:product_id/oss`,
      handler: (ctx) => {
        productInPath(ctx, SERVER_PRODUCTS)
        return Object.fromEntries(Object.entries(METAL_OS_FAMILIES).map(([family, items]) => [family, items.map((i) => ({ ...i }))]))
      },
    },
    { method: 'GET', pattern: `${P}/openvpn`, handler: () => ({ config: OPENVPN_CONFIG }) },
  ]
}

/** What a customer changes on a server in the portal, through the same calls as the API's (the console offers them). */
const serverPortal = (account: Account): PortalChanges => ({
  rename: { method: 'PUT', path: `${P}/${account.account_id}`, input: { field: 'label', type: 'string' } },
  stop: { method: 'PUT', path: `${P}/accounts/${account.account_id}/state/off` },
  start: { method: 'PUT', path: `${P}/accounts/${account.account_id}/state/on` },
})

export const baremetal: Family = {
  name: 'baremetal',
  title: 'Metal servers',
  routes: baremetalRoutes(),
  kinds: { [SERVER_KIND]: serverRules },
  sequences: { server_ip: 0 },
  portal: { [SERVER_KIND]: serverPortal },
}

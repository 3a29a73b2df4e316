// Metal servers (the Metal server calls, M1-M13). The Metal keypair pool is keypair-routes' `/baremetals` pool.
import {
  ACTIVE,
  cancel,
  listAccounts,
  newAccount,
  NOT_TERMINATED,
  order,
  requireStatus,
  RUNNING_STATES,
  schedule,
} from './account-routes.js'
import {
  DEFAULT_REGION,
  METAL_OS,
  METAL_OS_FAMILIES,
  type BaremetalProduct,
  baremetalCycles,
  baremetalPlan,
  baremetalProductsOf,
  OPENVPN_CONFIG,
  REGIONS,
} from './catalog.js'
import { conflict, notFound } from './envelope.js'
import type { BaremetalPower } from './model.js'
import { paramId, type Route, type RouteContext } from './router.js'

const P = '/baremetals'
const KIND = 'baremetal'
const KEYPAIR_POOL = '/baremetals'
const STATES = ['on', 'off', 'reset'] as const
const DEFAULT_OS = 'ubuntu-22'

const serverProducts = baremetalProductsOf('baremetal')

export function baremetalRoutes(): Route[] {
  const get = (ctx: RouteContext) => ctx.store.get(paramId(ctx, 'id'), KIND)
  const catalogProduct = (ctx: RouteContext): BaremetalProduct => {
    const id = paramId(ctx, 'product_id')
    const product = serverProducts.find((p) => p.product_id === id)
    if (!product) throw notFound('product not found')
    return product
  }

  return [
    {
      method: 'POST',
      pattern: P,
      handler: (ctx) => {
        const v = ctx.reader(true)
        const productId = v.int('product_id', { required: true })
        const product = productId === undefined ? undefined : serverProducts.find((p) => p.product_id === productId)
        if (productId !== undefined && !product) v.fail('product_id', `unknown product ${productId}`)
        const cycle = v.cycle(baremetalCycles)
        const os = v.oneOf('select_os', METAL_OS) ?? DEFAULT_OS
        const keypairId = v.int('keypair_id', { required: true })
        const keypairKnown = ctx.store.state.keypairs.some((k) => k.keypair_id === keypairId && k.pool === KEYPAIR_POOL)
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
          region: DEFAULT_REGION,
          region_label: REGIONS[DEFAULT_REGION],
        })
        account.server_power = 'off'
        return order(ctx, account, 'baremetal.create', 'new', pay, promocode, account.recurring_amount)
      },
    },
    { method: 'GET', pattern: `${P}/accounts`, handler: (ctx) => listAccounts(ctx, KIND) },
    { method: 'GET', pattern: `${P}/accounts/:id`, handler: (ctx) => ctx.store.view(get(ctx)) },
    {
      method: 'GET',
      pattern: `${P}/accounts/:id/state`,
      handler: (ctx) => {
        const account = get(ctx)
        requireStatus(account, RUNNING_STATES)
        return { state: account.server_power ?? 'off' }
      },
    },
    {
      method: 'PUT',
      pattern: `${P}/accounts/:id/state/:state`,
      handler: (ctx) => {
        const account = get(ctx)
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
        const account = get(ctx)
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
        const account = get(ctx)
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
        get(ctx)
        return [...METAL_OS]
      },
    },
    {
      method: 'DELETE',
      pattern: `${P}/:id`,
      // M10: the store's terminate also releases the server's IP assignments.
      handler: (ctx) => cancel(ctx, KIND),
    },
    { method: 'GET', pattern: `${P}/products`, handler: () => serverProducts.map(baremetalPlan) },
    { method: 'GET', pattern: `${P}/products/:product_id`, handler: (ctx) => baremetalPlan(catalogProduct(ctx)) },
    {
      method: 'GET',
      pattern: `${P}/products/:product_id/oss`,
      handler: (ctx) => {
        catalogProduct(ctx)
        return Object.fromEntries(Object.entries(METAL_OS_FAMILIES).map(([family, items]) => [family, items.map((i) => ({ ...i }))]))
      },
    },
    { method: 'GET', pattern: `${P}/openvpn`, handler: () => ({ config: OPENVPN_CONFIG }) },
  ]
}

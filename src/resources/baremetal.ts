/** provider:index:Baremetal (provider_baremetal): a Metal dedicated server (the Metal server calls, the Metal resources' calls). */
import type { Client, BaremetalServerAccount } from '../api/index.js'
import { productPrice } from './prices.js'
import { defineMethod, defineResource, int64, oneOf, type OperationContext, ownCall, string } from '../core/index.js'
import {
  accountIds,
  awaitingPayment,
  cycleAttribute,
  cycleCode,
  digitsId,
  idInput,
  METAL_CYCLES,
  orderedPending,
  POWER_NOTE,
  raw,
  rawAttribute,
  textRules,
  untilChangesTaken,
  waitForOrder,
  warnPowerChanged,
} from './billing.js'
import { accountElsewhere, registerAccountKind } from './account-kinds.js'
import { cycleRule, isNotFound, keypairCheck, productOf, productRule, quoted } from './catalog-rules.js'
import {
  accountListing,
  createdAtAttribute,
  isTerminated,
  ORDER_TIME_INPUTS,
  orderedOutputs,
  orderInputs,
  orderTerms,
} from './ordered-account.js'

const what = 'Metal server'

const attributes = {
  product_id: idInput('The product, from `baremetalProducts`. The API has no call to change it.'),
  cycle: cycleAttribute(METAL_CYCLES, 'The billing cycle: `m` monthly or `a` annually. The API has no call to change it.'),
  select_os: string({
    optional: true,
    default: 'ubuntu-22',
    createOnly: true,
    validate: textRules.free,
    description: 'The OS to install. Reinstall an existing server with `rebuild_os`.',
  }),
  keypair_id: idInput('A keypair of the Metal pool, from `BaremetalKeypair`.'),
  label: string({ required: true, validate: textRules.free, description: 'The display name; changed in place.' }),
  public_ip: int64({
    optional: true,
    default: 1,
    createOnly: true,
    validate: [oneOf([1])],
    description: 'Number of public IPv4 addresses; only 1 is offered.',
  }),
  ...orderInputs({
    description: 'Charge the card on file for the order; `false` leaves the invoice unpaid and the server Pending until it is paid.',
  }),
  power_state: string({
    optional: true,
    computed: true,
    action: true,
    validate: [oneOf(['on', 'off'])],
    description:
      'Power the server `on` or `off` when the value changes. Given at create, it is applied once the server is Active. Removing it calls nothing. A refresh that finds the power other than the value says (changed in the portal, or turned on by a rebuild or reset) warns, and plans nothing: run the `power` action (Terraform 1.14 or later, or the Pulumi method), or set the value to the power the server has and back, applying each.',
  }),
  reset_trigger: string({
    optional: true,
    action: true,
    validate: textRules.trigger,
    description:
      'Any new non-empty value hard-resets the server once (the value itself is only a trigger); an empty one fires nothing. The server is on afterwards, even when it was off and `power_state` is `off` (the reset does not send it again; the apply and later refreshes warn). Given at create, it is only recorded.',
  }),
  rebuild_os: string({
    optional: true,
    action: true,
    validate: textRules.trigger,
    description:
      'Destructive: reinstall the server with this OS (a value of `baremetalRebuildOsList`) whenever the value changes to a non-empty one (an empty one fires nothing). The server is on afterwards whatever `power_state` says (the rebuild does not send it again; the apply and later refreshes warn). Given at create, it is only recorded.',
  }),
  ...orderedOutputs('server'),
  ip_address: string({ computed: true, description: 'The public IPv4 address, known once the server is Active.' }),
  created_at: createdAtAttribute,
  raw: rawAttribute,
}

type Prior = { power_state?: string | null } | null

/**
 * M4, or null while the server is not Active or Suspended (409). In a read (`reading`), also null when
 * the power state is not found (404, 410): the account read just found the server, so a 404 of this
 * call says nothing of it (core takes only the server's own call's as gone: ownCall), nor fails the
 * refresh.
 */
async function powerOf(ctx: OperationContext<Client>, account: BaremetalServerAccount, reading = false): Promise<string | null> {
  if (account.status !== 'Active' && account.status !== 'Suspended') return null
  try {
    return (await ctx.client.baremetals.getPowerState(account.account_id, { signal: ctx.signal })).state
  } catch (thrown) {
    if ((thrown as { status?: number }).status === 409) return null
    if (reading && isNotFound(thrown)) return null
    throw thrown
  }
}

function observe(account: BaremetalServerAccount, power: string | null, importing: boolean) {
  const extra = account.extra_details
  return {
    ...accountIds(account),
    product_id: account.product_id,
    cycle: cycleCode(account.billingcycle) ?? undefined,
    keypair_id: extra.keypair_id ?? undefined,
    label: extra.label,
    public_ip: extra.public_ip,
    // The OS and the power state follow rebuilds and actions; they are inputs only at import (the import rules).
    ...(importing ? { select_os: extra.select_os, power_state: power } : {}),
    status: account.status,
    order_id: account.order_id,
    ip_address: extra.ip_address,
    created_at: account.date_created,
    raw: raw(account),
  }
}

async function settle(ctx: OperationContext<Client>, id: string, timeoutMs: number, orderedAt: number, orderId?: string) {
  const read = () => ctx.client.baremetals.getServer(id, { signal: ctx.signal })
  return waitForOrder(ctx, read, { account_id: id, order_id: orderId }, { timeoutMs, orderedAt, what })
}

/**
 * After the order: wait for Active, then apply a requested power state. Also resumes a create; with
 * `waitOnly` (steps of the same update follow, power last among them) it only waits.
 */
async function finish(
  ctx: OperationContext<Client> & { id: string; timeoutMs: number; resumeLater(): void; waitOnly?: boolean },
  powerState: string | null,
  prior: Prior,
) {
  const { account, unpaid } = await settle(ctx, ctx.id, ctx.timeoutMs, ctx.client.now())
  if (ctx.waitOnly === true) return { ...observe(account, null, false), power_state: prior?.power_state ?? null }
  if (unpaid) {
    if (powerState) ctx.resumeLater() // applied once the invoice is paid, by a later apply
    return { ...observe(account, null, false), power_state: powerState ?? prior?.power_state ?? null }
  }
  let power = await powerOf(ctx, account)
  if (power !== null && powerState && powerState !== power) {
    await ctx.client.baremetals.setPowerState(ctx.id, powerState as 'on' | 'off', { signal: ctx.signal })
    power = powerState
  }
  return { ...observe(account, power, false), power_state: powerState ?? prior?.power_state ?? null }
}

/** The server's account (M3). */
const getServer = (client: Client, id: string, signal: AbortSignal) => client.baremetals.getServer(id, { signal })

registerAccountKind({ type: 'baremetal', what, get: getServer })

export const baremetal = defineResource<Client, typeof attributes>({
  name: 'baremetal',
  description:
    'A Metal dedicated server. Creating it places a paid order and waits until the server is Active (provisioning is slow: ' +
    'the create timeout defaults to 60 minutes). The label changes in place; power, reset and OS rebuild are one-shot actions.',
  importId: digitsId('account id', '100070'),
  elsewhere: ({ client, id, signal }) => accountElsewhere('baremetal', client, id, signal),
  timeouts: { create: '60m', update: '60m', delete: '10m' },
  attributes,
  updates: [
    {
      attributes: ['label'],
      affects: ['raw'],
      // The service takes a label on a Pending account (its status rules): no unpaid invoice refuses it.
      cosmetic: true,
      async apply(ctx) {
        await ctx.client.baremetals.setLabel(ctx.id, { label: ctx.input.label ?? '' }, { signal: ctx.signal })
        return undefined
      },
    },
    {
      attributes: ['rebuild_os'],
      // Pending until Active again (M8); the address is kept by the spec, but a reinstall is where a
      // service would hand out another one, so it is not promised.
      affects: ['status', 'ip_address', 'raw'],
      async apply(ctx) {
        await ctx.client.baremetals.rebuildServer(ctx.id, { os: ctx.input.rebuild_os ?? '' }, { signal: ctx.signal })
        const startedAt = ctx.client.now()
        ctx.checkpoint() // destructive: never fired twice for one change, even if the wait fails
        // The service powers the server on at Active (M8), whatever power_state says: the reads say so.
        ctx.note(POWER_NOTE, 'OS rebuild (rebuild_os)')
        await settle(ctx, ctx.id, ctx.timeoutMs, startedAt)
        return undefined
      },
    },
    {
      attributes: ['reset_trigger'],
      affects: ['raw'],
      async apply(ctx) {
        await ctx.client.baremetals.setPowerState(ctx.id, 'reset', { signal: ctx.signal })
        ctx.note(POWER_NOTE, 'reset (reset_trigger)') // a reset leaves the server on (M5)
        return undefined
      },
    },
    {
      attributes: ['power_state'],
      affects: ['raw'],
      async apply(ctx) {
        await ctx.client.baremetals.setPowerState(ctx.id, ctx.input.power_state as 'on' | 'off', { signal: ctx.signal })
        ctx.note(POWER_NOTE, null)
        return undefined
      },
    },
  ],
  // The same calls as the power_state, reset_trigger and rebuild_os steps, run on demand (Terraform actions, Pulumi methods).
  methods: [
    defineMethod<Client, { state: ReturnType<typeof string> }>({
      name: 'power',
      description: 'Powers the server `on` or `off`.',
      inputs: {
        state: string({ required: true, validate: [oneOf(['on', 'off'])], description: 'The power state to set: `on` or `off`.' }),
      },
      timeout: '5m',
      async run(ctx) {
        const state = ctx.input.state as 'on' | 'off'
        await ctx.client.baremetals.setPowerState(ctx.id, state, { signal: ctx.signal })
        ctx.progress(`server ${ctx.id} powered ${state}`)
      },
    }),
    defineMethod<Client, Record<string, never>>({
      name: 'reset',
      description: 'Hard-resets the server once.',
      inputs: {},
      timeout: '5m',
      async run(ctx) {
        await ctx.client.baremetals.setPowerState(ctx.id, 'reset', { signal: ctx.signal })
        ctx.progress(`server ${ctx.id} reset`)
      },
    }),
    defineMethod<Client, { os: ReturnType<typeof string> }>({
      name: 'rebuild',
      description: 'Destructive: reinstalls the server with this OS, then waits until it is Active again.',
      inputs: {
        os: string({
          required: true,
          validate: textRules.free,
          description: "The OS to install: a value of the server's rebuild OS list, checked at plan once the server's id is known.",
        }),
      },
      timeout: '60m',
      destructive: true,
      checks: [
        {
          attribute: 'os',
          async check({ client, id, input, signal }) {
            let oss: readonly string[]
            try {
              oss = await client.baremetals.listRebuildOss(id, { signal })
            } catch (thrown) {
              if (isNotFound(thrown)) return null // no such server: the rebuild itself says so
              throw thrown
            }
            return oss.includes(input.os ?? '') ? null : `must be one of ${quoted(oss)} for server ${id}`
          },
        },
      ],
      async run(ctx) {
        const os = ctx.input.os ?? ''
        await ctx.client.baremetals.rebuildServer(ctx.id, { os }, { signal: ctx.signal })
        const startedAt = ctx.client.now()
        ctx.progress(`rebuild of server ${ctx.id} with ${os} started; waiting until it is Active again`)
        await settle(ctx, ctx.id, ctx.timeoutMs, startedAt)
        ctx.progress(`server ${ctx.id} is Active again with ${os}`)
      },
    }),
  ],
  priceCreate: productPrice<typeof attributes>({ product: 'product_id', cycle: 'cycle' }, (client, signal) =>
    client.baremetals.listProducts({ signal }),
  ),
  createChecks: [
    {
      attribute: 'product_id',
      async check({ client, input, signal }) {
        const products = await client.baremetals.listProducts({ signal })
        const wrong = productRule(products, input.product_id ?? 0, 'baremetal_products')
        if (wrong) return wrong
        const product = productOf(products, input.product_id)
        return product?.out_of_stock
          ? `is product ${product.product_id} (${product.name}), which is out of stock, so its order would be refused`
          : null
      },
    },
    {
      attribute: 'cycle',
      async check({ client, input, signal }) {
        return cycleRule(productOf(await client.baremetals.listProducts({ signal }), input.product_id), input.cycle ?? '')
      },
    },
    {
      attribute: 'select_os',
      async check({ client, input, signal }) {
        const product = input.product_id
        if (typeof product !== 'number') return null
        let values: string[]
        try {
          values = Object.values(await client.baremetals.listProductOss(product, { signal })).flatMap((family) =>
            family.map((o) => o.value),
          )
        } catch (thrown) {
          if (isNotFound(thrown)) return null // an unknown product: the product_id check says so
          throw thrown
        }
        return values.includes(input.select_os ?? '') ? null : `must be an OS of product ${product}: ${quoted(values)}`
      },
    },
    keypairCheck<typeof attributes>('keypair_id', 'baremetal_keypair', ({ client }) => client.baremetals),
  ],
  planChecks: [
    {
      attribute: 'rebuild_os',
      async check({ client, id, input, signal }) {
        const oss = await client.baremetals.listRebuildOss(id, { signal })
        return oss.includes(input.rebuild_os ?? '')
          ? null
          : `must be one of ${oss.map((o) => JSON.stringify(o)).join(', ')} for server ${id}`
      },
    },
  ],
  async create(ctx) {
    const { input } = ctx
    const order = await ctx.client.baremetals.createServer(
      {
        product_id: input.product_id ?? 0,
        cycle: input.cycle ?? '',
        select_os: input.select_os ?? undefined,
        keypair_id: input.keypair_id ?? 0,
        label: input.label ?? '',
        public_ip: input.public_ip ?? undefined,
        ...orderTerms(input),
      },
      { signal: ctx.signal },
    )
    ctx.checkpoint(orderedPending(order))
    return finish({ ...ctx, id: order.account_id }, input.power_state, null)
  },
  resume: (ctx) => finish(ctx, ctx.input.power_state, ctx.prior),
  async read(ctx) {
    const account = await ownCall(ctx.client.baremetals.getServer(ctx.id, { signal: ctx.signal }))
    if (isTerminated(account)) return null
    const setting = ctx.prior?.power_state
    const asked = !ctx.importing && typeof setting === 'string' && setting !== ''
    const power = ctx.importing || asked ? await powerOf(ctx, account, true) : null
    if (asked && power === setting) ctx.note(POWER_NOTE, null)
    if (asked && power !== null && power !== setting) {
      warnPowerChanged(ctx, {
        what: `Metal server ${ctx.id}`,
        found: `powered ${power}`,
        setting,
        matching: power === 'on' || power === 'off' ? power : null,
        action: 'provider_baremetal_power',
        cause: power === 'on' ? (ctx.notes[POWER_NOTE] ?? null) : null,
      })
    }
    return observe(account, ctx.importing ? power : null, ctx.importing)
  },
  changesRefused: (ctx) => awaitingPayment(ctx, what, () => getServer(ctx.client, ctx.id, ctx.signal)),
  readyForChanges: (ctx) => untilChangesTaken(ctx, what, () => getServer(ctx.client, ctx.id, ctx.signal)),
  async delete(ctx) {
    await ownCall(ctx.client.baremetals.deleteServer(ctx.id, { signal: ctx.signal }))
  },
  unrecoverable: [...ORDER_TIME_INPUTS, 'reset_trigger', 'rebuild_os'],
  // The service reports the OS the server runs, which rebuild_os changes.
  importReadsCurrent: ['select_os'],
  list: accountListing<typeof attributes>({
    accounts: (client, signal) => client.baremetals.listServers({ signal }),
    filters: {
      label_prefix: { attribute: 'label', match: 'prefix', description: 'Only servers whose label starts with this.', example: 'db-' },
    },
    plural: 'servers',
    displayName: 'label',
  }),
})

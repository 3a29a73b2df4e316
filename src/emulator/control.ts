// The control API under /_emulator (the emulator's control endpoints): reset, config, clock, payments,
// forced statuses and drift of accounts, changes made through the service's portal, faults (with the seed
// of their draws and the named profiles), the request log and the order counters, and the customers (one
// per API key): every read that lists their objects takes `?customer=NAME`, every item names its customer;
// writes on one object go by its global id. No auth, no log, no faults. Must not: name a family or a kind
// (the store's registry lists the kinds; the API router the routes).
import { payInvoice } from './billing.js'
import { formatDateTime } from './clock.js'
import { CustomerStore } from './customer-store.js'
import { customerFilter, customerList, defaultCustomer, keysFromPatch, knownCustomer } from './customers.js'
import {
  type Answer,
  conflict,
  type EmulatorRequest,
  revalidated,
  errorBody,
  HttpError,
  type Issue,
  jsonAnswer,
  notFound,
  successBody,
} from './envelope.js'
import { addFault, installProfile, PROFILES } from './faults.js'
import { fingerprint } from './openssh.js'
import { deepMerge, isObject, type Json, type JsonObject } from './json.js'
import { type Account, type Config, type Invoice, invoiceView, type LogEntry, type State, STATUSES, type Status } from './model.js'
import { isSeed, type Random } from './random.js'
import { logAfter } from './request-log.js'
import type { Registry } from './family.js'
import { Router } from './router.js'
import { snapshotName } from './snapshots.js'
import type { Store } from './store.js'
import { BodyReader, type ParsedBody, parseBody } from './validation.js'

/** What a control handler sees; the control API has no auth, no log and no faults (the emulator's control endpoints). */
interface ControlContext {
  readonly store: Store
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly body: ParsedBody
  readonly reset: () => void
  /** The fault rules' seeded random source. */
  readonly random: Random
  /** The service API's routes and each account's portal changes (POST /_emulator/portal). */
  readonly api: Registry
}
interface ControlRoute {
  readonly method: string
  readonly pattern: string
  readonly handler: (ctx: ControlContext) => Json
}

const bodyObject = (ctx: ControlContext): JsonObject => {
  if (ctx.body.kind === 'none') return {}
  if (ctx.body.kind === 'json' && isObject(ctx.body.value)) return ctx.body.value
  throw new HttpError(422, [
    { loc: ['body'], msg: 'body must be a JSON object', type: ctx.body.kind === 'invalid' ? 'json_invalid' : 'type_error' },
  ])
}

const accountParam = (ctx: ControlContext): Account => {
  const account = ctx.store.find(Number(ctx.params.account_id))
  if (!account) throw notFound(`account ${ctx.params.account_id} not found`)
  return account
}

function pay(store: Store, invoice: Invoice): Json {
  if (invoice.status !== 'Unpaid') throw conflict(`invoice ${invoice.id} is ${invoice.status}, not Unpaid`)
  payInvoice(store, invoice)
  return invoiceView(invoice)
}

const isCount = (v: Json | undefined) => typeof v === 'number' && Number.isInteger(v) && v >= 0

/** PATCH /_emulator/config: every bad key reported at once, nothing applied unless all are good. */
function patchConfig(config: Config, patch: JsonObject): Config {
  const issues: Issue[] = []
  const bad = (field: string, msg: string) => issues.push({ loc: ['body', field], msg, type: 'value_error' })
  const next: Config = structuredClone(config)
  for (const field of ['provisioning_delay_ms', 'retention_ms', 'idempotency_ttl_ms'] as const) {
    const value = patch[field]
    if (value === undefined) continue
    if (isCount(value)) next[field] = value as number
    else bad(field, 'must be a non-negative integer')
  }
  if (patch.api_keys !== undefined) {
    const keys = keysFromPatch(patch.api_keys, issues)
    if (keys) next.api_keys = keys
  }
  if (patch.ip_unavailable_product_ids !== undefined) {
    const ids = patch.ip_unavailable_product_ids
    if (Array.isArray(ids) && ids.every((i) => typeof i === 'number' && Number.isInteger(i))) {
      next.ip_unavailable_product_ids = ids as number[]
    } else bad('ip_unavailable_product_ids', 'must be an array of integers')
  }
  if (patch.quirks !== undefined) {
    const quirks = patch.quirks
    if (!isObject(quirks)) bad('quirks', 'must be an object')
    else {
      for (const name of ['ids_as_strings', 'bare_lists', 'ignore_idempotency_keys'] as const) {
        const value = quirks[name]
        if (value === undefined) continue
        if (typeof value === 'boolean') next.quirks[name] = value
        else bad(`quirks.${name}`, 'must be a boolean')
      }
    }
  }
  if (issues.length > 0) throw new HttpError(422, issues)
  return next
}

function forceStatus(store: Store, account: Account, status: Status): void {
  switch (status) {
    case 'Active':
      account.gone_at = null
      if (account.status === 'Suspended') store.unsuspend(account)
      else if (account.status !== 'Active') store.activate(account, store.now())
      return
    case 'Suspended':
      store.suspend(account)
      return
    case 'Pending':
      account.gone_at = null
      if (store.lastInvoice(account).status === 'Unpaid') {
        account.status = 'Pending'
        account.activate_at = null
      } else store.startDelay(account)
      return
    case 'Terminated':
      store.terminate(account)
      return
  }
}

const FIXED = ['account_id', 'order_id', 'last_invoice']
const STRING_FIELDS = ['billingcycle', 'date_created', 'next_due', 'product_name', 'description'] as const
const INT_FIELDS = ['recurring_amount', 'product_id'] as const

/**
 * The fields of `patch` that `view` does not have, at any depth: one issue each, naming the fields that
 * exist there. A patch is merged into what a client reads, so a field it does not have (a Metal server's
 * `label`, which lives in `extra_details.label`) would change nothing a client sees and silently defeat
 * a drift test.
 */
function unknownFields(view: JsonObject, patch: JsonObject, path: readonly string[] = []): Issue[] {
  return Object.entries(patch).flatMap(([key, value]): Issue[] => {
    if (!Object.hasOwn(view, key)) {
      const where = path.length > 0 ? `${path.join('.')} has` : 'the account has'
      const fields = Object.keys(view).sort().join(', ') || 'none'
      return [{ loc: ['body', ...path, key], msg: `unknown field; ${where}: ${fields}`, type: 'value_error' }]
    }
    const current = view[key]
    return isObject(current) && isObject(value) ? unknownFields(current, value, [...path, key]) : []
  })
}

/** Out-of-band drift (the emulator's control endpoints): deep-merged into the account as a client would read it. */
function patchAccount(store: Store, account: Account, patch: JsonObject): void {
  const issues: Issue[] = unknownFields(store.view(account), patch)
  for (const key of FIXED) {
    if (key in patch) issues.push({ loc: ['body', key], msg: 'cannot be changed', type: 'value_error' })
  }
  const merged = deepMerge(store.view(account), patch)
  const status = merged.status
  if (!STATUSES.includes(status as Status)) issues.push({ loc: ['body', 'status'], msg: 'unknown status', type: 'value_error' })
  for (const key of STRING_FIELDS) {
    if (typeof merged[key] !== 'string') issues.push({ loc: ['body', key], msg: 'must be a string', type: 'type_error' })
  }
  for (const key of INT_FIELDS) {
    if (!Number.isInteger(merged[key])) issues.push({ loc: ['body', key], msg: 'must be an integer', type: 'type_error' })
  }
  if (!isObject(merged.extra_details)) issues.push({ loc: ['body', 'extra_details'], msg: 'must be an object', type: 'type_error' })
  if (issues.length > 0) throw new HttpError(422, issues)
  account.status = status as Status
  for (const key of STRING_FIELDS) account[key] = merged[key] as string
  for (const key of INT_FIELDS) account[key] = merged[key] as number
  account.extra_details = merged.extra_details as JsonObject
}

const PORTAL_METHODS = ['GET', 'POST', 'PUT', 'DELETE']

/**
 * POST /_emulator/portal: one call of the service's API made as its web portal makes it, out of band: the
 * same route and rules (an order, its invoice, a power change), with no key, no fault, no Idempotency-Key
 * and no log entry, so that a client sees only the result (drift).
 */
/** The customer a portal call acts for: the named one (404 if the state knows none such), else the default. */
function portalCustomer(state: State, named: Json | undefined): string {
  if (named === undefined || named === null) return defaultCustomer(state.config.api_keys)
  if (typeof named !== 'string' || named === '')
    throw new HttpError(422, [{ loc: ['body', 'customer'], msg: 'must be a customer name', type: 'value_error' }])
  return knownCustomer(state, named)
}

function portal(ctx: ControlContext): Json {
  const body = bodyObject(ctx)
  const method = typeof body.method === 'string' ? body.method.toUpperCase() : ''
  const path = typeof body.path === 'string' ? body.path : ''
  const issues: Issue[] = []
  if (!PORTAL_METHODS.includes(method))
    issues.push({ loc: ['body', 'method'], msg: `must be one of ${PORTAL_METHODS.join(', ')}`, type: 'value_error' })
  if (!path.startsWith('/')) issues.push({ loc: ['body', 'path'], msg: 'must be a path under /v1, starting with /', type: 'value_error' })
  if (issues.length > 0) throw new HttpError(422, issues)
  const url = new URL(path, 'http://portal')
  const match = ctx.api.router.match(method, url.pathname)
  if (match.kind === 'none') throw notFound(`no API route ${method} ${url.pathname}`)
  if (match.kind === 'method') throw new HttpError(405, 'Method Not Allowed', { allow: match.allowed.join(', ') })
  const sent: ParsedBody = body.body === undefined ? { kind: 'none' } : { kind: 'json', value: body.body }
  // The portal acts for one customer, on that customer's objects: `customer`, else the default one.
  const customer = portalCustomer(ctx.store.state, body.customer)
  return match.route.handler({
    store: new CustomerStore(ctx.store, customer),
    params: match.params,
    query: url.searchParams,
    idempotencyKey: null,
    reader: (expectBody) => new BodyReader(sent, expectBody),
  })
}

/** How far the clock may be moved: the API's dates have four-digit years, and the furthest it writes is a due date five years on. */
const CLOCK_ENDS_MS = Date.UTC(9990, 0, 1)

const routes: ControlRoute[] = [
  {
    method: 'POST',
    pattern: '/reset',
    handler: (ctx) => {
      ctx.reset()
      return true
    },
  },
  { method: 'GET', pattern: '/config', handler: (ctx) => ctx.store.config as unknown as JsonObject },
  {
    method: 'PATCH',
    pattern: '/config',
    handler: (ctx) => {
      ctx.store.state.config = patchConfig(ctx.store.config, bodyObject(ctx))
      return ctx.store.config as unknown as JsonObject
    },
  },
  { method: 'GET', pattern: '/clock', handler: (ctx) => ({ now: formatDateTime(ctx.store.now()), mode: ctx.store.clock.mode }) },
  {
    method: 'POST',
    pattern: '/clock',
    handler: (ctx) => {
      const advance = bodyObject(ctx).advance_ms ?? 0
      if (!isCount(advance)) {
        throw new HttpError(422, [{ loc: ['body', 'advance_ms'], msg: 'must be a non-negative integer', type: 'value_error' }])
      }
      if (ctx.store.now() + (advance as number) >= CLOCK_ENDS_MS) {
        const msg = `must keep the clock before ${formatDateTime(CLOCK_ENDS_MS)}: the API writes dates as YYYY-MM-DD, due dates up to five years ahead`
        throw new HttpError(422, [{ loc: ['body', 'advance_ms'], msg, type: 'value_error' }])
      }
      ctx.store.clock.advance(advance as number)
      ctx.store.tick()
      return { now: formatDateTime(ctx.store.now()) }
    },
  },
  {
    method: 'POST',
    pattern: '/invoices/:invoice_id/pay',
    handler: (ctx) => {
      const invoice = ctx.store.invoice(Number(ctx.params.invoice_id))
      if (!invoice) throw notFound(`invoice ${ctx.params.invoice_id} not found`)
      return pay(ctx.store, invoice)
    },
  },
  {
    method: 'POST',
    pattern: '/accounts/:account_id/pay',
    handler: (ctx) => pay(ctx.store, ctx.store.lastInvoice(accountParam(ctx))),
  },
  {
    method: 'POST',
    pattern: '/accounts/:account_id/status',
    handler: (ctx) => {
      const account = accountParam(ctx)
      const status = bodyObject(ctx).status
      if (!STATUSES.includes(status as Status)) {
        throw new HttpError(422, [{ loc: ['body', 'status'], msg: `must be one of ${STATUSES.join(', ')}`, type: 'value_error' }])
      }
      forceStatus(ctx.store, account, status as Status)
      return ctx.store.view(account)
    },
  },
  {
    method: 'PATCH',
    pattern: '/accounts/:account_id',
    handler: (ctx) => {
      const account = accountParam(ctx)
      patchAccount(ctx.store, account, bodyObject(ctx))
      return ctx.store.view(account)
    },
  },
  {
    method: 'DELETE',
    pattern: '/accounts/:account_id',
    handler: (ctx) => ctx.store.purge(accountParam(ctx).account_id),
  },
  {
    method: 'GET',
    pattern: '/accounts',
    handler: (ctx) => {
      const kind = ctx.query.get('kind')
      const kinds = ctx.store.registry.kinds
      if (kind !== null && !kinds.includes(kind)) {
        throw new HttpError(422, [{ loc: ['query', 'kind'], msg: `must be one of ${kinds.join(', ')}`, type: 'value_error' }])
      }
      const customer = customerFilter(ctx.store.state, ctx.query)
      // `family`: the title of the kind's family (the docs' name, e.g. "Metal servers");
      // `power`: what a client reads in the VM's details or the server's state, null on kinds without it;
      // `portal`: the changes the service's portal offers on the account (POST /_emulator/portal makes them).
      return ctx.store.state.accounts
        .filter((a) => (kind === null || a.kind === kind) && (customer === null || a.customer === customer))
        .map((a) => ({
          kind: a.kind,
          family: ctx.api.titleOf(a.kind),
          customer: a.customer,
          account: ctx.store.view(a),
          power: a.vm?.power ?? a.server_power ?? null,
          portal: structuredClone(ctx.api.portalOf(a)) as unknown as JsonObject,
        }))
    },
  },
  { method: 'GET', pattern: '/customers', handler: (ctx) => customerList(ctx.store.state) },
  {
    method: 'GET',
    pattern: '/keypairs',
    handler: (ctx) => {
      const customer = customerFilter(ctx.store.state, ctx.query)
      return (
        ctx.store.state.keypairs
          .filter((k) => customer === null || k.customer === customer)
          .sort((a, b) => a.keypair_id - b.keypair_id)
          // What tells keys apart at a glance, as `ssh-keygen -l` shows it (the web console lists it).
          .map((k) => ({ ...k, fingerprint: fingerprint(k.public_key) }))
      )
    },
  },
  {
    method: 'GET',
    pattern: '/invoices',
    handler: (ctx) => {
      const customer = customerFilter(ctx.store.state, ctx.query)
      return ctx.store.state.invoices
        .filter((i) => customer === null || i.customer === customer)
        .sort((a, b) => a.id - b.id)
        .map((i) => ({ ...invoiceView(i), account_id: i.account_id, customer: i.customer }))
    },
  },
  { method: 'POST', pattern: '/portal', handler: portal },
  {
    method: 'POST',
    pattern: '/faults',
    handler: (ctx) => ({ ...addFault(ctx.store, ctx.body) }),
  },
  { method: 'GET', pattern: '/faults', handler: (ctx) => ctx.store.state.faults.map((f) => ({ ...f })) },
  {
    method: 'DELETE',
    pattern: '/faults',
    handler: (ctx) => {
      ctx.store.state.faults = []
      return true
    },
  },
  {
    method: 'DELETE',
    pattern: '/faults/:fault',
    handler: (ctx) => {
      const before = ctx.store.state.faults.length
      ctx.store.state.faults = ctx.store.state.faults.filter((f) => f.fault_id !== ctx.params.fault)
      if (ctx.store.state.faults.length === before) throw notFound(`fault ${ctx.params.fault} not found`)
      return true
    },
  },
  { method: 'GET', pattern: '/profiles', handler: () => structuredClone(PROFILES) as JsonObject },
  {
    method: 'POST',
    pattern: '/profiles/:name',
    handler: (ctx) => installProfile(ctx.store, ctx.params.name ?? '').map((f) => ({ ...f })),
  },
  { method: 'GET', pattern: '/seed', handler: (ctx) => ({ seed: ctx.random.seed, draws: ctx.random.draws }) },
  {
    method: 'POST',
    pattern: '/seed',
    handler: (ctx) => {
      const seed = bodyObject(ctx).seed
      if (!isSeed(seed)) {
        throw new HttpError(422, [{ loc: ['body', 'seed'], msg: 'must be an integer from 0 to 4294967295', type: 'value_error' }])
      }
      ctx.random.reseed(seed)
      return { seed, draws: 0 }
    },
  },
  {
    method: 'GET',
    pattern: '/requests',
    handler: (ctx) => {
      const raw = ctx.query.get('since')
      if (raw !== null && !/^\d+$/.test(raw)) {
        throw new HttpError(422, [{ loc: ['query', 'since'], msg: 'must be a non-negative integer', type: 'value_error' }])
      }
      const since = raw === null ? null : Number(raw)
      const customer = customerFilter(ctx.store.state, ctx.query)
      const kept = (entries: readonly LogEntry[]) =>
        entries.filter((e) => (since === null || e.seq > since) && (customer === null || e.customer === customer)).map((e) => ({ ...e }))
      // `after`: what was logged since the call that gave the cursor (a poller's), or the whole log, saying which.
      const after = ctx.query.get('after')
      if (after === null) return kept(ctx.store.state.log)
      const read = logAfter(ctx.store.state, after)
      return { cursor: read.cursor, whole: read.whole, entries: kept(read.entries) }
    },
  },
  {
    method: 'DELETE',
    pattern: '/requests',
    handler: (ctx) => {
      // `?customer=` empties that customer's entries only, as it narrows the GET; a new array either way,
      // so pollers' cursors and the log file start over (see logAfter).
      const customer = customerFilter(ctx.store.state, ctx.query)
      ctx.store.state.log = customer === null ? [] : ctx.store.state.log.filter((e) => e.customer !== customer)
      return true
    },
  },
  {
    method: 'GET',
    pattern: '/orders',
    handler: (ctx) => {
      const customer = customerFilter(ctx.store.state, ctx.query)
      const orders = ctx.store.state.orders.filter((o) => customer === null || o.customer === customer)
      const byKind: JsonObject = {}
      for (const o of orders) byKind[o.kind] = ((byKind[o.kind] as number | undefined) ?? 0) + 1
      return {
        total: orders.length,
        by_kind: byKind,
        orders: orders.map((o) => ({
          order_id: o.order_id,
          customer: o.customer,
          kind: o.kind,
          account_id: o.account_id,
          invoice_id: o.invoice_id,
          invoice_status: ctx.store.invoice(o.invoice_id)?.status ?? null,
          // What the order billed: lets a test compare it with the price a plan showed (beyond the spec's counters).
          invoice_amount: ctx.store.invoice(o.invoice_id)?.amount ?? null,
          idempotency_key: o.idempotency_key,
          created_at: o.created_at,
        })),
      }
    },
  },
  // Named snapshots of the whole state (snapshots.ts): saved, listed, restored and deleted by name.
  {
    method: 'POST',
    pattern: '/snapshots',
    handler: (ctx) => ctx.store.snapshots.save(snapshotName(bodyObject(ctx).name, ['body', 'name']), ctx.store.snapshot()),
  },
  { method: 'GET', pattern: '/snapshots', handler: (ctx) => ctx.store.snapshots.list() },
  {
    method: 'GET',
    pattern: '/snapshots/:name',
    handler: (ctx) => ctx.store.snapshots.summary(snapshotName(ctx.params.name, ['path', 'name'])),
  },
  {
    method: 'POST',
    pattern: '/snapshots/:name/restore',
    handler: (ctx) => {
      const name = snapshotName(ctx.params.name, ['path', 'name'])
      // The clock never moves back (Store.restore): a snapshot saved earlier comes back at today's time.
      ctx.store.restore(ctx.store.snapshots.get(name))
      return ctx.store.snapshots.summary(name)
    },
  },
  {
    method: 'DELETE',
    pattern: '/snapshots/:name',
    handler: (ctx) => {
      ctx.store.snapshots.delete(snapshotName(ctx.params.name, ['path', 'name']))
      return true
    },
  },
]

const controlRouter = new Router<ControlRoute>(routes)

/**
 * Why a change is refused when a web page of another origin sent it: the control API needs no key, and
 * a browser lets any page it shows send a form-like POST to 127.0.0.1 (it hides only the answer), so a
 * site the user has open could otherwise add fault rules, reset the state or pay invoices. A browser
 * names the page's origin on every such request (`Origin`, `Sec-Fetch-Site`); the console's own calls
 * are same-origin, and curl, scripts and tests send neither header.
 */
function foreignPage(method: string, request: EmulatorRequest, url: URL): string | undefined {
  if (method === 'GET' || method === 'HEAD') return undefined
  const site = request.headers.get('sec-fetch-site')
  const origin = request.headers.get('origin')
  const host = request.headers.get('host') ?? url.host
  // A page under `Referrer-Policy: no-referrer` (the console's) may send `Origin: null`; then the
  // browser's own `Sec-Fetch-Site`, which no page can set, says whether it is same-origin.
  const sameOrigin = origin === null || origin === `${url.protocol}//${host}` || (origin === 'null' && site === 'same-origin')
  if (sameOrigin && (site === null || site === 'same-origin' || site === 'none')) return undefined
  return (
    `the control API takes changes only from its own console, curl or a script: this ${method} came from a page of ` +
    `${origin ?? 'another site'}, and is refused`
  )
}

/** Answers one request under /_emulator; `reset` is the emulator's own (the same as its `reset()`). */
export async function handleControl(
  store: Store,
  request: EmulatorRequest,
  url: URL,
  reset: () => void,
  random: Random,
  api: Registry,
): Promise<Answer> {
  store.tick()
  const method = request.method.toUpperCase()
  const refused = foreignPage(method, request, url)
  if (refused !== undefined) return jsonAnswer(403, errorBody(403, refused))
  const path = url.pathname.slice('/_emulator'.length) || '/'
  const match = controlRouter.match(method, path)
  if (match.kind === 'none') return jsonAnswer(404, errorBody(404, 'Not Found'))
  if (match.kind === 'method') {
    return jsonAnswer(405, errorBody(405, 'Method Not Allowed'), { allow: match.allowed.join(', ') })
  }
  const ctx: ControlContext = {
    store,
    params: match.params,
    query: url.searchParams,
    body: parseBody(await request.text()),
    reset,
    random,
    api,
  }
  try {
    const answer = jsonAnswer(200, successBody(match.route.handler(ctx)))
    return method === 'GET' ? revalidated(answer, request.headers.get('if-none-match')) : answer
  } catch (error) {
    if (error instanceof HttpError) return jsonAnswer(error.status, errorBody(error.status, error.detail), error.headers)
    const message = error instanceof Error ? error.message : String(error)
    return jsonAnswer(500, errorBody(500, `emulator failure: ${message}`))
  }
}

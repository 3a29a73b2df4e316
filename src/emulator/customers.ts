// One customer per API key: the key syntax (`KEY`, `KEY:ro`, `KEY@CUSTOMER`, `KEY:ro@CUSTOMER`) and its
// defaults, the masked form a key is shown in, the owners of a state written before customers, and the
// customers a state knows (the control API's list and filter). The service API's view of one customer
// is customer-store.ts. Must not: name a family or a kind, or import the store (the store imports this).
import { createHash } from 'node:crypto'
import { HttpError, type Issue, notFound } from './envelope.js'
import { isObject, type Json, type JsonObject } from './json.js'
import type { ApiKey, Config, State } from './model.js'

export const DEFAULT_API_KEY = 'emulator-key'

/** A customer's name, one rule: short, and safe in a query string, a file name and a console's menu. */
export const CUSTOMER_NAME = /^[A-Za-z0-9._-]{1,64}$/
const CUSTOMER_RULE = 'must be 1 to 64 characters of A-Z a-z 0-9 . _ -'

/** A key as configured, before its defaults: `customer` absent takes the rule of resolveKeys. */
export interface ApiKeySpec {
  key: string
  scope?: 'rw' | 'ro'
  customer?: string
}

/**
 * The defaults, one place: a read-write key without a customer is its own, named by ownCustomer; a
 * read-only key without one is the first read-write key's customer (the usual "main key plus read-only
 * key" sees one set of objects), or its own when no key can write.
 */
export function resolveKeys(specs: readonly ApiKeySpec[]): ApiKey[] {
  const firstRw = specs.find((s) => (s.scope ?? 'rw') === 'rw')
  const mainCustomer = firstRw ? (firstRw.customer ?? ownCustomer(firstRw.key)) : undefined
  return specs.map((s) => {
    const scope = s.scope ?? 'rw'
    const customer = s.customer ?? (scope === 'ro' ? (mainCustomer ?? ownCustomer(s.key)) : ownCustomer(s.key))
    return { key: s.key, scope, customer }
  })
}

/**
 * The name of the customer a key is when it names none: `customer-` and 8 hex digits of the key's SHA-256,
 * stable across restarts and never the key itself, which the request log, the console and the state
 * file show beside every entry (the service contract: `x-token` is never logged).
 */
export function ownCustomer(key: string): string {
  return `customer-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`
}

/** Who owns an object that has no owner (a state file written before customers existed): the first read-write key's customer. */
export function defaultCustomer(keys: readonly ApiKey[]): string {
  return (keys.find((k) => k.scope === 'rw') ?? keys[0])?.customer ?? ownCustomer(DEFAULT_API_KEY)
}

/** One item of the key syntax, or the rule it broke; `where` names the field and the item for the message. */
export function parseKeySpec(item: string, where: string): ApiKeySpec {
  const at = item.lastIndexOf('@')
  const head = at >= 0 ? item.slice(0, at) : item
  const customer = at >= 0 ? item.slice(at + 1) : undefined
  if (customer !== undefined && !CUSTOMER_NAME.test(customer)) throw new Error(`${where}: the customer after @ ${CUSTOMER_RULE}`)
  const readOnly = head.endsWith(':ro')
  const key = readOnly ? head.slice(0, -':ro'.length) : head
  if (key === '' || /\s/.test(key)) throw new Error(`${where}: the key must be non-empty, without spaces`)
  return { key, scope: readOnly ? 'ro' : 'rw', ...(customer === undefined ? {} : { customer }) }
}

/** The keys given at start, resolved; a key given twice is an error naming where (`place` of its index). */
export function startKeys(specs: readonly ApiKeySpec[], place: (index: number) => string): ApiKey[] {
  const twice = specs.findIndex((s, i) => specs.findIndex((t) => t.key === s.key) !== i)
  if (twice >= 0) throw new Error(`${place(twice)}: the key is given twice (a key belongs to one customer)`)
  return resolveKeys(specs)
}

/** A comma-separated list in the key syntax (`--api-keys`, EMULATOR_API_KEYS), resolved. */
export function parseApiKeys(list: string, field: string): ApiKey[] {
  const items = list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  // No key at all would answer every API call 401: a list that names none is a mistake, not a setting.
  if (items.length === 0) throw new Error(`${field} names no key (give at least one, e.g. emulator-key)`)
  const place = (i: number) => `${field} item ${i + 1}`
  return startKeys(
    items.map((item, i) => parseKeySpec(item, place(i))),
    place,
  )
}

/** The `api_keys` of a config patch: `[{key, scope, customer?}]`, every issue at its index. */
export function keysFromPatch(value: Json, issues: Issue[]): ApiKey[] | undefined {
  const bad = (loc: (string | number)[], msg: string) => issues.push({ loc: ['body', 'api_keys', ...loc], msg, type: 'value_error' })
  if (!Array.isArray(value)) {
    bad([], 'must be an array of {key, scope: "rw" | "ro", customer?}')
    return undefined
  }
  const before = issues.length
  const specs: ApiKeySpec[] = []
  for (const [i, item] of value.entries()) {
    if (!isObject(item)) {
      bad([i], 'must be an object {key, scope: "rw" | "ro", customer?}')
      continue
    }
    const { key, scope, customer } = item
    if (typeof key !== 'string' || key === '') bad([i, 'key'], 'must be a non-empty string')
    else if (specs.some((s) => s.key === key)) bad([i, 'key'], 'is given twice (a key belongs to one customer)')
    if (scope !== 'rw' && scope !== 'ro') bad([i, 'scope'], 'must be "rw" or "ro"')
    if (customer !== undefined && (typeof customer !== 'string' || !CUSTOMER_NAME.test(customer))) bad([i, 'customer'], CUSTOMER_RULE)
    specs.push({ key: String(key), scope: scope as 'rw' | 'ro', ...(typeof customer === 'string' ? { customer } : {}) })
  }
  return issues.length === before ? resolveKeys(specs) : undefined
}

/** How a key is shown (request log, customers list): `…` and at most its last 4 characters, never more than a third of it. */
export function maskKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 3))
  return `…${shown > 0 ? key.slice(-shown) : ''}`
}

/** The configured key a request's `x-token` names, if any. */
export function keyFor(config: Config, token: string | null): ApiKey | undefined {
  return token ? config.api_keys.find((k) => k.key === token) : undefined
}

/**
 * A state of any earlier emulator, made whole: its keys get their customers, and every object without an
 * owner (accounts, invoices, orders, keypairs, idempotency records) goes to the default customer; log
 * entries written before the log named a key keep `customer` and `api_key` null.
 */
export function adoptOwnerless(state: State): void {
  state.config.api_keys = resolveKeys(state.config.api_keys as ApiKeySpec[])
  const owner = defaultCustomer(state.config.api_keys)
  for (const list of [state.accounts, state.invoices, state.orders, state.keypairs, state.idempotency] as { customer?: string }[][]) {
    for (const item of list) item.customer ??= owner
  }
  for (const entry of state.log as { customer?: string | null; api_key?: string | null }[]) {
    entry.customer ??= null
    entry.api_key ??= null
  }
}

/**
 * Every customer a state knows: the configured keys' (in key order), then, by name, any other that owns
 * objects or has requests in the log (a key since removed), so that what it left can still be listed.
 */
export function customersOf(state: State): string[] {
  const names = state.config.api_keys.map((k) => k.customer)
  const owners = [state.accounts, state.keypairs, state.orders, state.invoices].flatMap((list) => list.map((item) => item.customer))
  const callers = state.log.flatMap((e) => (e.customer === null ? [] : [e.customer]))
  const others = [...new Set([...owners, ...callers])].filter((c) => !names.includes(c)).sort()
  return [...new Set(names), ...others]
}

/** The optional `?customer=NAME` of a control read: null for all customers, 404 for one the state does not know. */
export function customerFilter(state: State, query: URLSearchParams): string | null {
  const name = query.get('customer')
  if (name === null) return null
  if (name === '') throw new HttpError(422, [{ loc: ['query', 'customer'], msg: 'must not be empty', type: 'value_error' }])
  return knownCustomer(state, name)
}

/** `name` if the state knows such a customer (GET /_emulator/customers lists it), else 404. */
export function knownCustomer(state: State, name: string): string {
  if (!customersOf(state).includes(name)) throw notFound(`customer ${name} not found (GET /_emulator/customers lists them)`)
  return name
}

/** GET /_emulator/customers: each customer, its keys masked, and how many accounts it holds. */
export function customerList(state: State): JsonObject[] {
  return customersOf(state).map((customer) => ({
    customer,
    keys: state.config.api_keys.filter((k) => k.customer === customer).map((k) => ({ key_masked: maskKey(k.key), scope: k.scope })),
    accounts: state.accounts.filter((a) => a.customer === customer).length,
  }))
}

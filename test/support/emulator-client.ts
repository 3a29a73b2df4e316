// A small typed client for the tests of the emulator and of code run against it: requests go to the
// in-process emulator's fetch handler (no socket), with the API key unless a test says otherwise, and
// answers come back parsed. Must not: know a resource or a route; the tests name what they call.
import assert from 'node:assert/strict'
import type { Emulator } from '../../src/emulator/index.js'
import type { Json } from '../../src/emulator/json.js'

/** A tiny typed client for tests of the emulator and of code that runs against it. */
export interface Reply {
  status: number
  headers: Headers
  body: Json
}

export interface RequestOptions {
  body?: unknown
  /** Sent as is, for malformed-body tests. */
  raw?: string
  headers?: Record<string, string>
  token?: string | null
}

export const BASE = 'http://emulator.invalid'

export class TestClient {
  constructor(readonly emulator: Emulator) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers }
    const token = options.token === undefined ? this.emulator.apiKey : options.token
    if (token !== null && path.startsWith('/v1')) headers['x-token'] = token
    let body: string | undefined = options.raw
    if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await this.emulator.fetch(new Request(`${BASE}${path}`, { method, headers, body }))
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === '' ? null : (JSON.parse(text) as Json) }
  }

  /** An API call under /v1 that must answer 200; returns `data`. */
  async ok<T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    const reply = await this.request(method, `/v1${path}`, { body, headers: headers ?? {} })
    assert.equal(reply.status, 200, `${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return (reply.body as { data: T }).data
  }

  /** An API call under /v1 that must fail with `status`; returns its `detail`. */
  async fails(status: number, method: string, path: string, body?: unknown): Promise<Json> {
    const reply = await this.request(method, `/v1${path}`, { body })
    assert.equal(reply.status, status, `${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return (reply.body as { detail: Json }).detail
  }

  async control<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
    const reply = await this.request(method, `/_emulator${path}`, { body })
    assert.equal(reply.status, 200, `${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
    return (reply.body as { data: T }).data
  }

  advance(ms: number): Promise<{ now: string }> {
    return this.control('POST', '/clock', { advance_ms: ms })
  }

  async keypair(pool = '/lites', name = 'deploy-key'): Promise<number> {
    const key = await this.ok<{ keypair_id: number }>('POST', `${pool}/keypairs/`, { name })
    return key.keypair_id
  }

  /** Orders a VM and returns its account id; `active` waits out the provisioning delay. */
  async vm(options: { prefix?: string; product?: number; pay?: boolean; active?: boolean; keypair?: number } = {}) {
    const prefix = options.prefix ?? '/lites'
    const keypair = options.keypair ?? (await this.keypair(prefix, `key-${Math.random().toString(36).slice(2)}`))
    const order = await this.ok<{ account_id: string; order_id: string }>('POST', prefix, {
      ...VM_BODY,
      product_id: options.product ?? (prefix === '/lites' ? 101 : 201),
      keypair_id: keypair,
      pay_invoice_with_cc: options.pay ?? true,
    })
    if (options.active !== false && options.pay !== false) await this.advance(DELAY)
    return Number(order.account_id)
  }

  /** Orders a Metal server (M1) and returns its account id; `active` waits out the delay. */
  async server(options: { product?: number; pay?: boolean; active?: boolean; label?: string } = {}): Promise<number> {
    const keypair = await this.keypair('/baremetals', `key-${Math.random().toString(36).slice(2)}`)
    const order = await this.ok<{ account_id: string }>('POST', '/baremetals', {
      product_id: options.product ?? 301,
      cycle: 'm',
      keypair_id: Number(keypair),
      label: options.label ?? 'db-primary',
      pay_invoice_with_cc: options.pay ?? true,
    })
    if (options.active !== false && options.pay !== false) await this.advance(DELAY)
    return Number(order.account_id)
  }

  /** Orders an additional IP (I1) and returns its account id; `active` waits out the delay. */
  async ip(options: { region?: string; pay?: boolean; active?: boolean } = {}): Promise<number> {
    const order = await this.ok<{ account_id: string }>('POST', '/baremetal-additional-ips', {
      product_id: 401,
      cycle: 'm',
      region: options.region ?? 'wjv-1',
      pay_invoice_with_cc: options.pay ?? true,
    })
    if (options.active !== false && options.pay !== false) await this.advance(DELAY)
    return Number(order.account_id)
  }
}

export const issueLocs = (detail: Json): string[] => (detail as { loc: (string | number)[] }[]).map((i) => i.loc.join('.')).sort()

export const DELAY = 2000
export const VM_BODY = {
  cycle: 'm',
  select_os: 'Ubuntu-22.04',
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  vm_name: 'web-server-01',
}

export interface AccountView {
  account_id: number
  status: string
  billingcycle: string
  date_created: string
  next_due: string
  recurring_amount: number
  product_id: number
  product_name: string
  description: string
  order_id: string
  last_invoice: {
    id: number
    paid_id: number | null
    status: string
    date: string
    datepaid: string | null
    paybefore: string
    invoice_type: string
  }
  extra_details: Record<string, Json>
}

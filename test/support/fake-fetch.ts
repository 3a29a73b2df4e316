// Test doubles for the client's injected dependencies: a scripted fetch and a clock whose sleeps
// return at once. Used by the API client's unit tests (src/api); nothing the executables run imports it.
import { type ClientOptions, createClient } from '../../src/api/client.js'

export interface RecordedRequest {
  readonly method: string
  /** The path after the base URL, query included. */
  readonly path: string
  readonly headers: Headers
  /** Parsed JSON body, `undefined` when none was sent. */
  readonly body: unknown
  readonly signal: AbortSignal
}

export type Reply = Response | Error | ((request: RecordedRequest) => Response | Promise<Response>)

export const BASE_URL = 'https://api.example.invalid/v1'

/** A fetch answering the scripted replies in order; it fails the test loudly when they run out. */
export function fakeFetch(replies: readonly Reply[]) {
  const requests: RecordedRequest[] = []
  let next = 0
  const fetch = async (request: Request): Promise<Response> => {
    const text = await request.text()
    const recorded: RecordedRequest = {
      method: request.method,
      path: request.url.slice(BASE_URL.length),
      headers: request.headers,
      body: text === '' ? undefined : JSON.parse(text),
      signal: request.signal,
    }
    requests.push(recorded)
    const reply = replies[next++]
    if (reply === undefined) throw new Error(`unexpected request #${next}: ${request.method} ${recorded.path}`)
    if (reply instanceof Error) throw reply
    return typeof reply === 'function' ? reply(recorded) : reply
  }
  return { fetch, requests }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}

/** The API's success envelope. */
export function ok(data: unknown, headers: Record<string, string> = {}): Response {
  return json(200, { success: true, code: 200, data }, headers)
}

export function fail(status: number, detail: unknown, headers: Record<string, string> = {}): Response {
  return json(status, { success: false, code: status, detail }, headers)
}

/** A clock that only moves when the client sleeps, recording each sleep. */
export function fakeClock(start = 1_000_000) {
  let time = start
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => time,
    advance: (ms: number) => {
      time += ms
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason
      sleeps.push(ms)
      time += ms
    },
  }
}

export interface LogLine {
  level: string
  message: string
  fields: Record<string, unknown> | undefined
}

/** A client over scripted replies and a fake clock; `random` 0.5 makes backoff exact (no jitter). */
export function testClient(replies: readonly Reply[], overrides: Partial<ClientOptions> = {}) {
  const server = fakeFetch(replies)
  const clock = fakeClock()
  const logs: LogLine[] = []
  let keys = 0
  const client = createClient({
    baseUrl: `${BASE_URL}/`,
    apiKey: 'secret-key',
    userAgent: 'provider-terraform/0.1.0',
    fetch: server.fetch,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0.5,
    idempotencyKey: () => `key-${++keys}`,
    log: (level, message, fields) => logs.push({ level, message, fields }),
    ...overrides,
  })
  return { client, requests: server.requests, clock, logs }
}

/** A Lite VM order as the service answers it, and the body that orders it (order journal tests). */
export const ORDER = { order_id: '500017', account_id: '100042' }
export const VM_BODY = {
  product_id: 101,
  cycle: 'm',
  select_os: 'Ubuntu-22.04',
  keypair_id: 7,
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  vm_name: 'web',
}

/** The invoice of an order, paid at `datepaid` (a date and time, UTC), as an account's `last_invoice`. */
export function paidInvoice(datepaid: string) {
  const date = datepaid.slice(0, 10)
  return { id: 1, paid_id: 2, status: 'Paid', date, duedate: date, paybefore: date, datepaid, invoice_type: 'new' }
}

/** A Lite VM account as the listing returns it, made by an order of VM_BODY but for its name (what a create's reconciling matches on). */
export function vmAccount(id: string, name: string, created: string, status = 'Pending') {
  return {
    account_id: Number(id),
    status,
    billingcycle: 'Monthly',
    date_created: created,
    next_due: '2026-12-24',
    recurring_amount: 1,
    product_id: 101,
    product_name: 'XS',
    description: '',
    order_id: `5${id}`,
    last_invoice: null,
    extra_details: {
      region: 'r',
      region_label: 'R',
      name,
      ciuser: VM_BODY.ssh_and_console_user,
      cipassword: 'p',
      keypair_id: VM_BODY.keypair_id,
      osname: VM_BODY.select_os,
      disk_size: '20',
      snapshot_id: null,
    },
  }
}

// The service twin: a fetch handler serving the API under /v1 and the control API under /_emulator.
// Here: the emulator's request pipeline and the public factory; state, routes and rules live beside it.
// Must not: import anything outside src/emulator (type-only api/ wire types excepted), or use timers.
import { type ClockMode, Clock, formatDateTime } from './clock.js'
import { type ControlContext, controlRouter } from './control.js'
import { DroppedConnection, errorBody, HttpError, jsonResponse, successBody } from './envelope.js'
import { faultHeaders, takeFault } from './faults.js'
import { claimKey, settle } from './idempotency.js'
import { isObject, type Json, type JsonObject } from './json.js'
import { keypairRoutes, KEYPAIR_POOLS } from './keypair-routes.js'
import { liteFamilies } from './catalog.js'
import { liteRoutes } from './lite-routes.js'
import { baremetalRoutes } from './baremetal-routes.js'
import { additionalIpRoutes } from './additional-ip-routes.js'
import { elasticStorageRoutes } from './elastic-storage-routes.js'
import type { ApiKey, Config, Fault, IdempotencyRecord, LogEntry, State } from './model.js'
import { appendLog, queryObject, redact } from './request-log.js'
import { type Route, type RouteContext, Router } from './router.js'
import { firstSequences, Store } from './store.js'
import { BodyReader, idempotencyKeyIssue, parseBody } from './validation.js'

export { DroppedConnection } from './envelope.js'
export type { ApiKey, Config } from './model.js'

export interface EmulatorOptions {
  /** Accepted `x-token` values; a bare string is a read-write key. Default: one rw `emulator-key`. */
  apiKeys?: readonly (string | ApiKey)[]
  provisioningDelayMs?: number
  retentionMs?: number
  idempotencyTtlMs?: number
  /** `manual` freezes time until POST /_emulator/clock; default `real`. */
  clock?: ClockMode
  /** Epoch ms the clock starts at (default: now); lets tests pin every written date. */
  startTime?: number
  ipUnavailableProductIds?: readonly number[]
  quirks?: Partial<Config['quirks']>
  /**
   * Awaited after an order's Idempotency-Key is claimed and before its effect: lets a test hold a
   * request "in progress" (the service's Idempotency-Key extension) without sleeping.
   */
  beforeEffect?: (request: { method: string; path: string; idempotencyKey: string }) => Promise<void> | void
}

export interface Emulator {
  fetch(request: Request): Promise<Response>
  /** A JSON-serialisable copy of the whole state (accounts, keypairs, orders, sequences, ...). */
  snapshot(): unknown
  /** Replaces the state with a snapshot; the clock never moves back. */
  restore(state: unknown): void
  /** Same as POST /_emulator/reset. */
  reset(): void
  /** The emulator clock, epoch ms. */
  now(): number
  /** Same as POST /_emulator/clock. */
  advance(ms: number): void
  /** The first read-write key, handy for tests. */
  readonly apiKey: string
}

export const DEFAULT_API_KEY = 'emulator-key'

function configFrom(options: EmulatorOptions): Config {
  const keys = options.apiKeys ?? [DEFAULT_API_KEY]
  return {
    provisioning_delay_ms: options.provisioningDelayMs ?? 2000,
    retention_ms: options.retentionMs ?? 300_000,
    idempotency_ttl_ms: options.idempotencyTtlMs ?? 86_400_000,
    api_keys: keys.map((k) => (typeof k === 'string' ? { key: k, scope: 'rw' } : { key: k.key, scope: k.scope })),
    ip_unavailable_product_ids: [...(options.ipUnavailableProductIds ?? [])],
    quirks: { ids_as_strings: false, bare_lists: false, ignore_idempotency_keys: false, ...options.quirks },
  }
}

const apiRouter = new Router<Route>([
  ...liteFamilies.flatMap(liteRoutes),
  ...KEYPAIR_POOLS.flatMap(keypairRoutes),
  ...baremetalRoutes(),
  ...additionalIpRoutes(),
  ...elasticStorageRoutes(),
])

/** `ids_as_strings` (the emulator's control endpoints): every id field, at any depth, as a numeric string. */
function stringifyIds(value: Json): Json {
  if (Array.isArray(value)) return value.map(stringifyIds)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, item] of Object.entries(value)) {
    const isId = key === 'id' || key.endsWith('_id')
    out[key] = isId && typeof item === 'number' ? String(item) : stringifyIds(item)
  }
  return out
}

interface Answer {
  status: number
  body: string
  headers: Record<string, string>
}

const answerError = (error: HttpError): Answer => ({
  status: error.status,
  body: JSON.stringify(errorBody(error.status, error.detail)),
  headers: error.headers,
})

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const clock = new Clock(options.clock ?? 'real', options.startTime)
  const initial = configFrom(options)
  const store = new Store(clock, initial)

  function successAnswer(data: Json): Answer {
    const quirks = store.config.quirks
    const payload = quirks.ids_as_strings ? stringifyIds(data) : data
    const body = quirks.bare_lists && Array.isArray(payload) ? payload : successBody(payload)
    return { status: 200, body: JSON.stringify(body), headers: {} }
  }

  /** Steps 1 to 9 of the emulator's request pipeline; the caller logs (step 10). */
  async function process(request: Request, url: URL, path: string, text: string, entry: LogEntry): Promise<Answer> {
    const method = entry.method
    const match = apiRouter.match(method, path)
    if (match.kind === 'none') return answerError(new HttpError(404, 'Not Found'))
    if (match.kind === 'method') {
      return answerError(new HttpError(405, 'Method Not Allowed', { allow: match.allowed.join(', ') }))
    }
    const fault = takeFault(store.state, method, path)
    if (fault) {
      entry.fault_id = fault.fault_id
      if (fault.delay_ms > 0) {
        await new Promise((resolve) => setTimeout(resolve, fault.delay_ms))
        store.tick()
      }
      if (fault.mode === 'error') return faultAnswer(fault)
    }
    const token = request.headers.get('x-token') ?? ''
    const key = store.config.api_keys.find((k) => k.key === token && token !== '')
    if (!key) return answerError(new HttpError(401, 'Invalid or missing API token'))
    if (key.scope === 'ro' && method !== 'GET') return answerError(new HttpError(403, 'API token is read-only'))

    const body = parseBody(text)
    const rawKey = request.headers.get('idempotency-key')
    const keyIssue = method === 'GET' ? null : idempotencyKeyIssue(rawKey)
    const honoured = !store.config.quirks.ignore_idempotency_keys
    const idempotencyKey = honoured && method !== 'GET' && rawKey !== null && !keyIssue ? rawKey : null
    let record: IdempotencyRecord | null = null
    if (idempotencyKey !== null) {
      try {
        const claim = claimKey(
          store.state,
          key.key,
          idempotencyKey,
          { method, path: url.pathname, body: body.kind === 'json' ? body.value : text },
          store.now(),
        )
        if (claim.kind === 'replay') {
          entry.replayed = true
          return {
            status: claim.record.status,
            body: claim.record.response,
            headers: { 'idempotency-replayed': 'true' },
          }
        }
        record = claim.record
      } catch (error) {
        if (error instanceof HttpError) return answerError(error)
        throw error
      }
      await options.beforeEffect?.({ method, path, idempotencyKey })
      store.tick()
    }

    let answer: Answer
    try {
      const ctx: RouteContext = {
        store,
        params: match.params,
        query: url.searchParams,
        idempotencyKey,
        reader: (expectBody) => new BodyReader(body, expectBody, keyIssue ? [keyIssue] : []),
      }
      answer = successAnswer(match.route.handler(ctx))
    } catch (error) {
      answer =
        error instanceof HttpError
          ? answerError(error)
          : answerError(new HttpError(500, `emulator failure: ${error instanceof Error ? error.message : String(error)}`))
    }
    if (record) settle(store.state, record, answer.status, answer.body)

    if (fault?.mode === 'error_after') return faultAnswer(fault)
    if (fault?.mode === 'drop_after') throw new DroppedConnection()
    return answer
  }

  function faultAnswer(fault: Fault): Answer {
    const status = fault.status ?? 500
    return { status, body: JSON.stringify(errorBody(status, fault.detail)), headers: faultHeaders(fault) }
  }

  async function api(request: Request, url: URL): Promise<Response> {
    const seq = store.next('request')
    store.tick()
    const method = request.method.toUpperCase()
    const text = await request.text()
    const parsed = parseBody(text)
    const rawKey = request.headers.get('idempotency-key')
    const entry: LogEntry = {
      seq,
      time: formatDateTime(store.now()),
      method,
      path: url.pathname,
      query: queryObject(url.searchParams),
      idempotency_key: rawKey,
      body: parsed.kind === 'json' ? redact(parsed.value) : null,
      status: null,
      replayed: false,
      fault_id: null,
    }
    const path = url.pathname.slice('/v1'.length) || '/'
    let answer: Answer
    try {
      answer = await process(request, url, path, text, entry)
    } catch (error) {
      appendLog(store.state, entry)
      throw error
    }
    entry.status = answer.status
    appendLog(store.state, entry)
    const headers: Record<string, string> = { ...answer.headers, 'x-request-id': String(seq) }
    if (rawKey !== null && idempotencyKeyIssue(rawKey) === null && !store.config.quirks.ignore_idempotency_keys) {
      headers['idempotency-key'] = rawKey
    }
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': 'application/json', ...headers } })
  }

  async function control(request: Request, url: URL): Promise<Response> {
    store.tick()
    const method = request.method.toUpperCase()
    const path = url.pathname.slice('/_emulator'.length) || '/'
    const match = controlRouter.match(method, path)
    if (match.kind === 'none') return jsonResponse(404, errorBody(404, 'Not Found'))
    if (match.kind === 'method') {
      return jsonResponse(405, errorBody(405, 'Method Not Allowed'), { allow: match.allowed.join(', ') })
    }
    const ctx: ControlContext = {
      store,
      params: match.params,
      query: url.searchParams,
      body: parseBody(await request.text()),
      reset,
    }
    try {
      return jsonResponse(200, successBody(match.route.handler(ctx)))
    } catch (error) {
      if (error instanceof HttpError) return jsonResponse(error.status, errorBody(error.status, error.detail), error.headers)
      const message = error instanceof Error ? error.message : String(error)
      return jsonResponse(500, errorBody(500, `emulator failure: ${message}`))
    }
  }

  function reset(): void {
    store.reset()
  }

  return {
    apiKey: initial.api_keys.find((k) => k.scope === 'rw')?.key ?? DEFAULT_API_KEY,
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/')) return control(request, url)
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) return api(request, url)
      return jsonResponse(404, errorBody(404, 'Not Found'))
    },
    snapshot() {
      store.state.now = store.now()
      const copy = structuredClone(store.state)
      // An in-flight request dies with the process; keeping its claim would block its retry forever.
      copy.idempotency = copy.idempotency.filter((r) => !r.in_progress)
      return copy
    },
    restore(saved) {
      if (!isObject(saved as Json) || (saved as { version?: unknown }).version !== 1) {
        throw new Error('not an emulator state snapshot (version 1)')
      }
      const state = structuredClone(saved) as State
      // A state file written before a sequence existed starts that sequence afresh.
      state.seq = { ...firstSequences(), ...state.seq }
      clock.catchUp(state.now)
      store.state = state
      store.tick()
    },
    reset,
    now: () => store.now(),
    advance: (ms) => {
      clock.advance(ms)
      store.tick()
    },
  }
}

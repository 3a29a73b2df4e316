// The API side of the emulator's request pipeline (steps 1 to 10): route, fault, key, Idempotency-Key,
// handler, answer, log. Shared by every family: the routes come from the registry, and nothing here
// names a family or a kind. The key's customer is the handler's whole world (its CustomerStore). Waits
// (a rule's delay) go through the injected timer, never a timer of its own.
import { formatDateTime, type Timer } from './clock.js'
import { CustomerStore } from './customer-store.js'
import { keyFor, maskKey } from './customers.js'
import { type Answer, DroppedConnection, type EmulatorRequest, errorBody, HttpError, successBody } from './envelope.js'
import { delayOf, faultHeaders, takeFault } from './faults.js'
import { claimKey, settle } from './idempotency.js'
import { isObject, type Json, type JsonObject } from './json.js'
import type { ApiKey, Fault, IdempotencyRecord, LogEntry } from './model.js'
import type { Random } from './random.js'
import { appendLog, queryObject, redact } from './request-log.js'
import type { Match, Route, Router } from './router.js'
import type { Store } from './store.js'
import { BodyReader, idempotencyKeyIssue, type ParsedBody, parseBody } from './validation.js'

/** Awaited after an order's Idempotency-Key is claimed and before its effect (EmulatorOptions.beforeEffect). */
export type BeforeEffect = (request: { method: string; path: string; idempotencyKey: string }) => Promise<void> | void

/** One request on its way through the pipeline. */
interface Call {
  readonly request: EmulatorRequest
  readonly url: URL
  readonly method: string
  /** The path under /v1. */
  readonly path: string
  readonly text: string
  readonly body: ParsedBody
  readonly entry: LogEntry
}

const answerError = (error: HttpError): Answer => ({
  status: error.status,
  body: JSON.stringify(errorBody(error.status, error.detail)),
  headers: error.headers,
})

function faultAnswer(fault: Fault): Answer {
  const status = fault.status ?? 500
  return { status, body: JSON.stringify(errorBody(status, fault.detail)), headers: faultHeaders(fault) }
}

/**
 * A hang: no answer until the client gives up (the request's signal aborts: the launcher aborts it when the
 * connection closes), and then none either, as a dropped connection. A request that cannot abort hangs forever.
 */
async function hang(request: EmulatorRequest): Promise<never> {
  const signal = request.signal
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  throw new DroppedConnection()
}

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

export class ApiPipeline {
  constructor(
    private readonly store: Store,
    private readonly router: Router<Route>,
    private readonly beforeEffect: BeforeEffect | undefined,
    private readonly timer: Timer,
    private readonly random: Random,
    /** Sees each entry once it is in the request log (the launcher's state file appends it to its log file). */
    private readonly logged?: (entry: LogEntry) => void,
    /** Told when a request used up a firing of a counted fault rule (EmulatorOptions.ruleUsed). */
    private readonly ruleUsed?: () => void,
  ) {}

  #log(entry: LogEntry): void {
    appendLog(this.store.state, entry)
    this.logged?.(entry)
  }

  /** Answers one request under /v1, and logs it (step 10) whatever happens. */
  async handle(request: EmulatorRequest, url: URL): Promise<Answer> {
    const store = this.store
    const arrived = this.timer.now()
    const seq = store.next('request')
    store.tick()
    const method = request.method.toUpperCase()
    const text = await request.text()
    const body = parseBody(text)
    const rawKey = request.headers.get('idempotency-key')
    const token = request.headers.get('x-token')
    const entry: LogEntry = {
      seq,
      time: formatDateTime(store.now()),
      method,
      path: url.pathname,
      // A secret in the query string (no API call takes one, but a client may send it) is redacted as in a body.
      query: redact(queryObject(url.searchParams)) as JsonObject,
      idempotency_key: rawKey,
      // Known before routing, so a customer's 404s and faults are its own in the log too.
      customer: keyFor(store.config, token)?.customer ?? null,
      api_key: token ? maskKey(token) : null,
      body: body.kind === 'json' ? redact(body.value) : null,
      status: null,
      replayed: false,
      fault_id: null,
      latency_ms: 0,
    }
    const path = url.pathname.slice('/v1'.length) || '/'
    let answer: Answer
    try {
      answer = await this.process({ request, url, method, path, text, body, entry })
    } catch (error) {
      entry.latency_ms = Math.round(this.timer.now() - arrived)
      this.#log(entry)
      throw error
    }
    entry.status = answer.status
    entry.latency_ms = Math.round(this.timer.now() - arrived)
    this.#log(entry)
    const headers: Record<string, string> = { ...answer.headers, 'x-request-id': String(seq) }
    if (rawKey !== null && idempotencyKeyIssue(rawKey) === null && !store.config.quirks.ignore_idempotency_keys) {
      headers['idempotency-key'] = rawKey
    }
    return { status: answer.status, body: answer.body, headers: { 'content-type': 'application/json', ...headers } }
  }

  /** Steps 1 to 9; the caller logs (step 10). */
  private async process(call: Call): Promise<Answer> {
    const match = this.router.match(call.method, call.path)
    if (match.kind === 'none') return answerError(new HttpError(404, 'Not Found'))
    if (match.kind === 'method') {
      return answerError(new HttpError(405, 'Method Not Allowed', { allow: match.allowed.join(', ') }))
    }
    const fault = takeFault(this.store.state, call.method, call.path, this.random)
    if (fault) {
      call.entry.fault_id = fault.fault_id
      if (fault.count !== -1) this.ruleUsed?.()
      const delay = delayOf(fault, this.random)
      if (delay > 0) {
        await this.timer.sleep(delay)
        this.store.tick()
      }
      if (fault.mode === 'error') return faultAnswer(fault)
      if (fault.mode === 'hang') return hang(call.request)
    }
    const key = this.apiKey(call)
    if (!('scope' in key)) return key
    const claim = await this.claim(call, key)
    let answer: Answer
    // A replay of a stored answer (or the key's own refusal) is this request's real response: an
    // "after" fault loses it as it would a first answer, rather than being used up with no effect.
    if ('status' in claim) answer = claim
    else {
      answer = this.run(call, match, key, claim.idempotencyKey)
      if (claim.record) settle(this.store.state, claim.record, answer.status, answer.body)
    }
    if (fault?.mode === 'error_after') return faultAnswer(fault)
    if (fault?.mode === 'drop_after') throw new DroppedConnection()
    if (fault?.mode === 'hang_after') return hang(call.request)
    return answer
  }

  /** Step 3: the `x-token` key, and a read-only key only for reads. */
  private apiKey(call: Call): ApiKey | Answer {
    const key = keyFor(this.store.config, call.request.headers.get('x-token'))
    // The key as it is now (a fault's delay may have outlived a config change): the log says whose call it was.
    call.entry.customer = key?.customer ?? null
    if (!key) return answerError(new HttpError(401, 'Invalid or missing API token'))
    if (key.scope === 'ro' && call.method !== 'GET') return answerError(new HttpError(403, 'API token is read-only'))
    return key
  }

  /** Step 4: an honoured Idempotency-Key is claimed (or its stored answer replayed) before the effect. */
  private async claim(call: Call, key: ApiKey): Promise<{ idempotencyKey: string | null; record: IdempotencyRecord | null } | Answer> {
    const store = this.store
    const rawKey = call.request.headers.get('idempotency-key')
    const valid = call.method !== 'GET' && rawKey !== null && idempotencyKeyIssue(rawKey) === null
    const idempotencyKey = valid && !store.config.quirks.ignore_idempotency_keys ? rawKey : null
    if (idempotencyKey === null) return { idempotencyKey, record: null }
    let record: IdempotencyRecord
    try {
      const request = { method: call.method, path: call.url.pathname, body: call.body.kind === 'json' ? call.body.value : call.text }
      const claim = claimKey(store.state, key, idempotencyKey, request, store.now())
      if (claim.kind === 'replay') {
        call.entry.replayed = true
        return { status: claim.record.status, body: claim.record.response, headers: { 'idempotency-replayed': 'true' } }
      }
      record = claim.record
    } catch (error) {
      if (error instanceof HttpError) return answerError(error)
      throw error
    }
    await this.beforeEffect?.({ method: call.method, path: call.path, idempotencyKey })
    store.tick()
    return { idempotencyKey, record }
  }

  /** Steps 5 to 8 in the handler, which sees the key's customer's objects only; its result or its error as the API's envelope. */
  private run(call: Call, match: Extract<Match<Route>, { kind: 'found' }>, key: ApiKey, idempotencyKey: string | null): Answer {
    const keyIssue = call.method === 'GET' ? null : idempotencyKeyIssue(call.request.headers.get('idempotency-key'))
    try {
      const data = match.route.handler({
        store: new CustomerStore(this.store, key.customer),
        params: match.params,
        query: call.url.searchParams,
        idempotencyKey,
        reader: (expectBody) => new BodyReader(call.body, expectBody, keyIssue ? [keyIssue] : []),
      })
      return this.success(data)
    } catch (error) {
      if (error instanceof HttpError) return answerError(error)
      return answerError(new HttpError(500, `emulator failure: ${error instanceof Error ? error.message : String(error)}`))
    }
  }

  private success(data: Json): Answer {
    const quirks = this.store.config.quirks
    const payload = quirks.ids_as_strings ? stringifyIds(data) : data
    const body = quirks.bare_lists && Array.isArray(payload) ? payload : successBody(payload)
    return { status: 200, body: JSON.stringify(body), headers: {} }
  }
}

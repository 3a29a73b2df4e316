// Injected faults (the emulator's fault rules, latency and chaos included): validating a rule posted to the
// control API, the named profiles of rules (`remote`), and the pipeline's pick of the one rule that applies
// to a request (error, error after the effect, dropped connection, hang, delay), its probability and its
// delay drawn from the seeded random source. Shared by every family: rules match methods and paths, never kinds.
import { HttpError, type Issue } from './envelope.js'
import { isObject, type JsonObject } from './json.js'
import type { Fault, FaultMode, State } from './model.js'
import type { Random } from './random.js'
import { normalisePath } from './router.js'
import type { Store } from './store.js'
import type { ParsedBody } from './validation.js'

const MODES: readonly FaultMode[] = ['error', 'error_after', 'drop_after', 'hang', 'hang_after', 'delay']
const STATUS_TEXT: Readonly<Record<number, string>> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

/**
 * Named sets of rules, installed by `EMULATOR_PROFILE` or POST /_emulator/profiles/{name}. Their priority
 * is -1, so any rule added later is tried before them. `remote`: a service far away, 150 ms on every call,
 * and 1 % of calls processed but answered 502 (the answer lost after the effect, as a gateway fails).
 */
export const PROFILES: Readonly<Record<string, readonly JsonObject[]>> = {
  remote: [
    { method: '*', path: '/**', mode: 'error_after', status: 502, probability: 0.01, delay_ms: 150, count: -1, priority: -1 },
    { method: '*', path: '/**', mode: 'delay', delay_ms: 150, count: -1, priority: -1 },
  ],
}

const faultPath = (path: string) => normalisePath(path.split('?')[0] ?? '')
const isInt = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min

function delaySpec(value: unknown): number | [number, number] | null {
  if (isInt(value, 0)) return value
  if (Array.isArray(value) && value.length === 2 && isInt(value[0], 0) && isInt(value[1], value[0])) return [value[0], value[1]]
  return null
}

/** Validates a fault rule, reporting every bad field at once. */
export function parseFaultSpec(body: ParsedBody, faultId: string): Fault {
  const issues: Issue[] = []
  const bad = (field: string, msg: string, type: Issue['type'] = 'value_error') => issues.push({ loc: ['body', field], msg, type })
  if (body.kind !== 'json' || !isObject(body.value)) {
    throw new HttpError(422, [{ loc: ['body'], msg: 'a JSON object body is required', type: 'missing' }])
  }
  const spec = body.value
  const method = spec.method ?? '*'
  if (typeof method !== 'string' || method === '') bad('method', 'must be an HTTP method or *')
  const path = spec.path
  if (path === undefined || path === null) bad('path', 'field required', 'missing')
  else if (typeof path !== 'string' || !path.startsWith('/')) bad('path', 'must be a path starting with /')
  else if (path === '/v1' || path.startsWith('/v1/')) {
    // The request log shows the whole path; a rule given that way would never match a request.
    bad('path', `is relative to the API's /v1: give ${path.slice(3) || '/**'}, not ${path}`)
  }
  const mode = spec.mode ?? 'error'
  if (typeof mode !== 'string' || !(MODES as readonly string[]).includes(mode)) bad('mode', `must be one of ${MODES.join(', ')}`)
  const status = spec.status ?? null
  const needsStatus = mode === 'error' || mode === 'error_after'
  if (status === null) {
    if (needsStatus) bad('status', 'field required', 'missing')
  } else if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
    bad('status', 'must be an integer HTTP error status (400-599)')
  } else if (mode === 'error_after' && status === 429) {
    bad('status', 'error_after cannot answer 429: a 429 promises nothing was processed')
  }
  // `null` is "forever", like -1.
  const count = spec.count === null ? -1 : (spec.count ?? 1)
  if (typeof count !== 'number' || !Number.isInteger(count) || (count < 1 && count !== -1)) {
    bad('count', 'must be a positive integer, -1 or null')
  }
  const delay = delaySpec(spec.delay_ms ?? 0)
  if (delay === null) bad('delay_ms', 'must be a non-negative integer or [min, max] with 0 <= min <= max')
  const retryAfter = spec.retry_after_s ?? null
  if (retryAfter !== null && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
    bad('retry_after_s', 'must be a non-negative integer or null')
  }
  const detail = spec.detail ?? null
  if (detail !== null && typeof detail !== 'string') bad('detail', 'must be a string', 'type_error')
  const probability = spec.probability
  if (probability !== undefined && (typeof probability !== 'number' || !(probability >= 0 && probability <= 1))) {
    bad('probability', 'must be a number from 0 to 1')
  }
  const priority = spec.priority
  if (priority !== undefined && (typeof priority !== 'number' || !Number.isInteger(priority))) bad('priority', 'must be an integer')
  if (issues.length > 0) throw new HttpError(422, issues)
  const code = typeof status === 'number' ? status : null
  const fault: Fault = {
    fault_id: faultId,
    method: (method as string).toUpperCase(),
    path: path as string,
    mode: mode as FaultMode,
    status: code,
    count: count as number,
    remaining: count as number,
    delay_ms: delay as number | [number, number],
    retry_after_s: retryAfter as number | null,
    detail: (detail as string | null) ?? (code !== null ? (STATUS_TEXT[code] ?? `Injected ${code}`) : 'Injected fault'),
  }
  if (probability !== undefined) fault.probability = probability as number
  if (priority !== undefined) fault.priority = priority as number
  return fault
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Validates a rule and adds it after the others, with the next fault id. */
export function addFault(store: Store, body: ParsedBody): Fault {
  const fault = parseFaultSpec(body, `f${store.state.seq.fault}`)
  store.next('fault')
  store.state.faults.push(fault)
  return fault
}

/** Adds a profile's rules (PROFILES); an unknown name is a 404. */
export function installProfile(store: Store, name: string): Fault[] {
  const rules = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined
  if (!rules) throw new HttpError(404, `no profile named ${name} (known: ${Object.keys(PROFILES).join(', ')})`)
  return rules.map((rule) => addFault(store, { kind: 'json', value: rule }))
}

/** `*` within a segment is any characters but `/` (a whole `*` is one segment, as always). */
const segmentMatches = (want: string, got: string) =>
  want === '*' || (want.includes('*') ? new RegExp(`^${want.split('*').map(escapeRegExp).join('[^/]*')}$`).test(got) : want === got)

/** Segment by segment; `**` stands for any number of segments, none included. */
function segmentsMatch(want: readonly string[], got: readonly string[]): boolean {
  if (want.length === 0) return got.length === 0
  const [head, ...rest] = want as [string, ...string[]]
  if (head === '**') return got.some((_, i) => segmentsMatch(rest, got.slice(i))) || segmentsMatch(rest, [])
  return got.length > 0 && segmentMatches(head, got[0] as string) && segmentsMatch(rest, got.slice(1))
}

/** Whether a fault rule's path `pattern` matches `path` (see segmentMatches and segmentsMatch). */
export function faultPathMatches(pattern: string, path: string): boolean {
  return segmentsMatch(faultPath(pattern).split('/').slice(1), faultPath(path).split('/').slice(1))
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== '*' && fault.method !== method) return false
  return faultPathMatches(fault.path, path)
}

/** Rules by priority, highest first; the sort is stable, so equal priorities stay oldest first. */
const byPriority = (faults: readonly Fault[]) => [...faults].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0))

/**
 * At most one rule applies to a request: the first live rule (by priority, then age) that matches and
 * whose probability draw hits. A miss draws one number and leaves the request to the next rule; a rule
 * without `probability` always hits and draws nothing, so rules without chaos touch no random number.
 */
export function takeFault(state: State, method: string, path: string, random: Random): Fault | null {
  for (const fault of byPriority(state.faults)) {
    if (fault.remaining === 0 || !matches(fault, method, path)) continue
    if (fault.probability !== undefined && random.next() >= fault.probability) continue
    if (fault.remaining > 0) fault.remaining -= 1
    return fault
  }
  return null
}

/** The delay of a rule that fired: fixed, or drawn in its range. */
export function delayOf(fault: Fault, random: Random): number {
  const delay = fault.delay_ms
  return Array.isArray(delay) ? random.int(delay[0], delay[1]) : delay
}

export function faultHeaders(fault: Fault): Record<string, string> {
  if (fault.retry_after_s !== null) return { 'retry-after': String(fault.retry_after_s) }
  return fault.status === 429 ? { 'retry-after': '1' } : {}
}

// Injected faults (the emulator's fault rules): validating a rule posted to the control API, and the
// pipeline's pick of the one rule that applies to a request (error, error after the effect, dropped
// connection, delay). Shared by every family: rules match methods and paths, never kinds.
import { HttpError, type Issue } from './envelope.js'
import { isObject } from './json.js'
import type { Fault, FaultMode, State } from './model.js'
import { normalisePath } from './router.js'
import type { ParsedBody } from './validation.js'

const MODES: readonly FaultMode[] = ['error', 'error_after', 'drop_after', 'delay']
const STATUS_TEXT: Readonly<Record<number, string>> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

const faultPath = (path: string) => normalisePath(path.split('?')[0] ?? '')

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
  const count = spec.count ?? 1
  if (typeof count !== 'number' || !Number.isInteger(count) || (count < 1 && count !== -1)) {
    bad('count', 'must be a positive integer or -1')
  }
  const delay = spec.delay_ms ?? 0
  if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0) bad('delay_ms', 'must be a non-negative integer')
  const retryAfter = spec.retry_after_s ?? null
  if (retryAfter !== null && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
    bad('retry_after_s', 'must be a non-negative integer or null')
  }
  const detail = spec.detail ?? null
  if (detail !== null && typeof detail !== 'string') bad('detail', 'must be a string', 'type_error')
  if (issues.length > 0) throw new HttpError(422, issues)
  const code = typeof status === 'number' ? status : null
  return {
    fault_id: faultId,
    method: (method as string).toUpperCase(),
    path: path as string,
    mode: mode as FaultMode,
    status: code,
    count: count as number,
    remaining: count as number,
    delay_ms: delay as number,
    retry_after_s: retryAfter as number | null,
    detail: (detail as string | null) ?? (code !== null ? (STATUS_TEXT[code] ?? `Injected ${code}`) : 'Injected fault'),
  }
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== '*' && fault.method !== method) return false
  const want = faultPath(fault.path).split('/')
  const got = faultPath(path).split('/')
  return want.length === got.length && want.every((seg, i) => seg === '*' || seg === got[i])
}

/** The oldest live rule that matches applies, and at most one per request (the emulator's fault rules). */
export function takeFault(state: State, method: string, path: string): Fault | null {
  const fault = state.faults.find((f) => f.remaining !== 0 && matches(f, method, path))
  if (!fault) return null
  if (fault.remaining > 0) fault.remaining -= 1
  return fault
}

export function faultHeaders(fault: Fault): Record<string, string> {
  if (fault.retry_after_s !== null) return { 'retry-after': String(fault.retry_after_s) }
  return fault.status === 429 ? { 'retry-after': '1' } : {}
}

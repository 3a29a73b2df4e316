// The API's envelopes as text: the success envelope `{success, data}`, the error envelope (a message,
// or FastAPI-style per-field errors) and the Retry-After header. Pure decoding: nothing here sends,
// retries or logs (transport.ts does, with these).
import { ApiError, type FieldError, type RequestContext } from './errors.js'

/** The API's success envelope: `{success: bool, data}` gives `data`; any other JSON is the payload itself; empty is null. */
export function unwrap(text: string): unknown {
  if (text.trim() === '') return null
  const body: unknown = JSON.parse(text)
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    if ('data' in record && typeof record.success === 'boolean') return record.data
  }
  return body
}

/** Integer seconds per the contract; an HTTP date is accepted too, as other servers send it. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const value = header.trim()
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const RAW_TEXT_LIMIT = 500

/** The API's error envelope: the message and the per-field errors of a non-2xx answer. */
export function decodeError(status: number, statusText: string, text: string, context: RequestContext): ApiError {
  let body: unknown
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  const fields: FieldError[] = []
  let message: string | undefined
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>
    const detail = record.detail
    if (typeof detail === 'string') message = detail
    else if (Array.isArray(detail)) {
      for (const item of detail) fields.push(fieldError(item))
      message = fields.map((f) => (f.field === '' ? f.message : `${f.field}: ${f.message}`)).join('; ')
    } else if (typeof record.message === 'string') message = record.message
    else if (typeof record.error === 'string') message = record.error
  }
  if (message === undefined || message === '') {
    const raw = text.trim().slice(0, RAW_TEXT_LIMIT)
    message = raw !== '' ? raw : statusText !== '' ? statusText : `HTTP ${status}`
  }
  return new ApiError(status, message, fields, context)
}

function fieldError(item: unknown): FieldError {
  if (item === null || typeof item !== 'object') return { field: '', message: String(item) }
  const record = item as Record<string, unknown>
  const loc = Array.isArray(record.loc) ? record.loc.slice(1).map(String) : []
  const message = typeof record.msg === 'string' ? record.msg : JSON.stringify(item)
  return { field: loc.join('.'), message }
}

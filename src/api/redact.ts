/** Key fragments whose values are secrets wherever they appear (the request log's rule). */
const SECRET_KEY_PARTS = ['password', 'secret', 'token', 'private']

export const REDACTED = '***'

export interface RedactOptions {
  /** More key fragments to hide, e.g. `['config']` for the OpenVPN profile, which is a secret only there. */
  readonly extraKeys?: readonly string[]
}

function isSecretKey(key: string, parts: readonly string[]): boolean {
  const lower = key.toLowerCase()
  return parts.some((part) => lower.includes(part))
}

/**
 * A deep copy of `value` where the value of every key whose lower-cased name contains one of the
 * secret fragments becomes "***", at any depth, arrays included. The input is never modified.
 */
export function redact(value: unknown, options: RedactOptions = {}): unknown {
  const parts = [...SECRET_KEY_PARTS, ...(options.extraKeys ?? []).map((k) => k.toLowerCase())]
  return copy(value, parts)
}

function copy(value: unknown, parts: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => copy(item, parts))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSecretKey(key, parts) ? REDACTED : copy(item, parts)
  }
  return out
}

/** The JSON text of `redact(value, options)`; what `raw` outputs hold. */
export function redactedJson(value: unknown, options: RedactOptions = {}): string {
  return JSON.stringify(redact(value, options)) ?? 'null'
}

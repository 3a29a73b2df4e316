// Redaction: what a log line, a `raw` output or an error message may show of a request or answer.
// Secrets are found by key name (passwords, tokens, private keys) and by value (the API key, and the
// request's own secrets echoed back by the server); nothing here may log or send what it hides.

/** Key fragments whose values are secrets wherever they appear (the request log's rule). */
const SECRET_KEY_PARTS = ['password', 'secret', 'token', 'private']

export const REDACTED = '***'

export interface RedactOptions {
  /** More key fragments to hide, e.g. `['config']` for the OpenVPN profile, which is a secret only there. */
  readonly extraKeys?: readonly string[]
}

/** Whether a key's value is a secret by its name (`parts`: the default fragments, or those and more). */
export function isSecretKey(key: string, parts: readonly string[] = SECRET_KEY_PARTS): boolean {
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

/** The values under secret-looking keys of a request body. */
function secretValues(body: unknown): string[] {
  const redacted = redact(body)
  const out: string[] = []
  const walk = (value: unknown, shown: unknown) => {
    if (shown === REDACTED && value !== REDACTED) {
      if (typeof value === 'string') out.push(value)
      else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walk(item, REDACTED)
      return
    }
    if (value === null || typeof value !== 'object' || shown === null || typeof shown !== 'object') return
    for (const [key, item] of Object.entries(value)) walk(item, (shown as Record<string, unknown>)[key])
  }
  walk(body, redacted)
  return out
}

/**
 * Server text as it may be shown: whatever the server echoes, the API key, the request's secret
 * values (by key pattern, as in `raw`) and any URL userinfo are replaced.
 */
export function scrubSecrets(text: string, apiKey: string, body: unknown): string {
  const secrets = [apiKey, ...secretValues(body)].filter((s) => s.length >= 4)
  let out = text
  // Longest first, so that a secret containing another is replaced whole.
  for (const secret of secrets.sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED)
    const escaped = JSON.stringify(secret).slice(1, -1)
    if (escaped !== secret) out = out.split(escaped).join(REDACTED)
  }
  return out.replace(/(\/\/)[^/\s@"']*@/g, `$1${REDACTED}@`)
}

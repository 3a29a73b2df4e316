/** Operation timeouts: durations written as in Terraform ("20m", "1h30m", "45s", "500ms"). */
import type { TimeoutDefaults, TimeoutName } from './definition.js'

const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim())
  if (!match || text.trim() === '') return null
  const [, h, m, s, milli] = match
  const ms = ((Number(h ?? 0) * 60 + Number(m ?? 0)) * 60 + Number(s ?? 0)) * 1000 + Number(milli ?? 0)
  return ms > 0 ? ms : null
}

/** The timeout of an operation: the configured value, else the definition's default, else 20 minutes. */
export function timeoutMs(defaults: TimeoutDefaults, configured: unknown, name: TimeoutName): number {
  const given = configured !== null && typeof configured === 'object' ? (configured as Record<string, unknown>)[name] : null
  const text = typeof given === 'string' && given !== '' ? given : (defaults[name] ?? '20m')
  return parseDuration(text) ?? 20 * 60 * 1000
}

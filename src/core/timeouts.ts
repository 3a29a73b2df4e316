/** Operation timeouts: durations written as in Terraform ("20m", "1h30m", "45s", "500ms"). */
import type { TimeoutDefaults, TimeoutName } from './definition-types.js'

const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/

/**
 * The longest duration the runtime's timers take (2^31 - 1 ms, about 24.8 days): a longer one would
 * fire after 1 ms instead, so it is refused as a duration.
 */
export const MAX_DURATION_MS = 2_147_483_647
export const MAX_DURATION_TEXT = '596h'

/** Why the text is not a usable duration, completing "<name> must ..."; null when it is one. */
export function durationProblem(text: string, example: string): string | null {
  if (parseDuration(text) !== null) return null
  if (DURATION.test(text.trim()) && text.trim() !== '' && parseDurationUnbounded(text) > MAX_DURATION_MS) {
    return `must be at most ${MAX_DURATION_TEXT} (got ${JSON.stringify(text)})`
  }
  return `must be a duration such as ${example} (got ${JSON.stringify(text)})`
}

function parseDurationUnbounded(text: string): number {
  const match = DURATION.exec(text.trim())
  if (!match) return Number.NaN
  const [, h, m, s, milli] = match
  return ((Number(h ?? 0) * 60 + Number(m ?? 0)) * 60 + Number(s ?? 0)) * 1000 + Number(milli ?? 0)
}

/** Milliseconds, or null when the text is not a duration or is too long for a timer. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim())
  if (!match || text.trim() === '') return null
  const [, h, m, s, milli] = match
  const ms = ((Number(h ?? 0) * 60 + Number(m ?? 0)) * 60 + Number(s ?? 0)) * 1000 + Number(milli ?? 0)
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : null
}

/** The timeout of an operation: the configured value, else the definition's default, else 20 minutes. */
export function timeoutMs(defaults: TimeoutDefaults, configured: unknown, name: TimeoutName): number {
  const given = configured !== null && typeof configured === 'object' ? (configured as Record<string, unknown>)[name] : null
  const text = typeof given === 'string' && given !== '' ? given : (defaults[name] ?? '20m')
  return parseDuration(text) ?? 20 * 60 * 1000
}

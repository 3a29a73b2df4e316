/**
 * Operation timeouts: durations written as Terraform and Go write them (Go's time.ParseDuration, which
 * Terraform's own providers parse timeouts with): "20m", "1h30m", "45s", "500ms", "1.5h".
 */
import type { TimeoutDefaults, TimeoutName } from './definition-types.js'
import { type Diagnostic, error } from './diagnostics.js'
import { isUnknown, type ValueMap } from './values.js'

/** The operations a timeout bounds, as users name them (`timeouts.create`). */
export const TIMEOUT_NAMES: readonly TimeoutName[] = ['create', 'update', 'delete']

/** One number (a fraction allowed) and its unit; a duration is one or more of them. */
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y
const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/**
 * The longest duration the runtime's timers take (2^31 - 1 ms, about 24.8 days): a longer one would
 * fire after 1 ms instead, so it is refused as a duration.
 */
export const MAX_DURATION_MS = 2_147_483_647
export const MAX_DURATION_TEXT = '596h'

/** Why the text is not a usable duration, completing "<name> must ..."; null when it is one. */
export function durationProblem(text: string, example: string): string | null {
  const ms = parseDurationUnbounded(text)
  if (Number.isNaN(ms)) return `must be a duration such as ${example} (got ${JSON.stringify(text)})`
  if (ms <= 0) return `must be longer than 0 (got ${JSON.stringify(text)})`
  if (ms > MAX_DURATION_MS) return `must be at most ${MAX_DURATION_TEXT} (got ${JSON.stringify(text)})`
  return null
}

/**
 * The problems of the timeouts an operation is given (`{ create: "20m" }`), each at its path
 * (`timeouts.create`). `supported`: the names the definition takes (Terraform's `timeouts` block, where
 * another name is a mistake); without it any operation's name is taken, as the engine's own per-operation
 * timeouts (Pulumi's customTimeouts) are, which only have to be durations a wait can keep.
 */
export function timeoutIssues(timeouts: unknown, supported?: TimeoutDefaults): Diagnostic[] {
  if (timeouts === null || timeouts === undefined || isUnknown(timeouts) || typeof timeouts !== 'object') return []
  const issues: Diagnostic[] = []
  for (const [name, text] of Object.entries(timeouts as ValueMap)) {
    if (text === null || isUnknown(text)) continue
    if (supported !== undefined && !(name in supported)) {
      issues.push(error(`Unsupported timeout ${name}`, `this resource has no ${name} timeout.`, ['timeouts', name]))
      continue
    }
    const problem = typeof text === 'string' ? durationProblem(text, '"20m", "1h30m" or "90s"') : 'must be a duration string'
    if (problem) issues.push(error(`Invalid timeouts.${name}`, `timeouts.${name} ${problem}.`, ['timeouts', name]))
  }
  return issues
}

/** Milliseconds (a fraction kept), or NaN when the text is not a duration. */
function parseDurationUnbounded(text: string): number {
  const trimmed = text.trim()
  if (trimmed === '') return Number.NaN
  let total = 0
  for (let at = 0; at < trimmed.length; ) {
    PART.lastIndex = at
    const match = PART.exec(trimmed)
    if (!match) return Number.NaN
    total += Number(match[1]) * (UNIT_MS[match[2] as string] ?? Number.NaN)
    at = PART.lastIndex
  }
  return total
}

/** Milliseconds (at least 1), or null when the text is not a duration, is 0, or is too long for a timer. */
export function parseDuration(text: string): number | null {
  const ms = parseDurationUnbounded(text)
  return ms > 0 && ms <= MAX_DURATION_MS ? Math.max(1, Math.round(ms)) : null
}

/**
 * The timeout of an operation: the configured value, else the definition's default, else 20 minutes.
 * A configured value longer than a timer holds (an engine's own timeout, such as a Pulumi delete's,
 * which no preview checks) is the longest one: never shorter than the user asked for.
 */
export function timeoutMs(defaults: TimeoutDefaults, configured: unknown, name: TimeoutName): number {
  const given = configured !== null && typeof configured === 'object' ? (configured as Record<string, unknown>)[name] : null
  const fallback = parseDuration(defaults[name] ?? '20m') ?? 20 * 60 * 1000
  if (typeof given !== 'string' || given === '') return fallback
  return parseDurationUnbounded(given) > MAX_DURATION_MS ? MAX_DURATION_MS : (parseDuration(given) ?? fallback)
}

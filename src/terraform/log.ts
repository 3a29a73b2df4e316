// The Terraform front end's log: hclog JSON lines on stderr at the verbosity Terraform asked for
// (TF_LOG_PROVIDER, TF_LOG), which Terraform turns into its own structured log entries.
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Readonly<Record<string, unknown>>

/** What every part of the Terraform front end logs through. Calls never throw. */
export interface Logger {
  trace(message: string, fields?: LogFields): void
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
}

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error']
const RESERVED = new Set(['@level', '@message', '@timestamp', '@module'])

/**
 * The verbosity Terraform asked for. TF_LOG_PROVIDER wins over TF_LOG; `JSON` and values Terraform does not
 * recognise mean TRACE (as Terraform itself reads them); unset, empty or OFF means no logging at all.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel | undefined {
  const raw = (env.TF_LOG_PROVIDER || env.TF_LOG || '').trim().toLowerCase()
  if (raw === '' || raw === 'off') return undefined
  return (LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : 'trace'
}

export interface LoggerOptions {
  /** Lowest level written; undefined writes nothing. Defaults to logLevelFromEnv(). */
  level?: LogLevel | undefined
  /** Where a finished line goes; stderr by default (the only stream Terraform reads after the handshake). */
  write?: (line: string) => void
  /** Epoch milliseconds with a fraction, for tests. */
  now?: () => number
}

/**
 * hclog JSON lines: Terraform turns them into structured log entries, but only when `@timestamp` has exactly
 * six fractional digits; anything else is logged as raw text.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = 'level' in options ? options.level : logLevelFromEnv()
  const threshold = level === undefined ? LEVELS.length : LEVELS.indexOf(level)
  const write = options.write ?? writeStderr
  const now = options.now ?? (() => performance.timeOrigin + performance.now())
  const log =
    (at: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (LEVELS.indexOf(at) < threshold) return
      try {
        write(`${formatLine(at, message, fields, now())}\n`)
      } catch {
        // Logging must never take an RPC down with it.
      }
    }
  return { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

/** A logger that drops everything, for tests and for code paths that run before logging is set up. */
export const silentLogger: Logger = createLogger({ level: undefined })

let stderrGuarded = false
function writeStderr(line: string): void {
  if (!stderrGuarded) {
    // A closed stderr (Terraform gone) reports EPIPE as an 'error' event, which would crash the process.
    process.stderr.on('error', () => {})
    stderrGuarded = true
  }
  process.stderr.write(line)
}

export function formatTimestamp(epochMs: number): string {
  const ms = Math.floor(epochMs)
  const micros = Math.floor((epochMs - ms) * 1000)
  const iso = new Date(ms).toISOString() // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, -1)}${String(Math.min(999, Math.max(0, micros))).padStart(3, '0')}Z`
}

function formatLine(level: LogLevel, message: string, fields: LogFields | undefined, epochMs: number): string {
  const line: Record<string, unknown> = {
    '@level': level,
    '@message': message,
    '@module': 'provider',
    '@timestamp': formatTimestamp(epochMs),
  }
  if (fields) {
    for (const [key, value] of Object.entries(fields)) {
      line[RESERVED.has(key) ? `_${key}` : key] = value
    }
  }
  try {
    return JSON.stringify(line, replacer)
  } catch (error) {
    // Circular fields or a throwing toJSON: keep the message, say why the fields are missing.
    const { '@level': l, '@message': m, '@module': mod, '@timestamp': t } = line
    return JSON.stringify({ '@level': l, '@message': m, '@module': mod, '@timestamp': t, log_error: String(error) })
  }
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`
  if (typeof value === 'symbol') return value.toString()
  return value
}

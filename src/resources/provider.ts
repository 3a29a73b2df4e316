/** The provider configuration shared by both front ends: credentials, endpoint and tuning knobs. */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  ApiError,
  type Client,
  createClient,
  isPostgresUrl,
  knownAccountsDirectory,
  newJournalSession,
  type OperationFrame,
  postgresUrlProblem,
  TransportError,
} from '../api/index.js'
import {
  bool,
  type ConfigureMeta,
  custom,
  defineProvider,
  durationProblem,
  InputError,
  int64,
  logAt,
  parseDuration,
  range,
  string,
} from '../core/index.js'

/**
 * The order journal's record of the run this configure belongs to (see ConfigureMeta.perRun), shared
 * with the run's other configures: what this one opens or takes over counts as the run's until its
 * connection closes. A served Terraform command's connections all stay open until it exits, so its
 * `provider` blocks know each other's orders; a command that overlapped with it (one left open at its
 * prompt, beside which the next command ran) does not take them for its own once the first is over.
 */
function runOrders(meta: ConfigureMeta): { add(id: string): void; has(id: string): boolean } {
  const run = meta.perRun('order-journal-run', () => new Set<string>())
  const mine = new Set<string>()
  meta.onLeft(() => {
    for (const id of mine) run.delete(id)
  })
  return {
    add(id) {
      mine.add(id)
      run.add(id)
    },
    has: (id) => run.has(id),
  }
}

/**
 * Where the order journal lives: the `order_journal` setting or `PROVIDER_ORDER_JOURNAL` if set (a
 * directory, or a PostgreSQL connection string); else inside Terraform's data directory of the
 * working directory (`TF_DATA_DIR`, default `.terraform`) when there is one; else `.provider-orders`
 * in the working directory (a Pulumi project's directory). The setting is one journalSettingProblem
 * accepts: configure checks it first.
 */
export function journalLocation(
  setting: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): { readonly database: string } | { readonly directory: string } {
  const chosen = setting || env.PROVIDER_ORDER_JOURNAL
  if (chosen && isPostgresUrl(chosen)) return { database: chosen }
  if (chosen) return { directory: resolve(cwd, chosen) }
  const data = resolve(cwd, env.TF_DATA_DIR ?? '.terraform')
  return { directory: existsSync(data) ? join(data, 'provider-orders') : join(cwd, '.provider-orders') }
}

const CONNECTION_STRING = 'postgresql://user:password@host:5432/database'
/** A keyword of PostgreSQL's keyword/value connection strings, as a word of its own followed by `=`. */
const KEYWORD_VALUE = /(?:^|\s)(?:host|hostaddr|port|dbname|user|password|passfile|service|sslmode)\s*=/i

/**
 * Why a journal setting is neither a directory nor a PostgreSQL connection string, or null when it is
 * one. A string that names a database in any other way must not be taken for a directory: the shared
 * journal would be silently off, and the password would become a path on disk. So a directory is a
 * path (absolute, or relative to the working directory) that
 * - has no control character and no white space at either end (a pasted or file-read value: a
 *   connection string with a leading space is not a directory named " postgresql:");
 * - is no URL (`scheme://`) other than `postgresql://` or `postgres://`, which name a database;
 * - does not start with `postgres:` or `postgresql:` without `//`, nor take the shape
 *   `user:password@host` of a connection string missing its scheme;
 * - is not PostgreSQL's keyword/value form of a connection string (`host=db password=…`), which
 *   the journal does not read.
 * The message never shows the value, nor any part of it: it may hold a password.
 */
export function journalSettingProblem(value: string): string | null {
  if (value === '') return `is empty: leave it unset for the default journal, or give a directory or a ${CONNECTION_STRING} string`
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    return 'contains a control character (a line break, tab or NUL): check how it was pasted or read from a file'
  }
  if (value.trim() !== value) return 'starts or ends with white space: remove it (check how it was pasted or read from a file)'
  if (isPostgresUrl(value)) return postgresUrlProblem(value)
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) {
    return `is a URL the journal cannot use: only a PostgreSQL connection string (${CONNECTION_STRING}) names a database`
  }
  if (/^postgres(ql)?:/i.test(value)) return `lacks the // of a connection string: write it as ${CONNECTION_STRING}`
  if (/^[^/\\@\s]+:[^/\\@\s]*@/.test(value)) {
    return `looks like a connection string without its scheme (user:password@host): write it as ${CONNECTION_STRING}`
  }
  if (KEYWORD_VALUE.test(value)) {
    return `looks like a keyword/value connection string (host=… password=…), which the journal does not read: write it as ${CONNECTION_STRING} (a directory whose name reads like one: start it with ./)`
  }
  return null
}

/** What a refused journal setting is told after its name: the rule and the problem, never the value. */
function journalSettingRule(problem: string): string {
  return (
    `must be a directory or a PostgreSQL connection string (${CONNECTION_STRING}), and this one ${problem}. ` +
    'The value is not shown: it may hold a password'
  )
}

/** The journal setting must be a directory or a connection string the client can read; the value is not echoed. */
const journalSetting = custom('a directory, or a postgresql:// connection string', (value) => {
  const problem = typeof value === 'string' ? journalSettingProblem(value) : null
  return problem ? journalSettingRule(problem) : null
})

/** A duration setting's problem, or null: its syntax, then the least value that works (`least`, e.g. "1s"). */
function durationSettingProblem(value: string, least: string): string | null {
  const problem = durationProblem(value, '"30s" or "2m"')
  if (problem) return problem
  return (parseDuration(value) ?? 0) < (parseDuration(least) ?? 0) ? `must be at least ${least} (got ${JSON.stringify(value)})` : null
}

/** A request shorter than a second would time out before most answers; a poll faster than 10 ms is a busy loop. */
const LEAST = { request_timeout: '1s', poll_interval: '10ms' } as const
const DEFAULT_DURATION = { request_timeout: '30s', poll_interval: '5s' } as const
const DURATION_VARIABLE = { request_timeout: 'PROVIDER_REQUEST_TIMEOUT', poll_interval: 'PROVIDER_POLL_INTERVAL' } as const

const durationSetting = (name: keyof typeof LEAST) =>
  custom(`a duration of at least ${LEAST[name]}, such as "30s" or "2m"`, (value) =>
    typeof value === 'string' ? durationSettingProblem(value, LEAST[name]) : null,
  )

/** The setting's milliseconds: the setting, else its environment variable (checked as the setting is), else the default. */
function durationOf(name: keyof typeof LEAST, configured: string | null | undefined): number {
  const variable = DURATION_VARIABLE[name]
  const value = configured ?? (process.env[variable] || undefined)
  if (value === undefined) return parseDuration(DEFAULT_DURATION[name]) as number
  const problem = durationSettingProblem(value, LEAST[name])
  if (problem) throw new InputError([name], `${configured ? name : variable} ${problem}.`)
  return parseDuration(value) as number
}
/**
 * Whether a base_url may carry a secret, so that no problem with it shows it or its attribute path: any
 * '@' (user:password@, or a password with an unencoded '/', '?' or '#', which makes the URL unparsable),
 * and any '?' or '#' (a token in a query string or fragment).
 */
const mayHoldSecret = (value: string) => /[@?#]/.test(value)
const url = custom(
  'an http or https URL ending in the API version, e.g. https://api.example.invalid/v1',
  (value) => {
    if (typeof value !== 'string') return null
    // A host with no scheme (127.0.0.1:8080/v1, api.example.com/v1) parses as a scheme of its own, or not at all.
    // Shown only when it may hold no secret (see mayHoldSecret).
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value.trim()) && !mayHoldSecret(value))
      return `must start with http:// or https:// (got ${JSON.stringify(value)}; e.g. ${JSON.stringify(`http://${value.trim()}`)})`
    let parsed: URL
    try {
      parsed = new URL(value)
    } catch {
      return 'must be an http or https URL'
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be an http or https URL (got ${parsed.protocol})`
    // Credentials in a URL end up in logs and errors; the key goes in api_key only. The value is not
    // echoed, nor shown beside the message (holdsSecret below).
    if (parsed.username !== '' || parsed.password !== '')
      return 'must not contain a user name or password (user:password@); put the key in api_key'
    // A token in a query string or fragment would show wherever the URL is named; and every call,
    // whose path is appended to it, would miss the API.
    if (/[?#]/.test(value)) return 'must not contain a query string or fragment (?… or #…); put the key in api_key'
    // Without the version every call answers 404, which reads would take for "deleted".
    if (!/\/v[0-9]+\/?$/.test(parsed.pathname)) {
      return `must end in the API version, e.g. ${JSON.stringify(`${parsed.origin}${parsed.pathname.replace(/\/$/, '')}/v1`)} (got ${JSON.stringify(`${parsed.origin}${parsed.pathname}`)})`
    }
    return null
  },
  (value) => typeof value === 'string' && mayHoldSecret(value),
)
/** A key with a line break or NUL cannot be sent as a header; the message never shows the key. */
const headerSafe = custom('free of control characters (line breaks, tabs, NUL)', (value) =>
  typeof value === 'string' && /[\u0000-\u001f\u007f]/.test(value)
    ? 'must not contain control characters (a line break, tab or NUL: check how the key was pasted or read from a file)'
    : null,
)

/** The API or transport error at the root of a failure (a wait keeps the request's error as its cause). */
function rootOf(thrown: unknown): unknown {
  let current = thrown
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof ApiError || current instanceof TransportError) return current
    current = current.cause
  }
  return thrown
}

export const providerDefinition = defineProvider({
  description: 'Manages Metal dedicated servers, Lite and Lite Pro VPS of the service. Every create or upgrade places a paid order.',
  attributes: {
    api_key: string({
      optional: true,
      sensitive: true,
      validate: [headerSafe],
      description: 'The API key, sent as `x-token`. Falls back to the `PROVIDER_API_KEY` environment variable.',
    }),
    base_url: string({
      optional: true,
      validate: [url],
      description:
        'The API base URL, ending in `/v1`. Falls back to `PROVIDER_BASE_URL`. Point it at the local emulator (`npm run emulator`) to try configurations without placing real orders.',
    }),
    request_timeout: string({
      optional: true,
      validate: [durationSetting('request_timeout')],
      description:
        'How long one API request may take before it is abandoned (and retried when that is safe: a read, or an order with ' +
        'its Idempotency-Key), at least `1s`; never longer than the time its operation has left. Falls back to ' +
        '`PROVIDER_REQUEST_TIMEOUT`. Default `30s`.',
    }),
    poll_interval: string({
      optional: true,
      validate: [durationSetting('poll_interval')],
      description:
        'The first interval between status checks while waiting for an order, at least `10ms`; it grows gently up to 30s. ' +
        'Falls back to `PROVIDER_POLL_INTERVAL`. Default `5s`.',
    }),
    fail_on_unfinished: bool({
      optional: true,
      description:
        'When `true`, an apply whose order was placed but is not finished (its invoice waits for payment, or what was asked ' +
        'besides the order waits until it is Active) ends with an error instead of a warning, so that a pipeline does not ' +
        'take an unconfirmed paid resource for success. The resource is saved with its id either way, and each later apply ' +
        'waits for it again (failing while it is unfinished) without ordering again. Terraform marks a resource created with ' +
        'an error as tainted and plans to replace it: while this setting is `true` the provider refuses to delete a tainted ' +
        'resource or one whose create failed this way, so that apply (or `terraform destroy`, already at plan) fails and ' +
        'nothing is cancelled or ordered twice. Run `terraform untaint <address>` to resume it; to delete it anyway, set this ' +
        'to `false` for that apply or destroy; to replace a resource on purpose, use `terraform apply -replace=<address>` ' +
        'rather than `terraform taint`. A resource with `create_before_destroy` is replaced by creating first, which the ' +
        'provider cannot stop: untaint it before the next apply. Default `false`.',
    }),
    max_order_total: int64({
      optional: true,
      validate: [range({ min: 0 })],
      description:
        "The most one plan may order, a whole number in the catalog's money unit (its smallest currency unit, as the catalog's prices are " +
        "written). Every plan that places paid orders shows their prices from the service's catalog as a warning; when the " +
        'orders of the plan would cost more than this, the plan fails, naming them, and nothing is ordered. The total adds ' +
        'the first invoice of every new order and upgrade, whatever their cycles, before any promocode. Terraform plans each ' +
        'resource in its own call, so the total is counted across the calls one provider process serves: one plan. Orders ' +
        'whose price is not known at plan time (it depends on values known only after apply, or the catalog cannot be ' +
        'reached) are named in the warning and not counted; an order that may cost more than the plan can tell is counted at ' +
        'the least it costs, and the warning says "or more" and why. Unset: no limit.',
    }),
    order_journal: string({
      optional: true,
      sensitive: true,
      validate: [journalSetting],
      description:
        'Where the order journal is kept: the record of every paid order, written before it is sent, that lets a re-run ' +
        'after a crash take the order over instead of placing it twice. A directory, or a PostgreSQL connection string ' +
        '(`postgresql://user:password@host:5432/database`) for runners that share no disk (CI jobs, Atlantis, agents): ' +
        'every runner that names the same database shares one journal, kept in its table provider_order_journal (created ' +
        'on first use; `?options=-csearch_path%3Dname` in the string picks another schema), and a runner killed mid-order ' +
        'is taken over by the next one. Falls back to `PROVIDER_ORDER_JOURNAL`; default `.terraform/provider-orders` ' +
        '(`.provider-orders` beside a Pulumi project). Any other value is an error that never shows it: white space at ' +
        'either end, a control character, another URL scheme, `user:password@host` without `postgresql://`, or the ' +
        'keyword/value form (`host=… password=…`). Give a ' +
        'connection string through `PROVIDER_ORDER_JOURNAL` or an ephemeral variable (`ephemeral = true`): Terraform ' +
        'writes the value of any other variable, `sensitive` ones included, into a saved plan in clear.',
    }),
  },
  environment: {
    api_key: 'PROVIDER_API_KEY',
    base_url: 'PROVIDER_BASE_URL',
    order_journal: 'PROVIDER_ORDER_JOURNAL',
    request_timeout: DURATION_VARIABLE.request_timeout,
    poll_interval: DURATION_VARIABLE.poll_interval,
  },
  unfinishedSetting: 'fail_on_unfinished',
  orderLimitSetting: 'max_order_total',
  configure(config, meta: ConfigureMeta<OperationFrame>): Client {
    const apiKey = config.api_key ?? process.env.PROVIDER_API_KEY ?? ''
    const baseUrl = config.base_url ?? process.env.PROVIDER_BASE_URL ?? ''
    if (apiKey === '') {
      throw new InputError(
        ['api_key'],
        'No API key: set api_key in the provider configuration or the PROVIDER_API_KEY environment variable.',
      )
    }
    if (baseUrl === '') {
      throw new InputError(
        ['base_url'],
        'No API base URL: set base_url in the provider configuration or the PROVIDER_BASE_URL environment variable.',
      )
    }
    const problem = url.check(baseUrl)
    if (problem) throw new InputError(['base_url'], `base_url ${problem}.`)
    const keyProblem = headerSafe.check(apiKey)
    if (keyProblem) throw new InputError(['api_key'], `api_key ${keyProblem}.`)
    const log = meta.log
    // The environment variable is checked as the setting is (validation saw only the setting), before
    // any journal is opened or directory made. An empty variable is unset, as shells treat it.
    const journalName = config.order_journal ? 'order_journal' : 'PROVIDER_ORDER_JOURNAL'
    const journalValue = config.order_journal || process.env.PROVIDER_ORDER_JOURNAL
    const journalProblem = journalValue ? journalSettingProblem(journalValue) : null
    if (journalProblem) throw new InputError(['order_journal'], `${journalName} ${journalSettingRule(journalProblem)}.`)
    const journal = journalLocation(config.order_journal ?? undefined)
    const client = createClient({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      userAgent: meta.userAgent,
      requestTimeoutMs: durationOf('request_timeout', config.request_timeout),
      pollIntervalMs: durationOf('poll_interval', config.poll_interval),
      log: (level, message, fields) => logAt(log, level, message, fields),
      ...('database' in journal ? { journalDatabase: journal.database } : { journalDirectory: journal.directory }),
      // Every client this process configures owns entries as one owner and knows what the others hold;
      // those of one run (each `provider` block of a command) know its orders as this run's.
      journalOptions: { session: meta.perProcess('order-journal-session', () => newJournalSession()), run: runOrders(meta) },
      knownAccountsDirectory: knownAccountsDirectory(),
      operation: meta.operation,
      allowUnrecordedMatch: process.env.PROVIDER_ALLOW_UNRECORDED_MATCH === '1',
    })
    if (client.settlement) meta.registerSettlement(client.settlement.where, client.settlement)
    return client
  },
  advise(thrown, config) {
    const root = rootOf(thrown)
    if (root instanceof ApiError && root.status === 401) {
      const from = config.api_key ? 'api_key in the provider configuration' : 'the PROVIDER_API_KEY environment variable'
      return `The API refused the key taken from ${from}: check api_key (or PROVIDER_API_KEY) holds a valid key of the account.`
    }
    if (root instanceof TransportError && root.refused) {
      const baseUrl = config.base_url ?? process.env.PROVIDER_BASE_URL ?? ''
      return `Nothing answered at ${baseUrl}: check base_url (or PROVIDER_BASE_URL) and that the service can be reached from here.`
    }
    return null
  },
})

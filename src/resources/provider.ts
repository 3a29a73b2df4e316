/** The provider configuration shared by both front ends: credentials, endpoint and tuning knobs. */
import { ApiError, type Client, createClient, TransportError } from '../api/index.js'
import { bool, custom, defineProvider, InputError, type Logger, parseDuration, string } from '../core/index.js'

const duration = custom('a duration such as "30s" or "2m"', (value) =>
  typeof value === 'string' && parseDuration(value) === null ? `must be a duration such as "30s" or "2m" (got ${JSON.stringify(value)})` : null,
)
const url = custom('an http or https URL ending in the API version, e.g. https://api.example.invalid/v1', (value) => {
  if (typeof value !== 'string') return null
  try {
    const parsed = new URL(value)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be an http or https URL (got ${JSON.stringify(value)})`
    // Without the version every call answers 404, which reads would take for "deleted".
    if (!/\/v[0-9]+\/?$/.test(parsed.pathname)) {
      return `must end in the API version, e.g. ${JSON.stringify(`${parsed.origin}${parsed.pathname.replace(/\/$/, '')}/v1`)} (got ${JSON.stringify(value)})`
    }
    return null
  } catch {
    return `must be an http or https URL (got ${JSON.stringify(value)})`
  }
})

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
  description:
    'Manages Metal dedicated servers, Lite and Lite Pro VPS of the service. Every create or upgrade places a paid order.',
  attributes: {
    api_key: string({
      optional: true,
      sensitive: true,
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
      validate: [duration],
      description: 'How long one API request may take before it is abandoned (and retried when that is safe). Default `30s`.',
    }),
    poll_interval: string({
      optional: true,
      validate: [duration],
      description: 'The first interval between status checks while waiting for an order; it grows gently up to 30s. Default `5s`.',
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
  },
  environment: { api_key: 'PROVIDER_API_KEY', base_url: 'PROVIDER_BASE_URL' },
  unfinishedSetting: 'fail_on_unfinished',
  configure(config, meta: { userAgent: string; log: Logger }): Client {
    const apiKey = config.api_key ?? process.env.PROVIDER_API_KEY ?? ''
    const baseUrl = config.base_url ?? process.env.PROVIDER_BASE_URL ?? ''
    if (apiKey === '') {
      throw new InputError(['api_key'], 'No API key: set api_key in the provider configuration or the PROVIDER_API_KEY environment variable.')
    }
    if (baseUrl === '') {
      throw new InputError(['base_url'], 'No API base URL: set base_url in the provider configuration or the PROVIDER_BASE_URL environment variable.')
    }
    const problem = url.check(baseUrl)
    if (problem) throw new InputError(['base_url'], `base_url ${problem}.`)
    const log = meta.log
    return createClient({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      userAgent: meta.userAgent,
      requestTimeoutMs: parseDuration(config.request_timeout ?? '30s') ?? 30_000,
      pollIntervalMs: parseDuration(config.poll_interval ?? '5s') ?? 5_000,
      log: (level, message, fields) => log[level](message, fields),
    })
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

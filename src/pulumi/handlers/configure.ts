/** Configure: the server builds the API client from Pulumi's config keys; what a stopped run left unmanaged is logged as warnings. */
import { Code, PulumiError } from '../errors.js'
import { configMessage, configuredSecrets, decodeConfig, givenConfig, refusedConfiguration } from '../config.js'
import { type ConfigureRequest, type ConfigureResult, PROTOCOL } from '../protocol.js'
import type { PulumiServer } from '../server.js'

export function configure(ps: PulumiServer, request: ConfigureRequest): ConfigureResult {
  const given = givenConfig(request)
  const config = decodeConfig(ps, given)
  let configured: ReturnType<typeof ps.server.configure>
  try {
    configured = ps.server.configure(config, { userAgent: `provider-pulumi/${ps.version}`, log: ps.logger(undefined, new Set()) })
  } catch (thrown) {
    throw refusedConfiguration(ps, thrown)
  }
  if (configured.issues.length > 0) throw new PulumiError(Code.INVALID_ARGUMENT, configMessage(ps, ps.describe(configured.issues)))
  ps.configuredSecrets = configuredSecrets(ps, given)
  // Configure answers at once; what a stopped run left unmanaged reaches the engine's log as warnings.
  const log = ps.logger(undefined, ps.configuredSecrets)
  void configured.notices.then((notices) => {
    for (const notice of notices) log.warn(`${notice.summary}. ${notice.detail}`)
  })
  return PROTOCOL
}

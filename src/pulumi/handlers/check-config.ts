/** CheckConfig: the provider's configuration from Pulumi's config keys, checked by the server. */
import { checkedConfig, decodeConfig } from '../config.js'
import type { CheckResult } from '../protocol.js'
import type { PulumiServer } from '../server.js'
import type { WireMap } from '../wire.js'

export function checkConfig(ps: PulumiServer, request: { news: WireMap }): CheckResult {
  const config = decodeConfig(ps, request.news)
  const failures = ps.failuresOf(ps.server.validateConfig(config))
  return { inputs: checkedConfig(ps, request.news), failures }
}

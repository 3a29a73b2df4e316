// Entry point of terraform-provider-provider: serves plugin protocol 6 with every resource and lookup.
// Only the handshake's code loads before the handshake line; the provider service (definitions,
// codec, API client) loads right after it, while Terraform connects, since every command starts
// the provider several times.
import { guardProcess } from '../core/process-guard.js'
import { lazyService, servePlugin } from '../terraform/handshake.js'
import { createLogger } from '../terraform/log.js'
import { startupMarks } from './startup-trace.js'

export const VERSION = '0.1.0'

const marks = startupMarks()
const log = createLogger()
// SIGTERM stops in-flight operations like StopProvider (Terraform, which got it too, then collects
// their results and calls Shutdown); a provider whose Terraform was killed exits at once.
guardProcess({ log })
void servePlugin({
  log,
  services: [
    lazyService('tfplugin6.Provider', async () => {
      const [{ dataSources, providerDefinition, resources }, { providerService }] = await Promise.all([
        import('../resources/index.js'),
        import('../terraform/provider-service.js'),
      ])
      return providerService({ provider: providerDefinition, resources, dataSources }, { log, userAgent: `provider-terraform/${VERSION}` })
    }),
  ],
}).then(marks.served)

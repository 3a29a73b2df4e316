// Entry point of terraform-provider-provider: serves plugin protocol 6 with every resource and lookup.
import { dataSources, providerDefinition, resources } from '../resources/index.js'
import { createLogger, providerService, servePlugin } from '../terraform/index.js'

export const VERSION = '0.1.0'

const log = createLogger()
void servePlugin({
  log,
  services: [
    providerService(
      { provider: providerDefinition, resources, dataSources },
      { log, userAgent: `provider-terraform/${VERSION}` },
    ),
  ],
})

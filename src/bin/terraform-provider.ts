// Entry point of terraform-provider-provider: serves plugin protocol 6 with every resource and lookup.
// Only the handshake's code loads before the handshake line. Every Terraform command starts the
// provider several times: GetProviderSchema is answered from bytes built with the bundle, and the
// provider service (definitions, codec, API client) loads on the first call that needs it.
import { guardProcess } from '../server/process-guard.js'
import { fixedResponse, lazyService, servePlugin } from '../terraform/handshake.js'
import { createLogger } from '../terraform/log.js'
import { startupMarks } from './startup-trace.js'

export const VERSION = '0.1.0'

/**
 * GetProviderSchema's response, base64, stamped into the bundle by scripts/build.mjs from the same
 * build (providerSchemaResponse); absent in the tsc output, which then computes it. Each Terraform
 * command's first launch only fetches the schema (later launches take it from Terraform's cache, as
 * get_provider_schema_optional allows), so with these bytes that launch loads no definition at all.
 */
declare const PROVIDER_SCHEMA_RESPONSE: string | undefined
const schemaResponse = typeof PROVIDER_SCHEMA_RESPONSE === 'string' ? Buffer.from(PROVIDER_SCHEMA_RESPONSE, 'base64') : undefined
/** GetResourceIdentitySchemas' response, stamped the same way: Terraform 1.12+ asks for it in the same launch. */
declare const PROVIDER_IDENTITY_SCHEMAS_RESPONSE: string | undefined
const identityResponse =
  typeof PROVIDER_IDENTITY_SCHEMAS_RESPONSE === 'string' ? Buffer.from(PROVIDER_IDENTITY_SCHEMAS_RESPONSE, 'base64') : undefined

const marks = startupMarks()
const log = createLogger()
// SIGTERM stops in-flight operations like StopProvider (Terraform, which got it too, then collects
// their results and calls Shutdown); a provider whose Terraform was killed exits at once.
guardProcess({ log })
void servePlugin({
  log,
  warm: schemaResponse === undefined,
  services: [
    ...(schemaResponse ? [fixedResponse('/tfplugin6.Provider/GetProviderSchema', schemaResponse)] : []),
    ...(identityResponse ? [fixedResponse('/tfplugin6.Provider/GetResourceIdentitySchemas', identityResponse)] : []),
    lazyService('tfplugin6.Provider', async () => {
      const [{ dataSources, providerDefinition, resources }, { providerService }] = await Promise.all([
        import('../resources/index.js'),
        import('../terraform/provider-service.js'),
      ])
      return providerService({ provider: providerDefinition, resources, dataSources }, { log, userAgent: `provider-terraform/${VERSION}` })
    }),
  ],
}).then(marks.served)

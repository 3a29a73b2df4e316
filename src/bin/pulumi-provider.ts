// Entry point of pulumi-resource-provider: serves pulumirpc.ResourceProvider with every resource and function of the registry.
import { PulumiProvider, schemaText, servePlugin } from '../pulumi/index.js'
import { dataSources, providerDefinition, resources } from '../resources/index.js'
import { startupMarks } from './startup-trace.js'

/** Stamped by the bundler from package.json; the tsc output falls back to the development version. */
declare const PROVIDER_VERSION: string | undefined
export const VERSION = typeof PROVIDER_VERSION === 'string' ? PROVIDER_VERSION : '0.1.0'

const marks = startupMarks()
const registry = { provider: providerDefinition, resources, dataSources }
void servePlugin({
  argv: process.argv.slice(2),
  schema: () => schemaText(registry, { version: VERSION }),
  build: (log) => new PulumiProvider(registry, { version: VERSION, log }),
}).then(marks.served)

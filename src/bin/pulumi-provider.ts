// Entry point of pulumi-resource-provider: serves pulumirpc.ResourceProvider with every resource and function of the registry.
// Only the gRPC server loads before the port line; the registry, the provider and the protobuf messages
// load right after it, while the engine connects (the engine starts plugins often).
import { servePlugin } from '../pulumi/serve.js'
import { startupMarks } from './startup-trace.js'
import { VERSION } from './version.js'

const marks = startupMarks()
void servePlugin({
  argv: process.argv.slice(2),
  load: async () => {
    const [{ dataSources, providerDefinition, resources }, { pulumiService, schemaText }] = await Promise.all([
      import('../resources/index.js'),
      import('../pulumi/index.js'),
    ])
    const registry = { provider: providerDefinition, resources, dataSources }
    return {
      schema: () => schemaText(registry, { version: VERSION }),
      build: (log) => pulumiService(registry, { version: VERSION, log }),
    }
  },
}).then(marks.served)

// The plugin's start-up, as the engine expects it: bind 127.0.0.1:0, write the port and a newline to
// stdout (nothing else may ever go there: console.log is sent to stderr), then serve. Only the shared
// gRPC server loads before the port line; the service, its protobuf messages and the provider load
// right after it, while the engine connects, and every call waits for them.
import { createGrpcServer, type GrpcLogger } from '../grpc/index.js'
import { abandonDeliveries, settleDeliveries } from '../server/operation.js'
import { guardProcess } from '../server/process-guard.js'
import type { RawHandler } from './grpc-server.js'
import type { EngineLog, PulumiService } from './provider.js'

export interface RunningPlugin {
  readonly port: number
  shutdown(): Promise<void>
}

/** What serves the calls, loaded after the port line. */
export interface PluginParts {
  /** Computed on the first GetSchema, not at start-up (the engine starts plugins often). */
  schema(): string
  build(log: EngineLog): PulumiService
}

/** `[--logtostderr] [-v=N] [--tracing URL] <engineAddress>`: flags are dropped, the first other argument is the engine. */
export function engineAddressOf(argv: readonly string[]): string {
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '--tracing') i++
    else if (!arg.startsWith('-')) rest.push(arg)
  }
  return rest[0] ?? ''
}

/** Server-level trouble (a reset connection, a failed load) goes to stderr, which the engine shows with -v. */
const stderrLogger: GrpcLogger = {
  debug() {},
  error(message, fields) {
    const error = fields?.error
    process.stderr.write(`error: ${message}${error instanceof Error ? `: ${error.message}` : ''}\n`)
  },
}

export async function servePlugin(options: { argv: readonly string[]; load: () => Promise<PluginParts> }): Promise<RunningPlugin> {
  console.log = console.error
  console.info = console.error
  const server = createGrpcServer({ log: stderrLogger })
  let closeLogger = () => {}
  let cancel = () => {}
  let warn = (message: string): void => {
    process.stderr.write(`warning: ${message}\n`)
  }
  server.registerLazy('pulumirpc.ResourceProvider', async () => {
    const [{ EngineLogger, resourceProviderService }, parts] = await Promise.all([import('./grpc-server.js'), options.load()])
    const logger = new EngineLogger()
    logger.connect(engineAddressOf(options.argv))
    closeLogger = () => logger.close()
    let schema: string | undefined
    const schemaOnce = () => {
      schema ??= parts.schema()
      return schema
    }
    // One provider per connection: the engine connects once to a plugin it launched, and once per
    // provider (the default one, each explicit one, each configured on its own) to a plugin it attaches
    // to (PULUMI_DEBUG_PROVIDERS). The first is built now, for the first connection that calls.
    const providers: PulumiService[] = []
    const served = (): Map<string, RawHandler> => {
      const provider = parts.build(logger.log)
      providers.push(provider)
      return resourceProviderService(provider, schemaOnce, logger.log, (address) => logger.connect(address))
    }
    const built = served()
    let unclaimed: Map<string, RawHandler> | undefined = built
    const connections = new WeakMap<object, Map<string, RawHandler>>()
    const handler = (connection: object, path: string): RawHandler => {
      let routes = connections.get(connection)
      if (routes === undefined) {
        routes = unclaimed ?? served()
        unclaimed = undefined
        connections.set(connection, routes)
      }
      return routes.get(path) as RawHandler
    }
    cancel = () => {
      for (const provider of providers) provider.cancel()
    }
    warn = (message) => logger.log('warning', message)
    for (const path of built.keys()) server.registerRaw(path, (payload, call) => handler(call.connection, path)(payload))
  })
  const port = await server.listen('127.0.0.1', 0)
  process.stdout.write(`${port}\n`)
  setImmediate(() => server.warm())
  const shutdown = async () => {
    await server.close()
    closeLogger()
  }
  // SIGTERM is the engine's Cancel: every wait stops at its next safe point and each call in flight
  // still sends its answer (a create's id with it, as an init failure), then the plugin closes and
  // exits; new calls are refused meanwhile. A second SIGTERM, or guardProcess's grace period running
  // out, exits at once. As the engine may be going down too, none of those outcomes counts as
  // delivered (the journal keeps them). A plugin whose engine is gone exits (guardProcess watches the parent).
  guardProcess({
    log: { warn: (message) => warn(message) },
    onTerminate: () => {
      abandonDeliveries()
      cancel()
      void server
        .drain()
        .then(shutdown)
        .then(() => process.exit(0))
    },
  })
  // The engine closes a plugin with SIGINT once its run is over (the plugin has its own process
  // group, so a terminal's Ctrl-C never reaches it): every outcome it was handed is kept.
  process.once('SIGINT', () => {
    void settleDeliveries()
      .then(shutdown)
      .then(() => process.exit(0))
  })
  return { port, shutdown }
}

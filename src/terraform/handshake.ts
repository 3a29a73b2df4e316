// The plugin protocol 6 start-up, as go-plugin expects it: the magic cookie, mutual TLS, the gRPC
// services (the provider's, bound lazily or answered from fixed bytes; health; the controller's
// shutdown), the handshake line on stdout, and the reattach instructions for a debug launch.
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2'
import { createCertificate } from './certificate.js'
import { createGrpcServer, type GrpcServer, type ServiceImpl } from '../grpc/index.js'
import { createLogger, type Logger } from './log.js'
import { settleDeliveries } from '../server/operation.js'

/** go-plugin's fixed cookie for Terraform providers: proves Terraform (not a person) started us. */
export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE'
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2'
export const PROTOCOL_VERSION = 6
const EMPTY_MESSAGE = new Uint8Array()
/** HealthCheckResponse{status: SERVING}: field 1, varint, value 1. */
const HEALTH_SERVING = new Uint8Array([0x08, 0x01])

/** The address Terraform knows this provider by, for TF_REATTACH_PROVIDERS. */
export const PROVIDER_ADDRESS = 'registry.terraform.io/provider/provider'
/** The same provider as OpenTofu names `provider/provider` (its default registry host). */
const OPENTOFU_ADDRESS = 'registry.opentofu.org/provider/provider'

/** A service and its implementation, typed together so the pair is checked where it is written. */
export interface ServiceBinding {
  readonly typeName: string
  attach(server: GrpcServer): void
}

export function bindService<S extends GenServiceMethods>(service: GenService<S>, impl: ServiceImpl<S>): ServiceBinding {
  return { typeName: service.typeName, attach: (server) => server.register(service, impl) }
}

/**
 * A service whose implementation is loaded on first use (or right after the handshake): Terraform
 * starts the provider 3 to 5 times per command, and only the handshake has to wait for start-up.
 */
export function lazyService(typeName: string, load: () => Promise<ServiceBinding>): ServiceBinding {
  return { typeName, attach: (server) => server.registerLazy(typeName, async () => (await load()).attach(server)) }
}

/**
 * A method answered with fixed bytes, without loading any service: for a response built at release time.
 * It takes precedence over the service's own method of the same path, also once that service is loaded
 * (in the serve mode, every Terraform command asks for the schema again).
 */
export function fixedResponse(path: string, bytes: Uint8Array): ServiceBinding {
  return { typeName: path, attach: (server) => server.registerRaw(path, () => bytes) }
}

export interface ServeOptions {
  /** Usually one binding: bindService(Provider, providerImpl). */
  readonly services: readonly ServiceBinding[]
  /**
   * Load the lazy services right after the handshake line (the default). Off when the first call of a
   * launch may need none of them: loading blocks the event loop, and so the TLS handshake, for its length.
   */
  readonly warm?: boolean
  readonly log?: Logger
  /** Seams for tests; default to the real process. */
  readonly env?: NodeJS.ProcessEnv
  readonly stdout?: (line: string) => void
  readonly stderr?: (text: string) => void
  readonly exit?: (code: number) => void
}

export interface RunningPlugin {
  readonly port: number
  readonly server: GrpcServer
}

/**
 * go-plugin's server side of the start-up contract. Everything that can fail before the handshake line is
 * reported as a single stdout line, because that is the only text Terraform shows without TF_LOG.
 */
export async function servePlugin(options: ServeOptions): Promise<RunningPlugin | undefined> {
  const env = options.env ?? process.env
  const stdout = options.stdout ?? ((line: string) => process.stdout.write(line))
  const stderr = options.stderr ?? ((text: string) => process.stderr.write(text))
  const exit = options.exit ?? ((code: number) => process.exit(code))
  const log = options.log ?? createLogger({ write: stderr })
  const debug = env.PROVIDER_DEBUG_REATTACH === '1'

  if (!debug && env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    stderr(
      'This binary is a plugin. These are not meant to be executed directly.\n' +
        'Please execute the program that consumes these plugins, which will load any plugins automatically.\n' +
        'To debug the provider, run it with PROVIDER_DEBUG_REATTACH=1 and use the TF_REATTACH_PROVIDERS it prints.\n',
    )
    exit(1)
    return undefined
  }

  try {
    const versions = (env.PLUGIN_PROTOCOL_VERSIONS ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
    // Terraform sends "5,6" or "6,5"; absent means the client takes what we offer (go-plugin's rule).
    if (versions.length > 0 && !versions.includes(String(PROTOCOL_VERSION))) {
      throw new Error(
        `terraform-provider-provider speaks plugin protocol ${PROTOCOL_VERSION}, but this Terraform offers only ${versions.join(', ')}; use Terraform 1.0 or later`,
      )
    }
    // Ctrl-C reaches the whole process group; Terraform answers it with StopProvider, and dying mid-apply
    // would lose the state of whatever was being created. In the serve mode (PROVIDER_DEBUG_REATTACH=1)
    // Terraform does not own the process, and Ctrl-C (or `kill -INT`) is how its user stops it. It gets a
    // handler of its own rather than the default action: a shell script's background job (`provider &`
    // in a pipeline) starts with SIGINT ignored, and the default would then leave it running.
    if (!debug) process.on('SIGINT', () => log.debug('ignoring SIGINT; Terraform will call StopProvider'))
    else process.on('SIGINT', () => exit(130))

    const clientCert = debug ? undefined : env.PLUGIN_CLIENT_CERT
    const certificate = clientCert ? createCertificate() : undefined
    const server = createGrpcServer({
      log,
      ...(certificate && clientCert ? { tls: { cert: certificate.cert, key: certificate.key, clientCa: clientCert } } : {}),
      // Terraform never calls Shutdown on a process it reattaches to (the serve mode): a command's
      // connections close when it exits, after its local backend saved the state, so what it was handed
      // is settled then, as Shutdown settles it for a launched provider (a connection that carried no
      // call is a probe, closed at once).
      ...(debug ? { onConnectionClosed: (calls: number) => void (calls > 0 ? settleDeliveries() : undefined) } : {}),
    })
    for (const binding of options.services) binding.attach(server)
    // Both messages are tiny and fixed, so they are answered as raw bytes: loading protobuf
    // descriptors for them would hold up the handshake line (see proto/grpc_controller.proto, health.proto).
    server.registerRaw('/plugin.GRPCController/Shutdown', (_empty, call) => {
      // Terraform closes its providers this way at the end of a walk, once it holds every outcome:
      // those orders are settled, so a later create of the same intent never takes them over.
      const settled = settleDeliveries()
      // Reply first, then exit as soon as the answer is out and the journal written: Terraform waits up to 2 s for the exit.
      call.onFinished(() => void settled.then(() => setImmediate(() => exit(0))))
      log.debug('shutdown requested')
      return EMPTY_MESSAGE
    })
    server.registerRaw('/grpc.health.v1.Health/Check', () => HEALTH_SERVING)
    const port = await server.listen('127.0.0.1', 0)
    const address = `127.0.0.1:${port}`
    stdout(`1|${PROTOCOL_VERSION}|tcp|${address}|grpc|${certificate?.handshake ?? ''}\n`)
    if (debug) stderr(reattachInstructions(address, process.pid))
    log.debug('plugin server started', { address, tls: certificate !== undefined })
    // Terraform now connects (TLS, then its first calls); loading the services meanwhile overlaps the two.
    if (options.warm ?? true) setImmediate(() => server.warm())
    return { port, server }
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ')
    stdout(`terraform-provider-provider failed to start: ${reason}\n`)
    log.error('start-up failed', { error })
    exit(1)
    return undefined
  }
}

export function reattachInstructions(address: string, pid: number): string {
  const attach = { Protocol: 'grpc', ProtocolVersion: PROTOCOL_VERSION, Pid: pid, Test: true, Addr: { Network: 'tcp', String: address } }
  // Both addresses, so that one line serves terraform and tofu; each client ignores the other's.
  const value = JSON.stringify({ [PROVIDER_ADDRESS]: attach, [OPENTOFU_ADDRESS]: attach })
  return `Provider started for debugging. To use it, run Terraform with:\n\n\tTF_REATTACH_PROVIDERS='${value}'\n\n`
}

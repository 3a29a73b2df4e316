/**
 * The pulumirpc.ResourceProvider service over wire property maps: the binding of each RPC to its
 * handler (handlers/<rpc>.ts), each decoding its request, making one call into the provider server
 * (src/server) and encoding its answer, over one PulumiServer per plugin process. The gRPC adapter
 * (grpc-server.ts) only converts protobuf messages; in-process tests drive the same binding.
 */
import { withoutWriteOnlyInputs } from '../core/index.js'
import type { Registry } from '../server/index.js'
import { call } from './handlers/call.js'
import { cancel } from './handlers/cancel.js'
import { check } from './handlers/check.js'
import { checkConfig } from './handlers/check-config.js'
import { configure } from './handlers/configure.js'
import { create } from './handlers/create.js'
import { deleteResource } from './handlers/delete.js'
import { diff } from './handlers/diff.js'
import { diffConfig } from './handlers/diff-config.js'
import { handshake } from './handlers/handshake.js'
import { invoke } from './handlers/invoke.js'
import { read } from './handlers/read.js'
import { update } from './handlers/update.js'
import { type EngineLog, PulumiServer } from './server.js'

export type { Registry } from '../server/index.js'
export type * from './protocol.js'
export type { EngineLog, Severity } from './server.js'
export { functionToken, methodName, methodToken, PACKAGE, resourceToken, splitMethodToken, typeOfUrn } from './tokens.js'

/**
 * The registry as Pulumi sees it. Pulumi has no write-only attributes: its state encrypts secrets
 * instead, so each write-only input and its version are left out and its alternative (a secret)
 * is the one form, required where the pair is (core/write-only.ts). The schema and SDKs are made
 * from the same view.
 */
export function pulumiRegistry(registry: Registry): Registry {
  return { ...registry, resources: registry.resources.map(withoutWriteOnlyInputs) }
}

export interface ProviderOptions {
  readonly version: string
  readonly log: EngineLog
}

/** Each RPC of the service, as its handler takes and answers it. */
export interface PulumiService {
  readonly version: string
  /** Whether each created, read or updated resource asks the engine to refresh it before an update (see handlers/handshake.ts). */
  readonly refreshBeforeUpdate: boolean
  readonly handshake: (request: Parameters<typeof handshake>[1]) => ReturnType<typeof handshake>
  readonly checkConfig: (request: Parameters<typeof checkConfig>[1]) => ReturnType<typeof checkConfig>
  readonly diffConfig: (request: Parameters<typeof diffConfig>[1]) => ReturnType<typeof diffConfig>
  readonly configure: (request: Parameters<typeof configure>[1]) => ReturnType<typeof configure>
  readonly check: (request: Parameters<typeof check>[1]) => ReturnType<typeof check>
  readonly diff: (request: Parameters<typeof diff>[1]) => ReturnType<typeof diff>
  readonly create: (request: Parameters<typeof create>[1]) => ReturnType<typeof create>
  readonly read: (request: Parameters<typeof read>[1]) => ReturnType<typeof read>
  readonly update: (request: Parameters<typeof update>[1]) => ReturnType<typeof update>
  readonly delete: (request: Parameters<typeof deleteResource>[1]) => ReturnType<typeof deleteResource>
  readonly invoke: (request: Parameters<typeof invoke>[1]) => ReturnType<typeof invoke>
  readonly call: (request: Parameters<typeof call>[1]) => ReturnType<typeof call>
  readonly cancel: () => void
}

/** The service of one plugin process: one PulumiServer, each RPC bound to its handler. */
export function pulumiService(registry: Registry, options: ProviderOptions): PulumiService {
  const ps = new PulumiServer(pulumiRegistry(registry), options.version, options.log)
  return {
    version: ps.version,
    get refreshBeforeUpdate() {
      return ps.refreshBeforeUpdate
    },
    handshake: (request) => handshake(ps, request),
    checkConfig: (request) => checkConfig(ps, request),
    diffConfig: (request) => diffConfig(ps, request),
    configure: (request) => configure(ps, request),
    check: (request) => check(ps, request),
    diff: (request) => diff(ps, request),
    create: (request) => create(ps, request),
    read: (request) => read(ps, request),
    update: (request) => update(ps, request),
    delete: (request) => deleteResource(ps, request),
    invoke: (request) => invoke(ps, request),
    call: (request) => call(ps, request),
    cancel: () => cancel(ps),
  }
}

/**
 * The ResourceProvider semantics over wire property maps, with no transport: one method per RPC,
 * each in the file named after it (decode -> provider server -> encode). The gRPC adapter
 * (grpc-server.ts) only converts protobuf messages; the runtime itself is src/server's.
 */
import { withoutWriteOnlyInputs } from '../core/index.js'
import type { Registry } from '../server/index.js'
import { type CallRequest, call } from './call.js'
import { check } from './check.js'
import { type CheckResult, type ConfigureResult, checkConfig, configure, diffConfig } from './configure.js'
import { type EngineLog, PulumiContext, type ResourceRequest } from './context.js'
import { create } from './create.js'
import { deleteResource } from './delete.js'
import { type DiffResult, diff } from './diff.js'
import { type HandshakeRequest, type HandshakeResult, handshake } from './handshake.js'
import { invoke } from './invoke.js'
import { read } from './read.js'
import { type UpdateRequest, update } from './update.js'
import type { WireMap } from './wire.js'

export type { Registry } from '../server/index.js'
export type { CallRequest } from './call.js'
export type { CheckResult, ConfigureResult } from './configure.js'
export type { CheckFailure, EngineLog, Severity } from './context.js'
export type { DiffKind, DiffResult } from './diff.js'
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

export class PulumiProvider {
  private readonly ctx: PulumiContext

  constructor(registry: Registry, options: ProviderOptions) {
    this.ctx = new PulumiContext(pulumiRegistry(registry), options.version, options.log)
  }

  get version(): string {
    return this.ctx.version
  }

  handshake(request: HandshakeRequest): HandshakeResult {
    return handshake(this.ctx, request)
  }

  /** Whether each created, read or updated resource asks the engine to refresh it before an update (see handshake.ts). */
  get refreshBeforeUpdate(): boolean {
    return this.ctx.refreshBeforeUpdate
  }

  checkConfig(request: { news: WireMap }): CheckResult {
    return checkConfig(this.ctx, request)
  }

  diffConfig(request: { olds: WireMap; oldInputs: WireMap; news: WireMap }): DiffResult {
    return diffConfig(this.ctx, request)
  }

  configure(request: { args: WireMap | null; variables: Record<string, string> }): ConfigureResult {
    return configure(this.ctx, request)
  }

  check(request: ResourceRequest & { news: WireMap; olds?: WireMap }): CheckResult {
    return check(this.ctx, request)
  }

  diff(request: Parameters<typeof diff>[1]): Promise<DiffResult> {
    return diff(this.ctx, request)
  }

  create(request: Parameters<typeof create>[1]): Promise<{ id: string; properties: WireMap }> {
    return create(this.ctx, request)
  }

  read(request: Parameters<typeof read>[1]): Promise<{ id: string; properties: WireMap; inputs: WireMap }> {
    return read(this.ctx, request)
  }

  update(request: UpdateRequest): Promise<{ properties: WireMap }> {
    return update(this.ctx, request)
  }

  delete(request: Parameters<typeof deleteResource>[1]): Promise<void> {
    return deleteResource(this.ctx, request)
  }

  invoke(request: { tok: string; args: WireMap }): ReturnType<typeof invoke> {
    return invoke(this.ctx, request)
  }

  call(request: CallRequest): Promise<{ return: WireMap }> {
    return call(this.ctx, request)
  }

  /**
   * Cancel: in-flight operations stop at their next step boundary; later calls start afresh. The
   * engine calls it at the end of every command too, so it is no news to the user (debug).
   */
  cancel(): void {
    this.ctx.log('debug', 'cancel requested: stopping in-flight operations at their next step boundary')
    this.ctx.server.interrupt(new Error('Pulumi cancelled the operation'))
  }
}

/**
 * Handshake: the engine's first call to a plugin that implements it (the CLI since 3.1xx falls back to
 * Configure's answer when it is UNIMPLEMENTED). The engine says what it supports; the provider says what
 * it accepts. The one capability that changes behaviour is refresh before update.
 */
import { PROTOCOL } from './configure.js'
import type { PulumiContext } from './context.js'

export interface HandshakeRequest {
  /** The engine reads a resource's `refreshBeforeUpdate` and refreshes it before every up and preview. */
  readonly supportsRefreshBeforeUpdate: boolean
}

export interface HandshakeResult {
  readonly acceptSecrets: boolean
  readonly acceptResources: boolean
  readonly acceptOutputs: boolean
  readonly supportsAutonamingConfiguration: boolean
}

/**
 * Every resource of this provider is a live object at the service that people and other tools change
 * (a VM stopped in the portal, a disk grown by support): with an engine that supports it, each one
 * asks to be read before an update is planned, as Terraform always does, so `pulumi up` plans from
 * what the service has rather than from the last state without `--refresh`.
 */
export function handshake(ctx: PulumiContext, request: HandshakeRequest): HandshakeResult {
  ctx.refreshBeforeUpdate = request.supportsRefreshBeforeUpdate
  return {
    acceptSecrets: PROTOCOL.acceptSecrets,
    acceptResources: PROTOCOL.acceptResources,
    acceptOutputs: PROTOCOL.acceptOutputs,
    supportsAutonamingConfiguration: false,
  }
}

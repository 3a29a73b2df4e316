/**
 * Handshake: the engine's first call to a plugin that implements it (the CLI since 3.1xx falls back to
 * Configure's answer when it is UNIMPLEMENTED). The engine says what it supports; the provider says what
 * it accepts. The one capability that changes behaviour is refresh before update.
 */
import { type HandshakeRequest, type HandshakeResult, PROTOCOL } from '../protocol.js'
import type { PulumiServer } from '../server.js'

/**
 * Every resource of this provider is a live object at the service that people and other tools change
 * (a VM stopped in the portal, a disk grown by support): with an engine that supports it, each one
 * asks to be read before an update is planned, as Terraform always does, so `pulumi up` plans from
 * what the service has rather than from the last state without `--refresh`.
 */
export function handshake(ps: PulumiServer, request: HandshakeRequest): HandshakeResult {
  ps.refreshBeforeUpdate = request.supportsRefreshBeforeUpdate
  return {
    acceptSecrets: PROTOCOL.acceptSecrets,
    acceptResources: PROTOCOL.acceptResources,
    acceptOutputs: PROTOCOL.acceptOutputs,
    supportsAutonamingConfiguration: false,
  }
}

/**
 * The ResourceProvider's requests and answers as the handlers take and give them: wire property maps
 * (see wire.ts) and plain fields, after the gRPC adapter (grpc-server.ts) has read the protobuf
 * messages; and what the provider accepts on the wire.
 */
import type { WireMap } from './wire.js'

export interface ResourceRequest {
  readonly urn: string
  /** The type token; taken from the URN when empty. */
  readonly type?: string
}

/** A value Check or Invoke refuses: the property (a camelCase path) and why. */
export interface CheckFailure {
  readonly property: string
  readonly reason: string
}

export interface CheckResult {
  readonly inputs: WireMap
  readonly failures: readonly CheckFailure[]
}

export interface ConfigureResult {
  readonly acceptSecrets: boolean
  readonly supportsPreview: boolean
  readonly acceptResources: boolean
  readonly acceptOutputs: boolean
}

/**
 * What the provider accepts on the wire, told to the engine by Handshake, or by Configure's answer
 * when the engine does not handshake: secrets, and previews (create and update with `preview`).
 */
export const PROTOCOL: ConfigureResult = { acceptSecrets: true, supportsPreview: true, acceptResources: false, acceptOutputs: false }

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

export type DiffKind = 'ADD' | 'ADD_REPLACE' | 'DELETE' | 'DELETE_REPLACE' | 'UPDATE' | 'UPDATE_REPLACE'

export interface DiffResult {
  readonly changes: 'none' | 'some'
  readonly replaces: readonly string[]
  readonly diffs: readonly string[]
  readonly detailedDiff: Readonly<Record<string, { kind: DiffKind; inputDiff: boolean }>>
  readonly deleteBeforeReplace: boolean
}

export interface ConfigureRequest {
  /** The configuration as a property map; null from an engine that sends only `variables`. */
  readonly args: WireMap | null
  readonly variables: Record<string, string>
}

export interface CheckRequest extends ResourceRequest {
  readonly news: WireMap
  readonly olds?: WireMap
  /** The saved outputs of a resource the engine has in state, sent beside its old inputs by engines that do. */
  readonly oldOutputs?: WireMap
}

export interface DiffRequest extends ResourceRequest {
  readonly id?: string
  readonly olds: WireMap
  readonly oldInputs: WireMap
  readonly news: WireMap
  readonly ignoreChanges?: readonly string[]
}

export interface CreateRequest extends ResourceRequest {
  readonly properties: WireMap
  /** The engine's customTimeouts for the operation, in seconds. */
  readonly timeout?: number
  readonly preview: boolean
}

export interface UpdateRequest extends ResourceRequest {
  readonly id: string
  readonly olds: WireMap
  readonly oldInputs: WireMap
  readonly news: WireMap
  readonly timeout?: number
  readonly ignoreChanges?: readonly string[]
  readonly preview: boolean
}

export interface ReadRequest extends ResourceRequest {
  readonly id: string
  readonly properties: WireMap
  readonly inputs: WireMap
}

export interface DeleteRequest extends ResourceRequest {
  readonly id: string
  readonly properties: WireMap
  readonly timeout?: number
}

export interface InvokeRequest {
  readonly tok: string
  readonly args: WireMap
}

export interface CallRequest {
  readonly tok: string
  readonly args: WireMap
  readonly dryRun: boolean
}

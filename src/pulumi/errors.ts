/** Errors of the Pulumi front end: a gRPC status code the engine reads, and the partial-failure detail. */
import type { Diagnostic, Path } from '../core/index.js'
import { GrpcStatus } from '../grpc/index.js'
import { type WireMap, wireName } from './wire.js'

/** The gRPC status codes this provider answers with (grpc/status.h numbering). */
export const Code = GrpcStatus
export type CodeNumber = (typeof Code)[keyof typeof Code]

/** What the engine records when a resource exists but its operation did not finish (ErrorResourceInitFailed). */
export interface InitFailure {
  readonly id: string
  readonly properties: WireMap
  readonly inputs: WireMap
  readonly reasons: readonly string[]
}

/**
 * An RPC failure. Codes UNKNOWN, INTERNAL and DATA_LOSS tell the engine the resource state is unknown;
 * every other code says the operation did not happen. `initFailure` keeps a created resource in state.
 */
export class PulumiError extends Error {
  constructor(
    readonly code: CodeNumber,
    message: string,
    readonly initFailure?: InitFailure,
  ) {
    super(message)
  }
}

/** A core path in Pulumi's property-path spelling: `lastInvoice.paidId`, `products[0].name`. */
export function propertyPath(path: Path): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? wireName(part) : `.${wireName(part)}`)).join('')
}

/** One line per diagnostic, attribute names in camelCase. */
export function describeDiagnostics(list: readonly Diagnostic[]): string[] {
  return list.map((d) => {
    const where = d.path && d.path.length > 0 ? `${propertyPath(d.path)}: ` : ''
    return `${where}${d.summary}${d.detail ? `: ${d.detail}` : ''}`
  })
}

/** The shape of the API client's errors, read structurally: pulumi/ never imports api/. */
interface Shaped {
  readonly status?: unknown
  readonly outcomeUnknown?: unknown
  readonly reason?: unknown
  readonly method?: unknown
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * The code of a failed call from what the client threw: 4xx says the operation did not happen (a
 * precise code), 5xx after a mutating request or a lost answer says the state is unknown.
 */
export function codeOf(thrown: unknown): CodeNumber {
  if (thrown === null || typeof thrown !== 'object') return Code.UNKNOWN
  const { status, outcomeUnknown, reason, method } = thrown as Shaped
  if (typeof status === 'number') {
    if (status === 400 || status === 422) return Code.INVALID_ARGUMENT
    if (status === 401) return Code.UNAUTHENTICATED
    if (status === 403) return Code.PERMISSION_DENIED
    if (status === 404 || status === 410) return Code.NOT_FOUND
    if (status === 409) return Code.ABORTED
    if (status === 429) return Code.RESOURCE_EXHAUSTED
    if (status >= 400 && status < 500) return Code.FAILED_PRECONDITION
    return outcomeUnknown === true ? Code.UNKNOWN : Code.UNAVAILABLE
  }
  if (reason === 'cancelled') return Code.CANCELLED
  // No answer: a request that changes something may have been processed.
  if (typeof method === 'string' && MUTATING.has(method)) return Code.UNKNOWN
  if (reason === 'timeout') return Code.DEADLINE_EXCEEDED
  if (reason === 'network') return Code.UNAVAILABLE
  return Code.UNKNOWN
}

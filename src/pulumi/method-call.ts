/**
 * A Call request decoded: the method its token names, the object `__self__` refers to (its URN and id,
 * the id null while a preview plans the object's creation), and the method's arguments by canonical
 * name; a request that names no method of this provider, or arguments it does not take, is refused.
 */
import type { AnyMethod, AnyResource, ValueMap } from '../core/index.js'
import { Code, PulumiError } from './errors.js'
import type { CallRequest } from './protocol.js'
import type { PulumiServer } from './server.js'
import { methodName, splitMethodToken, typeOfUrn } from './tokens.js'
import { decodeMap, isSecret, SIG_KEY, SIG_RESOURCE_REF, UNKNOWN_WIRE, type Wire, wireName } from './wire.js'

const SELF = '__self__'

export interface MethodCall {
  readonly definition: AnyResource
  readonly method: AnyMethod
  /** The URN of the object, '' when the engine sent a bare id. */
  readonly urn: string
  /** Null: not known yet (a preview of the object's creation). */
  readonly id: string | null
  readonly values: ValueMap
}

export function decodeCall(ps: PulumiServer, request: CallRequest): MethodCall {
  const { type, definition, method } = methodOf(ps, request.tok)
  const { [SELF]: self, ...rest } = request.args
  const { urn, id } = selfOf(request.tok, self)
  if (urn !== '' && typeOfUrn(urn) !== type) {
    throw new PulumiError(Code.INVALID_ARGUMENT, `${request.tok}: ${SELF} is ${urn}, not a ${type}`)
  }
  const { values, unknownKeys } = decodeMap(method.inputs, rest)
  if (unknownKeys.length > 0) {
    const known = Object.keys(method.inputs).map(wireName)
    throw new PulumiError(
      Code.INVALID_ARGUMENT,
      `${request.tok}: ${unknownKeys.join(', ')} ${unknownKeys.length === 1 ? 'is not an argument' : 'are not arguments'} of the method` +
        (known.length > 0 ? `; its arguments: ${known.join(', ')}` : '; it takes no arguments'),
    )
  }
  return { definition, method, urn, id, values }
}

function methodOf(ps: PulumiServer, token: string): { type: string; definition: AnyResource; method: AnyMethod } {
  const parts = splitMethodToken(token)
  if (!parts) throw new PulumiError(Code.INVALID_ARGUMENT, `${token} is not a method token (<resource type>/<method>)`)
  const definition = ps.resource({ urn: '', type: parts.type })
  const method = definition.methods?.find((m) => methodName(m) === parts.method)
  if (!method) {
    const names = (definition.methods ?? []).map(methodName)
    throw new PulumiError(
      Code.INVALID_ARGUMENT,
      `${parts.type} has no method ${parts.method}` + (names.length > 0 ? `; its methods: ${names.join(', ')}` : '; it has no methods'),
    )
  }
  return { type: parts.type, definition, method }
}

/**
 * The object a method is called on: the engine sends `__self__` as a resource reference (it keeps
 * references in Call whatever Configure answered), whose id is unknown while a preview plans its
 * creation. A bare id string is taken too. Null id: not known yet.
 */
function selfOf(token: string, value: Wire | undefined): { urn: string; id: string | null } {
  const self = isSecret(value) ? value.value : value
  if (typeof self === 'string' && self !== '') return { urn: '', id: self === UNKNOWN_WIRE ? null : self }
  if (self !== null && typeof self === 'object' && !Array.isArray(self) && self[SIG_KEY] === SIG_RESOURCE_REF) {
    const urn = typeof self.urn === 'string' ? self.urn : ''
    const id = typeof self.id === 'string' && self.id !== '' && self.id !== UNKNOWN_WIRE ? self.id : null
    return { urn, id }
  }
  throw new PulumiError(Code.INVALID_ARGUMENT, `${token}: ${SELF} must be a reference to the resource the method is called on`)
}

/**
 * Call: a method of a resource (`vm.power({ state: 'stop' })`) run once on the object `__self__` names.
 * The engine calls it in a preview too (`dryRun`): then the arguments are checked (against the service
 * too, with read-only calls, once the object exists) and nothing runs.
 * Every failure is a gRPC error, which the engine reports as the program's error and which ends the
 * update: a method returns nothing, so a failure in a list of failures would go unseen in a program
 * that does not read the result.
 */
import type { AnyMethod, AnyResource } from '../../core/index.js'
import { Code, PulumiError } from '../errors.js'
import { unknownNames } from '../inputs.js'
import { finished } from '../outcomes.js'
import type { CallRequest } from '../protocol.js'
import type { PulumiServer } from '../server.js'
import { methodName, splitMethodToken, typeOfUrn } from '../tokens.js'
import { decodeMap, isSecret, SIG_KEY, SIG_RESOURCE_REF, UNKNOWN_WIRE, type Wire, type WireMap, wireName } from '../wire.js'

const SELF = '__self__'

export async function call(ps: PulumiServer, request: CallRequest): Promise<{ return: WireMap }> {
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
  if (request.dryRun) {
    // A preview: what is known already is checked, so a wrong value fails the preview, not the update;
    // against the service too (read-only calls) once the object exists.
    const session = ps.opener(urn || undefined, request.args)
    const issues = await ps.server.checkMethod(definition, method, id, values, { requireInputs: true, session })
    if (ps.failuresOf(issues).length > 0) throw ps.invalid(issues)
    ps.warn(issues, urn || undefined)
    return { return: {} }
  }
  const unknown = unknownNames(values)
  if (id === null || unknown.length > 0) {
    const what = id === null ? `the id of ${urn || 'the resource'}` : unknown.map(wireName).join(', ')
    throw new PulumiError(Code.FAILED_PRECONDITION, `${request.tok}: ${what} is not known outside a preview; the method did not run`)
  }
  const session = ps.session(urn || undefined, request.args)
  const outcome = await ps.server.runMethod(definition, method, id, values, session, (message) => ps.log('info', message, urn || undefined))
  finished(ps, outcome, urn || undefined, Code.INVALID_ARGUMENT)
  return { return: {} }
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

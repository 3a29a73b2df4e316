/**
 * Call: a method of a resource (`vm.power({ state: 'stop' })`) run once by the server on the object
 * `__self__` names. The engine calls it in a preview too (`dryRun`): then the server checks the
 * arguments (against the service too, with read-only calls, once the object exists) and nothing runs.
 * Every failure is a gRPC error, which the engine reports as the program's error and which ends the
 * update: a method returns nothing, so a failure in a list of failures would go unseen in a program
 * that does not read the result.
 */
import { Code, PulumiError } from '../errors.js'
import { unknownNames } from '../inputs.js'
import { decodeCall } from '../method-call.js'
import { finished } from '../outcomes.js'
import type { CallRequest } from '../protocol.js'
import type { PulumiServer } from '../server.js'
import { type WireMap, wireName } from '../wire.js'

export async function call(ps: PulumiServer, request: CallRequest): Promise<{ return: WireMap }> {
  const { definition, method, urn, id, values } = decodeCall(ps, request)
  if (request.dryRun) {
    // A preview: what is known already is checked, so a wrong value fails the preview, not the update;
    // against the service too (read-only calls) once the object exists.
    const session = ps.opener(urn || undefined, request.args)
    const issues = await ps.server.checkMethod(definition, method, id, values, { requireInputs: true, session, planned: request.tok })
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
  const progress = (message: string) => ps.log('info', message, urn || undefined)
  // The program calls the method on every `pulumi up`.
  const outcome = await ps.server.runMethod(
    definition,
    method,
    id,
    values,
    session,
    progress,
    `run \`pulumi up\` again, which calls ${request.tok} again`,
  )
  finished(ps, outcome, urn || undefined, Code.INVALID_ARGUMENT)
  return { return: {} }
}

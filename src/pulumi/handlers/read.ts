/** Read: the server's refresh, or its import when the engine sends no properties; the inputs are rebuilt from the answer. */
import type { AnyResource } from '../../core/index.js'
import { Code } from '../errors.js'
import { finished } from '../outcomes.js'
import type { ReadRequest } from '../protocol.js'
import { inputAttributes, isEmptyMap, privateOf, type PulumiServer } from '../server.js'
import { isExistenceCheck } from '../tokens.js'
import { encodeMap, secretAttributes, type WireMap } from '../wire.js'

export async function read(ps: PulumiServer, request: ReadRequest): Promise<{ id: string; properties: WireMap; inputs: WireMap }> {
  const definition = ps.resource(request)
  const importing = isEmptyMap(request.properties)
  // A refresh reads through the configuration the state recorded; an import through the program's.
  const session = importing ? ps.session(request.urn) : ps.readSession(request.urn, request.properties, request.inputs)
  const outcome = importing
    ? await ps.server.importById(definition, request.id, session)
    : // The outputs hold no id: the prior state has the one the engine names, as a Terraform state has.
      await ps.server.read(
        definition,
        { ...ps.priorOf(definition, request.properties, {}), id: request.id },
        request.id,
        privateOf(request.properties),
        session,
      )
  // The engine's existence check (`LiteVm.exists(id)` of every SDK) asks whether the object is there:
  // a missing one is its answer, false, not a failure. An import or a `get` keeps the error naming the id.
  if (importing && outcome.missing === true && isExistenceCheck(request.urn)) {
    ps.warn(outcome.diagnostics, request.urn)
    return { id: '', properties: {}, inputs: {} }
  }
  finished(ps, outcome, request.urn, importing && outcome.state === null ? Code.NOT_FOUND : Code.UNKNOWN)
  if (outcome.state === null) return { id: '', properties: {}, inputs: {} }
  const secrets = secretAttributes(definition.attributes, request.properties, request.inputs)
  return {
    id: String(outcome.state.id ?? request.id),
    properties: ps.outputs(definition, outcome.state, secrets, outcome.private),
    inputs: encodeMap(importing ? importedInputs(definition) : inputAttributes(definition), outcome.state, { secret: secrets }),
  }
}

/**
 * The inputs an import rebuilds: every input but the sensitive ones. `pulumi import` writes these
 * inputs into the code it generates, a secret in clear, and prints that code. A sensitive input (a
 * VM's console password) is left for the program to give from a secret; the outputs keep the value
 * the service reports, encrypted in the state, so that program previews no change (the prior is
 * planned from the outputs).
 */
function importedInputs(definition: AnyResource) {
  return Object.fromEntries(Object.entries(inputAttributes(definition)).filter(([, attribute]) => !attribute.sensitive))
}

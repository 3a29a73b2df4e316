/** Read: a refresh, or an import when the engine sends no properties; the inputs are rebuilt from the server. */
import { type AnyResource, hasErrors } from '../core/index.js'
import type { PulumiContext, ResourceRequest } from './context.js'
import { inputAttributes, isEmptyMap, privateOf } from './context.js'
import { Code } from './errors.js'
import { encodeMap, secretAttributes, type WireMap } from './wire.js'

export async function read(
  ctx: PulumiContext,
  request: ResourceRequest & { id: string; properties: WireMap; inputs: WireMap },
): Promise<{ id: string; properties: WireMap; inputs: WireMap }> {
  const definition = ctx.resource(request)
  const importing = isEmptyMap(request.properties)
  const session = ctx.session(request.urn, request.properties, request.inputs)
  const outcome = importing
    ? await ctx.server.importById(definition, request.id, session)
    : // The outputs hold no id: the prior state has the one the engine names, as a Terraform state has.
      await ctx.server.read(
        definition,
        { ...ctx.priorOf(definition, request.properties, {}), id: request.id },
        request.id,
        privateOf(request.properties),
        session,
      )
  ctx.warn(outcome.diagnostics, request.urn)
  if (hasErrors(outcome.diagnostics)) {
    throw ctx.failure(outcome.diagnostics, outcome.cause, importing && outcome.state === null ? Code.NOT_FOUND : Code.UNKNOWN)
  }
  if (outcome.state === null) return { id: '', properties: {}, inputs: {} }
  const secrets = secretAttributes(definition.attributes, request.properties, request.inputs)
  return {
    id: String(outcome.state.id ?? request.id),
    properties: ctx.outputs(definition, outcome.state, secrets, outcome.private),
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

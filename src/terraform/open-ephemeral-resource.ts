/**
 * OpenEphemeralResource: the lookup an ephemeral resource serves (AnyDataSource.ephemeral), read with
 * the configured client and handed to Terraform for this run only. Terraform opens it in every plan and
 * every apply and never stores the result. Nothing is left open at the service, so the answer has no
 * `private` handle and no `renew_at`: Terraform then never renews it, and its close releases nothing.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { containsUnknown, error, readDataSource } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { OpenEphemeralResource_Request, OpenEphemeralResource_ResponseSchema } from './gen/tfplugin6.10_pb.js'

export async function openEphemeralResource(
  ctx: TfContext,
  request: OpenEphemeralResource_Request,
): Promise<MessageInitShape<typeof OpenEphemeralResource_ResponseSchema>> {
  try {
    const { definition, view } = ctx.ephemeral(request.typeName)
    const config = decode(view, request.config) ?? {}
    // Terraform opens only a configuration it knows whole; an unknown value here is a client's mistake.
    const unknown = Object.keys(config).filter((name) => containsUnknown(config[name]))
    if (unknown.length > 0) {
      const detail = `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known yet; it is opened once every value is known.`
      return { diagnostics: ctx.diagnostics([error(`Cannot open ${definition.name} with unknown values`, detail, [unknown[0] as string])]) }
    }
    const outcome = await readDataSource(definition, config, ctx.session())
    if (outcome.state === null) return { diagnostics: ctx.diagnostics(outcome.diagnostics) }
    return { result: encode(view, outcome.state), diagnostics: ctx.diagnostics(outcome.diagnostics) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('OpenEphemeralResource', thrown) }
  }
}

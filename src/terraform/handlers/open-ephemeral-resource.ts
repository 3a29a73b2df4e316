/**
 * OpenEphemeralResource: the lookup an ephemeral resource serves (AnyDataSource.ephemeral), opened by
 * the server with the configured client and handed to Terraform for this run only. Terraform opens it
 * in every plan and every apply and never stores the result. Nothing is left open at the service, so
 * the answer has no `private` handle and no `renew_at`: Terraform then never renews it, and its close
 * releases nothing.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode, encode } from '../dynamic-value.js'
import type { OpenEphemeralResource_Request, OpenEphemeralResource_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export async function openEphemeralResource(
  tf: TerraformServer,
  request: OpenEphemeralResource_Request,
): Promise<MessageInitShape<typeof OpenEphemeralResource_ResponseSchema>> {
  try {
    const { definition, view } = tf.ephemeral(request.typeName)
    const config = decode(view, request.config) ?? {}
    const outcome = await tf.server.openLookup(definition, config, () => tf.session())
    if (outcome.state === null) return { diagnostics: tf.diagnostics(outcome.diagnostics) }
    return { result: encode(view, outcome.state), diagnostics: tf.diagnostics(outcome.diagnostics) }
  } catch (thrown) {
    return { diagnostics: tf.failed('OpenEphemeralResource', thrown) }
  }
}

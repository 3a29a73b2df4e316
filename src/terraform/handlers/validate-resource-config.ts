/** ValidateResourceConfig: a resource's configuration as written, before any plan, checked by the server. */
import { decode } from '../dynamic-value.js'
import type { Diagnostic as TfDiagnostic, ValidateResourceConfig_Request } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function validateResourceConfig(tf: TerraformServer, request: ValidateResourceConfig_Request): { diagnostics: TfDiagnostic[] } {
  try {
    const { definition, view } = tf.resource(request.typeName)
    const config = decode(view, request.config) ?? {}
    // Absent from clients older than protocol 6.8, which would store a write-only value in state.
    const writeOnlyAllowed = request.clientCapabilities?.writeOnlyAttributesAllowed === true
    return { diagnostics: tf.diagnostics(tf.server.validateResource(definition, config, { writeOnlyAllowed })) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateResourceConfig', thrown) }
  }
}

/** ValidateEphemeralResourceConfig: an ephemeral resource opens a lookup (AnyDataSource.ephemeral), so its configuration is the lookup's. */
import { decode } from '../dynamic-value.js'
import type { Diagnostic as TfDiagnostic, ValidateEphemeralResourceConfig_Request } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function validateEphemeralResourceConfig(
  tf: TerraformServer,
  request: ValidateEphemeralResourceConfig_Request,
): { diagnostics: TfDiagnostic[] } {
  try {
    const { definition, view } = tf.ephemeral(request.typeName)
    const config = decode(view, request.config) ?? {}
    return { diagnostics: tf.diagnostics(tf.server.validateLookup(definition, config)) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateEphemeralResourceConfig', thrown) }
  }
}

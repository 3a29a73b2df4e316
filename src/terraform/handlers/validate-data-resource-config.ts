/** ValidateDataResourceConfig: a data source's configuration as written, checked by the server. */
import { decode } from '../dynamic-value.js'
import type { Diagnostic as TfDiagnostic, ValidateDataResourceConfig_Request } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function validateDataResourceConfig(
  tf: TerraformServer,
  request: ValidateDataResourceConfig_Request,
): { diagnostics: TfDiagnostic[] } {
  try {
    const { definition, view } = tf.dataSource(request.typeName)
    const config = decode(view, request.config) ?? {}
    return { diagnostics: tf.diagnostics(tf.server.validateLookup(definition, config)) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateDataResourceConfig', thrown) }
  }
}

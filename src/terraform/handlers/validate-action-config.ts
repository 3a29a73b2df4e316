/**
 * ValidateActionConfig: an action's configuration as written (the id of the object, the method's
 * arguments), checked by the server; unknown values (an id of an object not yet created) are checked at invoke.
 */
import { decode } from '../dynamic-value.js'
import type { Diagnostic as TfDiagnostic, ValidateActionConfig_Request } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export async function validateActionConfig(
  tf: TerraformServer,
  request: ValidateActionConfig_Request,
): Promise<{ diagnostics: TfDiagnostic[] }> {
  try {
    const { definition, method, view } = tf.action(request.typeName)
    const { id, ...input } = decode(view, request.config) ?? {}
    // Terraform reports missing required arguments itself.
    return { diagnostics: tf.diagnostics(await tf.server.checkMethod(definition, method, id, input, { requireInputs: false })) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateActionConfig', thrown) }
  }
}

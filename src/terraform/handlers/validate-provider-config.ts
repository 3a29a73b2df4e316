/** ValidateProviderConfig: the provider's configuration as written, checked by the server. */
import type { ValidateProviderConfig_Request, Diagnostic as TfDiagnostic } from '../gen/tfplugin6.10_pb.js'
import { decode } from '../dynamic-value.js'
import type { TerraformServer } from '../server.js'

export function validateProviderConfig(tf: TerraformServer, request: ValidateProviderConfig_Request): { diagnostics: TfDiagnostic[] } {
  try {
    const config = decode(tf.views.provider, request.config) ?? {}
    return { diagnostics: tf.diagnostics(tf.server.validateConfig(config)) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateProviderConfig', thrown) }
  }
}

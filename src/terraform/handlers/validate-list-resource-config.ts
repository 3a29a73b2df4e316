/** ValidateListResourceConfig: the filters of a `list` block as written, checked by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode } from '../dynamic-value.js'
import type { ValidateListResourceConfig_Request, ValidateListResourceConfig_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function validateListResourceConfig(
  tf: TerraformServer,
  request: ValidateListResourceConfig_Request,
): MessageInitShape<typeof ValidateListResourceConfig_ResponseSchema> {
  try {
    const { resource, list } = tf.listed(request.typeName)
    const filters = decode(list, request.config) ?? {}
    return { diagnostics: tf.listDiagnostics(tf.server.validateListFilters(resource.definition, filters)) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateListResourceConfig', thrown) }
  }
}

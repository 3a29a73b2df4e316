/** ValidateListResourceConfig: the filters of a `list` block as written, checked by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { Diagnostic } from '../../core/index.js'
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
    return { diagnostics: tf.diagnostics(inConfigBlock(tf.server.validateListFilters(resource.definition, filters))) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ValidateListResourceConfig', thrown) }
  }
}

/**
 * A `list` block writes its filters in a nested `config` block: a filter's diagnostic names its path
 * there, so that Terraform shows the filter's own line rather than the block's header.
 */
export function inConfigBlock(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => (d.path === undefined ? d : { ...d, path: ['config', ...d.path] }))
}

/** GetProviderSchema: every schema view (a launch whose bundle carries these bytes answers without this handler). */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { GetProviderSchema_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'
import { schemaResponse } from '../views.js'

export function getProviderSchema(tf: TerraformServer): MessageInitShape<typeof GetProviderSchema_ResponseSchema> {
  return schemaResponse(tf.views)
}

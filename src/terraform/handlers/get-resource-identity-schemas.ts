/** GetResourceIdentitySchemas: each resource type's identity schema (Terraform 1.12+). */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { GetResourceIdentitySchemas_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'
import { identitySchemasResponse } from '../views.js'

export function getResourceIdentitySchemas(tf: TerraformServer): MessageInitShape<typeof GetResourceIdentitySchemas_ResponseSchema> {
  return identitySchemasResponse(tf.views)
}

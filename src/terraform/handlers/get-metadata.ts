/** GetMetadata: the type names this provider serves, by kind, and its capabilities. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { GetMetadata_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'
import { CAPABILITIES } from '../views.js'

export function getMetadata(tf: TerraformServer): MessageInitShape<typeof GetMetadata_ResponseSchema> {
  const { types } = tf.server
  return {
    serverCapabilities: CAPABILITIES,
    resources: types.resourceTypes().map((typeName) => ({ typeName })),
    dataSources: types.dataSourceTypes().map((typeName) => ({ typeName })),
    listResources: types.listResourceTypes().map((typeName) => ({ typeName })),
    ephemeralResources: types.ephemeralTypes().map((typeName) => ({ typeName })),
    actions: [...tf.views.actions.keys()].map((typeName) => ({ typeName })),
  }
}

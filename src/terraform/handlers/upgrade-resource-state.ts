/** UpgradeResourceState: the stored JSON state, re-encoded; the schema has one version so far. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TerraformServer } from '../server.js'
import { decodeJson, encode } from '../dynamic-value.js'
import type { UpgradeResourceState_Request, UpgradeResourceState_ResponseSchema } from '../gen/tfplugin6.10_pb.js'

export function upgradeResourceState(
  tf: TerraformServer,
  request: UpgradeResourceState_Request,
): MessageInitShape<typeof UpgradeResourceState_ResponseSchema> {
  try {
    const { view } = tf.resource(request.typeName)
    return { upgradedState: encode(view, decodeJson(view, request.rawState?.json)), diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: tf.failed('UpgradeResourceState', thrown) }
  }
}

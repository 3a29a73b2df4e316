/** UpgradeResourceIdentity: an identity stored under an older identity version; every type is still at its first. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decodeJson } from '../dynamic-value.js'
import type { UpgradeResourceIdentity_Request, UpgradeResourceIdentity_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { encodeIdentity } from '../identity.js'
import type { TerraformServer } from '../server.js'

export function upgradeResourceIdentity(
  tf: TerraformServer,
  request: UpgradeResourceIdentity_Request,
): MessageInitShape<typeof UpgradeResourceIdentity_ResponseSchema> {
  try {
    const resource = tf.resource(request.typeName)
    const refused = tf.server.identityVersion(resource.definition, request.version)
    if (refused.length > 0) return { diagnostics: tf.diagnostics(refused) }
    const values = decodeJson(resource.identity.view, request.rawIdentity?.json)
    if (values === null) {
      const empty = { severity: 'error', summary: 'No resource identity to upgrade', detail: 'Terraform sent an empty identity.' } as const
      return { diagnostics: tf.diagnostics([empty]) }
    }
    return { upgradedIdentity: encodeIdentity(resource.identity, values), diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: tf.failed('UpgradeResourceIdentity', thrown) }
  }
}

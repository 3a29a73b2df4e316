/** UpgradeResourceIdentity: an identity stored under an older identity version; every type is still at its first. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { error, resourceIdentity } from '../core/index.js'
import type { TfContext } from './context.js'
import { decodeJson } from './dynamic-value.js'
import type { UpgradeResourceIdentity_Request, UpgradeResourceIdentity_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { encodeIdentity } from './identity.js'

export function upgradeResourceIdentity(
  ctx: TfContext,
  request: UpgradeResourceIdentity_Request,
): MessageInitShape<typeof UpgradeResourceIdentity_ResponseSchema> {
  try {
    const resource = ctx.resource(request.typeName)
    const version = resourceIdentity(resource.definition).version
    if (request.version !== BigInt(version)) {
      const detail = `This provider knows identity version ${version} of ${resource.definition.name}, not version ${request.version}: was the state written by another version of the provider?`
      return { diagnostics: ctx.diagnostics([error('Unknown resource identity version', detail)]) }
    }
    const values = decodeJson(resource.identity.view, request.rawIdentity?.json)
    if (values === null)
      return { diagnostics: ctx.diagnostics([error('No resource identity to upgrade', 'Terraform sent an empty identity.')]) }
    return { upgradedIdentity: encodeIdentity(resource.identity, values), diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: ctx.failed('UpgradeResourceIdentity', thrown) }
  }
}

/** UpgradeResourceState: the stored JSON state, re-encoded; the schema has one version so far. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import { decodeJson, encode } from './dynamic-value.js'
import type { UpgradeResourceState_Request, UpgradeResourceState_ResponseSchema } from './gen/tfplugin6.10_pb.js'

export function upgradeResourceState(
  ctx: TfContext,
  request: UpgradeResourceState_Request,
): MessageInitShape<typeof UpgradeResourceState_ResponseSchema> {
  try {
    const { view } = ctx.resource(request.typeName)
    return { upgradedState: encode(view, decodeJson(view, request.rawState?.json)), diagnostics: [] }
  } catch (thrown) {
    return { diagnostics: ctx.failed('UpgradeResourceState', thrown) }
  }
}

/** MoveResourceState: a `moved` block between two resource types of this provider. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { error, moveResource } from '../core/index.js'
import type { TfContext } from './context.js'
import { decodeJson, encode } from './dynamic-value.js'
import type { MoveResourceState_Request, MoveResourceState_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { PROVIDER_ADDRESS } from './handshake.js'
import { readPrivate, writePrivate } from './private-state.js'

export async function moveResourceState(
  ctx: TfContext,
  request: MoveResourceState_Request,
): Promise<MessageInitShape<typeof MoveResourceState_ResponseSchema>> {
  try {
    const target = ctx.resource(request.targetTypeName)
    const { definition, view } = target
    const from = ctx.server.types.findResource(request.sourceTypeName)
    // The host is the client's default registry (registry.terraform.io, OpenTofu's registry.opentofu.org) or a mirror's.
    const ours = request.sourceProviderAddress === '' || sameSource(request.sourceProviderAddress, PROVIDER_ADDRESS)
    if (!from || !ours) {
      const detail = `${request.sourceTypeName} of ${request.sourceProviderAddress || 'another provider'} is not a resource type of this provider.`
      return { diagnostics: ctx.diagnostics([error(`Cannot move ${request.sourceTypeName} to ${definition.name}`, detail)]) }
    }
    const source = decodeJson(ctx.resource(request.sourceTypeName).view, request.sourceState?.json)
    if (source === null)
      return { diagnostics: ctx.diagnostics([error('Cannot move an empty state', `${request.sourceTypeName} has no state to move.`)]) }
    const session = ctx.server.isConfigured ? ctx.session() : null
    const outcome = await moveResource(definition, from.name, source, readPrivate(request.sourcePrivate), session)
    if (outcome.state === null) return { diagnostics: ctx.diagnostics(outcome.diagnostics) }
    return {
      targetState: encode(view, outcome.state),
      targetPrivate: writePrivate(outcome.private),
      targetIdentity: ctx.identity(target, outcome.state.id),
      diagnostics: ctx.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: ctx.failed('MoveResourceState', thrown) }
  }
}

/** Whether two provider addresses name the same namespace and type, whatever registry host each names. */
function sameSource(address: string, ours: string): boolean {
  const tail = (a: string) => a.split('/').slice(-2).join('/').toLowerCase()
  return tail(address) === tail(ours)
}

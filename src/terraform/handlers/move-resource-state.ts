/** MoveResourceState: a `moved` block between two resource types of this provider, converted by the server. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { Diagnostic } from '../../core/index.js'
import { decodeJson, encode } from '../dynamic-value.js'
import type { MoveResourceState_Request, MoveResourceState_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import { PROVIDER_ADDRESS } from '../handshake.js'
import { readPrivate, writePrivate } from '../private-state.js'
import type { TerraformServer } from '../server.js'

export async function moveResourceState(
  tf: TerraformServer,
  request: MoveResourceState_Request,
): Promise<MessageInitShape<typeof MoveResourceState_ResponseSchema>> {
  try {
    const target = tf.resource(request.targetTypeName)
    const { definition, view } = target
    const from = tf.server.types.findResource(request.sourceTypeName)
    // The host is the client's default registry (registry.terraform.io, OpenTofu's registry.opentofu.org) or a mirror's.
    const ours = request.sourceProviderAddress === '' || sameSource(request.sourceProviderAddress, PROVIDER_ADDRESS)
    if (!from || !ours) {
      const detail = `${request.sourceTypeName} of ${request.sourceProviderAddress || 'another provider'} is not a resource type of this provider.`
      return { diagnostics: refusal(tf, `Cannot move ${request.sourceTypeName} to ${definition.name}`, detail) }
    }
    const source = decodeJson(tf.resource(request.sourceTypeName).view, request.sourceState?.json)
    if (source === null)
      return { diagnostics: refusal(tf, 'Cannot move an empty state', `${request.sourceTypeName} has no state to move.`) }
    const outcome = await tf.server.move(definition, from.name, source, readPrivate(request.sourcePrivate), () => tf.session())
    if (outcome.state === null) return { diagnostics: tf.diagnostics(outcome.diagnostics) }
    return {
      targetState: encode(view, outcome.state),
      targetPrivate: writePrivate(outcome.private),
      targetIdentity: tf.identity(target, outcome.state.id),
      diagnostics: tf.diagnostics(outcome.diagnostics),
    }
  } catch (thrown) {
    return { diagnostics: tf.failed('MoveResourceState', thrown) }
  }
}

/** A request that names nothing this provider can move. */
function refusal(tf: TerraformServer, summary: string, detail: string) {
  const refused: Diagnostic = { severity: 'error', summary, detail }
  return tf.diagnostics([refused])
}

/** Whether two provider addresses name the same namespace and type, whatever registry host each names. */
function sameSource(address: string, ours: string): boolean {
  const tail = (a: string) => a.split('/').slice(-2).join('/').toLowerCase()
  return tail(address) === tail(ours)
}

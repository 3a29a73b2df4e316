/**
 * ListResource (Terraform 1.14+ `list` blocks, `terraform query`): the server's listing of a resource
 * type, streamed as one event per object (its identity, a display name, and its state when asked for)
 * as the server finds it.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { ListEvent } from '../../core/index.js'
import type { CallContext } from '../../grpc/index.js'
import { decode, encode } from '../dynamic-value.js'
import type { ListResource_EventSchema, ListResource_Request } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

type Event = MessageInitShape<typeof ListResource_EventSchema>

export async function listResource(
  tf: TerraformServer,
  request: ListResource_Request,
  send: (event: Event) => Promise<void>,
  call: CallContext,
): Promise<void> {
  let events: AsyncGenerator<ListEvent> | undefined
  try {
    const { resource, list } = tf.listed(request.typeName)
    const filters = decode(list, request.config) ?? {}
    const limit = request.limit > 0n ? Number(request.limit) : undefined
    // The client stops reading at its limit, or when its user interrupts: the listing stops with it.
    events = tf.server.list(resource.definition, filters, () => tf.session(call.signal), limit)
    for await (const event of events) {
      if ('diagnostics' in event) {
        await send({ diagnostic: tf.listDiagnostics(event.diagnostics) })
        continue
      }
      const { listed } = event
      await send({
        identity: tf.identity(resource, listed.id),
        displayName: listed.displayName,
        ...(request.includeResourceObject ? { resourceObject: encode(resource.view, listed.state) } : {}),
      })
    }
  } catch (thrown) {
    // A send the client no longer reads (it cancelled) fails too: then there is no one to tell.
    if (call.signal.aborted) return
    await send({ diagnostic: tf.failed('ListResource', thrown) }).catch(() => undefined)
  } finally {
    await events?.return(undefined)
  }
}

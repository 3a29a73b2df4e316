/**
 * List resources (Terraform 1.14+ `list` blocks, `terraform query`): each listable resource type's
 * filters as its list schema, ValidateListResourceConfig, and ListResource, which streams one event
 * per object (its identity, a display name, and its state when asked for) as the server finds it.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { type AnyResource, hasErrors, type ListEvent, listFilterAttributes, validateConfig } from '../core/index.js'
import type { CallContext } from '../grpc/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type {
  ListResource_EventSchema,
  ListResource_Request,
  ValidateListResourceConfig_Request,
  ValidateListResourceConfig_ResponseSchema,
} from './gen/tfplugin6.10_pb.js'
import { type TfView, view } from './schema.js'

/** The list schema of a listable resource type: every filter an optional string, with its rules. */
export function listView(definition: AnyResource, typeName: string): TfView {
  const filters = listFilterAttributes(definition)
  const description =
    `Lists the ${definition.name} objects the API key can see, each with its identity, to import them ` +
    '(`terraform query`, `-generate-config-out`). Every filter is optional; those set must all match.'
  return view(typeName, filters, description, false, [])
}

type Event = MessageInitShape<typeof ListResource_EventSchema>

export function validateListResourceConfig(
  ctx: TfContext,
  request: ValidateListResourceConfig_Request,
): MessageInitShape<typeof ValidateListResourceConfig_ResponseSchema> {
  try {
    const { list } = ctx.listed(request.typeName)
    const config = decode(list, request.config) ?? {}
    return { diagnostics: ctx.diagnostics(validateConfig(list.attributes, config, { requireInputs: false })) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ValidateListResourceConfig', thrown) }
  }
}

export async function listResource(
  ctx: TfContext,
  request: ListResource_Request,
  send: (event: Event) => Promise<void>,
  call: CallContext,
): Promise<void> {
  let events: AsyncGenerator<ListEvent> | undefined
  try {
    const { resource, list } = ctx.listed(request.typeName)
    const filters = decode(list, request.config) ?? {}
    const issues = validateConfig(list.attributes, filters, { requireInputs: false })
    if (hasErrors(issues)) {
      await send({ diagnostic: ctx.diagnostics(issues) })
      return
    }
    // The client stops reading at its limit, or when its user interrupts: the listing stops with it.
    const session = ctx.session(call.signal)
    const limit = request.limit > 0n ? Number(request.limit) : undefined
    events = ctx.server.list(resource.definition, filters, session, limit)
    for await (const event of events) {
      if (session.signal.aborted) return
      if ('diagnostics' in event) {
        await send({ diagnostic: ctx.diagnostics(event.diagnostics) })
        continue
      }
      const { listed } = event
      await send({
        identity: ctx.identity(resource, listed.id),
        displayName: listed.displayName,
        ...(request.includeResourceObject ? { resourceObject: encode(resource.view, listed.state) } : {}),
      })
    }
  } catch (thrown) {
    // A send the client no longer reads (it cancelled) fails too: then there is no one to tell.
    if (call.signal.aborted) return
    await send({ diagnostic: ctx.failed('ListResource', thrown) }).catch(() => undefined)
  } finally {
    await events?.return(undefined)
  }
}

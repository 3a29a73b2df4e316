/** ConfigureProvider: the server builds the API client from the decoded configuration; its warnings name what a stopped run left unmanaged. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { TfContext } from './context.js'
import { decode } from './dynamic-value.js'
import type { ConfigureProvider_Request, ConfigureProvider_ResponseSchema } from './gen/tfplugin6.10_pb.js'

export async function configureProvider(
  ctx: TfContext,
  request: ConfigureProvider_Request,
): Promise<MessageInitShape<typeof ConfigureProvider_ResponseSchema>> {
  try {
    const config = decode(ctx.views.provider, request.config) ?? {}
    const userAgent = `${ctx.userAgent} terraform/${request.terraformVersion || 'unknown'}`
    const issues = ctx.server.configure(config, { userAgent, log: ctx.log })
    return { diagnostics: ctx.diagnostics([...issues, ...(await ctx.server.notices())]) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ConfigureProvider', thrown) }
  }
}

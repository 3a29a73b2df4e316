/** ReadDataSource: a lookup read with the configured client. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { readDataSource as readData } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { ReadDataSource_Request, ReadDataSource_ResponseSchema } from './gen/tfplugin6.10_pb.js'

export async function readDataSource(
  ctx: TfContext,
  request: ReadDataSource_Request,
): Promise<MessageInitShape<typeof ReadDataSource_ResponseSchema>> {
  try {
    const { definition, view } = ctx.dataSource(request.typeName)
    const config = decode(view, request.config) ?? {}
    const outcome = await readData(definition, config, ctx.session())
    if (outcome.state === null) return { diagnostics: ctx.diagnostics(outcome.diagnostics) }
    return { state: encode(view, outcome.state), diagnostics: ctx.diagnostics(outcome.diagnostics) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ReadDataSource', thrown) }
  }
}

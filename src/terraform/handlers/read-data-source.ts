/** ReadDataSource: a lookup read by the server with the configured client. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode, encode } from '../dynamic-value.js'
import type { ReadDataSource_Request, ReadDataSource_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export async function readDataSource(
  tf: TerraformServer,
  request: ReadDataSource_Request,
): Promise<MessageInitShape<typeof ReadDataSource_ResponseSchema>> {
  try {
    const { definition, view } = tf.dataSource(request.typeName)
    const config = decode(view, request.config) ?? {}
    const outcome = await tf.server.readLookup(definition, config, () => tf.session())
    if (outcome.state === null) return { diagnostics: tf.diagnostics(outcome.diagnostics) }
    return { state: encode(view, outcome.state), diagnostics: tf.diagnostics(outcome.diagnostics) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ReadDataSource', thrown) }
  }
}

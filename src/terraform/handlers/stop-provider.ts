/** StopProvider: the server stops the operations in flight at their next step boundary; later calls start afresh. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { StopProvider_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export function stopProvider(tf: TerraformServer): MessageInitShape<typeof StopProvider_ResponseSchema> {
  tf.log.info('stop requested: cancelling in-flight operations at their next step boundary')
  tf.server.interrupt(new Error('Terraform asked the provider to stop (interrupted)'))
  return { Error: '' }
}

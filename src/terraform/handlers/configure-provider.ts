/** ConfigureProvider: the server builds the API client from the decoded configuration; its warnings name what a stopped run left unmanaged. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { decode } from '../dynamic-value.js'
import type { ConfigureProvider_Request, ConfigureProvider_ResponseSchema } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export async function configureProvider(
  tf: TerraformServer,
  request: ConfigureProvider_Request,
): Promise<MessageInitShape<typeof ConfigureProvider_ResponseSchema>> {
  tf.newWalk()
  try {
    const config = decode(tf.views.provider, request.config) ?? {}
    const userAgent = `${tf.userAgent} terraform/${request.terraformVersion || 'unknown'}`
    const configured = tf.server.configure(config, { userAgent, log: tf.log, run: tf.run, onLeft: tf.onLeft })
    return { diagnostics: tf.diagnostics([...configured.issues, ...(await configured.notices)]) }
  } catch (thrown) {
    return { diagnostics: tf.failed('ConfigureProvider', thrown) }
  }
}

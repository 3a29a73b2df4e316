/**
 * InvokeAction: runs a resource's method once through the server, streaming its progress messages as
 * `progress` events, in order, then one `completed` event with its diagnostics. StopProvider (the
 * session's signal) and Terraform cancelling the call (the call's signal) both interrupt it at its
 * next wait.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { CallContext } from '../../grpc/index.js'
import { decode } from '../dynamic-value.js'
import {
  Diagnostic_Severity,
  type InvokeAction_EventSchema,
  type InvokeAction_Request,
  type Diagnostic as TfDiagnostic,
} from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

type Send = (event: MessageInitShape<typeof InvokeAction_EventSchema>) => Promise<void>

export async function invokeAction(tf: TerraformServer, request: InvokeAction_Request, send: Send, call: CallContext): Promise<void> {
  let sending = Promise.resolve()
  let lost: unknown
  const progress = (message: string) => {
    tf.log.info('action progress', { action: request.actionType, message })
    sending = sending
      .then(() => (lost === undefined ? send({ type: { case: 'progress', value: { message } } }) : undefined))
      .catch((thrown: unknown) => {
        lost ??= thrown // the call is gone: nothing more can reach Terraform
      })
  }
  let diagnostics: TfDiagnostic[]
  try {
    const { definition, method, view } = tf.action(request.actionType)
    const { id, ...input } = decode(view, request.config) ?? {}
    const failed = typeof id === 'string' ? tf.failedChange(definition, id) : undefined
    // An id that is text, empty included, is checked by the server's run of the method (core's checkMethodId).
    if (typeof id !== 'string') {
      const detail = `id must be the id of the ${definition.name} to act on; it is not known.`
      diagnostics = tf.diagnostics([{ severity: 'error', summary: 'Invalid id', detail, path: ['id'] }])
    } else if (failed !== undefined) {
      const detail =
        `The change of ${definition.name} ${id} failed earlier in this apply (${failed}), ` +
        `so ${request.actionType} is not run on it: Terraform runs an after_create or after_update trigger's actions even ` +
        'after its update failed. Correct the error and apply again: that apply makes the change again, and a trigger ' +
        'on that change runs the action once it is made (one on another resource runs only when that resource changes; ' +
        '`terraform apply -invoke` runs it at any time).'
      tf.log.info('action not run: its object failed to change', { action: request.actionType, id })
      diagnostics = tf.diagnostics([{ severity: 'error', summary: `${request.actionType} not run`, detail, path: ['id'] }])
    } else {
      tf.log.info('action invoked', { action: request.actionType, id })
      // Terraform does not say which action block this is: the user fills in its name.
      const again = `run the action again: \`terraform apply -invoke=action.${request.actionType}.<name>\``
      const outcome = await tf.server.runMethod(definition, method, id, input, tf.session(call.signal), progress, again)
      diagnostics = tf.diagnostics(outcome.diagnostics)
    }
  } catch (thrown) {
    diagnostics = tf.failed('InvokeAction', thrown)
  }
  const failed = diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR)
  tf.log.info('action ended', { action: request.actionType, errors: failed.map((d) => `${d.summary}: ${d.detail}`).join('; ') })
  await sending
  if (lost !== undefined) throw lost
  await send({ type: { case: 'completed', value: { diagnostics } } })
}

/**
 * PlanAction: a resource's one-shot method (power, reset, rebuild) as a Terraform action, run by
 * `terraform apply -invoke=action.<type>.<name>` or by a resource's `action_trigger`. Nothing is
 * planned into state: the server checks the values known so far (against the service too, with
 * read-only calls, once the id is known), and the answer says when an action is destructive.
 */
import type { CallContext } from '../../grpc/index.js'
import { decode } from '../dynamic-value.js'
import type { PlanAction_Request, Diagnostic as TfDiagnostic } from '../gen/tfplugin6.10_pb.js'
import type { TerraformServer } from '../server.js'

export async function planAction(
  tf: TerraformServer,
  request: PlanAction_Request,
  call?: CallContext,
): Promise<{ diagnostics: TfDiagnostic[] }> {
  try {
    const { definition, method, view } = tf.action(request.actionType)
    const { id, ...input } = decode(view, request.config) ?? {}
    const session = () => tf.session(call?.signal)
    const planned = request.actionType
    const issues = await tf.server.checkMethod(definition, method, id, input, { requireInputs: false, session, target: true, planned })
    return { diagnostics: tf.diagnostics(issues) }
  } catch (thrown) {
    return { diagnostics: tf.failed('PlanAction', thrown) }
  }
}

/**
 * ValidateActionConfig, PlanAction and InvokeAction: a resource's one-shot methods (power, reset,
 * rebuild) as Terraform actions, run by `terraform apply -invoke=action.<type>.<name>` or by a resource's
 * `action_trigger`. The configuration is the id of the object and the method's arguments; nothing is
 * planned into state, so planning checks the values known so far (against the service too, with
 * read-only calls, once the id is known) and says when an action is destructive. Invoking streams the
 * method's progress, then its outcome.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { checkMethodOnline, type Diagnostic, error, hasErrors, validateConfig, type ValueMap, warning } from '../core/index.js'
import type { CallContext } from '../grpc/index.js'
import type { ActionEntry, TfContext } from './context.js'
import { decode } from './dynamic-value.js'
import {
  Diagnostic_Severity,
  type InvokeAction_EventSchema,
  type InvokeAction_Request,
  type PlanAction_Request,
  type Diagnostic as TfDiagnostic,
  type ValidateActionConfig_Request,
} from './gen/tfplugin6.10_pb.js'

type Reply = { readonly diagnostics: TfDiagnostic[] }

/** The values known so far, as written: unknown ones (an id of an object not yet created) are checked at invoke. */
function checkConfig(entry: ActionEntry, config: ValueMap): Diagnostic[] {
  const { id, ...input } = config
  const issues = validateConfig(entry.method.inputs, input, { requireInputs: false }) // Terraform reports missing required arguments
  if (typeof id === 'string' && id.trim() === '') {
    issues.push(error('Invalid id', `id must be the id of the ${entry.definition.name} to act on; it is empty.`, ['id']))
  }
  return issues
}

export function validateActionConfig(ctx: TfContext, request: ValidateActionConfig_Request): Reply {
  try {
    const entry = ctx.action(request.typeName)
    return { diagnostics: ctx.diagnostics(checkConfig(entry, decode(entry.view, request.config) ?? {})) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('ValidateActionConfig', thrown) }
  }
}

export async function planAction(ctx: TfContext, request: PlanAction_Request, call?: CallContext): Promise<Reply> {
  try {
    const entry = ctx.action(request.actionType)
    const config = decode(entry.view, request.config) ?? {}
    const issues = checkConfig(entry, config)
    // What the service would refuse (an OS the object cannot take) is refused at plan, with read-only
    // calls, once the object's id is known; with it unknown, the invocation checks it.
    const { id, ...input } = config
    if (ctx.server.isConfigured && !hasErrors(issues) && typeof id === 'string' && id.trim() !== '') {
      issues.push(...(await checkMethodOnline(entry.method, id, input, ctx.session(call?.signal))))
    }
    if (entry.method.destructive) {
      issues.push(warning(`${request.actionType} is destructive`, `${entry.method.description} Invoking it cannot be undone.`))
    }
    return { diagnostics: ctx.diagnostics(issues) }
  } catch (thrown) {
    return { diagnostics: ctx.failed('PlanAction', thrown) }
  }
}

type Send = (event: MessageInitShape<typeof InvokeAction_EventSchema>) => Promise<void>

/**
 * Runs the method once: its progress messages as `progress` events, in order, then one `completed`
 * event with its diagnostics. StopProvider (the session's signal) and Terraform cancelling the call
 * (the call's signal) both interrupt it at its next wait.
 */
export async function invokeAction(ctx: TfContext, request: InvokeAction_Request, send: Send, call: CallContext): Promise<void> {
  let sending = Promise.resolve()
  let lost: unknown
  const progress = (message: string) => {
    ctx.log.info('action progress', { action: request.actionType, message })
    sending = sending
      .then(() => (lost === undefined ? send({ type: { case: 'progress', value: { message } } }) : undefined))
      .catch((thrown: unknown) => {
        lost ??= thrown // the call is gone: nothing more can reach Terraform
      })
  }
  let diagnostics: TfDiagnostic[]
  try {
    const entry = ctx.action(request.actionType)
    const { id, ...input } = decode(entry.view, request.config) ?? {}
    if (typeof id !== 'string' || id.trim() === '') {
      diagnostics = ctx.diagnostics([
        error(
          'Invalid id',
          `id must be the id of the ${entry.definition.name} to act on; it is ${typeof id === 'string' ? 'empty' : 'not known'}.`,
          ['id'],
        ),
      ])
    } else {
      ctx.log.info('action invoked', { action: request.actionType, id })
      const outcome = await ctx.server.runMethod(entry.definition, entry.method, id, input, ctx.session(call.signal), progress)
      diagnostics = ctx.diagnostics(outcome.diagnostics)
    }
  } catch (thrown) {
    diagnostics = ctx.failed('InvokeAction', thrown)
  }
  const failed = diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR)
  ctx.log.info('action ended', { action: request.actionType, errors: failed.map((d) => `${d.summary}: ${d.detail}`).join('; ') })
  await sending
  if (lost !== undefined) throw lost
  await send({ type: { case: 'completed', value: { diagnostics } } })
}

/** ApplyResourceChange: a create, update or delete through the server, with Terraform's taint guards. */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { withWriteOnlyValues } from '../core/index.js'
import type { TfContext } from './context.js'
import { decode, encode } from './dynamic-value.js'
import type { ApplyResourceChange_Request, ApplyResourceChange_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { readPrivate, storedPrivate, type TfPrivate } from './private-state.js'
import { failedStepAdvice, refusedDelete, untaintAdvice, untainting } from './taint.js'

export async function applyResourceChange(
  ctx: TfContext,
  request: ApplyResourceChange_Request,
): Promise<MessageInitShape<typeof ApplyResourceChange_ResponseSchema>> {
  try {
    const resource = ctx.resource(request.typeName)
    const { definition, view } = resource
    const prior = decode(view, request.priorState)
    // The plan holds no write-only value: the configuration sent with the apply does (core/write-only.ts).
    const planned = withWriteOnlyValues(definition.attributes, decode(view, request.plannedState), decode(view, request.config))
    const priorPrivate = readPrivate(request.plannedPrivate)
    const strict = ctx.server.unfinishedSetting
    const s = ctx.session()
    if (planned === null) {
      if (prior === null) return { newState: encode(view, null) }
      // Refused: no object with an error makes Terraform keep the object as it was, private state included.
      const refused = refusedDelete(request.typeName, prior, priorPrivate, strict)
      if (refused) return { newState: encode(view, null), diagnostics: ctx.diagnostics([refused]) }
      const outcome = await ctx.server.delete(definition, prior, s)
      return {
        newState: encode(view, outcome.state),
        private: storedPrivate(priorPrivate),
        diagnostics: ctx.diagnostics(outcome.diagnostics),
      }
    }
    const outcome =
      prior === null
        ? await ctx.server.create(definition, planned, s)
        : await ctx.server.update(definition, prior, planned, priorPrivate, s)
    // A create that placed its order and stopped before it finished reports warnings, so Terraform keeps the object
    // untainted and the next apply resumes it. It stays an error when a later step failed, or when asked for
    // (fail_on_unfinished): Terraform then taints the object, which the message says and refusedDelete guards.
    const created = prior === null && outcome.incomplete
    const failedStep = created && outcome.failedAfterOrder === true
    const advice = strict ? untaintAdvice(strict) : failedStep ? failedStepAdvice() : null
    const shown = created ? (advice ? [...outcome.diagnostics, advice] : untainting(outcome.diagnostics)) : outcome.diagnostics
    if (outcome.state === null && prior !== null) {
      return {
        newState: encode(view, prior),
        private: storedPrivate(priorPrivate),
        newIdentity: ctx.identity(resource, prior.id),
        diagnostics: ctx.diagnostics(shown),
      }
    }
    // Terraform taints a created object that comes with an error: marked, its delete is refused (see
    // refusedDelete). Terraform updates only objects that are not tainted, so an update drops the mark.
    const { failedUnfinished: _unfinished, failedStep: _step, ...rest } = outcome.private as TfPrivate
    const marks = {
      ...(created && strict !== undefined ? { failedUnfinished: true as const } : {}),
      ...(failedStep ? { failedStep: true as const } : {}),
    }
    return {
      newState: encode(view, outcome.state),
      private: storedPrivate({ ...rest, ...marks }),
      newIdentity: outcome.state === null ? undefined : ctx.identity(resource, outcome.state.id),
      diagnostics: ctx.diagnostics(shown),
    }
  } catch (thrown) {
    return { newState: request.priorState, diagnostics: ctx.failed('ApplyResourceChange', thrown) }
  }
}

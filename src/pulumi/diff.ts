/** Diff: what a change of inputs plans, in Pulumi's detailed-diff terms. */
import { type AnyResource, checkPlanOnline, hasErrors } from '../core/index.js'
import type { PulumiContext, ResourceRequest } from './context.js'
import { privateOf } from './context.js'
import { type WireMap, wireName } from './wire.js'

export type DiffKind = 'ADD' | 'ADD_REPLACE' | 'DELETE' | 'DELETE_REPLACE' | 'UPDATE' | 'UPDATE_REPLACE'
export interface DiffResult {
  readonly changes: 'none' | 'some'
  readonly replaces: readonly string[]
  readonly diffs: readonly string[]
  readonly detailedDiff: Readonly<Record<string, { kind: DiffKind; inputDiff: boolean }>>
  readonly deleteBeforeReplace: boolean
}

export async function diff(
  ctx: PulumiContext,
  request: ResourceRequest & { id?: string; olds: WireMap; oldInputs: WireMap; news: WireMap; ignoreChanges?: readonly string[] },
): Promise<DiffResult> {
  const definition = ctx.resource(request)
  const prior = ctx.priorOf(definition, request.olds, request.oldInputs)
  // The engine's state names this id: the order that made it is kept.
  await ctx.server.stateNames(request.id)
  // No value rule fails a Diff: `pulumi refresh` diffs with old and new swapped, so a size grown
  // outside Pulumi reads as a shrink there. Check and Update (preview included) refuse bad values.
  const plan = ctx.plan(definition, prior, request.news, request.ignoreChanges, privateOf(request.olds), false)
  // Work an earlier apply left unfinished (an unpaid or timed-out order) needs an Update to run:
  // with "none" the engine records a Same step and never calls the plugin again.
  const unfinished = plan.private.resume === true && plan.replace.length === 0
  ctx.warn(plan.diagnostics, request.urn)
  const detailedDiff: Record<string, { kind: DiffKind; inputDiff: boolean }> = {}
  for (const name of plan.changed) {
    const before = prior[name] ?? null
    const after = plan.planned[name] ?? null
    const base = before === null ? 'ADD' : after === null ? 'DELETE' : 'UPDATE'
    detailedDiff[wireName(name)] = { kind: plan.replace.includes(name) ? `${base}_REPLACE` : base, inputDiff: true }
  }
  return {
    changes: plan.changed.length > 0 || unfinished ? 'some' : 'none',
    replaces: plan.replace.map(wireName),
    diffs: plan.changed.map(wireName),
    detailedDiff,
    deleteBeforeReplace:
      plan.replace.length > 0 && definition.deleteBeforeReplace === true && (await replacementCanBeCreated(ctx, definition, request)),
  }
}

/**
 * Whether the new object of a delete-before-replace replacement passes the catalog checks. When it
 * does not, Diff still refuses nothing (see above) but asks the engine to create first: the create
 * then fails on the same checks and the live object is never deleted for a replacement that
 * cannot exist, even under `pulumi up --skip-preview`.
 */
async function replacementCanBeCreated(
  ctx: PulumiContext,
  definition: AnyResource,
  request: ResourceRequest & { news: WireMap },
): Promise<boolean> {
  if (!ctx.server.isConfigured) return true
  const online = await checkPlanOnline(definition, null, ctx.plan(definition, null, request.news), ctx.session(request.urn, request.news))
  if (!hasErrors(online)) return true
  ctx.warn(
    online.map((d) =>
      d.severity === 'error'
        ? { ...d, severity: 'warning' as const, detail: `${d.detail} The object is not deleted before its replacement is created.` }
        : d,
    ),
    request.urn,
  )
  return false
}

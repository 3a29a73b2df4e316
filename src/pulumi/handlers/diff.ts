/**
 * Diff: the server's plan of a change of inputs, offline, in Pulumi's detailed-diff terms. The service
 * is asked only whether a delete-before-replace replacement can be created.
 */
import type { DiffKind, DiffRequest, DiffResult } from '../protocol.js'
import { privateOf, type PulumiServer } from '../server.js'
import type { ValueMap } from '../../core/index.js'
import { wireName } from '../wire.js'

export async function diff(ps: PulumiServer, request: DiffRequest): Promise<DiffResult> {
  const definition = ps.resource(request)
  if (request.id) ps.diffed.set(request.urn, request.id)
  // The id is not among the olds: the plan's warnings name the object by it.
  const prior: ValueMap = { ...ps.priorOf(definition, request.olds, request.oldInputs), id: request.id ?? null }
  const planned = await ps.server.plan({
    definition,
    prior,
    config: ps.configOf(definition, prior, request.news, request.ignoreChanges),
    priorPrivate: privateOf(request.olds),
    session: ps.opener(request.urn, request.news),
    // The engine's state names this id: the order that made it is kept.
    stateNames: request.id,
    // No value rule fails a Diff: `pulumi refresh` diffs with old and new swapped, so a size grown
    // outside Pulumi reads as a shrink there. Check and Update (preview included) refuse bad values.
    online: false,
    price: false,
    replacement: ps.configOf(definition, null, request.news),
  })
  const plan = planned.plan as NonNullable<typeof planned.plan>
  ps.warn(plan.diagnostics, request.urn)
  const replacement = planned.deleteBeforeReplace
  if (replacement !== undefined && replacement.invalid.length > 0) throw ps.invalid(replacement.invalid)
  if (replacement !== undefined) ps.warn(replacement.warnings, request.urn)
  const detailedDiff: Record<string, { kind: DiffKind; inputDiff: boolean }> = {}
  for (const name of plan.changed) {
    const before = prior[name] ?? null
    const after = plan.planned[name] ?? null
    const base = before === null ? 'ADD' : after === null ? 'DELETE' : 'UPDATE'
    detailedDiff[wireName(name)] = { kind: plan.replace.includes(name) ? `${base}_REPLACE` : base, inputDiff: true }
  }
  return {
    // Work an earlier apply left unfinished needs an Update although no input changed: with "none" the
    // engine records a Same step and never calls the plugin again.
    changes: plan.applies ? 'some' : 'none',
    replaces: plan.replace.map(wireName),
    diffs: plan.changed.map(wireName),
    detailedDiff,
    deleteBeforeReplace: replacement?.ok === true,
  }
}

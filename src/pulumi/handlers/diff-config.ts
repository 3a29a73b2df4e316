/** DiffConfig: the settings a new configuration changes, each an update: a provider is never replaced (that would replace every resource it manages). */
import { decodeConfig } from '../config.js'
import type { DiffResult } from '../protocol.js'
import { isEmptyMap, type PulumiServer } from '../server.js'
import { type WireMap, wireName } from '../wire.js'

export function diffConfig(ps: PulumiServer, request: { olds: WireMap; oldInputs: WireMap; news: WireMap }): DiffResult {
  const before = decodeConfig(ps, isEmptyMap(request.oldInputs) ? request.olds : request.oldInputs)
  const after = decodeConfig(ps, request.news)
  const diffs = ps.server.changedSettings(before, after).map(wireName)
  return {
    changes: diffs.length > 0 ? 'some' : 'none',
    replaces: [],
    diffs,
    detailedDiff: Object.fromEntries(diffs.map((key) => [key, { kind: 'UPDATE' as const, inputDiff: true }])),
    deleteBeforeReplace: false,
  }
}

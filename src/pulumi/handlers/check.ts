/**
 * Check: every value rule, and against the old inputs the grow-only rule (Diff never rejects: a refresh
 * diffs in reverse), read with the marks of the saved outputs' private state when the engine sends them.
 */
import { checkedInputs, leftOutByImport } from '../inputs.js'
import type { CheckFailure, CheckRequest, CheckResult } from '../protocol.js'
import { isEmptyMap, type PulumiServer, privateOf } from '../server.js'
import { resourceToken } from '../tokens.js'
import { decodeMap } from '../wire.js'

const LEFT_OUT =
  ' It is a secret, so `pulumi import` leaves it out of the code it generates (it would be written there in clear): give it in ' +
  'the program from a secret, e.g. a config value set with `pulumi config set --secret`.'

export function check(ps: PulumiServer, request: CheckRequest): CheckResult {
  const definition = ps.resource(request)
  const { values, unknownKeys } = decodeMap(definition.attributes, request.news, { ignore: (k) => k.startsWith('__') })
  const failures: CheckFailure[] = unknownKeys.map((key) => ({
    property: key,
    reason: `${key} is not an input of ${resourceToken(definition)}`,
  }))
  const olds = request.olds && !isEmptyMap(request.olds) ? decodeMap(definition.attributes, request.olds).values : null
  // An import marks the grow-only sizes it read from the service (floors): the program's smaller size
  // is then the floor the next update records, as a Terraform plan takes it, not a shrink. The mark
  // lives in the outputs, which the engine sends to Check beside the old inputs.
  const priorPrivate = request.oldOutputs === undefined ? {} : privateOf(request.oldOutputs)
  const { config, issues } = ps.server.checkInputs(definition, values, olds, priorPrivate)
  const inputs = checkedInputs(definition, values, config, request.news)
  for (const failure of ps.failuresOf(issues)) {
    const leftOut = leftOutByImport(definition, failure.property, config, olds)
    failures.push(leftOut ? { ...failure, reason: `${failure.reason}${LEFT_OUT}` } : failure)
  }
  return { inputs, failures }
}

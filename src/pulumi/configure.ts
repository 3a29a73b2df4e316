/** CheckConfig, DiffConfig and Configure: the provider's configuration from Pulumi's config keys to the server. */
import { InputError, messageOf, type ValueMap, valuesEqual } from '../core/index.js'
import type { CheckFailure, PulumiContext } from './context.js'
import { isEmptyMap } from './context.js'
import { Code, PulumiError, propertyPath } from './errors.js'
import type { DiffResult } from './diff.js'
import { PACKAGE } from './tokens.js'
import { decodeMap, plain, secret, secretStrings, type Wire, type WireMap, wireName } from './wire.js'

export interface CheckResult {
  readonly inputs: WireMap
  readonly failures: readonly CheckFailure[]
}

export interface ConfigureResult {
  readonly acceptSecrets: boolean
  readonly supportsPreview: boolean
  readonly acceptResources: boolean
  readonly acceptOutputs: boolean
}

/**
 * What the provider accepts on the wire, told to the engine by Handshake, or by Configure's answer
 * when the engine does not handshake: secrets, and previews (create and update with `preview`).
 */
export const PROTOCOL: ConfigureResult = { acceptSecrets: true, supportsPreview: true, acceptResources: false, acceptOutputs: false }

export function checkConfig(ctx: PulumiContext, request: { news: WireMap }): CheckResult {
  const config = decodeConfig(ctx, request.news)
  const failures = ctx.failuresOf(ctx.server.validateConfig(config))
  const inputs: WireMap = { ...request.news }
  for (const [name, attribute] of Object.entries(ctx.server.provider.attributes)) {
    const key = wireName(name)
    if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
  }
  return { inputs, failures }
}

/** A provider is never replaced: that would replace every resource it manages. */
export function diffConfig(ctx: PulumiContext, request: { olds: WireMap; oldInputs: WireMap; news: WireMap }): DiffResult {
  const before = decodeConfig(ctx, isEmptyMap(request.oldInputs) ? request.olds : request.oldInputs)
  const after = decodeConfig(ctx, request.news)
  const diffs = Object.keys(ctx.server.provider.attributes)
    .filter((name) => !valuesEqual(before[name] ?? null, after[name] ?? null))
    .map(wireName)
  return {
    changes: diffs.length > 0 ? 'some' : 'none',
    replaces: [],
    diffs,
    detailedDiff: Object.fromEntries(diffs.map((key) => [key, { kind: 'UPDATE' as const, inputDiff: true }])),
    deleteBeforeReplace: false,
  }
}

export function configure(ctx: PulumiContext, request: { args: WireMap | null; variables: Record<string, string> }): ConfigureResult {
  const given: WireMap = request.args ?? {}
  if (request.args === null) {
    for (const [key, text] of Object.entries(request.variables)) {
      if (key.startsWith(`${PACKAGE}:config:`)) given[key.slice(`${PACKAGE}:config:`.length)] = text
    }
  }
  const config = decodeConfig(ctx, given)
  let issues: ReturnType<typeof ctx.server.configure>
  try {
    issues = ctx.server.configure(config, { userAgent: `provider-pulumi/${ctx.version}`, log: ctx.logger(undefined, new Set()) })
  } catch (thrown) {
    const where = thrown instanceof InputError && thrown.path.length > 0 ? `${PACKAGE}:${propertyPath(thrown.path)}: ` : ''
    const text = ctx.server.types.render([{ severity: 'error', summary: '', detail: messageOf(thrown) }])[0]?.detail ?? messageOf(thrown)
    throw new PulumiError(Code.INVALID_ARGUMENT, configMessage(ctx, [`${where}${text}`]))
  }
  if (issues.length > 0) throw new PulumiError(Code.INVALID_ARGUMENT, configMessage(ctx, ctx.describe(issues)))
  const sensitive = (key: string) =>
    Object.entries(ctx.server.provider.attributes).some(([name, a]) => wireName(name) === key && a.sensitive === true)
  ctx.configuredSecrets = secretStrings(Object.fromEntries(Object.entries(given).map(([k, v]) => [k, sensitive(k) ? secret(v) : v])))
  // Configure answers at once; what a stopped run left unmanaged reaches the engine's log as warnings.
  const log = ctx.logger(undefined, ctx.configuredSecrets)
  void ctx.server.notices().then((notices) => {
    for (const notice of notices) log.warn(`${notice.summary}. ${notice.detail}`)
  })
  return PROTOCOL
}

function decodeConfig(ctx: PulumiContext, map: WireMap): ValueMap {
  const { attributes } = ctx.server.provider
  const coerced: WireMap = {}
  for (const [key, value] of Object.entries(map)) {
    const attribute = Object.entries(attributes).find(([name]) => wireName(name) === key)?.[1]
    const v = plain(value)
    // Older engines JSON-encode non-string config values.
    coerced[key] = attribute && attribute.type.kind !== 'string' && typeof v === 'string' ? parseJson(v) : v
  }
  return decodeMap(attributes, coerced, { ignore: () => true }).values
}

function configMessage(ctx: PulumiContext, lines: readonly string[]): string {
  const { attributes, environment } = ctx.server.provider
  const secretKeys = Object.entries(attributes)
    .filter(([, a]) => a.sensitive)
    .map(([name]) => `${PACKAGE}:${wireName(name)}`)
  const variables = Object.values(environment).filter((v): v is string => typeof v === 'string')
  return [
    'The provider configuration is invalid:',
    ...lines,
    `Set values with \`pulumi config set ${PACKAGE}:<key> <value>\`` +
      (secretKeys.length > 0 ? ` (with --secret for ${secretKeys.join(', ')})` : '') +
      (variables.length > 0 ? `, or the environment variables ${variables.join(', ')}.` : '.'),
  ].join('\n')
}

function parseJson(text: string): Wire {
  try {
    return JSON.parse(text) as Wire
  } catch {
    return text
  }
}

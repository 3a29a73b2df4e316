/**
 * The provider's configuration as Pulumi sends it: `provider:<key>` config keys (as a property map, or
 * as variables from older engines), decoded to the provider's settings; and the message of a
 * configuration the server refused, naming the config keys and environment variables to set.
 */
import { InputError, messageOf, type ValueMap } from '../core/index.js'
import { Code, PulumiError, propertyPath } from './errors.js'
import type { ConfigureRequest } from './protocol.js'
import type { PulumiServer } from './server.js'
import { PACKAGE } from './tokens.js'
import { decodeMap, plain, secret, secretStrings, type Wire, type WireMap, wireName } from './wire.js'

/** The configuration's property map; an engine that sends only variables sends `provider:config:<key>` ones. */
export function givenConfig(request: ConfigureRequest): WireMap {
  const given: WireMap = request.args ?? {}
  if (request.args === null) {
    for (const [key, text] of Object.entries(request.variables)) {
      if (key.startsWith(`${PACKAGE}:config:`)) given[key.slice(`${PACKAGE}:config:`.length)] = text
    }
  }
  return given
}

/** The provider's configuration with its sensitive settings marked secret, as CheckConfig returns it. */
export function checkedConfig(ps: PulumiServer, news: WireMap): WireMap {
  const inputs: WireMap = { ...news }
  for (const [name, attribute] of Object.entries(ps.server.provider.attributes)) {
    const key = wireName(name)
    if (attribute.sensitive && inputs[key] !== undefined && inputs[key] !== null) inputs[key] = secret(inputs[key])
  }
  return inputs
}

/** The secret values of a configuration (sensitive settings, and values sent as secrets): scrubbed from every log line. */
export function configuredSecrets(ps: PulumiServer, given: WireMap): Set<string> {
  const sensitive = (key: string) =>
    Object.entries(ps.server.provider.attributes).some(([name, a]) => wireName(name) === key && a.sensitive === true)
  return secretStrings(Object.fromEntries(Object.entries(given).map(([k, v]) => [k, sensitive(k) ? secret(v) : v])))
}

/** What the provider's configure threw, as the engine's INVALID_ARGUMENT naming the setting. */
export function refusedConfiguration(ps: PulumiServer, thrown: unknown): PulumiError {
  const where = thrown instanceof InputError && thrown.path.length > 0 ? `${PACKAGE}:${propertyPath(thrown.path)}: ` : ''
  const text = ps.server.types.render([{ severity: 'error', summary: '', detail: messageOf(thrown) }])[0]?.detail ?? messageOf(thrown)
  return new PulumiError(Code.INVALID_ARGUMENT, configMessage(ps, [`${where}${text}`]))
}

export function decodeConfig(ps: PulumiServer, map: WireMap): ValueMap {
  const { attributes } = ps.server.provider
  const coerced: WireMap = {}
  for (const [key, value] of Object.entries(map)) {
    const attribute = Object.entries(attributes).find(([name]) => wireName(name) === key)?.[1]
    const v = plain(value)
    // Older engines JSON-encode non-string config values.
    coerced[key] = attribute && attribute.type.kind !== 'string' && typeof v === 'string' ? parseJson(v) : v
  }
  return decodeMap(attributes, coerced, { ignore: () => true }).values
}

export function configMessage(ps: PulumiServer, lines: readonly string[]): string {
  const { attributes, environment } = ps.server.provider
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

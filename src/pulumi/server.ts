/**
 * The Pulumi provider server: what lives as long as the plugin process and every handler works with.
 * It holds the provider server (src/server), the engine's log, the secrets to keep out of it, what the
 * engine said in Handshake, and the translation of wire maps into canonical values and of the
 * server's outcomes into wire maps and gRPC errors.
 */
import {
  type AnyDataSource,
  type AnyResource,
  type Diagnostic,
  isInput,
  type Logger,
  type PrivateState,
  type Session,
  type TimeoutName,
  type Value,
  type ValueMap,
} from '../core/index.js'
import {
  NotConfiguredError,
  type OpenSession,
  ProviderServer,
  parsePrivate,
  type Registry,
  serializePrivate,
  UnknownTypeError,
} from '../server/index.js'
import type { CheckFailure, ResourceRequest } from './protocol.js'
import { Code, codeOf, describeDiagnostics, PulumiError, propertyPath } from './errors.js'
import { PULUMI_NAMING, stackOfUrn, typeOfUrn } from './tokens.js'
import { decodeMap, encodeMap, META_KEY, plain, secretStrings, type WireMap, wireName } from './wire.js'

export type Severity = 'debug' | 'info' | 'warning' | 'error'

/**
 * Where logs go: the engine's Log service (the adapter falls back to stderr). `ephemeral`: a status line,
 * shown on the resource's row while it runs and left out of the diagnostics the CLI prints at the end.
 */
export type EngineLog = (severity: Severity, message: string, urn?: string, ephemeral?: boolean) => void

export function isEmptyMap(map: WireMap): boolean {
  return Object.keys(map).filter((k) => k !== META_KEY).length === 0
}

export function privateOf(outputs: WireMap): PrivateState {
  const raw = plain(outputs[META_KEY] ?? null)
  return typeof raw === 'string' ? parsePrivate(raw) : {}
}

/** The engine's per-operation timeout (customTimeouts), in seconds, as core's timeouts value. */
export function timeoutsOf(name: TimeoutName, seconds: number | undefined): Value {
  return seconds !== undefined && seconds > 0 ? { [name]: `${Math.ceil(seconds)}s` } : null
}

export function inputAttributes(definition: AnyResource) {
  return Object.fromEntries(Object.entries(definition.attributes).filter(([, a]) => isInput(a)))
}

/** What a read's advice on a refused key or an unreachable service adds in Pulumi (see PulumiServer.readSession). */
const RECORDED_CONFIGURATION =
  "A read before an update, and `pulumi refresh`, use the provider configuration the stack's state recorded at its last " +
  'update: if provider:apiKey or provider:baseUrl changed since, run `pulumi refresh --run-program` once, which reads with ' +
  "the program's configuration, then `pulumi up`."

/** A server error the engine must read as the caller's (INVALID_ARGUMENT, FAILED_PRECONDITION), not as a provider bug. */
function translated<T>(run: () => T): T {
  try {
    return run()
  } catch (thrown) {
    if (thrown instanceof UnknownTypeError) throw new PulumiError(Code.INVALID_ARGUMENT, thrown.message)
    if (thrown instanceof NotConfiguredError) throw new PulumiError(Code.FAILED_PRECONDITION, thrown.message)
    throw thrown
  }
}

export class PulumiServer {
  readonly server: ProviderServer
  /** Secret values of the provider configuration, scrubbed from every log line. */
  configuredSecrets = new Set<string>()
  /** The engine said in Handshake that it refreshes resources that ask for it before an update (see handlers/handshake.ts). */
  refreshBeforeUpdate = false
  /**
   * The id of the object each URN named in its last Diff: the engine creates a URN it diffed only to
   * replace that object, so the new object's checks know what it replaces (CreateCheckContext.replacing).
   */
  readonly diffed = new Map<string, string>()

  constructor(
    registry: Registry,
    readonly version: string,
    readonly log: EngineLog,
  ) {
    this.server = new ProviderServer(registry, {
      naming: PULUMI_NAMING,
      notConfigured: 'The provider is not configured: the engine did not call Configure.',
    })
  }

  resource(request: ResourceRequest): AnyResource {
    return translated(() => this.server.types.resource(request.type || typeOfUrn(request.urn)))
  }

  lookup(token: string): AnyDataSource {
    return translated(() => this.server.types.dataSource(token))
  }

  /** Diagnostics in Pulumi's names (LiteVm, powerState), one line each, as users write them. */
  describe(list: readonly Diagnostic[]): string[] {
    return describeDiagnostics(this.server.types.render(list))
  }

  failuresOf(list: readonly Diagnostic[]): CheckFailure[] {
    return this.server.types
      .render(list)
      .filter((d) => d.severity === 'error')
      .map((d) => ({ property: d.path ? propertyPath(d.path) : '', reason: `${d.summary}: ${d.detail}` }))
  }

  warn(diagnostics: readonly Diagnostic[], urn: string | undefined): void {
    for (const line of this.describe(diagnostics.filter((d) => d.severity === 'warning'))) this.log('warning', line, urn)
  }

  /** The errors of a list as the failure of a call whose values the engine must fix. */
  invalid(diagnostics: readonly Diagnostic[]): PulumiError {
    return new PulumiError(Code.INVALID_ARGUMENT, this.describe(diagnostics.filter((d) => d.severity === 'error')).join('\n'))
  }

  failure(diagnostics: readonly Diagnostic[], cause: unknown, fallback: (typeof Code)[keyof typeof Code] = Code.UNKNOWN): PulumiError {
    const lines = this.describe(diagnostics.filter((d) => d.severity === 'error'))
    return new PulumiError(cause === undefined ? fallback : codeOf(cause), lines.join('\n'))
  }

  /** A resource that exists although its operation failed: the engine keeps it in state (ErrorResourceInitFailed). */
  partial(
    definition: AnyResource,
    state: ValueMap,
    priv: PrivateState,
    secrets: ReadonlySet<string>,
    diagnostics: readonly Diagnostic[],
  ): PulumiError {
    const reasons = this.describe(diagnostics.filter((d) => d.severity === 'error'))
    return new PulumiError(Code.UNKNOWN, reasons.join('\n'), {
      id: String(state.id),
      properties: this.outputs(definition, state, secrets, priv),
      inputs: encodeMap(inputAttributes(definition), state, { secret: secrets }),
      reasons,
    })
  }

  outputs(definition: AnyResource, state: ValueMap, secrets: ReadonlySet<string>, priv: PrivateState): WireMap {
    const out = encodeMap(definition.attributes, state, { secret: secrets, keepNull: true })
    const text = serializePrivate(priv)
    if (text !== null) out[META_KEY] = text
    return out
  }

  /**
   * The prior state core plans against: the old outputs, which record every input as far as it took
   * effect; the old inputs only fill what the outputs lack. After a partially failed update the
   * engine saves the OLD inputs with the NEW outputs: planning from the inputs would send again the
   * steps that were done (a second paid order).
   */
  priorOf(definition: AnyResource, outputs: WireMap, inputs: WireMap): Record<string, Value> {
    const state: Record<string, Value> = { ...decodeMap(definition.attributes, outputs).values }
    const given = decodeMap(definition.attributes, inputs).values
    for (const [name, attribute] of Object.entries(definition.attributes)) {
      if (isInput(attribute) && name in given && !(wireName(name) in outputs)) state[name] = given[name] ?? null
    }
    return state
  }

  /**
   * The configuration core plans from the new inputs: a property the engine is told to ignore
   * (ignoreChanges) keeps its prior value.
   */
  configOf(definition: AnyResource, prior: ValueMap | null, news: WireMap, ignore: readonly string[] = []): ValueMap {
    const config: Record<string, Value> = { ...decodeMap(definition.attributes, news).values }
    for (const key of ignore) {
      const name = Object.keys(definition.attributes).find((n) => wireName(n) === key)
      if (name && prior) config[name] = prior[name] ?? null
    }
    return config
  }

  /** The session of an operation of `urn`, opened when the server needs it; secret values of the maps are scrubbed from its log. */
  opener(urn: string | undefined, ...maps: WireMap[]): OpenSession {
    return () => this.session(urn, ...maps)
  }

  /** The session of an operation of `urn`; secret values of the maps are scrubbed from its log. */
  session(urn: string | undefined, ...maps: WireMap[]): Session<unknown> {
    const secrets = new Set(this.configuredSecrets)
    for (const map of maps) secretStrings(map, secrets)
    return translated(() => this.server.session(urn, this.logger(urn, secrets), true, urn === undefined ? undefined : stackOfUrn(urn)))
  }

  /**
   * The session of a Read. The engine reads (a refresh before an update, `pulumi refresh`) through the
   * provider configuration the stack's state recorded at its last update, not the program's: after a
   * key or URL was changed, the advice on a refused key or an unreachable service says so, and how to
   * read with the program's configuration, rather than only to check the setting the user just set.
   */
  readSession(urn: string, ...maps: WireMap[]): Session<unknown> {
    const session = this.session(urn, ...maps)
    const advise = session.advise
    if (advise === undefined) return session
    return {
      ...session,
      advise: (thrown) => {
        const advice = advise(thrown)
        return advice === null ? null : `${advice} ${RECORDED_CONFIGURATION}`
      },
    }
  }

  /** Core's logger onto Engine.Log; any known secret value is scrubbed from the text. */
  logger(urn: string | undefined, secrets: ReadonlySet<string>): Logger {
    const send =
      (severity: Severity, ephemeral = false) =>
      (message: string, fields?: Record<string, unknown>) => {
        let text = fields && Object.keys(fields).length > 0 ? `${message} ${safeJson(fields)}` : message
        for (const value of secrets) text = text.split(value).join('[secret]')
        if (ephemeral) this.log(severity, text, urn, true)
        else this.log(severity, text, urn)
      }
    return {
      trace: send('debug'),
      debug: send('debug'),
      info: send('info'),
      warn: send('warning'),
      error: send('error'),
      status: send('info', true),
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}

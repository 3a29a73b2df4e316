/**
 * The provider runtime both protocols drive: configuration, the sessions operations run in, the
 * stop of in-flight operations, and each operation of core run in its frame, with the order journal
 * told which ids the engine's state names. Canonical names and values only: no protocol shapes here.
 */
import {
  type AnyProvider,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  type Diagnostic,
  hasErrors,
  importResource,
  InputError,
  type Logger,
  type Outcome,
  type PrivateState,
  type ReadOutcome,
  readResource,
  type Session,
  timeoutMs,
  type ValueMap,
  unfinishedIsError,
  validateConfig,
  warning,
} from '../core/index.js'
import { currentOperation, perProcess, registerSettlement, settleAccount, withOperation } from './operation.js'
import { stopSignal } from './process-guard.js'
import { type Naming, type Registry, TypeIndex } from './registry.js'

/** A call that needs the API client came before the engine configured the provider. */
export class NotConfiguredError extends InputError {}

export interface ServerOptions {
  readonly naming: Naming
  /** What such a call is told: which call of the protocol did not come. */
  readonly notConfigured: string
}

interface Configured {
  readonly client: unknown
  readonly advise: (thrown: unknown) => string | null
  /** The unfinished setting's name while it is on (Session.unfinishedIsError). */
  readonly strict: string | undefined
}

export class ProviderServer {
  readonly types: TypeIndex
  readonly provider: AnyProvider
  private configured: Configured | undefined
  private stop = new AbortController()

  constructor(
    registry: Registry,
    private readonly options: ServerOptions,
  ) {
    this.types = new TypeIndex(registry, options.naming)
    this.provider = registry.provider
  }

  // ---- configuration ----------------------------------------------------------------------

  /** The provider's configuration checked as written; unset required settings may come from the environment. */
  validateConfig(config: ValueMap): Diagnostic[] {
    return validateConfig(this.provider.attributes, config, { requireInputs: false })
  }

  /**
   * Builds the API client from the configuration. Returns the configuration's problems (nothing is
   * configured then); throws what the provider's configure threw (an InputError names the setting).
   */
  configure(config: ValueMap, meta: { readonly userAgent: string; readonly log: Logger }): Diagnostic[] {
    const issues = this.validateConfig(config)
    if (hasErrors(issues)) return issues
    const full = Object.fromEntries(Object.keys(this.provider.attributes).map((name) => [name, config[name] ?? null]))
    const client = this.provider.configure(full, { ...meta, operation: currentOperation, registerSettlement, perProcess })
    this.configured = {
      client,
      advise: (thrown) => this.provider.advise?.(thrown, full) ?? null,
      strict: unfinishedIsError(this.provider, full),
    }
    return []
  }

  get isConfigured(): boolean {
    return this.configured !== undefined
  }

  /** The unfinished setting's name while it is on (see AnyProvider.unfinishedSetting). */
  get unfinishedSetting(): string | undefined {
    return this.configured?.strict
  }

  /** What an operation runs with; `scope` identifies the resource beyond its inputs when the protocol knows it. */
  session(scope: string | undefined, log: Logger): Session<unknown> {
    const configured = this.configured
    if (configured === undefined) throw new NotConfiguredError([], this.options.notConfigured)
    return {
      client: configured.client,
      log,
      signal: stopSignal(this.stop.signal),
      advise: configured.advise,
      ...(configured.strict ? { unfinishedIsError: configured.strict } : {}),
      ...(scope === undefined ? {} : { scope }),
    }
  }

  /** Operations in flight stop at their next step boundary; later calls start afresh. */
  interrupt(reason: Error): void {
    this.stop.abort(reason)
    this.stop = new AbortController()
  }

  // ---- operations -------------------------------------------------------------------------

  /**
   * A prior or current state the engine sent names this id (a plan or diff of it): the account is
   * in state, so its order is never taken over again.
   */
  async stateNames(id: unknown): Promise<void> {
    await settleAccount(id)
  }

  async create(definition: AnyResource, planned: ValueMap, session: Session<unknown>): Promise<Outcome> {
    const notices: Diagnostic[] = []
    const outcome = await withOperation(
      session.scope,
      timeoutMs(definition.timeouts, planned.timeouts ?? null, 'create'),
      () => applyCreate(definition, planned, session),
      (summary, detail) => notices.push(warning(summary, detail)),
    )
    return notices.length === 0 ? outcome : { ...outcome, diagnostics: [...notices, ...outcome.diagnostics] }
  }

  async update(
    definition: AnyResource,
    prior: ValueMap,
    planned: ValueMap,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<Outcome> {
    await settleAccount(prior.id)
    const timeout = timeoutMs(definition.timeouts, planned.timeouts ?? null, 'update')
    return withOperation(session.scope, timeout, () => applyUpdate(definition, prior, planned, priorPrivate, session))
  }

  async delete(definition: AnyResource, prior: ValueMap, session: Session<unknown>): Promise<Outcome> {
    await settleAccount(prior.id)
    return applyDelete(definition, prior, session)
  }

  /** A refresh; the engine's state names the id. */
  async read(
    definition: AnyResource,
    prior: ValueMap,
    id: string,
    priorPrivate: PrivateState,
    session: Session<unknown>,
  ): Promise<ReadOutcome> {
    await settleAccount(id)
    return readResource(definition, prior, id, priorPrivate, session)
  }

  /** An import names the id it imports: from now on the engine's state does. */
  async importById(definition: AnyResource, text: string, session: Session<unknown>): Promise<ReadOutcome> {
    const parsed = definition.importId.parse(text.trim())
    if ('id' in parsed) await settleAccount(parsed.id)
    return importResource(definition, text, session)
  }
}

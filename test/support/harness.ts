// Drives core and a definition against a fresh in-process emulator on a manual clock: waits advance
// the emulator's clock instead of sleeping, so every lifecycle runs in milliseconds.
import { type Client, createClient } from '../../src/api/index.js'
import {
  type AnyDataSource,
  type AnyResource,
  applyCreate,
  applyDelete,
  applyUpdate,
  hasErrors,
  importResource,
  type Outcome,
  type PrivateState,
  planResource,
  readDataSource,
  readResource,
  type Session,
  silentLogger,
  type ValueMap,
} from '../../src/core/index.js'
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js'

export const BASE = 'http://emulator.invalid'

export interface LogEntry {
  seq: number
  method: string
  path: string
  status: number | null
  body: unknown
  idempotency_key: string | null
}

export class Harness {
  readonly emulator: Emulator
  readonly client: Client
  readonly session: Session<Client>
  private readonly stop = new AbortController()
  /** Runs at each wait of the client, before the clock advances: lets a test act while an order is in flight. */
  onWait: (() => Promise<void> | void) | undefined
  /** Rewrites the emulator's answers before the client sees them: plays a service that answers otherwise. */
  answers: ((response: Response, request: Request) => Promise<Response>) | undefined

  constructor(options: EmulatorOptions = {}) {
    this.emulator = createEmulator({ clock: 'manual', provisioningDelayMs: 2000, ...options })
    const emulator = this.emulator
    this.client = createClient({
      baseUrl: `${BASE}/v1`,
      apiKey: emulator.apiKey,
      userAgent: 'provider-test/0',
      fetch: async (request) => {
        const response = await emulator.fetch(request)
        return this.answers ? this.answers(response, request) : response
      },
      now: () => emulator.now(),
      sleep: async (ms) => {
        await this.onWait?.()
        emulator.advance(ms)
      },
      random: () => 0.5,
      pollIntervalMs: 1000,
    })
    this.session = { client: this.client, log: silentLogger, signal: this.stop.signal, now: () => this.client.now() }
  }

  /** Plans and applies a create; throws with the diagnostics when it reports an error. */
  async create(definition: AnyResource, config: ValueMap): Promise<ValueMap> {
    const outcome = await this.tryCreate(definition, config)
    if (!outcome.state || hasErrors(outcome.diagnostics)) throw new Error(describe(outcome))
    return outcome.state
  }

  async tryCreate(definition: AnyResource, config: ValueMap): Promise<Outcome> {
    const plan = planResource(definition, null, config)
    if (hasErrors(plan.diagnostics)) throw new Error(plan.diagnostics.map((d) => d.detail).join('\n'))
    return applyCreate(definition, plan.planned, this.session)
  }

  /** Plans and applies an in-place update from `state` to `config`. */
  async update(definition: AnyResource, state: ValueMap, config: ValueMap, priorPrivate: PrivateState = {}): Promise<Outcome> {
    const plan = planResource(definition, state, config, priorPrivate)
    if (hasErrors(plan.diagnostics)) throw new Error(plan.diagnostics.map((d) => d.detail).join('\n'))
    if (plan.replace.length > 0) throw new Error(`the change replaces: ${plan.replace.join(', ')}`)
    return applyUpdate(definition, state, plan.planned, plan.private, this.session)
  }

  plan(definition: AnyResource, state: ValueMap | null, config: ValueMap, priorPrivate: PrivateState = {}) {
    return planResource(definition, state, config, priorPrivate)
  }

  async read(definition: AnyResource, state: ValueMap): Promise<ValueMap | null> {
    const outcome = await readResource(definition, state, String(state.id), {}, this.session)
    if (hasErrors(outcome.diagnostics)) throw new Error(outcome.diagnostics.map((d) => d.detail).join('\n'))
    return outcome.state
  }

  async import(definition: AnyResource, id: string): Promise<ValueMap | null> {
    const outcome = await importResource(definition, id, this.session)
    if (hasErrors(outcome.diagnostics)) throw new Error(outcome.diagnostics.map((d) => d.detail).join('\n'))
    return outcome.state
  }

  async delete(definition: AnyResource, state: ValueMap, priorPrivate: PrivateState = {}): Promise<Outcome> {
    return applyDelete(definition, state, priorPrivate, this.session)
  }

  async data(definition: AnyDataSource, config: ValueMap): Promise<ValueMap> {
    const outcome = await readDataSource(definition, config, this.session)
    if (!outcome.state) throw new Error(outcome.diagnostics.map((d) => d.detail).join('\n'))
    return outcome.state
  }

  /** A call of the emulator's control API. */
  async control(method: string, path: string, body?: unknown): Promise<unknown> {
    const init: RequestInit = { method }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      init.headers = { 'content-type': 'application/json' }
    }
    const response = await this.emulator.fetch(new Request(`${BASE}/_emulator${path}`, init))
    const parsed = (await response.json()) as { data?: unknown }
    if (!response.ok) throw new Error(`control ${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`)
    return parsed.data
  }

  /** The API requests logged since the last call of this method. */
  async requests(): Promise<LogEntry[]> {
    const entries = (await this.control('GET', '/requests')) as LogEntry[]
    await this.control('DELETE', '/requests')
    return entries
  }

  /** `METHOD /path` of the mutating requests since the last call of `requests`. */
  async mutations(): Promise<string[]> {
    return (await this.requests()).filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)
  }

  async orders(): Promise<{ total: number; by_kind: Record<string, number> }> {
    return (await this.control('GET', '/orders')) as { total: number; by_kind: Record<string, number> }
  }
}

function describe(outcome: Outcome): string {
  return outcome.diagnostics.map((d) => `${d.severity}: ${d.summary}: ${d.detail}`).join('\n') || 'no state returned'
}

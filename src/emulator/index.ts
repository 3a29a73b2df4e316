// The service twin: a fetch handler serving the API under /v1 and the control API under /_emulator.
// Here: the public factory, which puts together the store, the families' registry (families/index.ts),
// the API pipeline (pipeline.ts) and the control API (control.ts).
// Must not: import anything outside src/emulator (type-only api/ wire types excepted), or use timers (a
// rule's delay waits on the injected `timer`).
import { type ClockMode, Clock, realTimer, type Timer } from './clock.js'
import { handleControl } from './control.js'
import { type ApiKeySpec, DEFAULT_API_KEY, parseKeySpec, startKeys } from './customers.js'
import { type Answer, type EmulatorRequest, errorBody, jsonAnswer, toResponse } from './envelope.js'
import { registry } from './families/index.js'
import { installProfile, PROFILES } from './faults.js'
import type { Config, LogEntry } from './model.js'
import { ApiPipeline, type BeforeEffect } from './pipeline.js'
import { isSeed, Random } from './random.js'
import type { SnapshotKeeper } from './snapshots.js'
import { Store } from './store.js'

export { type ApiKeySpec, DEFAULT_API_KEY, maskKey, ownCustomer, parseApiKeys } from './customers.js'
export { type Answer, DroppedConnection, type EmulatorRequest } from './envelope.js'
export type { ApiKey, Config, LogEntry } from './model.js'
export type { SnapshotFile, SnapshotKeeper } from './snapshots.js'

export interface EmulatorOptions {
  /**
   * Accepted `x-token` values, each one customer's (customers.ts): a string in the key syntax (`KEY`, `KEY:ro`,
   * `KEY@CUSTOMER`, `KEY:ro@CUSTOMER`) or a spec. Default: one rw `emulator-key`.
   */
  apiKeys?: readonly (string | ApiKeySpec)[]
  provisioningDelayMs?: number
  retentionMs?: number
  idempotencyTtlMs?: number
  /** `manual` freezes time until POST /_emulator/clock; default `real`. */
  clock?: ClockMode
  /** Epoch ms the clock starts at (default: now); lets tests pin every written date. */
  startTime?: number
  ipUnavailableProductIds?: readonly number[]
  quirks?: Partial<Config['quirks']>
  /**
   * Awaited after an order's Idempotency-Key is claimed and before its effect: lets a test hold a
   * request "in progress" (the service's Idempotency-Key extension) without sleeping.
   */
  beforeEffect?: BeforeEffect
  /** Seed of the fault rules' random draws (probabilities, delay ranges); default 1. Same seed, same requests: same run. */
  seed?: number
  /** A named set of fault rules installed at start and after each reset (faults.ts PROFILES), e.g. `remote`. */
  profile?: string
  /** Waits out a rule's delay and measures the log's `latency_ms`; default real time. Tests inject a fake. */
  timer?: Timer
  /** Named snapshots to start with: a snapshots file as `keepSnapshots` was given it (the launcher's, read back). */
  snapshots?: unknown
  /** Sees the whole shelf of named snapshots before each save or delete is committed, to keep it on disk. */
  keepSnapshots?: SnapshotKeeper
  /** Sees each request log entry as it is appended, to keep the log on disk as it grows (state-file.ts). */
  logged?: (entry: LogEntry) => void
  /**
   * Told when a request uses up one firing of a fault rule with a count, a read included: the state
   * changed although the request itself changes nothing (the launcher then writes the state file).
   */
  ruleUsed?: () => void
}

export interface Emulator {
  fetch(request: Request): Promise<Response>
  /** The same as `fetch`, for a request as the emulator reads it, with the answer as a plain value. */
  answer(request: EmulatorRequest): Promise<Answer>
  /** A JSON-serialisable copy of the whole state (accounts, keypairs, orders, sequences, ...). */
  snapshot(): unknown
  /**
   * The same snapshot as JSON text (no copy of the state is made); `log: false` leaves the request log out,
   * as a state file keeps it (the log goes to a file of its own).
   */
  snapshotText(options?: { log?: boolean }): string
  /** The request log as it stands: the same list until a reset, a restore or a clear of the log replaces it. */
  requestLog(): readonly LogEntry[]
  /** Replaces the state with a snapshot; the clock never moves back. */
  restore(state: unknown): void
  /** Same as POST /_emulator/reset. */
  reset(): void
  /** The emulator clock, epoch ms. */
  now(): number
  /** Same as POST /_emulator/clock. */
  advance(ms: number): void
  /** The first read-write key, handy for tests. */
  readonly apiKey: string
}

/** The start-up keys resolved to their customers (customers.ts). */
function keysFrom(options: EmulatorOptions): Config['api_keys'] {
  const place = (i: number) => `apiKeys[${i}]`
  const specs = (options.apiKeys ?? [DEFAULT_API_KEY]).map((k, i) => (typeof k === 'string' ? parseKeySpec(k, place(i)) : k))
  return startKeys(specs, place)
}

function configFrom(options: EmulatorOptions): Config {
  return {
    provisioning_delay_ms: options.provisioningDelayMs ?? 2000,
    retention_ms: options.retentionMs ?? 300_000,
    idempotency_ttl_ms: options.idempotencyTtlMs ?? 86_400_000,
    api_keys: keysFrom(options),
    ip_unavailable_product_ids: [...(options.ipUnavailableProductIds ?? [])],
    quirks: { ids_as_strings: false, bare_lists: false, ignore_idempotency_keys: false, ...options.quirks },
  }
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const clock = new Clock(options.clock ?? 'real', options.startTime)
  const initial = configFrom(options)
  const store = new Store(clock, initial, registry, options.keepSnapshots)
  if (options.snapshots !== undefined) store.snapshots.load(options.snapshots)
  const seed = options.seed ?? 1
  if (!isSeed(seed)) throw new Error(`seed must be an integer from 0 to 4294967295, got ${seed}`)
  const profile = options.profile
  if (profile !== undefined && !Object.hasOwn(PROFILES, profile)) {
    throw new Error(`unknown profile '${profile}' (known: ${Object.keys(PROFILES).join(', ')})`)
  }
  const random = new Random(seed)
  const pipeline = new ApiPipeline(
    store,
    registry.router,
    options.beforeEffect,
    options.timer ?? realTimer,
    random,
    options.logged,
    options.ruleUsed,
  )
  // A reset comes back to the start-up options: the start-up seed's sequence, the start-up profile's rules.
  const reset = () => {
    store.reset()
    random.reseed(seed)
    if (profile !== undefined) installProfile(store, profile)
  }
  if (profile !== undefined) installProfile(store, profile)
  async function answer(request: EmulatorRequest): Promise<Answer> {
    const url = new URL(request.url)
    if (url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/'))
      return handleControl(store, request, url, reset, random, registry)
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) return pipeline.handle(request, url)
    return jsonAnswer(404, errorBody(404, 'Not Found'))
  }

  return {
    apiKey: initial.api_keys.find((k) => k.scope === 'rw')?.key ?? DEFAULT_API_KEY,
    answer,
    fetch: async (request) => toResponse(await answer(request)),
    snapshot: () => store.snapshot(),
    snapshotText: (textOptions) => store.snapshotText(textOptions),
    requestLog: () => store.state.log,
    restore: (saved) => store.restore(saved),
    reset,
    now: () => store.now(),
    advance: (ms) => {
      clock.advance(ms)
      store.tick()
    },
  }
}

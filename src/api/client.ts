// createClient: options, defaults, and the wiring of transport, orders and the API families (whose one
// registry is families.ts: a family is named nowhere here). The operation's rules reach the transport
// as plain functions (its deadline, the rehearsal's refusal of changes), so it never calls into orders.
import { randomUUID } from 'node:crypto'
import { connectFamilies, type Families } from './families.js'
import type { Account } from './models.js'
import { type OperationFrame, operationDeadline, refuseInRehearsal } from './operation.js'
import {
  type JournalOptions,
  type JournalSession,
  KnownAccounts,
  newJournalSession,
  OrderJournal,
  Orders,
  PostgresJournalStore,
} from './orders/index.js'
import { type FetchFunction, type Logger, type Sleep, Transport } from './transport.js'
import { type WaitOptions, type WaitResult, waitForActive } from './wait.js'

export interface ClientOptions {
  /** Ends in `/v1`, e.g. `https://api.example.invalid/v1`; one trailing slash is ignored. */
  readonly baseUrl: string
  readonly apiKey: string
  /** `<tool>/<version>`, e.g. `provider-terraform/0.1.0`. */
  readonly userAgent: string
  /** Default: the global fetch. Tests and the in-process emulator inject theirs. */
  readonly fetch?: FetchFunction
  /** Per attempt. Default 30000. */
  readonly requestTimeoutMs?: number
  /** First poll interval of a wait. Default 5000. */
  readonly pollIntervalMs?: number
  /** The poll interval grows gently up to this. Default 30000. */
  readonly pollMaxIntervalMs?: number
  /** Attempts in all for one request, retries included (the API's retry rules). Default 4. */
  readonly maxAttempts?: number
  /** Injectable so tests never really wait; must reject (or resolve early) when `signal` aborts. */
  readonly sleep?: Sleep
  readonly now?: () => number
  /** In [0, 1); jitter of retry backoff. */
  readonly random?: () => number
  /** Receives one line per request (method, path, status, request id, duration); never keys or bodies. */
  readonly log?: Logger
  /** Default `crypto.randomUUID`. */
  readonly idempotencyKey?: () => string
  /**
   * A directory for the order journal: every order and one-shot action is recorded there before it
   * is sent, so that a re-run after a crash reuses its key instead of ordering again. Without one,
   * a key lives only as long as its call.
   */
  readonly journalDirectory?: string
  /**
   * A PostgreSQL connection string (`postgresql://user:password@host:5432/database`): the order
   * journal is kept in a table there instead, shared by every runner that uses the same database.
   * Takes precedence over journalDirectory.
   */
  readonly journalDatabase?: string
  /**
   * The journal session (the owner and what its operations hold) shared by every client of this process,
   * which the provider runtime passes; default a session of this client's own. Tests inject owners and liveness.
   */
  readonly journalOptions?: JournalOptions
  /**
   * A per-user directory where every journal of this machine records the accounts its runs handed to
   * an engine (see orders/known-accounts.ts), so that a new directory tells another directory's
   * account from a killed run's. Default none: only this journal is known.
   */
  readonly knownAccountsDirectory?: string
  /** The caller's current operation (its scope, timeout and hand-over), asked at each order. */
  readonly operation?: () => OperationFrame | undefined
  /**
   * Order even when a recent account that matches a new order is named by no state or journal entry
   * of this directory, against a service that ignores Idempotency-Keys. Default false.
   */
  readonly allowUnrecordedMatch?: boolean
}

/** The client: every API family's calls (`client.lites`, ... : see families.ts), and what they share. */
export interface Client extends Families {
  readonly baseUrl: string
  /**
   * Polls `read` until the account is Active. Resolves with `unpaidInvoice` when the order
   * waits for payment; throws WaitError on Suspended/Terminated, gone (404) or timeout.
   */
  waitForActive<A extends Account<unknown>>(read: () => Promise<A>, options: WaitOptions): Promise<WaitResult<A>>
  /** The client's clock: use it for `orderedAt` so an injected clock stays consistent. */
  now(): number
  /**
   * Whether this client sees the running operation as a plan's rehearsal (OperationFrame.rehearsal),
   * and so refuses every request but a read: what a rehearsal that reads must know before it runs.
   */
  rehearsing(): boolean
  /**
   * Settles the order journal (see JournalState): `account` when a state names an id, `delivered`
   * when the engine closed the provider gracefully after its run. Absent without a journal.
   */
  readonly settlement?: {
    readonly where: string
    account(id: string): Promise<void>
    delivered(): Promise<void>
    /** Accounts ordered by a run that was stopped and held by no state (see Orders.unmanaged). */
    notices(): Promise<readonly { readonly summary: string; readonly detail: string }[]>
  }
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    // Node turns a delay above 2^31 - 1 ms into 1 ms: clamp instead.
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

const MAX_TIMER_MS = 2_147_483_647

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`)
  if (value > MAX_TIMER_MS) throw new RangeError(`${name} must be at most ${MAX_TIMER_MS} ms (about 24.8 days), got ${value}`)
  return value
}

/** The database stores of each session, by connection string (see databaseStore). */
const databaseStores = new WeakMap<JournalSession, Map<string, PostgresJournalStore>>()

/**
 * The store of a journal kept in PostgreSQL: one per session and database, so one database session for
 * every client a process configures with them. The serve mode configures a client per connection,
 * several per Terraform command, and nothing closes one when its command ends: a store each would
 * leave a database session open per command served, until the server refuses more.
 */
function databaseStore(session: JournalSession, url: string): PostgresJournalStore {
  let stores = databaseStores.get(session)
  if (stores === undefined) {
    stores = new Map()
    databaseStores.set(session, stores)
  }
  let store = stores.get(url)
  if (store === undefined) {
    store = new PostgresJournalStore(url, session.owner)
    stores.set(url, store)
  }
  return store
}

export function createClient(options: ClientOptions): Client {
  const baseUrl = options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? defaultSleep
  const own: Logger = options.log ?? (() => undefined)
  // The operation's own log when the caller runs one (see OperationFrame.log), else the client's.
  const log: Logger = (level, message, fields) => (options.operation?.()?.log ?? own)(level, message, fields)
  const pollIntervalMs = positive(options.pollIntervalMs, 5_000, 'pollIntervalMs')
  const session = options.journalOptions?.session ?? newJournalSession(options.journalOptions?.owner)
  const index = options.knownAccountsDirectory === undefined ? undefined : new KnownAccounts(options.knownAccountsDirectory, now)
  const journalOptions = { ...options.journalOptions, session, ...(index ? { index } : {}) }
  const journal =
    options.journalDatabase !== undefined
      ? new OrderJournal(databaseStore(session, options.journalDatabase), now, journalOptions)
      : options.journalDirectory !== undefined
        ? new OrderJournal(options.journalDirectory, now, journalOptions)
        : undefined
  const requestTimeoutMs = positive(options.requestTimeoutMs, 30_000, 'requestTimeoutMs')
  const transport = new Transport({
    baseUrl,
    apiKey: options.apiKey,
    userAgent: options.userAgent,
    // Looked up per call, not captured, so a test that replaces globalThis.fetch is honoured.
    fetch: options.fetch ?? runtimeFetch,
    requestTimeoutMs,
    maxAttempts: Math.floor(positive(options.maxAttempts, 4, 'maxAttempts')),
    sleep,
    now,
    random: options.random ?? Math.random,
    log,
    deadline: () => operationDeadline(options.operation?.(), now(), requestTimeoutMs),
    beforeChange: (method, path) => refuseInRehearsal(options.operation?.(), method, path),
  })
  const orders = new Orders(transport, {
    journal,
    operation: options.operation,
    idempotencyKey: options.idempotencyKey ?? randomUUID,
    allowUnrecordedMatch: options.allowUnrecordedMatch,
  })
  const waitSettings = {
    pollIntervalMs,
    pollMaxIntervalMs: Math.max(pollIntervalMs, positive(options.pollMaxIntervalMs, 30_000, 'pollMaxIntervalMs')),
    sleep,
    now,
    log,
  }
  return {
    baseUrl,
    ...connectFamilies({ transport, orders }),
    waitForActive: (read, waitOptions) => waitForActive(waitSettings, read, waitOptions),
    now,
    rehearsing: () => options.operation?.()?.rehearsal !== undefined,
    ...(journal
      ? {
          settlement: {
            where: journal.where,
            account: (id: string) => journal.accountInState(id),
            delivered: (saved?: () => ReadonlySet<string>) => journal.engineClosed(saved),
            notices: () => orders.unmanaged(),
          },
        }
      : {}),
  }
}

/**
 * The runtime's fetch, a change sent on a connection of its own. Bun's fetch sends a request again by
 * itself when a reused keep-alive connection closes before any answer, for the methods HTTP calls
 * idempotent (PUT, DELETE): a service that processed the first and ignores Idempotency-Key would then
 * process a paid PUT (a +10 GB upgrade) twice, and this client would never know. A request that
 * reuses no connection is never sent again by the runtime; reads keep the pool.
 */
function runtimeFetch(request: Request): Promise<Response> {
  return request.method === 'GET' || request.method === 'HEAD' ? fetch(request) : fetch(request, { keepalive: false })
}

// The order journal in a PostgreSQL table, for runners that share no disk (CI jobs, Atlantis, agents):
// the same database many teams already keep Terraform's `pg` state backend in. One row per entry.
//
// Who still runs: each process holds a session-level advisory lock named after its owner token for as
// long as its connection lives (shared, so that several clients of one process each hold it too). PostgreSQL releases it when that session ends, and a process that dies
// in any way (kill -9, a runner that vanishes) ends its session: its socket is closed by the kernel
// or, for a machine gone from the network, found dead by TCP keepalives. A takeover is one UPDATE
// that names the owner it replaces, so of several runners trying at once exactly one gets the row.
//
// The `pg` client is loaded on the first use of such a journal only: a provider with a file journal
// never loads it.
import { createHash } from 'node:crypto'
import type { Client } from 'pg'
import {
  JOURNAL_KEEP_MS,
  type JournalEntry,
  type JournalFilter,
  type JournalOwner,
  type JournalStore,
  UNRESOLVED_KEEP_MS,
  type UnreadableEntry,
} from './journal-store.js'

/** The table, in the schema the connection's search_path names first (`?options=-csearch_path%3Dname` picks another). */
export const JOURNAL_TABLE = 'provider_order_journal'

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
  id text PRIMARY KEY,
  fingerprint text NOT NULL,
  service text NOT NULL,
  account_id text,
  sent_at bigint NOT NULL,
  state text NOT NULL,
  owner_token text,
  entry jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_fingerprint ON ${JOURNAL_TABLE} (fingerprint);
CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_account_id ON ${JOURNAL_TABLE} (account_id);
CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_request ON ${JOURNAL_TABLE} ((entry->>'request'));`

/** The advisory lock (two int4 keys) that serialises creating the table; owners' locks are keyed by their token's hash. */
const SCHEMA_LOCK = [0x50_52_4f_56, 0x4a_52_4e_4c] as const

/** Whether a journal setting names a PostgreSQL database rather than a directory. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value)
}

/**
 * The database as messages may show it: user, host, port and database, never the password or the
 * query (which may carry one, or a key file's path).
 */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url)
    // An @ past the host is a password with an unencoded / ? or #: the rest of it would show as the path.
    if (misplacedAt(parsed)) return `a PostgreSQL database (table ${JOURNAL_TABLE})`
    const user = parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}@`
    return `postgresql://${user}${parsed.host}${parsed.pathname} (table ${JOURNAL_TABLE})`
  } catch {
    return `a PostgreSQL database (table ${JOURNAL_TABLE})`
  }
}

/** A connection string the pg client can read; the message never echoes it (it may hold a password). */
export function postgresUrlProblem(url: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'is not a valid URL; expected postgresql://user:password@host:5432/database'
  }
  if (parsed.hostname === '') return 'names no host; expected postgresql://user:password@host:5432/database'
  if (misplacedAt(parsed)) {
    return (
      'has an @ after its host: a user or password holding /, ? or # must percent-encode it ' +
      '(/ as %2F, ? as %3F, # as %23, @ as %40), or the client reads part of the password as the host and database'
    )
  }
  return null
}

/** Whether an @ follows the host: the sign of userinfo with an unencoded / ? or #, which then spills into the path. */
function misplacedAt(parsed: URL): boolean {
  return `${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@')
}

/** Two positive int4 keys from an owner token: the advisory lock that says its process runs. */
function lockKeys(token: string): [number, number] {
  const digest = createHash('sha256').update(`provider-order-journal:${token}`).digest()
  return [digest.readUInt32BE(0) & 0x7fff_ffff, digest.readUInt32BE(4) & 0x7fff_ffff]
}

export interface PostgresJournalOptions {
  /** How long connecting may take. Default 10 s. */
  readonly connectTimeoutMs?: number
  /** How long one statement may take. Default 30 s. */
  readonly queryTimeoutMs?: number
}

export class PostgresJournalStore implements JournalStore {
  readonly where: string
  readonly scope = 'the runners sharing this order journal'
  /** A runner cut off from the database looks gone to the others while it may still be working. */
  readonly ownershipLapses = true
  private connection: Promise<Client> | undefined
  private expired = false

  constructor(
    private readonly url: string,
    /** The process using this store: its lock is held while it is connected. */
    private readonly owner: JournalOwner,
    private readonly options: PostgresJournalOptions = {},
  ) {
    this.where = describeDatabase(url)
  }

  removal(entry: JournalEntry): string {
    return `delete its row in ${this.where} (DELETE FROM ${JOURNAL_TABLE} WHERE id = '${entry.id}')`
  }

  /** The connection, made on first use; a connection that broke is made again (and the lock taken again). */
  private client(): Promise<Client> {
    if (this.connection === undefined) {
      const connecting = this.connect()
      this.connection = connecting
      connecting.catch(() => {
        if (this.connection === connecting) this.connection = undefined
      })
    }
    return this.connection
  }

  private async connect(): Promise<Client> {
    const pg = (await import('pg')).default
    let client: Client
    try {
      // Reading the connection string may fail here already (a key file that is not there, a password
      // whose percent-encoding is no UTF-8): said as a failure of the journal, not as a bare file error.
      client = new pg.Client({
        connectionString: this.url,
        keepAlive: true,
        connectionTimeoutMillis: this.options.connectTimeoutMs ?? 10_000,
        query_timeout: this.options.queryTimeoutMs ?? 30_000,
        application_name: `provider order journal (pid ${process.pid})`,
      })
    } catch (error) {
      throw this.failure('read the connection string of', error)
    }
    client.on('error', () => {
      // The session is gone (the server restarted, the network dropped): the next call connects again.
      void this.connection
        ?.then((current) => {
          if (current === client) this.connection = undefined
        })
        .catch(() => undefined)
    })
    try {
      await client.connect()
      // The table, or an index a later version added to a table an earlier one made.
      const exists = await client.query<{ table: string | null; index: string | null }>(
        'SELECT to_regclass($1)::text AS table, to_regclass($2)::text AS index',
        [JOURNAL_TABLE, `${JOURNAL_TABLE}_request`],
      )
      if (!exists.rows[0]?.table || !exists.rows[0]?.index) {
        // Runners that start together may all create it: the lock lets one do it, the others see it done.
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${SCHEMA_LOCK[0]}, ${SCHEMA_LOCK[1]});${SCHEMA} COMMIT;`)
      }
      await client.query('SELECT pg_advisory_lock_shared($1, $2)', lockKeys(this.owner.token))
    } catch (error) {
      await client.end().catch(() => undefined)
      throw this.failure('connect to', error)
    }
    // An idle journal connection does not keep a process alive that is otherwise done.
    ;(client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.()
    return client
  }

  private failure(what: string, error: unknown): Error {
    const reason =
      error instanceof URIError
        ? 'its user or password holds a % that starts no valid percent-encoding (write a % of it as %25)'
        : error instanceof Error
          ? error.message
          : String(error)
    return new Error(`could not ${what} the order journal at ${this.where}: ${reason}`, { cause: error })
  }

  private async query<R extends Record<string, unknown>>(
    text: string,
    values: unknown[],
    what: string,
  ): Promise<{ rows: R[]; rowCount: number }> {
    const client = await this.client()
    try {
      const result = await client.query<R>(text, values)
      return { rows: result.rows, rowCount: result.rowCount ?? 0 }
    } catch (error) {
      // Not an answer of the server's (those carry a severity): the session is unusable (closed, timed
      // out), so the next call connects again rather than failing on it for the rest of the run. The old
      // one is not ended on purpose: while it lives it still holds this owner's lock.
      if (!(error !== null && typeof error === 'object' && 'severity' in error) && this.connection !== undefined) {
        const broken = this.connection
        void broken
          .then((current) => {
            if (current === client && this.connection === broken) this.connection = undefined
          })
          .catch(() => undefined)
      }
      throw this.failure(what, error)
    }
  }

  async alive(owner: JournalOwner): Promise<boolean> {
    const [high, low] = lockKeys(owner.token)
    const { rows } = await this.query<{ alive: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND classid::bigint = $1 AND objid::bigint = $2) AS alive`,
      [high, low],
      'read',
    )
    return rows[0]?.alive === true
  }

  /** A row's entry is a jsonb value the database checked when it was written: there is none it cannot read. */
  unreadable(): readonly UnreadableEntry[] {
    return []
  }

  async list(now: number, filter?: JournalFilter): Promise<JournalEntry[]> {
    // The rule of `kept`, in SQL: an unresolved create is kept UNRESOLVED_KEEP_MS, any other entry JOURNAL_KEEP_MS.
    const unresolved = `(state IN ('sent', 'answered', 'delivered') OR entry @> '{"unconfirmed": true}')`
    const keptRow = `(sent_at >= $1 OR (sent_at >= $2 AND entry @> '{"creates": true}' AND ${unresolved}))`
    const values: unknown[] = [now - JOURNAL_KEEP_MS, now - UNRESOLVED_KEEP_MS]
    if (!this.expired) {
      await this.query(`DELETE FROM ${JOURNAL_TABLE} WHERE NOT ${keptRow}`, [...values], 'clean up')
      this.expired = true
    }
    const conditions = [keptRow]
    // An intent's fingerprint, its request, or either (see JournalFilter).
    const intent: string[] = []
    if (filter?.fingerprint !== undefined) {
      values.push(filter.fingerprint)
      intent.push(`fingerprint = $${values.length}`)
    }
    if (filter?.request !== undefined) {
      values.push(filter.request)
      intent.push(`entry->>'request' = $${values.length}`)
    }
    if (intent.length > 0) conditions.push(`(${intent.join(' OR ')})`)
    if (filter?.accountId !== undefined) {
      values.push(filter.accountId)
      conditions.push(`account_id = $${values.length}`)
    }
    const { rows } = await this.query<{ entry: JournalEntry }>(
      `SELECT entry FROM ${JOURNAL_TABLE} WHERE ${conditions.join(' AND ')} ORDER BY sent_at, id`,
      values,
      'read',
    )
    return rows.map((row) => row.entry)
  }

  /** Every write is a committed transaction, which the database keeps through a power loss (`durable` asks no more). */
  async write(entry: JournalEntry): Promise<void> {
    await this.upsert(entry, '')
  }

  async writeOwned(entry: JournalEntry): Promise<boolean> {
    // A row another runner took over names that runner: the update does not happen, and nothing is counted.
    return (await this.upsert(entry, `WHERE ${JOURNAL_TABLE}.owner_token IS NOT DISTINCT FROM EXCLUDED.owner_token`)) === 1
  }

  private async upsert(entry: JournalEntry, condition: string): Promise<number> {
    const { rowCount } = await this.query(
      `INSERT INTO ${JOURNAL_TABLE} (id, fingerprint, service, account_id, sent_at, state, owner_token, entry)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, state = EXCLUDED.state,
         owner_token = EXCLUDED.owner_token, entry = EXCLUDED.entry ${condition}`,
      [
        entry.id,
        entry.fingerprint,
        entry.service,
        entry.accountId ?? null,
        entry.sentAt,
        entry.state,
        entry.owner?.token ?? null,
        JSON.stringify(entry),
      ],
      'write',
    )
    return rowCount
  }

  async take(entry: JournalEntry, to: JournalOwner): Promise<boolean> {
    const taken: JournalEntry = { ...entry, owner: to }
    const { rowCount } = await this.query(
      `UPDATE ${JOURNAL_TABLE} SET owner_token = $2, entry = $3 WHERE id = $1 AND coalesce(owner_token, '') = $4 AND state = $5`,
      [entry.id, to.token, JSON.stringify(taken), entry.owner?.token ?? '', entry.state],
      'write',
    )
    if (rowCount !== 1) return false
    entry.owner = to
    return true
  }

  async close(): Promise<void> {
    const connection = this.connection
    this.connection = undefined
    const client = await connection?.catch(() => undefined)
    await client?.end().catch(() => undefined)
  }
}

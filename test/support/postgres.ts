// A private PostgreSQL server for the tests of the shared order journal: a fresh cluster in a temp
// directory (initdb), on a free loopback port, with a password (so that tests can check it never
// shows), stopped and removed at the end. The server binaries are Debian's `postgresql` package,
// which `npm test` installs when they are missing (scripts/system-packages.mjs); PROVIDER_PG_BIN names another bin directory.
// PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user the package creates.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where initdb and postgres are: PROVIDER_PG_BIN, else the newest /usr/lib/postgresql/<major>/bin. */
export function postgresBin(): string {
  const configured = process.env.PROVIDER_PG_BIN
  if (configured) return configured
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(a) - Number(b))
    : []
  const newest = majors.at(-1)
  if (newest === undefined || !existsSync(join(root, newest, 'bin', 'postgres'))) {
    throw new Error(
      'The PostgreSQL server is not installed (no /usr/lib/postgresql/<major>/bin/postgres): `npm test` installs it ' +
        '(`node scripts/system-packages.mjs`, with apt-get); run that, or set PROVIDER_PG_BIN to a directory holding initdb and postgres.',
    )
  }
  return join(root, newest, 'bin')
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** As root, the uid and gid of the `postgres` user; otherwise undefined (run as ourselves). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    throw new Error(
      "Running as root, PostgreSQL needs the `postgres` user that Debian's postgresql package creates: apt-get install postgresql",
    )
  }
}

export interface PostgresServer {
  /** A connection string with the password, for the provider and the client. */
  readonly url: string
  readonly password: string
  readonly port: number
  /** A new, empty database on the server, as a connection string: one per test keeps journals apart. */
  database(): Promise<string>
  /** Stops the server as a crash does (immediate shutdown: every session ends) and starts it again on the same data and port. */
  restart(): Promise<void>
  stop(): Promise<void>
}

const READY = /database system is ready to accept connections/
const START_TIMEOUT_MS = 30_000

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin()
  const user = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'provider-pg-'))
  const data = join(dir, 'data')
  const password = randomBytes(12).toString('hex')
  const passwordFile = join(dir, 'password')
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
  if (user) {
    chownSync(dir, user.uid, user.gid)
    chownSync(passwordFile, user.uid, user.gid)
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {}
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '-E', 'UTF8', '--no-sync', '--locale=C'],
    { stdio: 'pipe', ...as },
  )
  const port = await freePort()
  /** Starts the server on the cluster and port; resolves once it accepts connections. */
  const launch = async (): Promise<{ server: ChildProcess; exited: Promise<void> }> => {
    const server: ChildProcess = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${dir}`,
        '-c',
        'fsync=off',
        '-c',
        'max_connections=100',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...as },
    )
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
    let log = ''
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms:\n${log}`)), START_TIMEOUT_MS)
      server.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString()
        if (READY.test(log)) {
          clearTimeout(timer)
          resolve()
        }
      })
      server.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`PostgreSQL exited (${code}) before it was ready:\n${log}`))
      })
    })
    return { server, exited }
  }
  let running: Awaited<ReturnType<typeof launch>> | undefined
  const remove = () => rmSync(dir, { recursive: true, force: true })
  const kill = () => {
    const server = running?.server
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL')
  }
  process.once('exit', () => {
    kill()
    remove()
  })
  running = await launch()
  const url = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`
  let databases = 0
  return {
    url,
    password,
    port,
    async database() {
      const name = `journal_${++databases}`
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      return url.replace(/\/postgres$/, `/${name}`)
    },
    async restart() {
      // SIGQUIT: an immediate shutdown (`pg_ctl -m immediate stop`): every session ends at once, as in a crash.
      const { server, exited } = running as NonNullable<typeof running>
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGQUIT')
      const timer = setTimeout(kill, 10_000)
      await exited
      clearTimeout(timer)
      running = await launch()
    },
    async stop() {
      // SIGINT: a fast shutdown (open sessions are ended).
      const { server, exited } = running as NonNullable<typeof running>
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT')
      const timer = setTimeout(kill, 10_000)
      await exited
      clearTimeout(timer)
      remove()
    },
  }
}

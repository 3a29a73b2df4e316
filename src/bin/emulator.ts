// The emulator over HTTP on 127.0.0.1, for end-to-end tests and demos (the emulator's start-up options).
// Here: options from env and flags, the node:http bridge, persistence of the state file and, beside it, of
// its request log and the named snapshots, the web console's files at `/` (src/emulator/console/serve.ts),
// clean shutdown.
// Must not: hold any API behaviour; everything the API does lives in src/emulator.
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { consoleResponse, isConsolePath } from '../emulator/console/serve.js'
import { createEmulator, DroppedConnection, type EmulatorOptions, type EmulatorRequest, parseApiKeys } from '../emulator/index.js'
import { besideStateFile, GroupCommit, StateFile, writeAtomically } from '../emulator/state-file.js'
import { VERSION } from './version.js'

/**
 * The ports the Fetch standard blocks ("bad port"): browsers refuse them (the web console would not load)
 * and so does Node.js's fetch, which the provider's npm build sends its requests with.
 */
const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
])

function intEnv(name: string): number | undefined {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return undefined
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`)
  return value
}

const USAGE = `Usage: emulator [flags]   (npm run emulator -- [flags], or provider-emulator [flags])

  --port N            port on 127.0.0.1 (EMULATOR_PORT; default 8080, 0 picks a free one)
  --api-keys KEYS     accepted API keys, comma-separated: KEY, KEY:ro, KEY@CUSTOMER (EMULATOR_API_KEYS)
  --state-file PATH   keep the state across restarts in this file
  --clock manual|real a manual clock moves only through POST /_emulator/clock (default real)
  --seed N            the seed of the fault rules' draws (EMULATOR_SEED)
  --profile NAME      start with a profile's fault rules, e.g. remote (EMULATOR_PROFILE)
  --version           print the version and exit
  --help              this text

Also EMULATOR_PROVISIONING_DELAY_MS and EMULATOR_RETENTION_MS. The first line on stdout is the base URL;
the web console (accounts, orders, invoices, the request log, fault rules) is at http://127.0.0.1:PORT/,
as the line on stderr says.
`

/** A start that cannot go on: one line saying why (and, for a flag, the flags), never a stack trace. */
function startupFailed(message: string): never {
  process.stderr.write(`emulator: ${message}\n`)
  process.exit(2)
}

function parsedFlags() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        clock: { type: 'string' },
        'state-file': { type: 'string' },
        seed: { type: 'string' },
        profile: { type: 'string' },
        'api-keys': { type: 'string' },
        help: { type: 'boolean' },
        version: { type: 'boolean' },
      },
    }).values
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const unknown = /^Unknown option '([^']+)'/.exec(message)
    startupFailed(`${unknown ? `unknown flag ${unknown[1]}` : message}\n\n${USAGE}`)
  }
}

const values = parsedFlags()
if (values.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
if (values.version) {
  process.stdout.write(`provider-emulator ${VERSION}\n`)
  process.exit(0)
}

// A read that used up a counted fault rule changed the state: it is written, as a change is (see persist).
let readUsedRule = false

/** `read()`, or the error that stops the start naming the file it could not load (`what`) and why. */
function loading<T>(what: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw new Error(`${what} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The emulator the flags and settings describe, with its state file loaded; throws what stops the start. */
function start() {
  const options: EmulatorOptions = {}
  // Each key belongs to one customer: `KEY`, `KEY:ro`, `KEY@CUSTOMER`, `KEY:ro@CUSTOMER` (src/emulator/customers.ts).
  if (values['api-keys'] !== undefined) options.apiKeys = parseApiKeys(values['api-keys'], '--api-keys')
  else if (process.env.EMULATOR_API_KEYS) options.apiKeys = parseApiKeys(process.env.EMULATOR_API_KEYS, 'EMULATOR_API_KEYS')
  const delay = intEnv('EMULATOR_PROVISIONING_DELAY_MS')
  if (delay !== undefined) options.provisioningDelayMs = delay
  const retention = intEnv('EMULATOR_RETENTION_MS')
  if (retention !== undefined) options.retentionMs = retention
  if (values.clock !== undefined) {
    if (values.clock !== 'manual' && values.clock !== 'real') throw new Error(`--clock must be manual or real`)
    options.clock = values.clock
  }
  const seed = values.seed ?? process.env.EMULATOR_SEED
  if (seed !== undefined && seed !== '') {
    if (!/^\d+$/.test(seed)) throw new Error(`--seed (EMULATOR_SEED) must be a non-negative integer, got '${seed}'`)
    options.seed = Number(seed)
  }
  const profile = values.profile ?? process.env.EMULATOR_PROFILE
  if (profile !== undefined && profile !== '') options.profile = profile
  const port = values.port !== undefined ? Number(values.port) : (intEnv('EMULATOR_PORT') ?? 8080)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    const given = values.port !== undefined ? `--port '${values.port}'` : `EMULATOR_PORT '${process.env.EMULATOR_PORT}'`
    throw new Error(`${given}: the port must be an integer from 0 to 65535`)
  }
  if (FETCH_BAD_PORTS.has(port)) {
    const given = values.port !== undefined ? `--port ${values.port}` : `EMULATOR_PORT ${process.env.EMULATOR_PORT}`
    throw new Error(
      `${given}: browsers and fetch refuse to connect to port ${port}, so neither the web console nor a provider run by ` +
        'Node.js could reach the emulator there: pass another --port (0 picks a free one)',
    )
  }
  const stateFile = values['state-file']

  // Named snapshots live beside the state file: `state.json` keeps them in `state.snapshots.json`.
  const snapshotsFile = stateFile && besideStateFile(stateFile, '.snapshots.json')
  if (snapshotsFile) {
    if (existsSync(snapshotsFile)) {
      options.snapshots = loading(`${snapshotsFile} (the named snapshots beside --state-file)`, () =>
        JSON.parse(readFileSync(snapshotsFile, 'utf8')),
      )
    }
    options.keepSnapshots = (file) => writeAtomically(snapshotsFile, JSON.stringify(file))
  }

  // The state file keeps the request log in a file of its own beside it, appended to as requests come.
  const saved = stateFile ? new StateFile(stateFile) : undefined
  if (saved) options.logged = saved.logged
  if (saved)
    options.ruleUsed = () => {
      readUsedRule = true
    }
  const state = saved && loading(`--state-file ${saved.path}`, () => saved.load())
  // A manual clock resumes where the state file left it: nothing but POST /_emulator/clock moves it, a restart
  // included (starting at the wall time would provision, expire and date whatever fell due meanwhile).
  const savedNow = (state as { now?: unknown } | undefined)?.now
  if (options.clock === 'manual' && typeof savedNow === 'number' && Number.isFinite(savedNow)) options.startTime = savedNow
  const emulator = createEmulator(options)
  if (saved) {
    if (state !== undefined) loading(`--state-file ${saved.path}`, () => emulator.restore(state))
    saved.started(emulator)
    // A state file that cannot be written stops the start: otherwise every change would be made, then lost
    // with its answer (the connection dropped), and a client would see only a failing network.
    try {
      saved.write(emulator)
    } catch (error) {
      throw new Error(`--state-file ${saved.path} cannot be written: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  // Every change is in the state file before its answer leaves; changes that finish together share a write.
  const stateWrites = saved ? new GroupCommit(() => saved.write(emulator)) : undefined
  return { emulator, saved, stateWrites, port }
}

function started(): ReturnType<typeof start> {
  try {
    return start()
  } catch (error) {
    startupFailed(error instanceof Error ? error.message : String(error))
  }
}
const { emulator, saved, stateWrites, port } = started()

/**
 * What a request leaves in the state file before its answer (or its dropped connection) leaves: a change,
 * the state (see stateWrites); a read, its log entry, appended (no state write), since its `seq` is the
 * answer's X-Request-Id and a restart after a kill must neither lose the entry nor give the id again
 * (StateFile.load resumes the sequence after the log's last entry). A read that used up a firing of a
 * counted fault rule changed the state, so it is written as a change is: after a kill the rule does not
 * fire again.
 */
async function persist(method: string): Promise<void> {
  if (method !== 'GET' || readUsedRule) {
    // Any write from here on holds the rule's use: the flag is cleared before it starts.
    readUsedRule = false
    return stateWrites?.commit()
  }
  try {
    saved?.writeLog(emulator)
  } catch (error) {
    process.stderr.write(`the request log's last entries were not written: ${String(error)}\n`)
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const utf8 = new TextDecoder()

/** A header as fetch's `Headers.get` gives it: repeated values joined with ', ', null when absent. */
function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()]
  if (value === undefined) return null
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * Whether a request names this emulator by a loopback address (`127.0.0.1`, `localhost`, `[::1]`), as
 * every client that reaches it on 127.0.0.1 does. Another name means a page whose DNS name was pointed
 * at 127.0.0.1 after it loaded (DNS rebinding): the browser then lets it read what it asks for, and the
 * control API answers the API keys and the accounts without a key.
 */
function loopbackHost(host: string | undefined): boolean {
  if (host === undefined || host === '') return true
  const name = (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '')).toLowerCase()
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET'
  if (!loopbackHost(req.headers.host)) {
    res.writeHead(403, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        success: false,
        code: 403,
        detail: `Host '${req.headers.host}' is not this emulator's address: it answers at 127.0.0.1 or localhost only`,
      }),
    )
    return
  }
  // Decoded as fetch's `Request.text()` decodes: UTF-8, a leading byte order mark dropped.
  const body = method === 'GET' || method === 'HEAD' ? '' : utf8.decode(await readBody(req))
  // A client that gives up closes the connection: the request's signal ends a hanging fault rule. Only
  // then: an abort builds an error with its stack, a cost every answered request would pay for nothing.
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) gone.abort()
  })
  const request: EmulatorRequest = {
    method,
    url: `http://127.0.0.1${req.url ?? '/'}`,
    headers: { get: (name) => header(req, name) },
    signal: gone.signal,
    text: async () => body,
  }
  const { pathname } = new URL(request.url)
  try {
    if (isConsolePath(pathname)) {
      // The web console's files are no part of the emulator's state: served, never persisted.
      const response = await consoleResponse(method, pathname)
      const payload = Buffer.from(await response.arrayBuffer())
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(payload)
      return
    }
    const answer = await emulator.answer(request)
    await persist(method)
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
  } catch (error) {
    // A read dropped by a fault, or failed, is logged too: its entry reaches the file before the connection ends.
    await persist(method)
    if (error instanceof DroppedConnection) {
      req.socket.destroy()
      return
    }
    res.writeHead(500, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ success: false, code: 500, detail: String(error) }))
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // A change the state file could not take: its answer is not sent (it would promise what a restart loses).
    process.stderr.write(`${req.method} ${req.url}: no answer sent: ${error instanceof Error ? error.message : String(error)}\n`)
    req.socket.destroy()
  })
})

server.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') startupFailed(`port ${port} is in use on 127.0.0.1: pass --port N (0 picks a free one)`)
  if (error.code === 'EACCES') startupFailed(`port ${port} may not be opened by this user: pass --port N above 1023 (0 picks a free one)`)
  startupFailed(`cannot listen on 127.0.0.1:${port}: ${error.message}`)
})

server.listen(port, '127.0.0.1', () => {
  const { port: bound } = server.address() as AddressInfo
  process.stdout.write(`http://127.0.0.1:${bound}/v1\n`)
  // Not on stdout, whose first line is the base URL a caller reads.
  process.stderr.write(`web console: http://127.0.0.1:${bound}/\n`)
})

function shutdown(): void {
  // A change whose write is still to come is kept, though its answer will never leave; so are the log
  // entries of the reads since the last change.
  stateWrites?.flush()
  try {
    saved?.writeLog(emulator)
  } catch (error) {
    process.stderr.write(`the request log's last entries were not written: ${String(error)}\n`)
  }
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)

// The real-Terraform end-to-end harness: the emulator launcher on a free port, temp working dirs, and
// a pinned Terraform-protocol client (terraform or tofu, see terraformClient) run against the provider
// under test (a filesystem mirror of the release's executable or of the build: test/support/artifacts.ts).
// Must not: know any resource; every wait is bounded and every process and temp dir is cleaned up.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { copyFile, cp, link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HOST_PLATFORM, releaseFile, runsRelease, VERSION } from '../artifacts.js'
import { type Tool, terraformClients, tool } from '../tools.js'

/** The repository root: this file runs from build/test/support/e2e. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
export const FIXTURES = join(ROOT, 'test', 'e2e', 'fixtures')
const MIRROR = join(ROOT, 'dist', 'mirror')
const EMULATOR = join(ROOT, 'build', 'src', 'bin', 'emulator.js')

const DEFAULT_KEY = 'emulator-key'
/** One terraform command; an apply waits for orders at a 100 ms poll interval, so this is generous. */
const COMMAND_TIMEOUT_MS = 90_000
/**
 * One call to the emulator's control API or the API itself. Bounded, but well above what a loaded
 * 2-core CI machine needs: under the whole suite a control call of the fault matrix once took 10 s.
 */
const CONTROL_TIMEOUT_MS = 30_000

let cliConfig: Promise<string> | undefined

/** The provider's source address as each client spells `provider/provider` in full. */
const HOSTS = ['registry.terraform.io', 'registry.opentofu.org']

/**
 * The client the suites drive: PROVIDER_TF_CLIENT names a pinned one (`terraform-1.11.4`,
 * `tofu-1.12.6`, see tools/); default the newest pinned Terraform.
 */
export function terraformClient(): { readonly key: string; readonly tool: Tool } {
  const key = process.env.PROVIDER_TF_CLIENT
  if (key) return { key, tool: tool(key) }
  const newest = terraformClients()
    .filter((c) => c.name.startsWith('terraform '))
    .sort((a, b) => a.tool.version.localeCompare(b.tool.version, 'en', { numeric: true }))
    .at(-1)
  if (!newest) throw new Error('no Terraform is pinned in tools/')
  return { key: newest.name.replace(' ', '-'), tool: newest.tool }
}

/**
 * A private mirror of the provider under test and a CLI config pointing at it, made once per test process.
 * With the release (see test/support/artifacts.ts), the mirror holds this platform's zip from the release
 * in the packed layout (a hard link: Terraform unpacks it into `.terraform`, and a new release replaces the
 * file rather than changing it). With the build, it is a copy of dist/mirror, both hosts: terraform links
 * `.terraform/providers` into an unpacked mirror, so a rebuild of dist/ during a run would otherwise fail
 * every later command with a checksum mismatch.
 */
function privateCliConfig(): Promise<string> {
  cliConfig ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'provider-e2e-mirror-'))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    // OpenTofu reads `provider/provider` as registry.opentofu.org/provider/provider: the same packages serve both.
    if (runsRelease()) {
      const name = `terraform-provider-provider_${VERSION}_${HOST_PLATFORM}.zip`
      const zip = releaseFile(join('mirror', HOSTS[0] as string, 'provider', 'provider', name))
      for (const host of HOSTS) {
        const target = join(dir, 'mirror', host, 'provider', 'provider')
        await mkdir(target, { recursive: true })
        await link(zip, join(target, name)).catch(() => copyFile(zip, join(target, name)))
      }
    } else {
      if (!existsSync(MIRROR)) throw new Error(`${MIRROR} is missing: run \`npm run build\` first`)
      // The whole mirror as the build wrote it, each host's package as it is there (a link the clients
      // cannot follow stays one: test/e2e/documented-mirrors.test.ts runs dist/terraformrc itself).
      await cp(MIRROR, join(dir, 'mirror'), { recursive: true, verbatimSymlinks: true })
    }
    const path = join(dir, 'terraformrc')
    await writeFile(path, mirrorCliConfig(join(dir, 'mirror')))
    return path
  })()
  return cliConfig
}

/** A CLI configuration that installs provider/provider from the filesystem mirror `mirror` only. */
export function mirrorCliConfig(mirror: string): string {
  const include = `[${HOSTS.map((host) => `"${host}/provider/provider"`).join(', ')}]`
  return `provider_installation {\n  filesystem_mirror {\n    path    = "${mirror}"\n    include = ${include}\n  }\n  direct {\n    exclude = ${include}\n  }\n}\n`
}

/**
 * The terraform and provider blocks every configuration starts with, with provider settings beside the
 * poll interval (a `ref` for a variable); credentials come from the environment unless given here.
 */
export function providerBlocks(settings: Record<string, HclValue> = {}): string {
  const lines = hclAttributes({ poll_interval: '100ms', ...settings })
  return `terraform {\n  required_providers {\n    provider = { source = "provider/provider" }\n  }\n}\n\nprovider "provider" {\n${lines.join('\n')}\n}\n`
}

export interface LogEntry {
  seq: number
  method: string
  path: string
  query: Record<string, string>
  idempotency_key: string | null
  body: unknown
  status: number | null
  /** The fault rule that fired on the request, if one did. */
  fault_id?: string | null
  /** From the request's arrival to its answer, on the emulator's timer (a latency rule's delay included). */
  latency_ms: number
  /** The customer of the request's API key, where the emulator has customers (null: no key, or an unknown one). */
  customer?: string | null
}

export interface Order {
  order_id: string
  kind: string
  account_id: string
  invoice_id: number
  invoice_status: string
  /** What the order billed (the emulator's control API adds it to the spec's counters). */
  invoice_amount: number
}

export interface OrderCounters {
  total: number
  by_kind: Record<string, number>
  orders: Order[]
}

export interface Account {
  account_id: number | string
  status: string
  product_id: number
  last_invoice: { id: number; status: string } | null
  extra_details: Record<string, unknown>
}

export interface AccountEntry {
  kind: string
  account: Account
}

/** What one API call sequence changed: mutating requests as "METHOD /path", and the orders placed. */
export interface Effects {
  mutations: string[]
  orders: Order[]
}

/** Sends SIGTERM, then SIGKILL if the process is still there after `graceMs`. Resolves once it exited. */
export function stop(child: ChildProcess, group: boolean, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, name)
      else child.kill(name)
    } catch {
      // Already gone.
    }
  }
  return new Promise((done) => {
    const timer = setTimeout(() => signal('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    signal('SIGTERM')
  })
}

/** The emulator launcher as a child process, with its control API and an authenticated API caller. */
export class Emulator {
  /**
   * `XDG_STATE_HOME` of every client run against this emulator: the per-user index of accounts the
   * runs of one machine handed over (the provider's known-accounts.ts) as one user of one machine has
   * it. Emptied by a reset, which restarts the emulator's ids.
   */
  readonly stateHome = mkdtempSync(join(tmpdir(), 'provider-state-home-'))

  private constructor(
    private readonly child: ChildProcess,
    /** The API base URL, `http://127.0.0.1:PORT/v1`. */
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  /**
   * Starts the launcher with `node`, or another build of it: `launch` gives the command (the release's
   * executable, or it under qemu-user), the PATH it runs with and how long it may take to print its URL.
   */
  static async start(
    options: {
      apiKey?: string
      provisioningDelayMs?: number
      launch?: { command: readonly string[]; path: string; readyWithinMs: number }
    } = {},
  ): Promise<Emulator> {
    const apiKey = options.apiKey ?? DEFAULT_KEY
    const [program, ...args] = options.launch?.command ?? [process.execPath, EMULATOR]
    const readyWithinMs = options.launch?.readyWithinMs ?? 15_000
    const child = spawn(program as string, args, {
      env: {
        PATH: options.launch?.path ?? process.env.PATH ?? '',
        EMULATOR_PORT: '0',
        EMULATOR_PROVISIONING_DELAY_MS: String(options.provisioningDelayMs ?? 100),
        EMULATOR_API_KEYS: apiKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // A test process that ends without its after() hook still takes its emulator with it.
    const orphaned = () => child.kill('SIGKILL')
    process.once('exit', orphaned)
    child.once('exit', () => process.off('exit', orphaned))
    try {
      const baseUrl = await new Promise<string>((ready, fail) => {
        let stdout = ''
        const timer = setTimeout(
          () => fail(new Error(`the emulator printed no URL within ${readyWithinMs / 1000}s; stderr: ${stderr}`)),
          readyWithinMs,
        )
        child.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString()
          const newline = stdout.indexOf('\n')
          if (newline >= 0) {
            clearTimeout(timer)
            ready(stdout.slice(0, newline).trim())
          }
        })
        child.once('exit', (code) => {
          clearTimeout(timer)
          fail(new Error(`the emulator exited with ${code} before printing its URL; stderr: ${stderr}`))
        })
      })
      child.stdout?.resume()
      return new Emulator(child, baseUrl, apiKey)
    } catch (error) {
      await stop(child, false)
      throw error
    }
  }

  /** `http://127.0.0.1:PORT`, the origin of both the API and the control API. */
  get origin(): string {
    return new URL(this.baseUrl).origin
  }

  async stop(): Promise<void> {
    await stop(this.child, false)
    rmSync(this.stateHome, { recursive: true, force: true })
  }

  /** Calls the control API (the emulator's control endpoints) and returns the envelope's `data`; a non-2xx answer throws. */
  async control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const data = await this.call<T>(method, `${this.origin}/_emulator${path}`, {}, body)
    // Account ids start again after a reset: what the machine's runs knew of the old ones is void.
    if (method === 'POST' && path === '/reset')
      for (const name of readdirSync(this.stateHome)) rmSync(join(this.stateHome, name), { recursive: true, force: true })
    return data
  }

  /** Calls the API itself with the key, as a user with curl would (it shows in the request log). */
  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return this.call<T>(method, `${this.baseUrl}${path}`, { 'x-token': this.apiKey }, body)
  }

  private async call<T>(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { ...headers }, signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS) }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      init.headers = { ...headers, 'content-type': 'application/json' }
    }
    const response = await fetch(url, init)
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`)
    const parsed = JSON.parse(text) as { data?: T }
    return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T
  }

  /** Clears accounts, keypairs, orders, faults and the log and restarts the id sequences (the emulator's control endpoints). */
  async reset(): Promise<void> {
    await this.control('POST', '/reset')
  }

  requests(since = 0): Promise<LogEntry[]> {
    return this.control<LogEntry[]>('GET', `/requests${since > 0 ? `?since=${since}` : ''}`)
  }

  /** The `seq` of the newest log entry (0 when the log is empty). */
  async lastSeq(): Promise<number> {
    const entries = await this.requests()
    return entries.reduce((max, entry) => Math.max(max, entry.seq), 0)
  }

  orders(): Promise<OrderCounters> {
    return this.control<OrderCounters>('GET', '/orders')
  }

  accounts(kind?: string): Promise<AccountEntry[]> {
    return this.control<AccountEntry[]>('GET', `/accounts${kind ? `?kind=${kind}` : ''}`)
  }

  async account(id: string | number): Promise<Account | undefined> {
    return (await this.accounts()).find((entry) => String(entry.account.account_id) === String(id))?.account
  }

  /**
   * Runs `action` and reports the mutating requests and the orders it caused, and the whole log slice
   * (`log`, GETs included, with bodies). Not for concurrent use.
   */
  async effectsOf<T>(action: () => Promise<T>): Promise<{ value: T; log: LogEntry[] } & Effects> {
    const seq = await this.lastSeq()
    const ordersBefore = (await this.orders()).orders.length
    const value = await action()
    const entries = await this.requests(seq)
    const orders = (await this.orders()).orders.slice(ordersBefore)
    return { value, log: entries, mutations: mutating(entries), orders }
  }
}

/** The non-GET requests of a log slice, as "METHOD /v1/path". */
export function mutating(entries: readonly LogEntry[]): string[] {
  return entries.filter((entry) => entry.method !== 'GET' && entry.method !== 'HEAD').map((entry) => `${entry.method} ${entry.path}`)
}

export interface RunResult {
  args: readonly string[]
  code: number
  stdout: string
  stderr: string
}

/** One line that tells what a command did, for assertion messages. */
export function describeRun(run: RunResult): string {
  return `terraform ${run.args.join(' ')} exited ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`
}

export interface RunOptions {
  env?: Record<string, string>
  timeoutMs?: number
  /** A command that runs terraform as its child (its arguments end before terraform's). */
  wrap?: readonly string[]
}

/** A plan saved with -out and rendered with `terraform show -json`. */
export interface PlanJson {
  resource_changes?: ResourceChange[]
}

export interface ResourceChange {
  address: string
  change: {
    actions: string[]
    replace_paths?: unknown[][]
    importing?: unknown
    before?: Record<string, unknown>
    after?: Record<string, unknown>
    after_unknown?: Record<string, unknown>
  }
}

/** A temp working dir with its own configuration, state and `.terraform`, against one emulator. */
export class Workspace {
  private initialised: RunResult | undefined

  private constructor(
    readonly dir: string,
    readonly emulator: Emulator,
    private readonly cliConfig: string,
    /** The client every command runs; default terraformClient(). */
    readonly client: { readonly key: string; readonly tool: Tool },
  ) {}

  /** `cliConfig` defaults to a private copy of the build's mirror (dist/mirror); `client` to terraformClient(). */
  static async create(emulator: Emulator, cliConfig?: string, client = terraformClient()): Promise<Workspace> {
    const config = cliConfig ?? (await privateCliConfig())
    return new Workspace(await mkdtemp(join(tmpdir(), 'provider-e2e-')), emulator, config, client)
  }

  /** Replaces the configuration with a fixture's main.tf (test/e2e/fixtures/<name>/main.tf). */
  async writeFixture(name: string): Promise<void> {
    await this.write(await readFile(join(FIXTURES, name, 'main.tf'), 'utf8'))
  }

  /** Replaces the configuration (main.tf). */
  async write(config: string): Promise<void> {
    await writeFile(join(this.dir, 'main.tf'), config)
  }

  /** The environment of every command: no inherited TF_* or PROVIDER_* variable leaks in. */
  private env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {}
    for (const [name, value] of Object.entries(process.env)) {
      if (!name.startsWith('TF_') && !name.startsWith('PROVIDER_') && name !== 'CHECKPOINT_DISABLE') env[name] = value
    }
    return {
      ...env,
      TF_CLI_CONFIG_FILE: this.cliConfig,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      PROVIDER_API_KEY: this.emulator.apiKey,
      PROVIDER_BASE_URL: this.emulator.baseUrl,
      XDG_STATE_HOME: this.emulator.stateHome,
      ...extra,
    }
  }

  /** Runs terraform in this dir; a command still running after its timeout is killed with its plugins. */
  run(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    return this.launch(args, options).done
  }

  /**
   * Starts terraform in this dir and hands back a way to signal the terraform process alone (as an
   * interrupt test needs) besides the result; the timeout still kills it with its plugins.
   */
  launch(
    args: readonly string[],
    options: RunOptions = {},
  ): { signal(name: NodeJS.Signals): void; signalGroup(name: NodeJS.Signals): void; pid: number; done: Promise<RunResult> } {
    const timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS
    const argv = [...(options.wrap ?? []), this.client.tool.bin, ...args]
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: this.dir,
      env: this.env(options.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const signal = (name: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(name)
    }
    // terraform runs in its own process group (detached), with its plugins: what `timeout` and CI runners signal.
    const signalGroup = (name: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, name)
      } catch {
        // Already gone.
      }
    }
    return { signal, signalGroup, pid: child.pid ?? 0, done: this.collect(child, args, timeoutMs) }
  }

  private collect(child: ChildProcess, args: readonly string[], timeoutMs: number): Promise<RunResult> {
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    return new Promise((done, fail) => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        void stop(child, true)
      }, timeoutMs)
      child.once('error', (error) => {
        clearTimeout(timer)
        fail(error)
      })
      child.once('close', (code) => {
        clearTimeout(timer)
        const result = { args, code: code ?? -1, stdout, stderr }
        if (timedOut) fail(new Error(`timed out after ${timeoutMs}ms: ${describeRun(result)}`))
        else done(result)
      })
    })
  }

  /** Runs a command that must succeed (exit 0, or one of `codes`). */
  async ok(args: readonly string[], options: RunOptions & { codes?: number[] } = {}): Promise<RunResult> {
    const result = await this.run(args, options)
    if (!(options.codes ?? [0]).includes(result.code)) throw new Error(describeRun(result))
    return result
  }

  /** `terraform init`, once per dir; every call answers the result of that one init. */
  async init(): Promise<RunResult> {
    this.initialised ??= await this.ok(['init', '-no-color', '-input=false'])
    return this.initialised
  }

  async apply(extra: string[] = [], options: RunOptions = {}): Promise<RunResult> {
    await this.init()
    return this.run(['apply', '-no-color', '-input=false', '-auto-approve', ...extra], options)
  }

  /** `terraform plan -detailed-exitcode`: code 0 means no changes, 2 means changes, 1 an error. */
  async plan(extra: string[] = [], options: RunOptions = {}): Promise<RunResult> {
    await this.init()
    return this.run(['plan', '-no-color', '-input=false', '-detailed-exitcode', ...extra], options)
  }

  /** A plan saved to a file and rendered as JSON; `run` is the plan command itself (code 0 or 2). */
  async planJson(): Promise<{ run: RunResult; plan: PlanJson }> {
    const run = await this.plan(['-out=e2e.tfplan'])
    if (run.code !== 0 && run.code !== 2) throw new Error(describeRun(run))
    const shown = await this.ok(['show', '-json', 'e2e.tfplan'])
    return { run, plan: JSON.parse(shown.stdout) as PlanJson }
  }

  async destroy(): Promise<RunResult> {
    await this.init()
    return this.run(['destroy', '-no-color', '-input=false', '-auto-approve'])
  }

  async import(address: string, id: string): Promise<RunResult> {
    await this.init()
    return this.run(['import', '-no-color', '-input=false', address, id])
  }

  /** `terraform output -json` as name → value. */
  async outputs(): Promise<Record<string, unknown>> {
    const shown = await this.ok(['output', '-json'])
    const parsed = JSON.parse(shown.stdout) as Record<string, { value: unknown }>
    return Object.fromEntries(Object.entries(parsed).map(([name, output]) => [name, output.value]))
  }

  /** The attribute values of one resource in state, read from the state file (sensitive values included). */
  async stateOf(address: string): Promise<Record<string, unknown>> {
    const state = JSON.parse(await readFile(join(this.dir, 'terraform.tfstate'), 'utf8')) as {
      resources: { mode: string; type: string; name: string; instances: { attributes: Record<string, unknown> }[] }[]
    }
    const [type, name] = address.split('.')
    const resource = state.resources.find((r) => r.mode === 'managed' && r.type === type && r.name === name)
    const attributes = resource?.instances[0]?.attributes
    if (!attributes) throw new Error(`${address} is not in the state of ${this.dir}`)
    return attributes
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true })
  }
}

export type PlannedChange = ResourceChange['change']

/** The change planned for one resource address. */
export function changeOf(plan: PlanJson, address: string): PlannedChange {
  const change = plan.resource_changes?.find((r) => r.address === address)?.change
  if (!change) throw new Error(`the plan has no change for ${address}: ${JSON.stringify(plan.resource_changes?.map((r) => r.address))}`)
  return change
}

/** An HCL expression written as-is (a reference), as opposed to a literal. */
export class Expr {
  constructor(readonly text: string) {}
}
export const ref = (text: string) => new Expr(text)

export type HclValue = string | number | boolean | Expr | null | undefined

/** One resource block; null and undefined attributes are left out, strings are quoted. */
/** One line per set attribute, indented for a block body. */
function hclAttributes(attributes: Record<string, HclValue>): string[] {
  return Object.entries(attributes)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(
      ([key, value]) =>
        `  ${key} = ${value instanceof Expr ? value.text : typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    )
}

/** The terraform and provider blocks with no setting beyond the poll interval (see providerBlocks; after Expr, which it reads). */
export const PROVIDER_BLOCKS = providerBlocks()

export function block(kind: 'resource' | 'data', type: string, name: string, attributes: Record<string, HclValue>): string {
  return `${kind} "${type}" "${name}" {\n${hclAttributes(attributes).join('\n')}\n}\n`
}

/** An `import {}` block (Terraform 1.5+) bringing the object `id` under `to`. */
export function importBlock(to: string, id: string): string {
  return `import {\n  to = ${to}\n  id = ${JSON.stringify(id)}\n}\n`
}

/** Splits terraform's human-readable diagnostics ("Error: ..." blocks) for per-issue assertions. */
export function diagnostics(output: string, severity: 'Error' | 'Warning' = 'Error'): string[] {
  return output.split(new RegExp(`^(?=${severity}: )`, 'm')).filter((part) => part.startsWith(`${severity}: `))
}

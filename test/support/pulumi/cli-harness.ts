// The real `pulumi` CLI against the emulator launcher: one temp PULUMI_HOME with the plugin installed
// from the release tarball (`pulumi plugin install ... --file`, as users do), a file:// backend, and
// project directories whose stacks the tests drive. Programs run either through a language host on PATH
// (YAML) or as Automation API inline programs (TypeScript, Python, Go; see drivers.ts), which start the
// CLI with `--client`; every other command (refresh, import, stack export, destroy) runs the CLI here.
// Must not: know a resource; every command is bounded in time and every temp dir is removed.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { type Emulator, ROOT, stop } from '../e2e/harness.js'
import { PULUMI_TARBALL, releaseFile, runsRelease, VERSION } from '../artifacts.js'
import { tool } from '../tools.js'

export { ROOT }

/**
 * The plugin tarball for `pulumi plugin install --file`: the release's for this machine when the suites run
 * the release (test/support/artifacts.ts), otherwise the one `npm run build` writes.
 */
function tarball(): string {
  if (runsRelease()) return releaseFile(PULUMI_TARBALL)
  const built = join(ROOT, 'dist', PULUMI_TARBALL)
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`)
  return built
}
/** The passphrase of every stack's secrets provider. */
export const PASSPHRASE = 'pulumi-cli-suite-passphrase'
/** One CLI command; the slowest (an up of ~15 resources on a loaded 2-core machine) takes well under this. */
const COMMAND_TIMEOUT_MS = 180_000

export interface CliRun {
  readonly args: readonly string[]
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export function describeCli(run: CliRun): string {
  return `pulumi ${run.args.join(' ')} exited ${run.code ?? run.signal}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`
}

/** One engine event of an event log (`--event-log`, or an Automation API event stream), reduced. */
export type EngineEvent =
  | { readonly kind: 'pre'; readonly urn: string; readonly type: string; readonly op: string; readonly diffs: readonly string[] }
  | { readonly kind: 'outputs'; readonly urn: string; readonly type: string; readonly op: string }
  | { readonly kind: 'failed'; readonly urn: string; readonly type: string; readonly op: string }
  | { readonly kind: 'diag'; readonly urn: string; readonly severity: string; readonly message: string }
  | { readonly kind: 'summary'; readonly changes: Readonly<Record<string, number>> }

interface RawMetadata {
  urn?: string
  type?: string
  op?: string
  diffs?: string[]
}

/** Reduces one event as the CLI writes it (apitype.EngineEvent, JSON) to the fields the tests read. */
export function reduceEvent(raw: Record<string, unknown>): EngineEvent | null {
  const pre = raw.resourcePreEvent as { metadata?: RawMetadata } | undefined
  if (pre?.metadata)
    return {
      kind: 'pre',
      urn: pre.metadata.urn ?? '',
      type: pre.metadata.type ?? '',
      op: pre.metadata.op ?? '',
      diffs: pre.metadata.diffs ?? [],
    }
  const outputs = raw.resOutputsEvent as { metadata?: RawMetadata } | undefined
  if (outputs?.metadata)
    return { kind: 'outputs', urn: outputs.metadata.urn ?? '', type: outputs.metadata.type ?? '', op: outputs.metadata.op ?? '' }
  const failed = raw.resOpFailedEvent as { metadata?: RawMetadata } | undefined
  if (failed?.metadata)
    return { kind: 'failed', urn: failed.metadata.urn ?? '', type: failed.metadata.type ?? '', op: failed.metadata.op ?? '' }
  const diag = raw.diagnosticEvent as { urn?: string; severity?: string; message?: string } | undefined
  if (diag) return { kind: 'diag', urn: diag.urn ?? '', severity: diag.severity ?? '', message: diag.message ?? '' }
  const summary = raw.summaryEvent as { resourceChanges?: Record<string, number> } | undefined
  if (summary) return { kind: 'summary', changes: summary.resourceChanges ?? {} }
  return null
}

export async function readEventLog(path: string): Promise<EngineEvent[]> {
  if (!existsSync(path)) return []
  const text = await readFile(path, 'utf8')
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => reduceEvent(JSON.parse(line) as Record<string, unknown>))
    .filter((e): e is EngineEvent => e !== null)
}

/** What one preview or up did, whichever way it was run. */
export interface OpResult {
  readonly ok: boolean
  readonly events: readonly EngineEvent[]
  /** Everything the command printed (the CLI's stdout and stderr, or the driver's). */
  readonly output: string
}

/** The step of each resource (by the name at the end of its URN), custom resources of our package only. */
export function stepsOf(result: OpResult): Record<string, { op: string; diffs: readonly string[] }> {
  const out: Record<string, { op: string; diffs: readonly string[] }> = {}
  for (const e of result.events) {
    if (e.kind !== 'pre' || !e.type.startsWith('provider:index:')) continue
    const name = e.urn.slice(e.urn.lastIndexOf('::') + 2)
    // A replacement shows as create-replacement, replace, delete-replaced: keep the `replace` step. The
    // refresh the engine runs first (every resource asks for it: refresh before update) gives way to
    // the step that follows it; alone, in `pulumi refresh`, it is the step.
    if (out[name] && out[name].op !== 'refresh' && e.op !== 'replace') continue
    out[name] = { op: e.op, diffs: e.diffs }
  }
  return out
}

/** The error diagnostics of a run, one message each. */
export function errorsOf(result: OpResult): string[] {
  return result.events.filter((e) => e.kind === 'diag' && e.severity === 'error').map((e) => (e as { message: string }).message)
}

export interface CliOptions {
  readonly cwd?: string
  readonly env?: Record<string, string>
  readonly timeoutMs?: number
  /** The output holds secrets on purpose (`stack export --show-secrets`): keep it out of the transcript. */
  readonly revealsSecrets?: boolean
}

/**
 * One offline Pulumi installation: PULUMI_HOME with the plugin installed, a file:// backend, and every
 * command's output kept (`transcript`) so a test can prove a secret never reached it.
 */
export class PulumiHome {
  readonly transcript: string[] = []

  private constructor(
    readonly root: string,
    readonly emulator: Emulator,
    /** The pulumi executable, and the directory the Automation API takes as its root (`<root>/bin/pulumi`). */
    readonly pulumi: string,
    readonly cliRoot: string,
    private readonly extraPath: readonly string[],
  ) {}

  static async create(emulator: Emulator): Promise<PulumiHome> {
    const plugin = tarball()
    const cli = tool('pulumi')
    // The YAML host runs YAML programs, and stands in for the hosts that cannot be built (see importer()).
    const extraPath = [tool('pulumi-language-yaml').dir]
    const root = await mkdtemp(join(tmpdir(), 'provider-pulumi-cli-'))
    process.once('exit', () => rmSync(root, { recursive: true, force: true }))
    await mkdir(join(root, 'home'))
    await mkdir(join(root, 'state'))
    // The Automation API runs `<root>/bin/pulumi`: a root of our own whatever the tool's layout.
    const cliRoot = join(root, 'cli')
    await mkdir(join(cliRoot, 'bin'), { recursive: true })
    await writeFile(join(cliRoot, 'bin', 'pulumi'), `#!/bin/sh\nexec "${cli.bin}" "$@"\n`, { mode: 0o755 })
    const home = new PulumiHome(root, emulator, cli.bin, cliRoot, extraPath)
    await home.ok(['plugin', 'install', 'resource', 'provider', VERSION, '--file', plugin])
    return home
  }

  get pluginDir(): string {
    return join(this.root, 'home', 'plugins', `resource-provider-v${VERSION}`)
  }

  /**
   * The environment of every command and of the Automation API: nothing inherited that steers Pulumi or
   * the provider (PULUMI_*, PROVIDER_*), the offline settings, and the emulator's credentials.
   */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(process.env)) {
      if (value === undefined || name.startsWith('PULUMI_') || name.startsWith('PROVIDER_')) continue
      env[name] = value
    }
    return {
      ...env,
      PATH: [...this.extraPath, dirname(this.pulumi), process.env.PATH ?? ''].join(delimiter),
      PULUMI_HOME: join(this.root, 'home'),
      PULUMI_BACKEND_URL: `file://${join(this.root, 'state')}`,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: 'true',
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
      PULUMI_DISABLE_REGISTRY_RESOLVE: 'true',
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: 'true',
      PROVIDER_API_KEY: this.emulator.apiKey,
      PROVIDER_BASE_URL: this.emulator.baseUrl,
      XDG_STATE_HOME: this.emulator.stateHome,
      ...extra,
    }
  }

  /** Starts `pulumi <args>` in its own process group; the timeout ends it with its plugins. */
  launch(args: readonly string[], options: CliOptions = {}): { readonly child: ChildProcess; readonly done: Promise<CliRun> } {
    const child = spawn(this.pulumi, args, {
      cwd: options.cwd ?? this.root,
      env: this.env(options.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS
    const done = new Promise<CliRun>((resolve, fail) => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        void stop(child, true)
      }, timeoutMs)
      child.once('error', (error) => {
        clearTimeout(timer)
        fail(error)
      })
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        const run = { args, code, signal, stdout, stderr }
        if (!options.revealsSecrets) this.transcript.push(stdout, stderr)
        if (timedOut) fail(new Error(`timed out after ${timeoutMs}ms: ${describeCli(run)}`))
        else resolve(run)
      })
    })
    return { child, done }
  }

  run(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
    return this.launch(args, options).done
  }

  async ok(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
    const run = await this.run(args, options)
    if (run.code !== 0) throw new Error(describeCli(run))
    return run
  }

  /** Keeps text that did not go through `run` (an Automation API run's output) for the secret checks. */
  record(text: string): void {
    this.transcript.push(text)
  }
}

/** The state of a stack as `pulumi stack export` writes it. */
export interface Deployment {
  readonly deployment: {
    readonly resources?: readonly StateResource[]
    readonly pending_operations?: readonly { readonly type: string; readonly resource: StateResource }[]
  }
}

export interface StateResource {
  readonly urn: string
  readonly type: string
  readonly id?: string
  readonly custom?: boolean
  readonly inputs?: Record<string, unknown>
  readonly outputs?: Record<string, unknown>
  readonly initErrors?: readonly string[]
}

/** `--event-log` is a hidden flag, there only with this set (as the Automation API sets it). */
const DEBUG_COMMANDS = { PULUMI_DEBUG_COMMANDS: 'true' }

/** A project directory and one of its stacks; every command here runs the CLI with `--stack`. */
export class Stack {
  private logs = 0

  constructor(
    readonly home: PulumiHome,
    readonly dir: string,
    readonly name: string,
  ) {}

  /** A new project directory holding `files` (Pulumi.yaml and whatever the program needs), and its stack. */
  static async init(home: PulumiHome, project: string, name: string, files: Readonly<Record<string, string>>): Promise<Stack> {
    const dir = join(home.root, 'projects', `${project}-${name}`)
    await mkdir(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text)
    const stack = new Stack(home, dir, name)
    await home.ok(['stack', 'init', name, '--non-interactive'], { cwd: dir })
    return stack
  }

  run(args: readonly string[], options: Omit<CliOptions, 'cwd'> = {}): Promise<CliRun> {
    return this.home.run([...args, '--stack', this.name, '--non-interactive'], { ...options, cwd: this.dir })
  }

  async ok(args: readonly string[], options: Omit<CliOptions, 'cwd'> = {}): Promise<CliRun> {
    const run = await this.run(args, options)
    if (run.code !== 0) throw new Error(describeCli(run))
    return run
  }

  async setConfig(values: Readonly<Record<string, string | null>>, secret: readonly string[] = []): Promise<void> {
    for (const [key, value] of Object.entries(values)) {
      if (value === null) await this.ok(['config', 'rm', key])
      else await this.ok(['config', 'set', ...(secret.includes(key) ? ['--secret'] : ['--plaintext']), key, value])
    }
  }

  /** A command with `--event-log`, answered with its reduced events (previews and ups of YAML, refresh, destroy, import). */
  async withEvents(args: readonly string[], options: Omit<CliOptions, 'cwd'> = {}): Promise<OpResult & { run: CliRun }> {
    const log = join(this.dir, `events-${++this.logs}.jsonl`)
    const run = await this.run([...args, '--event-log', log], { ...options, env: { ...DEBUG_COMMANDS, ...options.env } })
    return { ok: run.code === 0, events: await readEventLog(log), output: `${run.stdout}\n${run.stderr}`, run }
  }

  /** Starts a long command (an up to interrupt) with its event log; `done` has the events once it ended. */
  launchWithEvents(
    args: readonly string[],
    options: Omit<CliOptions, 'cwd'> = {},
  ): { child: ChildProcess; done: Promise<OpResult & { run: CliRun }> } {
    const log = join(this.dir, `events-${++this.logs}.jsonl`)
    const { child, done } = this.home.launch([...args, '--stack', this.name, '--non-interactive', '--event-log', log], {
      ...options,
      cwd: this.dir,
      env: { ...DEBUG_COMMANDS, ...options.env },
    })
    return {
      child,
      done: done.then(async (run) => ({
        ok: run.code === 0,
        events: await readEventLog(log),
        output: `${run.stdout}\n${run.stderr}`,
        run,
      })),
    }
  }

  refresh(extra: readonly string[] = []): Promise<OpResult & { run: CliRun }> {
    return this.withEvents(['refresh', '--yes', '--skip-preview', ...extra])
  }

  destroy(extra: readonly string[] = []): Promise<OpResult & { run: CliRun }> {
    return this.withEvents(['destroy', '--yes', '--skip-preview', ...extra])
  }

  /**
   * The same stack seen from a directory whose Pulumi.yaml names the same project with the YAML runtime.
   * `pulumi import` loads the project's language host even with --generate-code=false, and the nodejs,
   * python and go hosts cannot be built here (their programs run through the Automation API, which does
   * not start a host). The stack's state and config are the project's, so the import is the same.
   */
  async importer(): Promise<Stack> {
    // Pulumi.yaml as YAML (`name: x`) or as JSON (`{"name":"x",…}`, which is YAML too); the project's name comes first.
    const text = await readFile(join(this.dir, 'Pulumi.yaml'), 'utf8')
    const project = /"?\bname"?\s*:\s*"?([\w.-]+)/.exec(text)?.[1]
    if (!project) throw new Error(`no project name in ${join(this.dir, 'Pulumi.yaml')}`)
    const runtime = /"?\bruntime"?\s*:\s*"?(\w+)/.exec(text)?.[1]
    if (runtime === 'yaml') return this
    const dir = join(this.home.root, 'importers', `${project}-${this.name}`)
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'Pulumi.yaml'), `name: ${project}\nruntime: yaml\n`)
    await cp(join(this.dir, `Pulumi.${this.name}.yaml`), join(dir, `Pulumi.${this.name}.yaml`))
    return new Stack(this.home, dir, this.name)
  }

  async export(showSecrets = false): Promise<Deployment> {
    const run = await this.ok(['stack', 'export', ...(showSecrets ? ['--show-secrets'] : [])], { revealsSecrets: showSecrets })
    return JSON.parse(run.stdout) as Deployment
  }

  /** The stack's custom resources of our package, by name. */
  async resources(): Promise<Record<string, StateResource>> {
    const state = await this.export()
    const out: Record<string, StateResource> = {}
    for (const r of state.deployment.resources ?? []) {
      if (r.type.startsWith('provider:index:')) out[r.urn.slice(r.urn.lastIndexOf('::') + 2)] = r
    }
    return out
  }
}

/** Polls `check` every `everyMs` until it answers a value, for at most `withinMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  withinMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== null && value !== false) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs}ms`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

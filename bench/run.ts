// Benchmarks of both providers (`npm run bench`), every figure beside its floor and its target, measured
// side by side in one run: launch to handshake (Terraform) and to the port line (Pulumi) against a bare
// `node -e` start; a per-phase breakdown (process start, module load, handshake, first RPC, shutdown to
// exit); `terraform plan`/`apply`/`destroy` wall times against the built-in terraform_data, with the
// provider launched per command and reattached (serve mode); and Shutdown to exit after API calls, read
// from Terraform's own log; and where a launched plan's time goes, phase by phase, from Terraform's own log. The executables measured are the release's single executables (run
// `npm run release` first; without them the bundles are measured and the table says so). Not a test:
// it prints figures and asserts nothing. Every process and temp dir it makes is removed, even on failure.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:http2'
import { cpus, loadavg, platform, release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createCertificate } from '../src/terraform/certificate.js'
import { type LaunchPhases, type PlanTrace, parsePlanTrace } from './terraform-trace.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const STARTUP_RUNS = positiveInt('BENCH_STARTUP_RUNS', 25)
const STARTUP_WARMUP = 2
const TF_REPS = positiveInt('BENCH_TF_REPS', 5)
const PHASE_RUNS = positiveInt('BENCH_PHASE_RUNS', 10)
const COUNTS = [1, 50] as const
/** The whole run is bounded: past this, everything is killed and the run fails. */
const DEADLINE_MS = 15 * 60_000
const COMMAND_TIMEOUT_MS = 90_000
const MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2'

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`)
  return value
}

// ---------------------------------------------------------------------------------------------
// Processes and temp dirs, all tracked so that any exit path removes them.

const children = new Set<ChildProcess>()
const tempDirs: string[] = []

function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.push(dir)
  return dir
}

/** Spawns `command` and resolves with the time to its first stdout line; kills it and waits for its exit. */
function timeToFirstLine(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; line: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = track(spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }))
    let stdout = ''
    let stderr = ''
    let result: { ms: number; line: string } | undefined
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      if (result !== undefined) return
      stdout += chunk.toString()
      const end = stdout.indexOf('\n')
      if (end === -1) return
      result = { ms: performance.now() - start, line: stdout.slice(0, end) }
      child.kill('SIGKILL')
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (result !== undefined) resolve(result)
      else
        reject(
          new Error(`${command} ${args.join(' ')} ended (${signal ?? code}) without a stdout line; stderr: ${stderr.trim().slice(-500)}`),
        )
    })
  })
}

interface RunOptions {
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  /** Exit codes that count as success (terraform plan -detailed-exitcode answers 2 for "changes"). */
  readonly ok?: readonly number[]
}

/** Runs a command to its end; resolves with its wall time and exit code, rejects on any other exit. */
function timed(command: string, args: readonly string[], options: RunOptions): Promise<{ ms: number; code: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] }))
    let output = ''
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000)
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      const ms = performance.now() - start
      if (code !== null && (options.ok ?? [0]).includes(code)) resolve({ ms, code })
      else reject(new Error(`${command} ${args.join(' ')} in ${options.cwd} ended with ${signal ?? code}:\n${output.trim()}`))
    })
  })
}

// ---------------------------------------------------------------------------------------------
// Figures.

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN
}
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const ms = (value: number) => `${Math.round(value)}`
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`

function printTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
  console.log(`\n${title}\n`)
  console.log(line(headers))
  console.log(`|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`)
  for (const row of rows) console.log(line(row))
}

// ---------------------------------------------------------------------------------------------
// What is measured: the executables users get (dist/release), the bundles, and the floor.

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' }
const osArch = `${process.platform}_${GO_ARCH[process.arch] ?? process.arch}`
const packageDir = join(ROOT, 'dist/mirror/registry.terraform.io/provider/provider', version, osArch)
const launcher = join(packageDir, `terraform-provider-provider_v${version}`)
const tfBundle = join(packageDir, 'provider.cjs')
const pulumiBundle = join(ROOT, 'dist/pulumi/provider.cjs')
const devCliConfig = join(ROOT, 'dist/terraformrc')
const releaseDir = join(ROOT, 'dist/release')
const releaseCliConfig = join(releaseDir, 'terraformrc')
const emulatorBin = join(ROOT, 'build/src/bin/emulator.js')

interface Executables {
  /** The single executables, unpacked from the release archives of this platform; undefined without a release. */
  readonly tf?: string
  readonly pulumi?: string
}

function requireBuild(): void {
  const missing = [launcher, tfBundle, pulumiBundle, devCliConfig, emulatorBin].filter((path) => !existsSync(path))
  if (missing.length > 0) throw new Error(`not built (run npm run build): missing ${missing.join(', ')}`)
}

function releaseExecutables(): Executables {
  const zip = join(releaseDir, `terraform-provider-provider_${version}_${osArch}.zip`)
  const tarball = join(releaseDir, `pulumi-resource-provider-v${version}-${osArch.replace('_', '-')}.tar.gz`)
  if (!existsSync(zip) || !existsSync(tarball) || !existsSync(releaseCliConfig)) return {}
  const dir = tempDir('bench-release-')
  execFileSync('unzip', ['-q', zip, '-d', dir])
  execFileSync('tar', ['-xzf', tarball, '-C', dir])
  return { tf: join(dir, `terraform-provider-provider_v${version}`), pulumi: join(dir, 'pulumi-resource-provider') }
}

function machine(): void {
  const tf = spawnSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } })
  if (tf.error !== undefined || tf.status !== 0) throw new Error(`terraform is not runnable: ${tf.error?.message ?? tf.stderr}`)
  const cpu = cpus()
  console.log('Machine')
  console.log(`  node       ${process.version} (${process.platform}/${process.arch}, ${platform()} ${release()})`)
  console.log(`  terraform  ${tf.stdout.split('\n')[0]?.replace(/^Terraform /, '')}`)
  console.log(`  cpus       ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown'}`)
  console.log(
    `  load       ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min): the ratios, measured side by side, are the figures to read`,
  )
}

/** Terraform's environment for a plugin; without PLUGIN_CLIENT_CERT the provider serves plaintext (the bench's own client). */
function pluginEnv(tls: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    PLUGIN_MIN_PORT: '10000',
    PLUGIN_MAX_PORT: '25000',
  }
  if (tls) env.PLUGIN_CLIENT_CERT = createCertificate().cert
  for (const name of [
    'TF_LOG',
    'TF_LOG_PROVIDER',
    'PLUGIN_MULTIPLEX_GRPC',
    'TF_DISABLE_PLUGIN_TLS',
    'PROVIDER_DEBUG_REATTACH',
    'PROVIDER_TRACE_STARTUP',
  ]) {
    delete env[name]
  }
  return env
}

const verdict = (value: number, target: number) => (value <= target ? 'met' : 'NOT met')

// ---------------------------------------------------------------------------------------------
// 1. Start-up: spawn to the first stdout line, every variant interleaved with the floor.

interface Variant {
  readonly name: string
  readonly command: string
  readonly args: readonly string[]
  readonly expect: RegExp
  /** The target ratio to the floor, for the executables users get. */
  readonly target?: number
}

async function startup(executables: Executables): Promise<void> {
  const env = pluginEnv(true)
  const handshake = /^1\|6\|(tcp|unix)\|/
  const port = /^\d+$/
  const variants: Variant[] = [
    { name: 'node -e "console.log(1)" (floor)', command: process.execPath, args: ['-e', 'console.log(1)'], expect: /^1$/ },
  ]
  if (executables.tf)
    variants.push({ name: 'terraform provider: single executable', command: executables.tf, args: [], expect: handshake, target: 1.15 })
  variants.push(
    { name: 'terraform provider: node provider.cjs', command: process.execPath, args: [tfBundle], expect: handshake },
    { name: 'terraform provider: sh launcher (npm run build)', command: launcher, args: [], expect: handshake },
  )
  if (executables.pulumi)
    variants.push({ name: 'pulumi plugin: single executable', command: executables.pulumi, args: [], expect: port, target: 1.3 })
  variants.push({ name: 'pulumi plugin: node provider.cjs', command: process.execPath, args: [pulumiBundle], expect: port })

  const times = variants.map(() => [] as number[])
  for (let round = 0; round < STARTUP_WARMUP + STARTUP_RUNS; round++) {
    // Interleaved, and the order rotates, so that drift in machine load hits every variant alike.
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length
      const variant = variants[index]!
      const { ms: elapsed, line } = await timeToFirstLine(variant.command, variant.args, env)
      if (!variant.expect.test(line)) throw new Error(`${variant.name}: unexpected first line '${line.slice(0, 200)}'`)
      if (round >= STARTUP_WARMUP) times[index]!.push(elapsed)
    }
  }
  const floor = median(times[0]!)
  printTable(
    `1. Launch to handshake (Terraform) or port line (Pulumi), ms: ${STARTUP_RUNS} interleaved runs each after ${STARTUP_WARMUP} warm-up rounds`,
    ['variant', 'median', 'p90', 'min', 'median ÷ floor', 'target', 'verdict'],
    variants.map((v, i) => {
      const r = median(times[i]!) / floor
      return [
        v.name,
        ms(median(times[i]!)),
        ms(quantile(times[i]!, 0.9)),
        ms(Math.min(...times[i]!)),
        ratio(median(times[i]!), floor),
        v.target ? `≤ ${v.target.toFixed(2)}×` : '',
        v.target ? verdict(r, v.target) : '',
      ]
    }),
  )
  if (!executables.tf) console.log('\n  The single executables are not built (npm run release): their rows and targets are missing.')
}

// ---------------------------------------------------------------------------------------------
// 2. Per-phase breakdown: the provider's own marks (PROVIDER_TRACE_STARTUP=1), then a first RPC and
// Shutdown from a plaintext gRPC client.

/** One unary call with a raw protobuf body; resolves once the status is 0, rejects otherwise. */
function rawCall(port: number, path: string, body: Uint8Array = new Uint8Array()): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`)
    session.on('error', reject)
    const framed = Buffer.alloc(5 + body.length)
    framed.writeUInt32BE(body.length, 1)
    framed.set(body, 5)
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' })
    let status: string | undefined
    const read = (headers: Record<string, unknown>) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status'])
    }
    stream.on('response', read)
    stream.on('trailers', read)
    stream.on('data', () => {})
    stream.on('error', reject)
    stream.on('close', () => {
      session.close()
      if (status === '0') resolve()
      else reject(new Error(`${path} answered grpc-status ${status}`))
    })
    stream.end(framed)
  })
}

interface Phases {
  total: number[]
  processStart: number[]
  moduleLoad: number[]
  serve: number[]
  /** CPU time (user + system) of the provider process to its line: moves far less with the machine's load than wall time. */
  cpuToLine: number[]
  firstRpc: number[]
  /** Terraform only: GetMetadata after GetProviderSchema, the first call that loads the definitions. */
  serviceLoad: number[]
  shutdownToExit: number[]
}

/** Spawns the provider, reads its marks and first line, makes the first RPC, then stops it (Shutdown for Terraform). */
async function phasesOnce(command: string, args: readonly string[], kind: 'terraform' | 'pulumi', into: Phases): Promise<void> {
  const env = { ...pluginEnv(false), PROVIDER_TRACE_STARTUP: '1' }
  const start = performance.now()
  const child = track(spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }))
  const exited = new Promise<number>((resolve) => child.once('exit', () => resolve(performance.now())))
  let stderr = ''
  const marks = new Promise<{ entry: number | null; ready: number; served: number; cpu?: number }>((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /provider-startup (\{.*\})/.exec(stderr)
      if (found) resolve(JSON.parse(found[1]!))
    })
  })
  const line = await new Promise<string>((resolve, reject) => {
    let stdout = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')))
    })
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before its first line: ${stderr.slice(-500)}`)))
  })
  into.total.push(performance.now() - start)
  const m = await marks
  if (m.entry !== null) {
    into.processStart.push(m.entry)
    into.moduleLoad.push(m.ready - m.entry)
  }
  into.serve.push(m.served - m.ready)
  if (m.cpu !== undefined) into.cpuToLine.push(m.cpu)
  const port = Number(kind === 'terraform' ? line.split('|')[3]?.split(':')[1] : line)
  const before = performance.now()
  await rawCall(port, kind === 'terraform' ? '/tfplugin6.Provider/GetProviderSchema' : '/pulumirpc.ResourceProvider/GetSchema')
  into.firstRpc.push(performance.now() - before)
  if (kind === 'terraform') {
    const loading = performance.now()
    await rawCall(port, '/tfplugin6.Provider/GetMetadata')
    into.serviceLoad.push(performance.now() - loading)
    const asked = performance.now()
    await rawCall(port, '/plugin.GRPCController/Shutdown')
    into.shutdownToExit.push((await exited) - asked)
  } else {
    child.kill('SIGKILL')
    await exited
  }
}

async function phases(executables: Executables): Promise<void> {
  const rows: [string, string, readonly string[], 'terraform' | 'pulumi'][] = []
  if (executables.tf) rows.push(['terraform: single executable', executables.tf, [], 'terraform'])
  rows.push(['terraform: node provider.cjs', process.execPath, [tfBundle], 'terraform'])
  if (executables.pulumi) rows.push(['pulumi: single executable', executables.pulumi, [], 'pulumi'])
  rows.push(['pulumi: node provider.cjs', process.execPath, [pulumiBundle], 'pulumi'])
  const empty = (): Phases => ({
    total: [],
    processStart: [],
    moduleLoad: [],
    serve: [],
    cpuToLine: [],
    firstRpc: [],
    serviceLoad: [],
    shutdownToExit: [],
  })
  const results = rows.map(empty)
  for (let round = 0; round < PHASE_RUNS + 1; round++) {
    for (let i = 0; i < rows.length; i++) {
      const [, command, args, kind] = rows[i]!
      const sink: Phases = round === 0 ? empty() : results[i]!
      await phasesOnce(command, args, kind, sink)
    }
  }
  const cell = (values: readonly number[]) => (values.length > 0 ? ms(median(values)) : '–')
  printTable(
    `2. Per-phase breakdown, ms: median of ${PHASE_RUNS} runs (marks from PROVIDER_TRACE_STARTUP=1; first RPC and Shutdown from a plaintext client)`,
    [
      'variant',
      'process start',
      'module load',
      'listen + handshake',
      'launch → line',
      'CPU to line',
      'first RPC',
      'service load',
      'shutdown → exit (target ≤ 10)',
    ],
    rows.map(([name], i) => {
      const r = results[i]!
      const exit = r.shutdownToExit.length > 0 ? `${cell(r.shutdownToExit)} (${verdict(median(r.shutdownToExit), 10)})` : 'n/a'
      return [
        name,
        cell(r.processStart),
        cell(r.moduleLoad),
        cell(r.serve),
        cell(r.total),
        cell(r.cpuToLine),
        cell(r.firstRpc),
        cell(r.serviceLoad),
        exit,
      ]
    }),
  )
  console.log("\n  process start: runtime start to the bundle's first statement; module load: to the entry point's body;")
  console.log(
    "  CPU to line: the process's user + system CPU time (every thread) at its line, which a loaded machine moves far less than wall time;",
  )
  console.log(
    '  listen + handshake: to the handshake or port line; first RPC: GetProviderSchema (bytes built at build time, nothing loaded)',
  )
  console.log(
    '  or GetSchema (loads the definitions); service load: GetMetadata next, the first Terraform call that loads the definitions.',
  )
}

// ---------------------------------------------------------------------------------------------
// 3. Terraform wall times: provider_lite_keypair, launched per command and reattached, against terraform_data.

type Kind = 'terraform_data' | 'provider (launched)' | 'provider (reattached)'
const KINDS: readonly Kind[] = ['terraform_data', 'provider (launched)', 'provider (reattached)']
const LABEL: Readonly<Record<Kind, string>> = {
  terraform_data: 'terraform_data',
  'provider (launched)': 'provider_lite_keypair, launched',
  'provider (reattached)': 'provider_lite_keypair, reattached',
}
const STEPS = ['plan', 'apply', 'no-op plan', 'destroy'] as const
type Step = (typeof STEPS)[number]
/** Ratio targets to terraform_data at 50 resources. */
const TARGETS: Readonly<Record<Exclude<Kind, 'terraform_data'>, Partial<Record<Step, number>>>> = {
  'provider (launched)': { plan: 4, apply: 4, destroy: 4 },
  'provider (reattached)': { plan: 1.5 },
}

function configuration(kind: Kind, count: number): string {
  const variable = 'variable "run" {\n  type = string\n}\n'
  if (kind === 'terraform_data') {
    return `${variable}\nresource "terraform_data" "item" {\n  count = ${count}\n  input = "bench-\${var.run}-\${count.index}"\n}\n`
  }
  return (
    'terraform {\n  required_providers {\n    provider = {\n      source = "provider/provider"\n    }\n  }\n}\n\n' +
    `${variable}\nresource "provider_lite_keypair" "item" {\n  count = ${count}\n  name  = "bench-${kind === 'provider (launched)' ? 'l' : 'r'}-\${var.run}-\${count.index}"\n}\n`
  )
}

function startEmulator(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, [emulatorBin], { env: { ...process.env, EMULATOR_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] }),
    )
    let stdout = ''
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const end = stdout.indexOf('\n')
      if (end !== -1) resolve(stdout.slice(0, end).trim())
    })
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`emulator exited (${code}) before its base URL: ${stderr.trim()}`)))
  })
}

/** The serve mode (PROVIDER_DEBUG_REATTACH=1): one provider process Terraform reattaches to; resolves to its TF_REATTACH_PROVIDERS. */
function serveForReattach(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { env: { ...env, PROVIDER_DEBUG_REATTACH: '1' }, stdio: ['ignore', 'ignore', 'pipe'] }))
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(stderr)
      if (found) resolve(found[1]!)
    })
    child.once('exit', (code) => reject(new Error(`the serve mode exited (${code}): ${stderr.slice(-500)}`)))
  })
}

function terraformEnv(cliConfig: string, baseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_CLI_CONFIG_FILE: cliConfig,
    PROVIDER_API_KEY: 'emulator-key',
    PROVIDER_BASE_URL: baseUrl,
    CHECKPOINT_DISABLE: '1', // no version check over the network inside a timing
    TF_IN_AUTOMATION: '1',
  }
  // Logging would be part of what is timed; the user's TF_* run settings would change what runs.
  for (const name of Object.keys(env))
    if (/^TF_(LOG|CLI_ARGS|REATTACH_PROVIDERS|PLUGIN_CACHE_DIR|DATA_DIR|WORKSPACE)/.test(name)) delete env[name]
  return env
}

async function terraformTimes(executables: Executables, baseUrl: string): Promise<void> {
  const cliConfig = executables.tf ? releaseCliConfig : devCliConfig
  const env = terraformEnv(cliConfig, baseUrl)
  const served = executables.tf
    ? await serveForReattach(executables.tf, [], env)
    : await serveForReattach(process.execPath, [tfBundle], env)
  const envOf = (kind: Kind) => (kind === 'provider (reattached)' ? { ...env, TF_REATTACH_PROVIDERS: served } : env)

  const dirs = new Map<string, string>()
  const key = (kind: Kind, count: number) => `${kind}×${count}`
  for (const count of COUNTS) {
    for (const kind of KINDS) {
      const dir = tempDir('bench-tf-')
      writeFileSync(join(dir, 'main.tf'), configuration(kind, count))
      await timed('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env })
      dirs.set(key(kind, count), dir)
    }
  }

  const times = new Map<string, Record<Step, number[]>>()
  for (const k of dirs.keys()) times.set(k, { plan: [], apply: [], 'no-op plan': [], destroy: [] })
  const flags = ['-lock=false', '-input=false', '-no-color']
  let drift = 0
  for (let rep = 1; rep <= TF_REPS; rep++) {
    for (const count of COUNTS) {
      // Same rep, same count: the kinds back to back, the order rotating between reps.
      const order = KINDS.map((_, i) => KINDS[(i + rep) % KINDS.length]!)
      for (const kind of order) {
        const dir = dirs.get(key(kind, count))!
        const record = times.get(key(kind, count))!
        const options = { cwd: dir, env: envOf(kind) }
        const vars = [`-var=run=${rep}`]
        record.plan.push((await timed('terraform', ['plan', ...flags, ...vars], options)).ms)
        record.apply.push((await timed('terraform', ['apply', ...flags, '-auto-approve', ...vars], options)).ms)
        const noop = await timed('terraform', ['plan', ...flags, '-detailed-exitcode', ...vars], { ...options, ok: [0, 2] })
        if (noop.code === 2) drift++
        record['no-op plan'].push(noop.ms)
        record.destroy.push((await timed('terraform', ['destroy', ...flags, '-auto-approve', ...vars], options)).ms)
        // The next apply starts from no state at all, not from an emptied one.
        for (const file of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(dir, file), { force: true })
      }
    }
  }

  const medianOf = (kind: Kind, count: number, step: Step) => median(times.get(key(kind, count))![step])
  printTable(
    `3. Terraform wall time, ms: median of ${TF_REPS} runs each (plan and apply from no state; no-op plan after apply, with refresh)`,
    ['configuration', ...STEPS],
    COUNTS.flatMap((count) => KINDS.map((kind) => [`${count} × ${LABEL[kind]}`, ...STEPS.map((step) => ms(medianOf(kind, count, step)))])),
  )
  printTable(
    'Ratio provider_lite_keypair ÷ terraform_data (medians), with the targets at 50 resources',
    ['provider, count', ...STEPS],
    COUNTS.flatMap((count) =>
      (['provider (launched)', 'provider (reattached)'] as const).map((kind) => [
        `${LABEL[kind].split(', ')[1]}, ${count}`,
        ...STEPS.map((step) => {
          const r = medianOf(kind, count, step) / medianOf('terraform_data', count, step)
          const target = count === 50 ? TARGETS[kind][step] : undefined
          return `${r.toFixed(2)}×${target ? ` (≤ ${target}×: ${verdict(r, target)})` : ''}`
        }),
      ]),
    ),
  )
  console.log(
    `\n  provider launched from ${executables.tf ? 'the single executable (dist/release mirror)' : 'the sh launcher (dist/mirror): run npm run release to measure the executable'}`,
  )
  console.log(`  emulator: ${baseUrl}; flags: ${flags.join(' ')} (-auto-approve for apply and destroy)`)
  if (drift > 0) console.log(`  WARNING: ${drift} no-op plan(s) after apply proposed changes`)
}

// ---------------------------------------------------------------------------------------------
// 4. Shutdown to exit under Terraform after API calls (the kept-alive connection), from Terraform's log:
// "GRPCProvider.v6: Close" to "plugin process exited", per provider process.

async function shutdownAfterApi(executables: Executables, baseUrl: string): Promise<void> {
  const env = { ...terraformEnv(executables.tf ? releaseCliConfig : devCliConfig, baseUrl), TF_LOG: 'trace' }
  const dir = tempDir('bench-shutdown-')
  writeFileSync(join(dir, 'main.tf'), configuration('provider (launched)', 3))
  await timed('terraform', ['init', '-input=false', '-no-color'], {
    cwd: dir,
    env: terraformEnv(executables.tf ? releaseCliConfig : devCliConfig, baseUrl),
  })
  const gaps: number[] = []
  for (let rep = 1; rep <= Math.max(2, TF_REPS); rep++) {
    for (const command of [
      ['apply', '-auto-approve'],
      ['destroy', '-auto-approve'],
    ]) {
      const log = spawnSync('terraform', [...command, '-input=false', '-no-color', `-var=run=s${rep}`], {
        cwd: dir,
        env,
        encoding: 'utf8',
        maxBuffer: 256 << 20,
      })
      if (log.status !== 0) throw new Error(`terraform ${command[0]} failed: ${log.stdout.slice(-2000)}`)
      let closing: number | undefined
      for (const line of log.stderr.split('\n')) {
        const at = Date.parse(line.slice(0, 24))
        if (line.includes('GRPCProvider.v6: Close')) closing = at
        else if (line.includes('plugin process exited') && closing !== undefined) {
          gaps.push(at - closing)
          closing = undefined
        }
      }
    }
  }
  if (gaps.length === 0) {
    console.log('\n4. Shutdown to exit after API calls: no Close/exit pair found in the Terraform log')
    return
  }
  console.log(
    `\n4. Shutdown to exit after API calls (terraform apply/destroy of 3 keypairs, TF_LOG timestamps at 1 ms): ${gaps.length} provider processes`,
  )
  console.log(
    `  median ${ms(median(gaps))} ms, max ${ms(Math.max(...gaps))} ms (target ≤ 10 ms: ${verdict(median(gaps), 10)} at the median, ${verdict(Math.max(...gaps), 10)} at the max)`,
  )
}

// ---------------------------------------------------------------------------------------------
// 5. Where a launched `terraform plan` of 50 goes, from Terraform's own log (TF_LOG=trace, 1 ms
// timestamps): Terraform's check of the installed package's hash, and per provider launch Terraform's
// mTLS set-up, start to handshake, the calls (with the provider's own "service loaded" figure), and
// Close to exit. What is left is Terraform's own work (configuration, graph, state, output).

async function planTrace(executables: Executables, baseUrl: string): Promise<void> {
  const cliConfig = executables.tf ? releaseCliConfig : devCliConfig
  const quiet = terraformEnv(cliConfig, baseUrl)
  const dir = tempDir('bench-trace-')
  writeFileSync(join(dir, 'main.tf'), configuration('provider (launched)', 50))
  await timed('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env: quiet })
  const traces: PlanTrace[] = []
  const walls: number[] = []
  for (let rep = 1; rep <= TF_REPS; rep++) {
    const start = performance.now()
    const log = spawnSync('terraform', ['plan', '-lock=false', '-input=false', '-no-color', `-var=run=t${rep}`], {
      cwd: dir,
      env: { ...quiet, TF_LOG: 'trace' },
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    })
    walls.push(performance.now() - start)
    if (log.status !== 0) throw new Error(`terraform plan (TF_LOG=trace) failed: ${log.stdout.slice(-2000)}`)
    traces.push(parsePlanTrace(log.stderr))
  }
  const launchCounts = traces.map((t) => t.launches.length)
  const count = Math.min(...launchCounts)
  const med = (pick: (t: PlanTrace) => number) => median(traces.map(pick))
  const sumOf = (t: PlanTrace, pick: (l: LaunchPhases) => number) => t.launches.reduce((sum, l) => sum + pick(l), 0)
  const launchSpan = (l: LaunchPhases) => l.mtls + l.startToHandshake + l.calls + l.closeToExit
  const rows: string[][] = []
  for (let n = 0; n < count; n++) {
    const of = (pick: (l: LaunchPhases) => number) => ms(med((t) => pick(t.launches[n]!)))
    rows.push([
      `launch ${n + 1}`,
      of((l) => l.mtls),
      of((l) => l.startToHandshake),
      of((l) => l.calls),
      of((l) => l.serviceLoad),
      of((l) => l.closeToExit),
      of(launchSpan),
    ])
  }
  const all = (pick: (l: LaunchPhases) => number) => ms(med((t) => sumOf(t, pick)))
  rows.push([
    'all launches',
    all((l) => l.mtls),
    all((l) => l.startToHandshake),
    all((l) => l.calls),
    all((l) => l.serviceLoad),
    all((l) => l.closeToExit),
    all(launchSpan),
  ])
  printTable(
    `5. Where a launched \`terraform plan\` of 50 provider_lite_keypair goes, ms: median of ${TF_REPS} plans, from Terraform's log (TF_LOG=trace)`,
    [
      'launch',
      'mTLS set-up (Terraform)',
      'start → handshake',
      'handshake → Close (calls)',
      'of which service load',
      'Close → exit',
      'launch in all',
    ],
    rows,
  )
  const total = med((t) => t.total)
  const hash = med((t) => t.packageHash)
  const launches = med((t) => sumOf(t, launchSpan))
  console.log(
    `\n  launches per plan: ${[...new Set(launchCounts)].join(' or ')}; wall time ${ms(median(walls))} ms (logging included), logged ${ms(total)} ms:`,
  )
  console.log(
    `  package hash check ${ms(hash)} ms (Terraform hashes the whole unpacked package, i.e. the ${executables.tf ? 'single executable' : 'launcher and bundle'}, against the lock file at every command)`,
  )
  console.log(`  provider launches  ${ms(launches)} ms (one after the other)`)
  console.log(
    `  Terraform's own    ${ms(med((t) => t.total - t.packageHash - sumOf(t, launchSpan)))} ms (configuration, graph walk, state, output; terraform_data pays it too)`,
  )
  console.log("  The provider controls start → handshake (beyond the runtime's own start), the calls and service load, Close → exit,")
  console.log('  and the size of what is hashed; Terraform controls the launch count, the mTLS set-up and the hash algorithm.')
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now()
  requireBuild()
  machine()
  const executables = releaseExecutables()
  await startup(executables)
  await phases(executables)
  const baseUrl = await startEmulator()
  await terraformTimes(executables, baseUrl)
  await shutdownAfterApi(executables, baseUrl)
  await planTrace(executables, baseUrl)
  console.log(`\nTotal bench time: ${(Math.round((performance.now() - started) / 100) / 10).toFixed(1)} s`)
}

const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${DEADLINE_MS / 60_000} minutes; stopping`)
  cleanUp()
  process.exit(1)
}, DEADLINE_MS)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanUp()
    process.exit(130)
  })
}

try {
  await main()
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  clearTimeout(watchdog)
  cleanUp()
}

// Benchmarks of the Terraform provider (`npm run bench`): launch-to-handshake time against a bare
// `node` start, and `terraform plan`/`apply` wall times against the built-in terraform_data resource,
// the figures of notes/terraform-plugin-protocol.md §11 and §13. Not a test: it prints figures and
// asserts nothing about time. Every process and temp dir it makes is removed, even on failure.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, platform, release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createCertificate } from '../src/terraform/certificate.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const STARTUP_RUNS = positiveInt('BENCH_STARTUP_RUNS', 25)
const STARTUP_WARMUP = 2
const TF_REPS = positiveInt('BENCH_TF_REPS', 5)
const COUNTS = [1, 50] as const
/** The whole run is bounded: past this, everything is killed and the run fails. */
const DEADLINE_MS = 5 * 60_000
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
      else reject(new Error(`${command} ${args.join(' ')} ended (${signal ?? code}) without a stdout line; stderr: ${stderr.trim().slice(-500)}`))
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
// Layout of the build.

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' }
const osArch = `${process.platform}_${GO_ARCH[process.arch] ?? process.arch}`
const packageDir = join(ROOT, 'dist/mirror/registry.terraform.io/provider/provider', version, osArch)
const launcher = join(packageDir, `terraform-provider-provider_v${version}`)
const bundle = join(packageDir, 'provider.cjs')
const cliConfig = join(ROOT, 'dist/terraformrc')
const emulatorBin = join(ROOT, 'build/src/bin/emulator.js')

function requireBuild(): void {
  const missing = [launcher, bundle, cliConfig, emulatorBin].filter((path) => !existsSync(path))
  if (missing.length > 0) throw new Error(`not built (run npm run build): missing ${missing.join(', ')}`)
}

function machine(): void {
  const tf = spawnSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } })
  if (tf.error !== undefined || tf.status !== 0) throw new Error(`terraform is not runnable: ${tf.error?.message ?? tf.stderr}`)
  const cpu = cpus()
  console.log('Machine')
  console.log(`  node       ${process.version} (${process.platform}/${process.arch}, ${platform()} ${release()})`)
  console.log(`  terraform  ${tf.stdout.split('\n')[0]?.replace(/^Terraform /, '')}`)
  console.log(`  cpus       ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown'}`)
}

// ---------------------------------------------------------------------------------------------
// 1. Start-up: spawn to the first stdout line.

async function startup(): Promise<void> {
  // Terraform's environment for a plugin (§3.1); the client CA is made once, as Terraform does per command.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    PLUGIN_MIN_PORT: '10000',
    PLUGIN_MAX_PORT: '25000',
    PLUGIN_CLIENT_CERT: createCertificate().cert,
  }
  for (const name of ['TF_LOG', 'TF_LOG_PROVIDER', 'PLUGIN_MULTIPLEX_GRPC', 'TF_DISABLE_PLUGIN_TLS']) delete env[name]
  const handshake = /^1\|6\|(tcp|unix)\|/
  const variants = [
    { name: 'node -e "console.log(1)" (floor)', command: process.execPath, args: ['-e', 'console.log(1)'], expect: /^1$/ },
    { name: 'provider via sh launcher', command: launcher, args: [], expect: handshake },
    { name: 'node provider.cjs (no launcher)', command: process.execPath, args: [bundle], expect: handshake },
  ]
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
    `1. Start to first stdout line (handshake), ms: ${STARTUP_RUNS} interleaved runs each after ${STARTUP_WARMUP} warm-up rounds`,
    ['variant', 'median', 'p90', 'min', 'max', 'median ÷ floor'],
    variants.map((v, i) => [v.name, ms(median(times[i]!)), ms(quantile(times[i]!, 0.9)), ms(Math.min(...times[i]!)), ms(Math.max(...times[i]!)), ratio(median(times[i]!), floor)]),
  )
  const viaLauncher = median(times[1]!)
  const direct = median(times[2]!)
  console.log(`\n  provider (launcher) median ÷ bare node median: ${ratio(viaLauncher, floor)} (target ≤ 1.50×: ${viaLauncher / floor <= 1.5 ? 'met' : 'NOT met'})`)
  console.log(`  sh launcher cost (launcher − direct medians): ${ms(viaLauncher - direct)} ms`)
}

// ---------------------------------------------------------------------------------------------
// 2. Terraform wall times: provider_lite_keypair against terraform_data.

type Kind = 'provider_lite_keypair' | 'terraform_data'
const KINDS: readonly Kind[] = ['provider_lite_keypair', 'terraform_data']
const STEPS = ['plan', 'apply', 'no-op plan', 'destroy'] as const
type Step = (typeof STEPS)[number]

function configuration(kind: Kind, count: number): string {
  const variable = 'variable "run" {\n  type = string\n}\n'
  if (kind === 'terraform_data') {
    return `${variable}\nresource "terraform_data" "item" {\n  count = ${count}\n  input = "bench-\${var.run}-\${count.index}"\n}\n`
  }
  return (
    'terraform {\n  required_providers {\n    provider = {\n      source = "provider/provider"\n    }\n  }\n}\n\n' +
    `${variable}\nresource "provider_lite_keypair" "item" {\n  count = ${count}\n  name  = "bench-\${var.run}-\${count.index}"\n}\n`
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

async function terraformTimes(): Promise<void> {
  const baseUrl = await startEmulator()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_CLI_CONFIG_FILE: cliConfig,
    PROVIDER_API_KEY: 'emulator-key',
    PROVIDER_BASE_URL: baseUrl,
    CHECKPOINT_DISABLE: '1', // no version check over the network inside a timing
    TF_IN_AUTOMATION: '1',
  }
  // Logging would be part of what is timed; the user's TF_* run settings would change what runs.
  for (const name of Object.keys(env)) if (/^TF_(LOG|CLI_ARGS|REATTACH_PROVIDERS|PLUGIN_CACHE_DIR|DATA_DIR|WORKSPACE)/.test(name)) delete env[name]

  const dirs = new Map<string, string>()
  const key = (kind: Kind, count: number) => `${kind}×${count}`
  const initTimes: string[] = []
  for (const count of COUNTS) {
    for (const kind of KINDS) {
      const dir = tempDir('bench-tf-')
      writeFileSync(join(dir, 'main.tf'), configuration(kind, count))
      const { ms: elapsed } = await timed('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env })
      initTimes.push(`${key(kind, count)} ${ms(elapsed)} ms`)
      dirs.set(key(kind, count), dir)
    }
  }

  const times = new Map<string, Record<Step, number[]>>()
  for (const k of dirs.keys()) times.set(k, { plan: [], apply: [], 'no-op plan': [], destroy: [] })
  const flags = ['-lock=false', '-input=false', '-no-color']
  let drift = 0
  for (let rep = 1; rep <= TF_REPS; rep++) {
    for (const count of COUNTS) {
      // Same rep, same count: both kinds back to back, first one then the other.
      const order = rep % 2 === 1 ? KINDS : [...KINDS].reverse()
      for (const kind of order) {
        const dir = dirs.get(key(kind, count))!
        const record = times.get(key(kind, count))!
        const vars = [`-var=run=${rep}`]
        record.plan.push((await timed('terraform', ['plan', ...flags, ...vars], { cwd: dir, env })).ms)
        record.apply.push((await timed('terraform', ['apply', ...flags, '-auto-approve', ...vars], { cwd: dir, env })).ms)
        const noop = await timed('terraform', ['plan', ...flags, '-detailed-exitcode', ...vars], { cwd: dir, env, ok: [0, 2] })
        if (noop.code === 2) drift++
        record['no-op plan'].push(noop.ms)
        record.destroy.push((await timed('terraform', ['destroy', ...flags, '-auto-approve', ...vars], { cwd: dir, env })).ms)
        // The next apply starts from no state at all, not from an emptied one.
        for (const file of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(dir, file), { force: true })
      }
    }
  }

  printTable(
    `2. Terraform wall time, ms: median of ${TF_REPS} runs each (plan and apply from no state; no-op plan after apply, with refresh)`,
    ['configuration', ...STEPS],
    COUNTS.flatMap((count) =>
      KINDS.map((kind) => {
        const record = times.get(key(kind, count))!
        return [`${count} × ${kind}`, ...STEPS.map((step) => ms(median(record[step])))]
      }),
    ),
  )
  printTable(
    'Ratio provider_lite_keypair ÷ terraform_data (medians)',
    ['count', ...STEPS],
    COUNTS.map((count) => {
      const provider = times.get(key('provider_lite_keypair', count))!
      const builtin = times.get(key('terraform_data', count))!
      return [`${count}`, ...STEPS.map((step) => ratio(median(provider[step]), median(builtin[step])))]
    }),
  )
  console.log(`\n  terraform init (once per dir): ${initTimes.join(', ')}`)
  console.log(`  emulator: ${baseUrl}; flags: ${flags.join(' ')} (-auto-approve for apply and destroy)`)
  if (drift > 0) console.log(`  WARNING: ${drift} no-op plan(s) after apply proposed changes`)
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now()
  requireBuild()
  machine()
  await startup()
  await terraformTimes()
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

// How the benchmark has Terraform launch a provider, the same way for ours, the Go peer and each runtime
// candidate: a packed filesystem mirror (the registry's zip layout) with a CLI configuration that installs
// that one provider from it and nothing from the network, then `terraform init`, whose lock file Terraform
// checks the unpacked package against at every command. Also: the Terraform configurations of N resources,
// the size and hash of the package Terraform hashes, and the peak RSS of the provider processes.
// Must not: time Terraform commands (terraform-times.ts and candidates.ts do).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { tempDir, timed, track } from './support.js'

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' }
export const OS_ARCH = `${process.platform}_${GO_ARCH[process.arch] ?? process.arch}`

/** A provider as Terraform's configuration names it and as the CLI configuration installs it. */
export interface ProviderSource {
  readonly namespace: string
  readonly type: string
  readonly version: string
}

/** What one benchmarked subject writes into main.tf for `count` resources, and how Terraform finds it. */
export interface Subject {
  /** Short label in tables. */
  readonly label: string
  /** Terraform's CLI configuration (TF_CLI_CONFIG_FILE); undefined for terraform_data, which installs nothing. */
  readonly cliConfig?: string
  readonly source?: ProviderSource
  /** main.tf for `count` resources; `var.run` changes at every rep so that nothing is cached by name. */
  configuration(count: number): string
  /** Extra environment (TF_REATTACH_PROVIDERS for the serve mode). */
  readonly env?: NodeJS.ProcessEnv
}

const VARIABLE = 'variable "run" {\n  type = string\n}\n'

function requiredProvider(local: string, source: ProviderSource): string {
  return `terraform {\n  required_providers {\n    ${local} = {\n      source = "${source.namespace}/${source.type}"\n    }\n  }\n}\n\n`
}

export const terraformData: Subject = {
  label: 'terraform_data',
  configuration: (count) =>
    `${VARIABLE}\nresource "terraform_data" "item" {\n  count = ${count}\n  input = "bench-\${var.run}-\${count.index}"\n}\n`,
}

export const OURS: ProviderSource = { namespace: 'provider', type: 'provider', version: '' }

/** Our provider_lite_keypair: the cheapest resource of ours, one API call per operation and no wait for Active. */
export function keypairSubject(label: string, cliConfig: string, version: string, tag: string, env?: NodeJS.ProcessEnv): Subject {
  const source = { ...OURS, version }
  return {
    label,
    cliConfig,
    source,
    ...(env ? { env } : {}),
    configuration: (count) =>
      `${requiredProvider('provider', source)}${VARIABLE}\nresource "provider_lite_keypair" "item" {\n  count = ${count}\n  name  = "bench-${tag}-\${var.run}-\${count.index}"\n}\n`,
  }
}

/**
 * The Go peer's peer_keypair (tools/terraform-provider-peer): provider_lite_keypair's schema and identity,
 * with a key pair of the service's sizes made on the spot, no API call. Terraform keeps, encodes and
 * writes the same bytes per instance for it as for ours, so its time is Terraform's own work on such a
 * state plus a Go provider's; ours ÷ it is what our provider and its API calls add.
 */
export function peerKeypairSubject(cliConfig: string, version: string): Subject {
  const source = { namespace: 'provider', type: 'peer', version }
  return {
    label: 'peer_keypair (Go peer)',
    cliConfig,
    source,
    configuration: (count) =>
      `${requiredProvider('peer', source)}${VARIABLE}\nresource "peer_keypair" "item" {\n  count = ${count}\n  name  = "bench-l-\${var.run}-\${count.index}"\n}\n`,
  }
}

/** The Go peer's peer_resource (tools/terraform-provider-peer): stores a map of triggers, no API call. */
export function peerSubject(cliConfig: string, version: string): Subject {
  const source = { namespace: 'provider', type: 'peer', version }
  return {
    label: 'peer_resource (Go peer)',
    cliConfig,
    source,
    configuration: (count) =>
      `${requiredProvider('peer', source)}${VARIABLE}\nresource "peer_resource" "item" {\n  count = ${count}\n  triggers = {\n    name = "bench-\${var.run}-\${count.index}"\n  }\n}\n`,
  }
}

/** The mirror's CLI configuration: this provider from `mirror`, nothing from the network. */
export function cliConfigFor(mirror: string, source: ProviderSource, dir: string): string {
  const address = `"registry.terraform.io/${source.namespace}/${source.type}"`
  const path = join(dir, 'terraformrc')
  writeFileSync(
    path,
    `provider_installation {\n  filesystem_mirror {\n    path    = "${mirror}"\n    include = [${address}]\n  }\n  direct {\n    exclude = [${address}]\n  }\n}\n`,
  )
  return path
}

/**
 * A packed filesystem mirror of one provider, as a registry serves it: the zip
 * `terraform-provider-<type>_<version>_<os>_<arch>.zip` holding `files` (name in the package → path here).
 * Stored, not deflated: the zip is only read at `terraform init`, and what is hashed at every command is
 * the unpacked package. Resolves to the CLI configuration that installs it.
 */
export function packedMirror(source: ProviderSource, files: Readonly<Record<string, string>>): string {
  const dir = tempDir(`bench-mirror-${source.type}-`)
  const stage = join(dir, 'stage')
  mkdirSync(stage)
  for (const [name, path] of Object.entries(files)) copyFileSync(path, join(stage, name))
  const target = join(dir, 'mirror', 'registry.terraform.io', source.namespace, source.type)
  mkdirSync(target, { recursive: true })
  const zip = join(target, `terraform-provider-${source.type}_${source.version}_${OS_ARCH}.zip`)
  execFileSync('zip', ['-q', '-0', '-X', zip, ...Object.keys(files)], { cwd: stage })
  return cliConfigFor(join(dir, 'mirror'), source, dir)
}

/** Terraform's environment for a subject: its CLI configuration and the emulator, no logging, no network check. */
export function terraformEnv(subject: Subject, baseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROVIDER_API_KEY: 'emulator-key',
    PROVIDER_BASE_URL: baseUrl,
    CHECKPOINT_DISABLE: '1', // no version check over the network inside a timing
    TF_IN_AUTOMATION: '1',
  }
  // Logging would be part of what is timed; the user's TF_* run settings would change what runs.
  for (const name of Object.keys(env))
    if (/^TF_(LOG|CLI_ARGS|REATTACH_PROVIDERS|PLUGIN_CACHE_DIR|DATA_DIR|WORKSPACE|CLI_CONFIG_FILE)/.test(name)) delete env[name]
  // terraform_data installs nothing; an empty configuration keeps the user's own away from it too.
  env.TF_CLI_CONFIG_FILE = subject.cliConfig ?? '/dev/null'
  return { ...env, ...subject.env }
}

/** A working directory with main.tf for `count` resources of the subject, initialised (lock file written). */
export async function initialised(terraform: string, subject: Subject, count: number, baseUrl: string): Promise<string> {
  const dir = tempDir('bench-tf-')
  writeFileSync(join(dir, 'main.tf'), subject.configuration(count))
  await timed(terraform, ['init', '-input=false', '-no-color'], { cwd: dir, env: terraformEnv(subject, baseUrl) })
  return dir
}

/** The unpacked package `terraform init` installed, which Terraform hashes against the lock file at every command. */
export function installedPackage(workDir: string, source: ProviderSource): string {
  return join(workDir, '.terraform', 'providers', 'registry.terraform.io', source.namespace, source.type, source.version, OS_ARCH)
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .sort()
}

export function packageBytes(dir: string): number {
  return filesUnder(dir).reduce((sum, path) => sum + statSync(path).size, 0)
}

/** Times the `h1:` hash of a package directory as Terraform computes it: SHA-256 of every file, then of their sorted list. */
export function timeH1(dir: string): { ms: number; hash: string } {
  const start = performance.now()
  const lines = filesUnder(dir).map((path) => `${createHash('sha256').update(readFileSync(path)).digest('hex')}  ${relative(dir, path)}\n`)
  const hash = `h1:${createHash('sha256').update(lines.sort().join('')).digest('base64')}`
  return { ms: performance.now() - start, hash }
}

// ---------------------------------------------------------------------------------------------
// Peak RSS of the provider processes: every descendant of the Terraform process (its only children are
// provider launches) is sampled from /proc every SAMPLE_MS; VmHWM is the process's own high-water mark,
// so only growth in its last SAMPLE_MS before exit can be missed.

const SAMPLE_MS = 20

interface ProcStat {
  ppid: number
  /** User and system CPU time so far, ms. */
  cpuMs: number
}

/** A process's parent and CPU time, from /proc/<pid>/stat; throws when the process is gone. */
function procStat(pid: number): ProcStat {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks() }
}

/** Every process's parent and CPU time. */
function procStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      stats.set(Number(name), procStat(Number(name)))
    } catch {
      // the process ended between readdir and read
    }
  }
  return stats
}

function highWaterKiB(pid: number): number | undefined {
  try {
    const found = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return found ? Number(found[1]) : undefined
  } catch {
    return undefined
  }
}

export interface Sampled {
  /** The peak VmHWM of each provider process seen, in bytes. */
  peaks: number[]
  /** The CPU time of the provider processes (Terraform's descendants), ms: each as last sampled before it ended. */
  providerCpuMs: number
  /** Terraform's own CPU time, ms, as last sampled. */
  terraformCpuMs: number
}

export interface ProcessSampler {
  /** Set once the Terraform command is spawned. */
  watch(pid: number): void
  /** Stops sampling. */
  stop(): Sampled
}

/**
 * Samples a Terraform command's process tree every 20 ms: each provider launch's peak RSS and CPU time, and
 * Terraform's own CPU time. A process's last 20 ms before it ends are not seen (a few launches a command).
 */
export function processSampler(): ProcessSampler {
  let root: number | undefined
  const peaks = new Map<number, number>()
  const cpu = new Map<number, number>()
  let terraformCpuMs = 0
  const tick = () => {
    if (root === undefined || !existsProc(root)) return
    const stats = procStats()
    terraformCpuMs = stats.get(root)?.cpuMs ?? terraformCpuMs
    for (const [pid, stat] of stats) {
      let up: number | undefined = stat.ppid
      while (up !== undefined && up > 1 && up !== root) up = stats.get(up)?.ppid
      if (up !== root || pid === root) continue
      cpu.set(pid, stat.cpuMs)
      const kib = highWaterKiB(pid)
      if (kib !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, kib))
    }
  }
  const timer = setInterval(tick, SAMPLE_MS)
  return {
    watch(pid) {
      root = pid
    },
    stop() {
      clearInterval(timer)
      return {
        peaks: [...peaks.values()].map((kib) => kib * 1024),
        providerCpuMs: [...cpu.values()].reduce((sum, ms) => sum + ms, 0),
        terraformCpuMs,
      }
    },
  }
}

function existsProc(pid: number): boolean {
  try {
    statSync(`/proc/${pid}`)
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------
// The emulator over HTTP on loopback, with no provisioning delay (its faults are off unless asked for).
// Its request log keeps every request and only grows, and its objects would pile up between subjects; so
// each timed cycle gets a fresh one, and every subject meets the same empty service.

let ticksPerSecond: number | undefined
/** The kernel's clock ticks per second, in which /proc reports CPU time. */
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  return ticksPerSecond
}

export class Emulator {
  #child: ChildProcess | undefined
  #url = ''
  constructor(private readonly bin: string) {}

  get url(): string {
    return this.#url
  }

  /**
   * The CPU time (user + system) the running emulator has used, in ms, from /proc: read before and after a
   * command, it is the service's share of that command, which no change of the provider can reach.
   */
  cpuMs(): number {
    const pid = this.#child?.pid
    if (pid === undefined) return 0
    return procStat(pid).cpuMs
  }

  /**
   * How many API requests the running emulator has answered (its request log's last `seq`): read before
   * and after a command, the requests that command sent.
   */
  async requestCount(): Promise<number> {
    const url = `${new URL(this.#url).origin}/_emulator/requests?since=${this.#seen}`
    // A pooled connection the emulator closed as idle while a long command ran fails at once: once more
    // on a new one.
    const answer = await fetch(url, { signal: AbortSignal.timeout(30_000) }).catch(() =>
      fetch(url, { signal: AbortSignal.timeout(30_000), headers: { connection: 'close' } }),
    )
    const log = ((await answer.json()) as { data: { seq: number }[] }).data
    this.#seen = Math.max(this.#seen, ...log.map((entry) => entry.seq))
    return this.#seen
  }
  #seen = 0

  /**
   * Stops the running emulator, if any, and starts a new one with the launcher's `args`; resolves to its
   * base URL. `latencyMs` adds that much to every API call (a fault rule of mode `delay` on every path),
   * as a remote service's round trip would; nothing else of a remote service (the `remote` profile's
   * lost answers) is played, so that every command succeeds and its time is the figure.
   */
  async fresh(latencyMs?: number, args: readonly string[] = []): Promise<string> {
    const old = this.#child
    if (old && old.exitCode === null && old.signalCode === null) {
      const exited = new Promise((resolve) => old.once('exit', resolve))
      old.kill('SIGKILL')
      await exited
    }
    this.#url = await new Promise<string>((resolve, reject) => {
      const env = {
        ...process.env,
        EMULATOR_PORT: '0',
        EMULATOR_PROVISIONING_DELAY_MS: '0',
      }
      this.#seen = 0
      const child = track(spawn(process.execPath, [this.bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }))
      this.#child = child
      let stdout = ''
      let stderr = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-2000)
      })
      child.stdout?.on('data', (chunk: Buffer) => {
        if (stdout.includes('\n')) return
        stdout += chunk.toString()
        const end = stdout.indexOf('\n')
        if (end !== -1) resolve(stdout.slice(0, end).trim())
      })
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`emulator exited (${code}) before its base URL: ${stderr.trim()}`)))
    })
    if (latencyMs !== undefined) {
      const added = await fetch(`${new URL(this.#url).origin}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: '*', path: '/**', mode: 'delay', delay_ms: latencyMs, count: null }),
        signal: AbortSignal.timeout(30_000),
      })
      if (!added.ok) throw new Error(`the emulator refused the latency rule: ${added.status} ${await added.text()}`)
    }
    return this.#url
  }
}

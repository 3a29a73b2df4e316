// What every section of the benchmark shares: the repository root, settings from the environment, the
// processes and temp dirs it makes (all tracked, so that any exit path removes them), running a command
// with a wall clock, the figures (median, quantile) and the Markdown tables they are printed in.
// Must not: measure anything itself, nor assert anything (the bench prints figures; nothing here fails on one).
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createCertificate } from '../src/terraform/certificate.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2'
/** One command's limit: a destroy of 500 keypairs took 105 s with the 2 cores at a load average of 13. */
export const COMMAND_TIMEOUT_MS = 600_000

export function positiveInt(name: string, fallback: number): number {
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

export function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.push(dir)
  return dir
}

/** Spawns `command` and resolves with the time to its first stdout line; kills it and waits for its exit. */
export function timeToFirstLine(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; line: string }> {
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

export interface RunOptions {
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  /** Exit codes that count as success (terraform plan -detailed-exitcode answers 2 for "changes"). */
  readonly ok?: readonly number[]
  /** Called with the child's pid once it is spawned (the peak-RSS sampler watches its descendants). */
  readonly onSpawn?: (pid: number) => void
}

/** Runs a command to its end; resolves with its wall time and exit code, rejects on any other exit. */
export function timed(command: string, args: readonly string[], options: RunOptions): Promise<{ ms: number; code: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] }))
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
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

/** Terraform's environment for a plugin; without PLUGIN_CLIENT_CERT the provider serves plaintext (the bench's own client). */
export function pluginEnv(tls: boolean): NodeJS.ProcessEnv {
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

// ---------------------------------------------------------------------------------------------
// Figures.

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN
}
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
export const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)}` : '–')
export const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–')
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
export const verdict = (value: number, target: number) => (value <= target ? 'met' : 'NOT met')

export function printTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
  console.log(`\n${title}\n`)
  console.log(line(headers))
  console.log(`|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`)
  for (const row of rows) console.log(line(row))
}

// Benchmarks of both providers (`npm run bench`), every figure beside its floor and its target, measured
// side by side in one run (bench/README.md shows a run and what it says): launch to handshake and the
// per-phase breakdown of our executables; `terraform plan`/`apply`/`destroy` of 1, 50, 500 and 2000 resources,
// our provider launched as Terraform launches it against the Go peer (tools/terraform-provider-peer)
// launched the same way and terraform_data as the floor; the peak RSS of the provider processes; the
// package Terraform hashes; where a plan's time goes, from Terraform's log; Shutdown to exit after API
// calls; the runtime candidates (bench/candidates.ts); Pulumi preview and up with the plugin launched; and
// the emulator alone at 500 and 2000 keypairs, in memory and with a state file (bench/emulator-times.ts).
// The executables measured are the release's (run `npm run release` first). Not a test: it prints
// figures and asserts nothing. Every process and temp dir it makes is removed, even on failure, and the
// whole run is bounded by BENCH_DEADLINE_MIN.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:http2'
import { cpus, loadavg, platform, release } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { candidates } from './candidates.js'
import { emulatorTimes } from './emulator-times.js'
import { Emulator, keypairSubject, OS_ARCH, packedMirror, peerKeypairSubject, peerSubject, type Subject, terraformEnv } from './launched.js'
import { pulumiTimes } from './pulumi-times.js'
import {
  cleanUp,
  median,
  ms,
  pluginEnv,
  positiveInt,
  printTable,
  quantile,
  ratio,
  ROOT,
  tempDir,
  timed,
  timeToFirstLine,
  track,
  verdict,
} from './support.js'
import { packageHash, peakRss, planTrace, terraformTimes } from './terraform-times.js'

const STARTUP_RUNS = positiveInt('BENCH_STARTUP_RUNS', 25)
const STARTUP_WARMUP = 2
const PHASE_RUNS = positiveInt('BENCH_PHASE_RUNS', 10)
const SHUTDOWN_REPS = positiveInt('BENCH_SHUTDOWN_REPS', 3)
/** The whole run is bounded: past this, everything is killed and the run fails. */
const DEADLINE_MS = positiveInt('BENCH_DEADLINE_MIN', 75) * 60_000
const PEER_VERSION = '1.0.0'

// ---------------------------------------------------------------------------------------------
// What is measured: the executables users get (dist/release), the bundles, and the floor.

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const packageDir = join(ROOT, 'dist/mirror/registry.terraform.io/provider/provider', version, OS_ARCH)
const launcher = join(packageDir, `terraform-provider-provider_v${version}`)
const tfBundle = join(packageDir, 'provider.cjs')
const pulumiBundle = join(ROOT, 'dist/pulumi/provider.cjs')
const releaseDir = join(ROOT, 'dist/release')
const releaseCliConfig = join(releaseDir, 'terraformrc')
const emulatorBin = join(ROOT, 'build/src/bin/emulator.js')

interface Executables {
  /** The single executables, unpacked from the release archives of this platform. */
  readonly tf: string
  readonly pulumi: string
  /** The Pulumi plugin tarball, as `pulumi plugin install --file` takes it. */
  readonly pulumiTarball: string
}

/** The real clients, from the project's tools cache (`npm run tools` builds what is missing). */
interface Tools {
  readonly terraform: string
  readonly terraformVersion: string
  readonly peer: string
  readonly pulumi: string
  readonly yamlHost: string
}

function releaseExecutables(): Executables {
  const zip = join(releaseDir, `terraform-provider-provider_${version}_${OS_ARCH}.zip`)
  const tarball = join(releaseDir, `pulumi-resource-provider-v${version}-${OS_ARCH.replace('_', '-')}.tar.gz`)
  const missing = [zip, tarball, releaseCliConfig, launcher, tfBundle, pulumiBundle, emulatorBin].filter((path) => !existsSync(path))
  if (missing.length > 0) throw new Error(`not built (run npm run release): missing ${missing.join(', ')}`)
  const dir = tempDir('bench-release-')
  execFileSync('unzip', ['-q', zip, '-d', dir])
  execFileSync('tar', ['-xzf', tarball, '-C', dir])
  return { tf: join(dir, `terraform-provider-provider_v${version}`), pulumi: join(dir, 'pulumi-resource-provider'), pulumiTarball: tarball }
}

/** The Terraform the figures are measured with: the newest pinned one (tools/terraform-1.16). */
const TERRAFORM = 'terraform-1.16.4'

function tools(): Tools {
  const only = [TERRAFORM, 'terraform-provider-peer', 'pulumi', 'pulumi-language-yaml'].flatMap((tool) => ['--only', tool])
  const json = execFileSync(process.execPath, [join(ROOT, 'scripts/tools.mjs'), 'json', ...only], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const found = JSON.parse(json) as Record<string, { bin: string; version: string }>
  const tf = found[TERRAFORM]
  const peer = found['terraform-provider-peer']
  const pulumi = found.pulumi
  const yaml = found['pulumi-language-yaml']
  if (!tf || !peer || !pulumi || !yaml)
    throw new Error(`scripts/tools.mjs json did not name ${TERRAFORM}, the peer, pulumi and its YAML host: ${json}`)
  return { terraform: tf.bin, terraformVersion: tf.version, peer: peer.bin, pulumi: pulumi.bin, yamlHost: yaml.bin }
}

function machine(t: Tools): void {
  const cpu = cpus()
  console.log('Machine')
  console.log(`  node       ${process.version} (${process.platform}/${process.arch}, ${platform()} ${release()})`)
  console.log(`  terraform  ${t.terraformVersion} (${t.terraform})`)
  console.log(`  Go peer    ${t.peer} (terraform-plugin-framework; mirror version ${PEER_VERSION})`)
  console.log(`  cpus       ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown'}`)
  load('at the start')
}

function load(when: string): void {
  console.log(
    `  load       ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min) ${when}: the ratios, measured side by side, are the figures to read`,
  )
}

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

async function startup(executables: Executables, peer: string): Promise<void> {
  const env = pluginEnv(true)
  const handshake = /^1\|6\|(tcp|unix)\|/
  const port = /^\d+$/
  const variants: Variant[] = [
    { name: 'node -e "console.log(1)" (floor)', command: process.execPath, args: ['-e', 'console.log(1)'], expect: /^1$/ },
    { name: 'terraform provider: single executable', command: executables.tf, args: [], expect: handshake, target: 1.15 },
    { name: 'terraform provider: node provider.cjs', command: process.execPath, args: [tfBundle], expect: handshake },
    { name: 'terraform provider: sh launcher (npm run build)', command: launcher, args: [], expect: handshake },
    { name: 'Go peer (terraform-plugin-framework)', command: peer, args: [], expect: handshake },
    { name: 'pulumi plugin: single executable', command: executables.pulumi, args: [], expect: port, target: 1.3 },
    { name: 'pulumi plugin: node provider.cjs', command: process.execPath, args: [pulumiBundle], expect: port },
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
  const rows: [string, string, readonly string[], 'terraform' | 'pulumi'][] = [
    ['terraform: single executable', executables.tf, [], 'terraform'],
    ['terraform: node provider.cjs', process.execPath, [tfBundle], 'terraform'],
    ['pulumi: single executable', executables.pulumi, [], 'pulumi'],
    ['pulumi: node provider.cjs', process.execPath, [pulumiBundle], 'pulumi'],
  ]
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

/** The serve mode (PROVIDER_DEBUG_REATTACH=1): one provider process Terraform reattaches to; resolves to its TF_REATTACH_PROVIDERS. */
function serveForReattach(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, [], { env: { ...env, PROVIDER_DEBUG_REATTACH: '1' }, stdio: ['ignore', 'ignore', 'pipe'] }))
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(stderr)
      if (found) resolve(found[1]!)
    })
    child.once('exit', (code) => reject(new Error(`the serve mode exited (${code}): ${stderr.slice(-500)}`)))
  })
}

// ---------------------------------------------------------------------------------------------
// 7. Shutdown to exit under Terraform after API calls (the kept-alive connection), from Terraform's log:
// "GRPCProvider.v6: Close" to "plugin process exited", per provider process.

async function shutdownAfterApi(terraform: string, ours: Subject, baseUrl: string): Promise<void> {
  const quiet = terraformEnv(ours, baseUrl)
  const dir = tempDir('bench-shutdown-')
  writeFileSync(join(dir, 'main.tf'), ours.configuration(3))
  await timed(terraform, ['init', '-input=false', '-no-color'], { cwd: dir, env: quiet })
  const gaps: number[] = []
  for (let rep = 1; rep <= SHUTDOWN_REPS; rep++) {
    for (const command of [
      ['apply', '-auto-approve'],
      ['destroy', '-auto-approve'],
    ]) {
      const log = spawnSync(terraform, [...command, '-input=false', '-no-color', `-var=run=s${rep}`], {
        cwd: dir,
        env: { ...quiet, TF_LOG: 'trace' },
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
    console.log('\n7. Shutdown to exit after API calls: no Close/exit pair found in the Terraform log')
    return
  }
  console.log(
    `\n7. Shutdown to exit after API calls (terraform apply/destroy of 3 keypairs, TF_LOG timestamps at 1 ms): ${gaps.length} provider processes`,
  )
  console.log(
    `  median ${ms(median(gaps))} ms, max ${ms(Math.max(...gaps))} ms (target ≤ 10 ms: ${verdict(median(gaps), 10)} at the median, ${verdict(Math.max(...gaps), 10)} at the max)`,
  )
}

// ---------------------------------------------------------------------------------------------

/** Sections by name, so that BENCH_ONLY (comma-separated) can run a few of them. */
const SECTIONS = ['startup', 'phases', 'terraform', 'rss', 'package', 'trace', 'shutdown', 'candidates', 'pulumi', 'emulator'] as const

async function main(): Promise<void> {
  const started = performance.now()
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
  const unknown = only?.filter((s) => !(SECTIONS as readonly string[]).includes(s)) ?? []
  if (unknown.length > 0) throw new Error(`BENCH_ONLY names unknown sections: ${unknown.join(', ')} (known: ${SECTIONS.join(', ')})`)
  const runs = (section: (typeof SECTIONS)[number]) => !only || only.includes(section)
  const executables = releaseExecutables()
  const t = tools()
  machine(t)
  const emulator = new Emulator(emulatorBin)
  const baseUrl = await emulator.fresh()
  console.log(`  emulator   ${baseUrl} (provisioning delay 0 ms, no faults; a fresh one for every timed cycle: its request log only grows)`)
  const ours = keypairSubject('provider_lite_keypair (ours)', releaseCliConfig, version, 'l')
  const peerMirror = packedMirror(
    { namespace: 'provider', type: 'peer', version: PEER_VERSION },
    { [`terraform-provider-peer_v${PEER_VERSION}`]: t.peer },
  )
  const peer = peerSubject(peerMirror, PEER_VERSION)
  const peerKeypair = peerKeypairSubject(peerMirror, PEER_VERSION)

  // A section that fails (a command killed at its time limit on a loaded machine) is reported, and the
  // others still run; the run then exits non-zero.
  const section = async (name: (typeof SECTIONS)[number], body: () => Promise<void>) => {
    if (!runs(name)) return
    try {
      await body()
    } catch (error) {
      console.log(`\n  section ${name} FAILED: ${error instanceof Error ? error.message.slice(0, 1500) : String(error)}`)
      process.exitCode = 1
    }
  }
  await section('startup', () => startup(executables, t.peer))
  await section('phases', () => phases(executables))
  await section('terraform', async () => {
    // The serve-mode process reads the base URL from its own environment once, so it keeps an emulator of
    // its own for the whole section (1 and 50 resources only: its log stays small).
    const served = await serveForReattach(executables.tf, terraformEnv(ours, await new Emulator(emulatorBin).fresh()))
    const reattached = keypairSubject('provider_lite_keypair (ours, reattached)', releaseCliConfig, version, 'r', {
      TF_REATTACH_PROVIDERS: served,
    })
    await terraformTimes(t.terraform, { ours, peer, peerKeypair, reattached }, emulator)
  })
  await section('rss', async () => {
    await peakRss(t.terraform, [ours, peerKeypair, peer], emulator)
  })
  await section('package', () => packageHash(t.terraform, [ours, peer], emulator.url))
  await section('trace', () => planTrace(t.terraform, [ours, peer], emulator))
  await section('shutdown', async () => shutdownAfterApi(t.terraform, ours, await emulator.fresh()))
  await section('candidates', () =>
    candidates({ terraform: t.terraform, emulator, version, executable: executables.tf, bundle: tfBundle, launcher, peer: t.peer }),
  )
  await section('pulumi', () =>
    pulumiTimes({ pulumi: t.pulumi, yamlHost: t.yamlHost, tarball: executables.pulumiTarball, version, emulator }),
  )
  await section('emulator', () => emulatorTimes(emulator))
  console.log('')
  load('at the end')
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

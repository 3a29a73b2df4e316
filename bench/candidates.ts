// Section 8 of `npm run bench`: the runtime candidates side by side, each launched by Terraform as the
// provider executable (packed filesystem mirror, lock file), with the Go peer in the same rounds: the
// Node.js single executable as shipped, the bundle under `node` from PATH (the sh launcher), the same
// bundle compiled by Bun (`bun build --compile`, with and without `--bytecode`), and the bundle run by
// Deno (the `deno` binary inside the package: `deno compile` needs `denort`, which is not on npm). The
// bundle is dist/mirror/…/provider.cjs, unchanged. Bun and Deno come from scripts/runtimes.mjs (pinned in tools/runtimes.json).
// Must not: assert anything; a candidate that fails is reported with its error, and the others go on.
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Emulator,
  initialised,
  installedPackage,
  keypairSubject,
  packageBytes,
  packedMirror,
  peerSubject,
  rssSampler,
  type Subject,
  terraformEnv,
} from './launched.js'
import { median, mib, ms, pluginEnv, positiveInt, printTable, ratio, ROOT, tempDir, timed, timeToFirstLine, verdict } from './support.js'
import { cycle, FLAGS, STEPS, type Step } from './terraform-times.js'

const REPS = positiveInt('BENCH_CANDIDATE_REPS', 3)
const STARTUP_RUNS = positiveInt('BENCH_CANDIDATE_STARTUP_RUNS', 15)
const COUNT = 50

export interface CandidateInputs {
  readonly terraform: string
  readonly emulator: Emulator
  readonly version: string
  /** The release's single executable. */
  readonly executable: string
  /** The provider bundle and the sh launcher of `npm run build`. */
  readonly bundle: string
  readonly launcher: string
  /** The Go peer's executable. */
  readonly peer: string
}

interface Candidate {
  readonly name: string
  /** How the executable came to be, or why it could not. */
  readonly note: string
  readonly subject?: Subject
  dir?: string
  error?: string
}

function runtimes(): Record<string, { version: string; bin: string } | undefined> {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'scripts/runtimes.mjs'), 'json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    )
  } catch (error) {
    console.log(`\n  scripts/runtimes.mjs failed, so Bun and Deno are left out: ${error instanceof Error ? error.message : String(error)}`)
    return {}
  }
}

const DENO_LAUNCHER = `#!/bin/sh
# Runs the provider bundle beside this file with the Deno binary beside it (no config file, no lock file,
# no update check; all permissions, as a compiled executable would have).
dir=$(dirname -- "$0")
DENO_NO_UPDATE_CHECK=1 exec "$dir/deno" run --allow-all --no-config --no-lock --quiet "$dir/provider.cjs"
`

function build(inputs: CandidateInputs): Candidate[] {
  const { version } = inputs
  const exe = `terraform-provider-provider_v${version}`
  const work = tempDir('bench-candidates-')
  const list: Candidate[] = []
  const add = (name: string, note: string, files: () => Record<string, string>) => {
    try {
      const cliConfig = packedMirror({ namespace: 'provider', type: 'provider', version }, files())
      list.push({ name, note, subject: keypairSubject(name, cliConfig, version, `c${list.length}`) })
    } catch (error) {
      list.push({ name, note, error: error instanceof Error ? error.message.split('\n')[0]! : String(error) })
    }
  }
  add('node single executable (shipped)', `Node.js ${process.versions.node} SEA with the trained code cache (npm run release)`, () => ({
    [exe]: inputs.executable,
  }))
  add('node on PATH (sh launcher + bundle)', 'the Node-bundle fallback: the package holds no runtime; the user installs Node.js', () => ({
    [exe]: inputs.launcher,
    'provider.cjs': inputs.bundle,
  }))
  const found = runtimes()
  const bun = found.bun
  if (bun) {
    for (const bytecode of [false, true]) {
      add(
        `bun ${bun.version} compiled${bytecode ? ' --bytecode' : ''}`,
        `bun build --compile${bytecode ? ' --bytecode' : ''} --no-compile-autoload-dotenv --no-compile-autoload-bunfig of the bundle, unchanged`,
        () => {
          const out = join(work, `bun${bytecode ? '-bytecode' : ''}`)
          // A compiled executable would otherwise load .env and bunfig.toml from the directory Terraform runs in.
          const flags = ['--compile', '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig', ...(bytecode ? ['--bytecode'] : [])]
          execFileSync(bun.bin, ['build', ...flags, inputs.bundle, '--outfile', out], { stdio: 'pipe' })
          return { [exe]: out }
        },
      )
    }
  }
  const deno = found.deno
  if (deno) {
    add(
      `deno ${deno.version} run (binary in the package)`,
      'deno compile needs denort, not on npm: sh launcher + deno + the bundle, unchanged',
      () => {
        const launcher = join(work, 'deno-launcher')
        writeFileSync(launcher, DENO_LAUNCHER)
        chmodSync(launcher, 0o755)
        const bundle = join(work, 'provider.cjs')
        copyFileSync(inputs.bundle, bundle)
        return { [exe]: launcher, deno: deno.bin, 'provider.cjs': bundle }
      },
    )
  }
  return list
}

export async function candidates(inputs: CandidateInputs): Promise<void> {
  const { terraform, emulator } = inputs
  const list = build(inputs)
  const peerVersion = '1.0.0'
  const peer: Candidate = {
    name: 'Go peer (terraform-plugin-framework)',
    note: 'the reference',
    subject: peerSubject(
      packedMirror(
        { namespace: 'provider', type: 'peer', version: peerVersion },
        { [`terraform-provider-peer_v${peerVersion}`]: inputs.peer },
      ),
      peerVersion,
    ),
  }
  const all = [...list, peer]
  const fail = (c: Candidate, error: unknown) => {
    c.error = (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 3).join(' ').slice(0, 300)
  }
  for (const c of all) {
    if (c.error || !c.subject) continue
    try {
      c.dir = await initialised(terraform, c.subject, COUNT, emulator.url)
    } catch (error) {
      fail(c, error)
    }
  }
  const live = () => all.filter((c) => c.error === undefined && c.dir !== undefined)
  const executableOf = (c: Candidate) => {
    const source = c.subject!.source!
    return join(installedPackage(c.dir!, source), `terraform-provider-${source.type}_v${source.version}`)
  }

  // Launch to handshake, with Terraform's mTLS environment, interleaved and rotating.
  const handshakes = new Map<Candidate, number[]>()
  const env = pluginEnv(true)
  for (let round = 0; round < STARTUP_RUNS + 1; round++) {
    const now = live()
    for (let k = 0; k < now.length; k++) {
      const c = now[(round + k) % now.length]!
      try {
        const { ms: elapsed, line } = await timeToFirstLine(executableOf(c), [], env)
        if (!/^1\|6\|(tcp|unix)\|/.test(line)) throw new Error(`unexpected first line '${line.slice(0, 200)}'`)
        if (round > 0) handshakes.set(c, [...(handshakes.get(c) ?? []), elapsed])
      } catch (error) {
        fail(c, error)
      }
    }
  }

  // plan, apply, no-op plan, destroy of 50, interleaved with the peer; then one sampled plan each for peak RSS.
  const times = new Map<Candidate, Record<Step, number[]>>()
  let drift = 0
  for (let rep = 1; rep <= REPS; rep++) {
    const now = live()
    for (let k = 0; k < now.length; k++) {
      const c = now[(rep + k) % now.length]!
      try {
        const got = await cycle(terraform, c.dir!, terraformEnv(c.subject!, await emulator.fresh()), `c${rep}`, () => drift++)
        const record = times.get(c) ?? { plan: [], apply: [], 'no-op plan': [], destroy: [] }
        for (const step of STEPS) record[step].push(got[step])
        times.set(c, record)
      } catch (error) {
        fail(c, error)
      }
    }
  }
  const rss = new Map<Candidate, number>()
  for (const c of live()) {
    const sampler = rssSampler()
    try {
      await timed(terraform, ['plan', ...FLAGS, '-var=run=rss'], {
        cwd: c.dir!,
        env: terraformEnv(c.subject!, await emulator.fresh()),
        onSpawn: (pid) => sampler.watch(pid),
      })
    } catch (error) {
      fail(c, error)
    } finally {
      rss.set(c, Math.max(0, ...sampler.stop()))
    }
  }

  const med = (c: Candidate, step: Step) => median(times.get(c)?.[step] ?? [])
  const peerHandshake = median(handshakes.get(peer) ?? [])
  const rows = all.map((c) => {
    if (!c.dir || !handshakes.has(c)) return [c.name, c.error ? `failed: ${c.error}` : 'not run', '', '', '', '', '', '', '']
    const size = packageBytes(installedPackage(c.dir, c.subject!.source!))
    const h = median(handshakes.get(c)!)
    return [
      c.name,
      mib(size),
      `${ms(h)} (${ratio(h, peerHandshake)})`,
      ...STEPS.map((step) => `${ms(med(c, step))} (${ratio(med(c, step), med(peer, step))})`),
      rss.has(c) ? mib(rss.get(c)!) : '–',
      c.error ? `failed later: ${c.error}` : 'answered every command',
    ]
  })
  printTable(
    `8. Runtime candidates as the provider executable, launched by Terraform: launch → handshake (median of ${STARTUP_RUNS}) and ${COUNT} × provider_lite_keypair (median of ${REPS}), ms, (÷ Go peer)`,
    ['candidate', 'package', 'launch → handshake', ...STEPS.map((s) => `${s} ${COUNT}`), 'peak RSS, plan', 'result'],
    rows,
  )
  printTable(
    "Candidates against issue 19's targets at 50 (÷ Go peer in the same rounds)",
    ['candidate', 'plan ≤ 1.5×', 'apply ≤ 2×', 'destroy ≤ 2×', 'package ≤ 50 MiB'],
    list
      .filter((c) => times.has(c))
      .map((c) => {
        const of = (step: Step, target: number) =>
          `${ratio(med(c, step), med(peer, step))} ${verdict(med(c, step) / med(peer, step), target)}`
        const size = packageBytes(installedPackage(c.dir!, c.subject!.source!))
        return [c.name, of('plan', 1.5), of('apply', 2), of('destroy', 2), `${mib(size)} ${verdict(size, 50 * 2 ** 20)}`]
      }),
  )
  console.log('')
  for (const c of list) console.log(`  ${c.name}: ${c.note}`)
  if (drift > 0) console.log(`  WARNING: ${drift} no-op plan(s) after apply proposed changes`)
}

// Section 8 of `npm run bench`: the runtime candidates side by side, each launched by Terraform as the
// provider executable (packed filesystem mirror, lock file), with the Go peer in the same rounds: the
// release's executable as shipped (Bun compiled with `--bytecode`, or a Node.js single executable in a
// release made before the switch: the row is named by what the executable is), the Node.js single
// executable built by scripts/node-sea.mjs, the bundle under `node` from PATH (the sh launcher), the
// bundle compiled by Bun without `--bytecode` and with `--bytecode` plus the build options that made a
// launch cheaper (bench/README.md, "Bun build options"), and the bundle run by Deno (the `deno` binary
// inside the package: `deno compile` needs `denort`, which is not on npm). The bundle is dist/mirror/…/provider.cjs, unchanged. Bun and
// Deno come from scripts/runtimes.mjs (pinned in tools/runtimes.json).
// Must not: assert anything; a candidate that fails is reported with its error, and the others go on.
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  type Emulator,
  initialised,
  installedPackage,
  keypairSubject,
  packageBytes,
  packedMirror,
  peerSubject,
  processSampler,
  type Subject,
  terraformEnv,
} from './launched.js'
import { median, mib, ms, pluginEnv, positiveInt, printTable, ratio, ROOT, tempDir, timed, timeToFirstLine, verdict } from './support.js'
import { cycle, FLAGS, STEPS, type Step } from './terraform-times.js'

const REPS = positiveInt('BENCH_CANDIDATE_REPS', 3)
const STARTUP_RUNS = positiveInt('BENCH_CANDIDATE_STARTUP_RUNS', 15)
const COUNT = positiveInt('BENCH_CANDIDATE_COUNT', 50)
/** Only the candidates whose name matches this regular expression (and the Go peer), when set. */
const ONLY = process.env.BENCH_CANDIDATES ? new RegExp(process.env.BENCH_CANDIDATES) : undefined
/** The training cycle of `--bytecode-order` is of this many keypairs, whatever COUNT the timed cycles have. */
const TRAINING_COUNT = 50

export interface CandidateInputs {
  readonly terraform: string
  readonly emulator: Emulator
  readonly version: string
  /** The release's executable for this platform. */
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

/**
 * What the release's executable is: a Node.js single executable has the SEA fuse blown (postject writes
 * `:1` after the sentinel); a Bun compiled one carries Bun's trailer, which the bare runtime holds once.
 */
function runtimeOf(executable: string): 'node' | 'bun' | 'unknown' {
  const data = readFileSync(executable)
  if (data.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')) return 'node'
  const trailer = '---- Bun! ----'
  const first = data.indexOf(trailer)
  return first !== -1 && data.indexOf(trailer, first + 1) !== -1 ? 'bun' : 'unknown'
}

const DENO_LAUNCHER = `#!/bin/sh
# Runs the provider bundle beside this file with the Deno binary beside it (no config file, no lock file,
# no update check; all permissions, as a compiled executable would have).
dir=$(dirname -- "$0")
DENO_NO_UPDATE_CHECK=1 exec "$dir/deno" run --allow-all --no-config --no-lock --quiet "$dir/provider.cjs"
`

/** For the training run of `--bytecode-order`: each launch writes the bytecode it used to a file of its own. */
const ORDER_LAUNCHER = `#!/bin/sh
BUN_BYTECODE_ORDER_OUT="$BENCH_BYTECODE_ORDER_DIR/launch-$$" exec "$(dirname -- "$0")/provider-bytecode"
`

/**
 * From scripts/runtimes.mjs: what every Bun candidate is compiled with, as the release's executables are
 * (`compile`), and the options the release adds to it (`adopted`).
 */
async function bunFlags(): Promise<{ compile: readonly string[]; adopted: string[] }> {
  const { BUN_COMPILE_FLAGS, BUN_RELEASE_FLAGS } = (await import(pathToFileURL(join(ROOT, 'scripts/runtimes.mjs')).href)) as {
    BUN_COMPILE_FLAGS: readonly string[]
    BUN_RELEASE_FLAGS: readonly string[]
  }
  return { compile: BUN_COMPILE_FLAGS, adopted: BUN_RELEASE_FLAGS.filter((flag) => !BUN_COMPILE_FLAGS.includes(flag)) }
}

/**
 * The order files of a training run: the executable compiled with `--bytecode`, launched by Terraform
 * through ORDER_LAUNCHER for one plan, apply, no-op plan and destroy of TRAINING_COUNT keypairs (what the timed
 * cycles do), each launch recording what it ran; oldest first, as `--bytecode-order` takes them.
 */
async function trainOrder(inputs: CandidateInputs, bytecode: string, work: string): Promise<string> {
  const dir = join(work, 'order')
  mkdirSync(dir)
  const launcher = join(work, 'order-launcher')
  writeFileSync(launcher, ORDER_LAUNCHER)
  chmodSync(launcher, 0o755)
  const files = { [`terraform-provider-provider_v${inputs.version}`]: launcher, 'provider-bytecode': bytecode }
  const cliConfig = packedMirror({ namespace: 'provider', type: 'provider', version: inputs.version }, files)
  const subject = keypairSubject('order training', cliConfig, inputs.version, 'train', { BENCH_BYTECODE_ORDER_DIR: dir })
  const cwd = await initialised(inputs.terraform, subject, TRAINING_COUNT, inputs.emulator.url)
  await cycle(inputs.terraform, cwd, terraformEnv(subject, await inputs.emulator.fresh()), 'train', () => {})
  const orders = readdirSync(dir)
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
  if (orders.length === 0) throw new Error('the training run wrote no order file (BUN_BYTECODE_ORDER_OUT)')
  return orders.join(',')
}

async function build(inputs: CandidateInputs): Promise<Candidate[]> {
  const { version } = inputs
  const exe = `terraform-provider-provider_v${version}`
  const work = tempDir('bench-candidates-')
  const list: Candidate[] = []
  const add = async (name: string, note: string, files: () => Record<string, string> | Promise<Record<string, string>>) => {
    if (ONLY && !ONLY.test(name)) return
    try {
      const cliConfig = packedMirror({ namespace: 'provider', type: 'provider', version }, await files())
      list.push({ name, note, subject: keypairSubject(name, cliConfig, version, `c${list.length}`) })
    } catch (error) {
      list.push({ name, note, error: error instanceof Error ? error.message.split('\n')[0]! : String(error) })
    }
  }
  const found = runtimes()
  const bun = found.bun
  const shipped = runtimeOf(inputs.executable)
  const { compile: BUN_COMPILE, adopted } = await bunFlags()
  const shippedName = {
    bun: `bun ${bun?.version ?? ''} compiled ${adopted.join(' ')} (shipped)`,
    node: 'node single executable (shipped)',
    unknown: 'the release executable (shipped)',
  }[shipped]
  await add(shippedName, "the release's executable for this platform (npm run release)", () => ({ [exe]: inputs.executable }))
  if (shipped !== 'node') {
    await add(
      'node single executable',
      `Node.js ${found.node?.version ?? process.versions.node} SEA with the trained code cache (scripts/node-sea.mjs)`,
      async () => {
        const out = join(work, 'node-sea')
        const nodeSea: { buildNodeSea(bundle: string, target: string): Promise<unknown> } = await import(
          pathToFileURL(join(ROOT, 'scripts/node-sea.mjs')).href
        )
        await nodeSea.buildNodeSea(inputs.bundle, out)
        return { [exe]: out }
      },
    )
  }
  await add(
    'node on PATH (sh launcher + bundle)',
    'the Node-bundle fallback: the package holds no runtime; the user installs Node.js',
    () => ({
      [exe]: inputs.launcher,
      'provider.cjs': inputs.bundle,
    }),
  )
  if (bun) {
    const compile = (name: string, flags: readonly string[]) => {
      const out = join(work, name)
      execFileSync(bun.bin, ['build', ...BUN_COMPILE, ...flags, inputs.bundle, '--outfile', out], { stdio: 'pipe' })
      return out
    }
    const variant = (suffix: string, flags: readonly string[] | (() => Promise<readonly string[]>), what: string) =>
      add(`bun ${bun.version} compiled ${suffix}`.trim(), `bun build ${[...BUN_COMPILE, suffix].join(' ').trim()}: ${what}`, async () => ({
        [exe]: compile(`bun-${list.length}`, typeof flags === 'function' ? await flags() : flags),
      }))
    await variant('', [], 'the bundle compiled at every launch')
    await variant('--bytecode', ['--bytecode'], "JavaScriptCore bytecode compiled at build time, with Bun's normal JIT policy")
    // Of the build options tried (bench/README.md, "Bun build options"), the JIT policy made launches cheaper
    // and the release adopted it; --bytecode-order is kept on top of the release's options to show what the
    // layout adds. --no-optimize-bytecode and --minify gained nothing worth a candidate.
    // The release's own options are the shipped row when the release is Bun's; built here otherwise.
    if (shipped !== 'bun')
      await variant(
        adopted.join(' '),
        adopted,
        "the release's options: tier-up thresholds scaled, so code that runs a few times stays in the interpreter",
      )
    await variant(
      `${adopted.join(' ')} --bytecode-order`,
      async () => [...adopted, `--bytecode-order=${await trainOrder(inputs, compile('bun-order-training', ['--bytecode']), work)}`],
      `the release's options, and the bytecode laid out by the order files of a training cycle (plan, apply, no-op plan, destroy of ${TRAINING_COUNT})`,
    )
  }
  const deno = found.deno
  if (deno) {
    await add(
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
  const list = await build(inputs)
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

  // plan, apply, no-op plan, destroy of COUNT, interleaved with the peer; then one sampled plan each for peak RSS.
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
    const sampler = processSampler()
    try {
      await timed(terraform, ['plan', ...FLAGS, '-var=run=rss'], {
        cwd: c.dir!,
        env: terraformEnv(c.subject!, await emulator.fresh()),
        onSpawn: (pid) => sampler.watch(pid),
      })
    } catch (error) {
      fail(c, error)
    } finally {
      rss.set(c, Math.max(0, ...sampler.stop().peaks))
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
    `Candidates against issue 19's targets at ${COUNT} (÷ Go peer in the same rounds)`,
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

// Terraform commands timed end to end, every subject interleaved in one run: our provider launched per
// command (the release's single executable, from a filesystem mirror and lock file), the Go peer launched
// the same way (its peer_resource, and its peer_keypair with our keypair's schema, identity and state bytes:
// what Terraform's own work on such a state costs), our provider reattached (serve mode), and Terraform's
// built-in terraform_data as the floor.
// Also the peak RSS of the provider processes, the package Terraform hashes and its hash time, and where
// a launched plan's time goes from Terraform's own log; the API requests of each command of ours, and the
// same commands with 150 ms added to every call, as a remote service's round trip. Prints figures beside
// the targets of issues 19 and 29. Must not: assert anything.
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  type Emulator,
  initialised,
  installedPackage,
  packageBytes,
  processSampler,
  type Subject,
  terraformData,
  terraformEnv,
  timeH1,
} from './launched.js'
import { median, mib, ms, positiveInt, printTable, ratio, timed, verdict } from './support.js'
import { type LaunchPhases, type PlanTrace, parsePlanTrace } from './terraform-trace.js'

const TF_REPS = positiveInt('BENCH_TF_REPS', 5)
const TF_REPS_LARGE = positiveInt('BENCH_TF_REPS_500', 3)
const TF_REPS_HUGE = positiveInt('BENCH_TF_REPS_2000', 3)
const REMOTE_REPS = positiveInt('BENCH_REMOTE_REPS', 1)
const RSS_REPS = positiveInt('BENCH_RSS_REPS', 2)
const HASH_RUNS = positiveInt('BENCH_HASH_RUNS', 10)
export const STEPS = ['plan', 'apply', 'no-op plan', 'destroy'] as const
export type Step = (typeof STEPS)[number]
export const FLAGS = ['-lock=false', '-input=false', '-no-color', '-parallelism=10'] as const
const COUNTS = [1, 50, 500, 2000] as const
/** The ranges the growth per added resource is read over. */
const GROWTH = [
  [50, 500],
  [500, 2000],
] as const
/** The added latency per call of a remote service (as the emulator's `remote` profile adds), and the counts it is timed at. */
const REMOTE_LATENCY_MS = 150
const REMOTE_COUNTS = [50, 500] as const
const PARALLELISM = 10
const repsAt = (count: number) => (count >= 2000 ? TF_REPS_HUGE : count >= 500 ? TF_REPS_LARGE : TF_REPS)
/** Issue 19's targets, ours ÷ the Go peer at 50 resources. */
const PEER_TARGETS: Partial<Record<Step, number>> = { plan: 1.5, apply: 2, destroy: 2 }
/** The serve mode's earlier target, reattached ÷ terraform_data for a plan of 50. */
const REATTACH_PLAN_TARGET = 1.5

export interface Subjects {
  readonly ours: Subject
  readonly peer: Subject
  /** The Go peer's resource with our keypair's schema, identity and state (see peerKeypairSubject). */
  readonly peerKeypair: Subject
  readonly reattached: Subject
}

/** What the service saw of one command: the emulator's CPU time, ms, and the API requests it answered. */
export type ServiceMeter = () => Promise<{ readonly cpuMs: number; readonly requests: number }>

/** One plan, apply, no-op plan (after apply, with refresh) and destroy, from no state; the times of each. */
export async function cycle(
  terraform: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  run: string,
  onDrift: () => void,
  /** When given, read before and after each command: `service` and `requests` are then what it measured. */
  meter?: ServiceMeter,
): Promise<Record<Step, number> & { service?: Record<Step, number>; requests?: Record<Step, number> }> {
  const options = { cwd: dir, env }
  const vars = [`-var=run=${run}`]
  const service = { plan: 0, apply: 0, 'no-op plan': 0, destroy: 0 }
  const requests = { plan: 0, apply: 0, 'no-op plan': 0, destroy: 0 }
  const step = async (name: Step, args: readonly string[], ok?: number[]) => {
    const before = await meter?.()
    const result = await timed(terraform, args, ok ? { ...options, ok } : options)
    const after = await meter?.()
    service[name] = (after?.cpuMs ?? 0) - (before?.cpuMs ?? 0)
    requests[name] = (after?.requests ?? 0) - (before?.requests ?? 0)
    return result
  }
  const plan = (await step('plan', ['plan', ...FLAGS, ...vars])).ms
  const apply = (await step('apply', ['apply', ...FLAGS, '-auto-approve', ...vars])).ms
  const noop = await step('no-op plan', ['plan', ...FLAGS, '-detailed-exitcode', ...vars], [0, 2])
  if (noop.code === 2) onDrift()
  const destroy = (await step('destroy', ['destroy', ...FLAGS, '-auto-approve', ...vars])).ms
  // The next apply starts from no state at all, not from an emptied one.
  for (const file of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(dir, file), { force: true })
  return { plan, apply, 'no-op plan': noop.ms, destroy, ...(meter ? { service, requests } : {}) }
}

/** The emulator's meter for `cycle`. */
const meterOf =
  (emulator: Emulator): ServiceMeter =>
  async () => ({ cpuMs: emulator.cpuMs(), requests: await emulator.requestCount() })

export async function terraformTimes(terraform: string, subjects: Subjects, emulator: Emulator): Promise<void> {
  const { ours, peer, peerKeypair, reattached } = subjects
  const kinds = (count: number) =>
    count === 1
      ? [terraformData, ours, peer, reattached]
      : count <= 50
        ? [terraformData, ours, peer, peerKeypair, reattached]
        : [terraformData, ours, peer, peerKeypair]
  const dirs = new Map<string, string>()
  const key = (subject: Subject, count: number) => `${subject.label}×${count}`
  for (const count of COUNTS)
    for (const subject of kinds(count)) dirs.set(key(subject, count), await initialised(terraform, subject, count, emulator.url))

  const times = new Map<string, Record<Step, number[]>>()
  const serviceCpu = new Map<string, Record<Step, number[]>>()
  const requests = new Map<string, Record<Step, number[]>>()
  for (const k of dirs.keys()) {
    times.set(k, { plan: [], apply: [], 'no-op plan': [], destroy: [] })
    serviceCpu.set(k, { plan: [], apply: [], 'no-op plan': [], destroy: [] })
    requests.set(k, { plan: [], apply: [], 'no-op plan': [], destroy: [] })
  }
  let drift = 0
  for (let rep = 1; rep <= Math.max(...COUNTS.map(repsAt)); rep++) {
    for (const count of COUNTS) {
      if (rep > repsAt(count)) continue
      // Same rep, same count: the subjects back to back, the order rotating between reps.
      const list = kinds(count)
      for (const subject of list.map((_, i) => list[(i + rep) % list.length]!)) {
        const got = await cycle(
          terraform,
          dirs.get(key(subject, count))!,
          terraformEnv(subject, await emulator.fresh()),
          `${rep}`,
          () => drift++,
          meterOf(emulator),
        )
        const record = times.get(key(subject, count))!
        for (const step of STEPS) record[step].push(got[step])
        for (const step of STEPS) serviceCpu.get(key(subject, count))![step].push(got.service?.[step] ?? 0)
        for (const step of STEPS) requests.get(key(subject, count))![step].push(got.requests?.[step] ?? 0)
      }
    }
  }

  const med = (subject: Subject, count: number, step: Step) => median(times.get(key(subject, count))?.[step] ?? [])
  printTable(
    `3. Terraform wall time, ms: median of ${TF_REPS} runs each (${TF_REPS_LARGE} at 500, ${TF_REPS_HUGE} at 2000; plan and apply from no state; no-op plan after apply, with refresh; -parallelism=10)`,
    ['configuration', ...STEPS],
    COUNTS.flatMap((count) => kinds(count).map((s) => [`${count} × ${s.label}`, ...STEPS.map((step) => ms(med(s, count, step)))])),
  )
  printTable(
    "Ratios of medians, with issue 19's targets at 50 resources (ours ÷ Go peer: plan ≤ 1.5×, apply and destroy ≤ 2×) and issue 29's at 500 and 2000 (ours ÷ Go peer ≤ 1×)",
    ['ratio, count', ...STEPS],
    COUNTS.flatMap((count) => {
      const rows: string[][] = []
      const row = (name: string, a: Subject, b: Subject, targets: Partial<Record<Step, number>>) =>
        rows.push([
          `${name}, ${count}`,
          ...STEPS.map((step) => {
            const r = med(a, count, step) / med(b, count, step)
            const target = count === 50 ? targets[step] : count >= 500 && (b === peer || b === peerKeypair) && a === ours ? 1 : undefined
            return `${ratio(med(a, count, step), med(b, count, step))}${target ? ` (≤ ${target}×: ${verdict(r, target)})` : ''}`
          }),
        ])
      row('ours launched ÷ Go peer', ours, peer, PEER_TARGETS)
      if (count > 1) {
        row('ours launched ÷ peer_keypair (Go peer)', ours, peerKeypair, {})
        row('peer_keypair ÷ peer_resource (both Go peer)', peerKeypair, peer, {})
      }
      row('Go peer ÷ terraform_data', peer, terraformData, {})
      row('ours launched ÷ terraform_data', ours, terraformData, {})
      if (count <= 50) row('ours reattached ÷ terraform_data', reattached, terraformData, { plan: REATTACH_PLAN_TARGET })
      return rows
    }),
  )
  // Growth: the ratio of times flatters whoever has the larger fixed cost, so the target is read on the
  // time each added resource costs, (t_to − t_from) / (to − from).
  const added = (s: Subject, from: number, to: number, step: Step) => (med(s, to, step) - med(s, from, step)) / (to - from)
  const perAdded = (from: number, to: number, step: Step, than: Subject) => added(ours, from, to, step) / added(than, from, to, step)
  const growthRows = GROWTH.flatMap(([from, to]) => [
    ...[terraformData, ours, peer, peerKeypair].map((s) => [
      `${s.label}, ${from} → ${to}`,
      ...STEPS.map((step) => `${ratio(med(s, to, step), med(s, from, step))}, ${added(s, from, to, step).toFixed(2)} ms`),
    ]),
    [
      `ours ÷ Go peer, per added resource, ${from} → ${to} (target ≤ 1×)`,
      ...STEPS.map((step) => `${perAdded(from, to, step, peer).toFixed(2)}× (${verdict(perAdded(from, to, step, peer), 1)})`),
    ],
    [
      `ours ÷ peer_keypair (Go peer), per added resource, ${from} → ${to}`,
      ...STEPS.map((step) => `${perAdded(from, to, step, peerKeypair).toFixed(2)}× (${verdict(perAdded(from, to, step, peerKeypair), 1)})`),
    ],
  ])
  printTable('Growth: t_to ÷ t_from, and (t_to − t_from) ÷ (to − from) per added resource', ['subject, range', ...STEPS], growthRows)
  const sent = (count: number, step: Step) => median(requests.get(key(ours, count))?.[step] ?? [])
  printTable(
    `The API requests of each command of ours (the emulator's request log; median), beside its time`,
    ['subject', ...STEPS],
    COUNTS.map((count) => [
      `${count} × ${ours.label}`,
      ...STEPS.map((step) => `${Math.round(sent(count, step))} req, ${ms(med(ours, count, step))} ms`),
    ]),
  )
  // The service's share: the Go peer calls no API, ours calls the emulator, which runs on the same machine.
  const cpu = (count: number, step: Step) => median(serviceCpu.get(key(ours, count))?.[step] ?? [])
  const peerName = (than: Subject) => (than === peer ? 'Go peer' : 'peer_keypair (Go peer)')
  printTable(
    "The service's share: the emulator's CPU time during each command of ours, ms (median; /proc, 10 ms ticks), and the growth left to the provider",
    ['subject', ...STEPS],
    [
      ...COUNTS.map((count) => [`${count} × ${ours.label}: the emulator's CPU`, ...STEPS.map((step) => ms(cpu(count, step)))]),
      ...COUNTS.filter((count) => count >= 500).flatMap((count) =>
        [peer, peerKeypair].map((than) => [
          `ours ÷ ${peerName(than)}, ${count}, without the emulator's CPU`,
          ...STEPS.map((step) => ratio(med(ours, count, step) - cpu(count, step), med(than, count, step))),
        ]),
      ),
      ...GROWTH.flatMap(([from, to]) =>
        [peer, peerKeypair].map((than) => [
          `ours ÷ ${peerName(than)}, per added resource, ${from} → ${to}, without the emulator's CPU`,
          ...STEPS.map((step) => {
            const oursAdded = med(ours, to, step) - cpu(to, step) - (med(ours, from, step) - cpu(from, step))
            return `${(oursAdded / (med(than, to, step) - med(than, from, step))).toFixed(2)}×`
          }),
        ]),
      ),
    ],
  )
  await remoteTimes(terraform, ours, emulator, dirs.get.bind(dirs), key)
  console.log(`\n  flags: ${FLAGS.join(' ')} (-auto-approve for apply and destroy); the emulator's provisioning delay and faults are zero`)
  if (drift > 0) console.log(`  WARNING: ${drift} no-op plan(s) after apply proposed changes`)
}

// ---------------------------------------------------------------------------------------------
// The same commands of ours against an emulator that plays a remote service's round trip (150 ms added to
// every call, as the `remote` profile adds; without its 1 % of lost answers, which would fail the timed
// commands): fewer requests show as less time.
// The Go peer calls no API, so only ours is timed; beside each no-op plan, what it would take if it
// listed the pool once per keypair (N × 150 ms ÷ the parallelism), the floor of a read without sharing.

async function remoteTimes(
  terraform: string,
  ours: Subject,
  emulator: Emulator,
  dirOf: (key: string) => string | undefined,
  key: (subject: Subject, count: number) => string,
): Promise<void> {
  const rows: string[][] = []
  let drift = 0
  for (const count of REMOTE_COUNTS) {
    const dir = dirOf(key(ours, count))
    if (dir === undefined) continue
    const times: Record<Step, number[]> = { plan: [], apply: [], 'no-op plan': [], destroy: [] }
    const sent: Record<Step, number[]> = { plan: [], apply: [], 'no-op plan': [], destroy: [] }
    for (let rep = 1; rep <= REMOTE_REPS; rep++) {
      const env = terraformEnv(ours, await emulator.fresh(REMOTE_LATENCY_MS))
      const got = await cycle(terraform, dir, env, `remote${rep}`, () => drift++, meterOf(emulator))
      for (const step of STEPS) {
        times[step].push(got[step])
        sent[step].push(got.requests?.[step] ?? 0)
      }
    }
    const unshared = (count * REMOTE_LATENCY_MS) / PARALLELISM
    rows.push([
      `${count} × ${ours.label}`,
      ...STEPS.map((step) => `${ms(median(times[step]))} ms, ${Math.round(median(sent[step]))} req`),
      `${ms(unshared)} ms (${verdict(median(times['no-op plan']), unshared)} by the no-op plan)`,
    ])
  }
  printTable(
    `A remote service's round trip (${REMOTE_LATENCY_MS} ms added to every call): time and API requests of each command of ours, median of ${REMOTE_REPS}`,
    ['subject', ...STEPS, `one listing per keypair would take (N × ${REMOTE_LATENCY_MS} ms ÷ ${PARALLELISM})`],
    rows,
  )
  if (drift > 0) console.log(`  WARNING: ${drift} no-op plan(s) after apply proposed changes against the added latency`)
}

// ---------------------------------------------------------------------------------------------
// Peak RSS and CPU time by process during a plan, an apply, a no-op plan and a destroy of 500, the
// subjects interleaved, in runs of their own (sampling /proc every 20 ms costs CPU the timed runs should
// not pay). The CPU split shows what each provider itself costs, apart from Terraform and the emulator,
// which share the machine's cores with it in the timed runs.

const SAMPLED = ['plan', 'apply', 'no-op plan', 'destroy'] as const satisfies readonly Step[]

/** `subjects`: ours first, the Go peer last (the RSS target's denominator); any others between. */
export async function peakRss(
  terraform: string,
  subjects: readonly Subject[],
  emulator: Emulator,
  count = 500,
): Promise<Map<string, number>> {
  const dirs = await Promise.all(subjects.map((s) => initialised(terraform, s, count, emulator.url)))
  const empty = () => Object.fromEntries(SAMPLED.map((step) => [step, [] as number[]])) as Record<Step, number[]>
  const figures = subjects.map(() => ({
    peak: empty(),
    provider: empty(),
    terraform: empty(),
    service: empty(),
    processes: [] as number[],
  }))
  for (let rep = 1; rep <= RSS_REPS; rep++) {
    for (let i = 0; i < subjects.length; i++) {
      const index = (i + rep) % subjects.length
      const subject = subjects[index]!
      const options = { cwd: dirs[index]!, env: terraformEnv(subject, await emulator.fresh()) }
      const vars = [`-var=run=rss${rep}`]
      const args: Record<Step, string[]> = {
        plan: ['plan', ...FLAGS, ...vars],
        apply: ['apply', ...FLAGS, '-auto-approve', ...vars],
        'no-op plan': ['plan', ...FLAGS, ...vars],
        destroy: ['destroy', ...FLAGS, '-auto-approve', ...vars],
      }
      const got = figures[index]!
      for (const step of SAMPLED) {
        const sampler = processSampler()
        const service = emulator.cpuMs()
        try {
          await timed(terraform, args[step], { ...options, onSpawn: (pid) => sampler.watch(pid) })
        } finally {
          const seen = sampler.stop()
          got.peak[step].push(Math.max(0, ...seen.peaks))
          got.provider[step].push(seen.providerCpuMs)
          got.terraform[step].push(seen.terraformCpuMs)
          got.service[step].push(emulator.cpuMs() - service)
          if (step === 'plan') got.processes.push(seen.peaks.length)
        }
      }
      for (const file of ['terraform.tfstate', 'terraform.tfstate.backup']) rmSync(join(dirs[index]!, file), { force: true })
    }
  }
  const planPeaks = new Map(subjects.map((s, i) => [s.label, median(figures[i]!.peak.plan)]))
  const peerPlan = planPeaks.get(subjects[subjects.length - 1]!.label)!
  printTable(
    `4. Peak RSS of the provider processes (VmHWM, the largest of a command's launches, sampled every 20 ms), ${count} resources: median of ${RSS_REPS}`,
    ['subject', 'plan', 'apply', 'launches per plan', 'plan ÷ Go peer (target ≤ 2×)'],
    subjects.map((s, i) => {
      const plan = median(figures[i]!.peak.plan)
      const last = i === subjects.length - 1
      return [
        s.label,
        mib(plan),
        mib(median(figures[i]!.peak.apply)),
        `${median(figures[i]!.processes)}`,
        last ? '' : `${ratio(plan, peerPlan)} (${verdict(plan / peerPlan, 2)})`,
      ]
    }),
  )
  const cell = (i: number, step: Step) => {
    const f = figures[i]!
    return `${ms(median(f.terraform[step]))} / ${ms(median(f.provider[step]))} / ${ms(median(f.service[step]))}`
  }
  const providerRatio = (a: number, b: number, step: Step) => ratio(median(figures[a]!.provider[step]), median(figures[b]!.provider[step]))
  const last = subjects.length - 1
  printTable(
    `CPU time by process, ${count} resources, ms: Terraform / the provider's launches / the emulator (median of ${RSS_REPS}; each process as last sampled, every 20 ms)`,
    ['subject', ...SAMPLED],
    [
      ...subjects.map((s, i) => [s.label, ...SAMPLED.map((step) => cell(i, step))]),
      ...subjects
        .slice(1)
        .map((s, j) => [`the provider's launches: ours ÷ ${s.label}`, ...SAMPLED.map((step) => providerRatio(0, j + 1, step))]),
      ...(last > 1
        ? [
            [
              `Terraform's: ${subjects[1]!.label} ÷ ${subjects[last]!.label}`,
              ...SAMPLED.map((step) => ratio(median(figures[1]!.terraform[step]), median(figures[last]!.terraform[step]))),
            ],
          ]
        : []),
    ],
  )
  return planPeaks
}

// ---------------------------------------------------------------------------------------------
// The package Terraform hashes at every command, and the hash time: the h1 hash as Terraform computes it
// (SHA-256 of each file, then of the list), timed here over the installed package, ours and the peer's
// interleaved; Terraform's own figure is in section 6.

export async function packageHash(terraform: string, subjects: readonly Subject[], baseUrl: string): Promise<void> {
  const dirs = await Promise.all(subjects.map(async (s) => installedPackage(await initialised(terraform, s, 1, baseUrl), s.source!)))
  const times = subjects.map(() => [] as number[])
  for (let run = 0; run < HASH_RUNS + 1; run++) {
    for (let i = 0; i < subjects.length; i++) {
      const { ms: elapsed } = timeH1(dirs[i]!)
      if (run > 0) times[i]!.push(elapsed) // the first round only warms the page cache
    }
  }
  const peer = median(times[times.length - 1]!)
  printTable(
    `5. The package Terraform hashes at every command (the unpacked directory the lock file's h1: hash covers), hash time: median of ${HASH_RUNS}`,
    ['subject', 'size', 'target ≤ 50 MiB', 'h1 hash, ms', 'hash ÷ Go peer (target ≤ 2×)'],
    subjects.map((s, i) => {
      const bytes = packageBytes(dirs[i]!)
      const last = i === subjects.length - 1
      const h = median(times[i]!)
      return [
        s.label,
        mib(bytes),
        last ? '' : verdict(bytes, 50 * 2 ** 20),
        ms(h),
        last ? '' : `${ratio(h, peer)} (${verdict(h / peer, 2)})`,
      ]
    }),
  )
  console.log('\n  The package target is met when either the size or the hash-time target is.')
}

// ---------------------------------------------------------------------------------------------
// Where a launched `terraform plan` of 50 goes, from Terraform's own log (TF_LOG=trace, 1 ms
// timestamps): Terraform's check of the installed package's hash, and per provider launch Terraform's
// mTLS set-up, start to handshake, the calls (with the provider's own "service loaded" figure), and
// Close to exit. What is left is Terraform's own work (configuration, graph, state, output).

export async function planTrace(terraform: string, subjects: readonly Subject[], emulator: Emulator): Promise<void> {
  const dirs = await Promise.all(subjects.map((s) => initialised(terraform, s, 50, emulator.url)))
  const traces = subjects.map(() => [] as PlanTrace[])
  const walls = subjects.map(() => [] as number[])
  for (let rep = 1; rep <= TF_REPS; rep++) {
    for (let i = 0; i < subjects.length; i++) {
      const start = performance.now()
      const log = spawnSync(terraform, ['plan', ...FLAGS, `-var=run=t${rep}`], {
        cwd: dirs[i]!,
        env: { ...terraformEnv(subjects[i]!, await emulator.fresh()), TF_LOG: 'trace' },
        encoding: 'utf8',
        maxBuffer: 256 << 20,
      })
      walls[i]!.push(performance.now() - start)
      if (log.status !== 0) throw new Error(`terraform plan (TF_LOG=trace) failed: ${log.stdout.slice(-2000)}`)
      traces[i]!.push(parsePlanTrace(log.stderr))
    }
  }
  const launchSpan = (l: LaunchPhases) => l.mtls + l.startToHandshake + l.calls + l.closeToExit
  const sumOf = (t: PlanTrace, pick: (l: LaunchPhases) => number) => t.launches.reduce((sum, l) => sum + pick(l), 0)
  const rows: string[][] = []
  const summary: string[][] = []
  subjects.forEach((subject, i) => {
    const list = traces[i]!
    const med = (pick: (t: PlanTrace) => number) => median(list.map(pick))
    const count = Math.min(...list.map((t) => t.launches.length))
    for (let n = 0; n < count; n++) {
      const of = (pick: (l: LaunchPhases) => number) => ms(med((t) => pick(t.launches[n]!)))
      rows.push([
        `${subject.label}: launch ${n + 1}`,
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
      `${subject.label}: all launches`,
      all((l) => l.mtls),
      all((l) => l.startToHandshake),
      all((l) => l.calls),
      all((l) => l.serviceLoad),
      all((l) => l.closeToExit),
      all(launchSpan),
    ])
    summary.push([
      subject.label,
      ms(median(walls[i]!)),
      ms(med((t) => t.total)),
      ms(med((t) => t.packageHash)),
      ms(med((t) => sumOf(t, launchSpan))),
      ms(med((t) => t.total - t.packageHash - sumOf(t, launchSpan))),
      [...new Set(list.map((t) => t.launches.length))].join(' or '),
    ])
  })
  printTable(
    `6. Where a launched \`terraform plan\` of 50 goes, ms: median of ${TF_REPS} plans each, from Terraform's log (TF_LOG=trace)`,
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
  printTable(
    'The same plans in all, ms',
    ['subject', 'wall (logging on)', 'logged', 'package hash check', 'provider launches', "Terraform's own", 'launches'],
    summary,
  )
  console.log("\n  The provider controls start → handshake (beyond the runtime's own start), the calls and service load, Close → exit,")
  console.log('  and the size of what is hashed; Terraform controls the launch count, the mTLS set-up and the hash algorithm.')
}

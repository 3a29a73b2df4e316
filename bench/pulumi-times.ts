// Section 9 of `npm run bench`: Pulumi `preview`, `up`, a no-op `preview` and `destroy` of 50
// provider:index:LiteKeypair with the plugin launched by the engine as users get it (installed from the
// release tarball with `pulumi plugin install --file`), in a Pulumi YAML program (the YAML language host is
// one of the project's tools), against the same program with no resource (the engine and the language
// host alone: the floor). Offline: a temp PULUMI_HOME and a file:// backend. Must not: assert anything.
import { mkdirSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import type { Emulator } from './launched.js'
import { median, ms, positiveInt, printTable, ratio, tempDir, timed } from './support.js'

const REPS = positiveInt('BENCH_PULUMI_REPS', 3)
const COUNT = 50
const STEPS = ['preview', 'up', 'no-op preview', 'destroy'] as const

export interface PulumiInputs {
  readonly pulumi: string
  readonly yamlHost: string
  readonly tarball: string
  readonly version: string
  readonly emulator: Emulator
}

function program(count: number): string {
  const resources = Array.from(
    { length: count },
    (_, i) => `  key${i}:\n    type: provider:index:LiteKeypair\n    properties:\n      name: bench-p-\${run}-${i}\n`,
  ).join('')
  return `name: bench-${count}\nruntime: yaml\nconfig:\n  run:\n    type: string\n${count > 0 ? `resources:\n${resources}` : 'outputs:\n  count: 0\n'}`
}

export async function pulumiTimes(inputs: PulumiInputs): Promise<void> {
  const root = tempDir('bench-pulumi-')
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('PULUMI_') && !name.startsWith('PROVIDER_')) env[name] = value
  Object.assign(env, {
    PATH: [dirname(inputs.pulumi), dirname(inputs.yamlHost), process.env.PATH ?? ''].join(delimiter),
    PULUMI_HOME: join(root, 'home'),
    PULUMI_BACKEND_URL: `file://${join(root, 'state')}`,
    PULUMI_CONFIG_PASSPHRASE: 'bench',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    PULUMI_DISABLE_REGISTRY_RESOLVE: 'true',
    PROVIDER_API_KEY: 'emulator-key',
  })
  mkdirSync(join(root, 'state'))
  await timed(inputs.pulumi, ['plugin', 'install', 'resource', 'provider', inputs.version, '--file', inputs.tarball], { cwd: root, env })
  const subjects = [
    { label: `${COUNT} × LiteKeypair (ours, launched)`, count: COUNT },
    { label: 'no resource (engine and YAML host: the floor)', count: 0 },
  ]
  const dirs = subjects.map((s) => {
    const dir = join(root, `program-${s.count}`)
    mkdirSync(dir)
    writeFileSync(join(dir, 'Pulumi.yaml'), program(s.count))
    return dir
  })
  const times = subjects.map(() => Object.fromEntries(STEPS.map((s) => [s, [] as number[]])) as Record<(typeof STEPS)[number], number[]>)
  const flags = ['--non-interactive', '--color=never']
  for (let rep = 1; rep <= REPS; rep++) {
    for (let k = 0; k < subjects.length; k++) {
      const i = (rep + k) % subjects.length
      const options = { cwd: dirs[i]!, env: { ...env, PROVIDER_BASE_URL: await inputs.emulator.fresh() } }
      const stack = `rep${rep}`
      await timed(inputs.pulumi, ['stack', 'init', stack, ...flags], options)
      await timed(inputs.pulumi, ['config', 'set', 'run', `${rep}`, ...flags], options)
      const record = times[i]!
      record.preview.push((await timed(inputs.pulumi, ['preview', ...flags], options)).ms)
      record.up.push((await timed(inputs.pulumi, ['up', '--yes', '--skip-preview', ...flags], options)).ms)
      record['no-op preview'].push((await timed(inputs.pulumi, ['preview', '--expect-no-changes', ...flags], options)).ms)
      record.destroy.push((await timed(inputs.pulumi, ['destroy', '--yes', '--skip-preview', ...flags], options)).ms)
      await timed(inputs.pulumi, ['stack', 'rm', stack, '--yes', ...flags], options)
    }
  }
  printTable(
    `9. Pulumi wall time, ms: median of ${REPS} runs each (Pulumi YAML program; the plugin from the release tarball, launched by the engine)`,
    ['program', ...STEPS],
    [
      ...subjects.map((s, i) => [s.label, ...STEPS.map((step) => ms(median(times[i]![step])))]),
      ['ours ÷ floor', ...STEPS.map((step) => ratio(median(times[0]![step]), median(times[1]![step])))],
    ],
  )
  console.log('\n  No Go peer for Pulumi here and no target in issue 19 for these figures; the floor is the same CLI run with no resource.')
}

// `npm start`: the quickstart example under the real terraform CLI against the embedded emulator.
// Builds when stale, starts the emulator on a free port, runs init, apply, output, a second plan
// that must be empty, and destroy in a temp dir, then stops everything it started, even on failure
// or Ctrl-C. DEMO_EXAMPLE_DIR runs another example directory instead of examples/terraform/quickstart.
//
//   npm start -- --keep   no destroy: the emulator keeps running with the demo's objects, and the demo
//                         prints its addresses and how to point terraform at it, until Ctrl-C, which
//                         then stops and removes everything as above and exits 0
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { describeTools, ensureTools } from './tools.mjs'

const { values: flags } = (() => {
  try {
    return parseArgs({ options: { keep: { type: 'boolean', default: false } } })
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\nusage: npm start [-- --keep]`)
    process.exit(2)
  }
})()
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const exampleDir = resolve(process.env.DEMO_EXAMPLE_DIR ?? join(root, 'examples', 'terraform', 'quickstart'))
const emulatorEntry = join(root, 'build', 'src', 'bin', 'emulator.js')
const terraformrc = join(root, 'dist', 'terraformrc')
const EMULATOR_API_KEY = 'emulator-key'
const PROVISIONING_DELAY_MS = '500'

// Generous bounds: each step normally takes a second or two; a hang must not outlive them.
const MINUTE = 60_000
const LIMITS = {
  build: 5 * MINUTE,
  emulator: 15_000,
  init: 3 * MINUTE,
  apply: 5 * MINUTE,
  output: MINUTE,
  plan: 3 * MINUTE,
  destroy: 5 * MINUTE,
}
/** How long a child gets to finish after SIGINT (terraform then stops cleanly) before SIGKILL. */
const GRACE_MS = 10_000

const color = process.stdout.isTTY && !process.env.NO_COLOR
const bold = (text) => (color ? `\x1b[1m${text}\x1b[0m` : text)
const green = (text) => (color ? `\x1b[32m${text}\x1b[0m` : text)
const red = (text) => (color ? `\x1b[31m${text}\x1b[0m` : text)

class StepFailure extends Error {}

/** Children still running, each the leader of its own process group, so a kill reaches its descendants. */
const running = new Set()
let emulator = null
let workDir = null
let interrupted = false
let cleanedUp = false
/** Set once --keep has everything in place: a Ctrl-C from then on is the normal end of the demo. */
let keeping = false

const totalSteps = 8
let stepNumber = 0
function header(title) {
  stepNumber += 1
  console.log(`\n${bold(`==> [${stepNumber}/${totalSteps}] ${title}`)}`)
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

/** Resolves with the exit code; on timeout asks nicely (SIGINT), then forces (SIGKILL). */
function run(command, args, { cwd = root, env = process.env, timeoutMs }) {
  return new Promise((resolvePromise, reject) => {
    // Own process group: Ctrl-C reaches the demo alone, and the demo decides how each child stops.
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true })
    running.add(child)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      stop(child)
    }, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      running.delete(child)
      reject(new StepFailure(`could not run ${command}: ${error.message}`))
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      running.delete(child)
      // Plugins or helpers left behind by the leader go with it.
      killGroup(child, 'SIGKILL')
      if (timedOut) reject(new StepFailure(`${basename(command)} ${args[0]} did not finish within ${timeoutMs / 1000}s and was stopped`))
      else resolvePromise(code ?? (signal ? 128 : 1))
    })
  })
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const force = setTimeout(() => killGroup(child, 'SIGKILL'), GRACE_MS)
    child.once('exit', () => {
      clearTimeout(force)
      done()
    })
    killGroup(child, child === emulator ? 'SIGTERM' : 'SIGINT')
  })
}

function newestMtime(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

function buildIsStale() {
  const outputs = [emulatorEntry, join(root, 'build', 'src', 'bin', 'terraform-provider.js'), terraformrc]
  if (!outputs.every(existsSync)) return 'build/ or dist/ is missing'
  const builtAt = Math.min(...outputs.map((path) => statSync(path).mtimeMs))
  const sourcesAt = Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'scripts', 'build.mjs')).mtimeMs)
  return sourcesAt > builtAt ? 'src/ changed since the last build' : null
}

/**
 * The terraform to run: one on PATH, else the newest Terraform the project pins, built into the tools
 * cache when it is not there yet (scripts/tools.mjs, a few minutes once, with progress).
 */
async function findTerraform() {
  const probe = spawnSync('terraform', ['version'], { encoding: 'utf8', timeout: 30_000 })
  if (!probe.error && probe.status === 0) {
    console.log(probe.stdout.split('\n')[0])
    return 'terraform'
  }
  const newest = describeTools({ only: ['terraform'] })
    .map((t) => t.key)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .at(-1)
  console.log(`terraform is not on PATH: using the pinned ${newest} (npm run tools builds it once from Go modules)`)
  try {
    return (await ensureTools({ only: [newest] }))[newest].bin
  } catch (error) {
    throw new StepFailure(`could not build ${newest}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

async function build() {
  const reason = buildIsStale()
  if (!reason) {
    console.log('build/ and dist/ are up to date')
    return
  }
  if (!existsSync(join(root, 'node_modules'))) throw new StepFailure(`${reason} and node_modules/ is missing: run npm install first`)
  console.log(`${reason}: running npm run build`)
  // Under `npm start`, npm_execpath names the npm that is running us; use the same one.
  const npm = process.env.npm_execpath
  const [command, args] = npm?.endsWith('.js') ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']]
  const code = await run(command, args, { timeoutMs: LIMITS.build })
  if (code !== 0) throw new StepFailure(`npm run build failed (exit ${code})`)
}

/** Starts the launcher on a free port and resolves with the base URL it prints first. */
function startEmulator() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [emulatorEntry], {
      cwd: root,
      env: {
        ...process.env,
        EMULATOR_PORT: '0',
        EMULATOR_PROVISIONING_DELAY_MS: PROVISIONING_DELAY_MS,
        EMULATOR_API_KEYS: EMULATOR_API_KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    emulator = child
    let stdout = ''
    let stderr = ''
    let settled = false
    const fail = (message) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new StepFailure(`${message}${stderr.trim() ? `\n${stderr.trim()}` : ''}`))
    }
    const timer = setTimeout(() => fail(`the emulator printed no URL within ${LIMITS.emulator / 1000}s`), LIMITS.emulator)
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const newline = stdout.indexOf('\n')
      if (newline === -1 || settled) return
      const url = stdout.slice(0, newline).trim()
      if (!/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(url)) return fail(`the emulator printed ${JSON.stringify(url)} instead of its URL`)
      settled = true
      clearTimeout(timer)
      resolvePromise(url)
    })
    child.on('error', (error) => fail(`the emulator did not start: ${error.message}`))
    child.on('exit', (code, signal) => {
      if (!settled) return fail(`the emulator exited before it was ready (${signal ?? `exit ${code}`})`)
      if (!cleanedUp && !interrupted) console.error(red(`\nthe emulator stopped unexpectedly (${signal ?? `exit ${code}`})`))
    })
  })
}

let terraformBin = 'terraform'
function terraform(args, env, timeoutMs) {
  return run(terraformBin, args, { cwd: workDir, env, timeoutMs })
}

async function main() {
  const started = Date.now()
  console.log(bold('Demo: the quickstart example against the embedded emulator (no account, no real orders)'))

  header('Check for terraform')
  terraformBin = await findTerraform()
  if (!existsSync(join(exampleDir, 'main.tf'))) throw new StepFailure(`no main.tf in ${exampleDir}`)

  header('Build the provider and the emulator')
  await build()

  header('Start the emulator')
  const baseUrl = await startEmulator()
  console.log(
    `emulator (pid ${emulator.pid}) listening at ${baseUrl} (API key ${EMULATOR_API_KEY}, provisioning delay ${PROVISIONING_DELAY_MS} ms)`,
  )
  const consoleUrl = `${new URL(baseUrl).origin}/`
  console.log(`web console: ${consoleUrl}`)

  workDir = mkdtempSync(join(tmpdir(), 'provider-demo-'))
  // Only the configuration: a stray local state or .terraform from someone's own run must not leak in.
  cpSync(exampleDir, workDir, {
    recursive: true,
    filter: (source) => !/(^|[/\\])(\.terraform|\.terraform\.lock\.hcl|terraform\.tfstate(\.backup)?)$/.test(source),
  })
  const env = {
    ...process.env,
    TF_CLI_CONFIG_FILE: terraformrc,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    PROVIDER_API_KEY: EMULATOR_API_KEY,
    PROVIDER_BASE_URL: baseUrl,
  }
  const tfColor = color ? [] : ['-no-color']

  header(`terraform init (${exampleDir} copied to ${workDir})`)
  let code = await terraform(['init', '-input=false', ...tfColor], env, LIMITS.init)
  if (code !== 0) throw new StepFailure(`terraform init failed (exit ${code})`)

  header('terraform apply -auto-approve')
  code = await terraform(['apply', '-auto-approve', '-input=false', ...tfColor], env, LIMITS.apply)
  if (code !== 0) throw new StepFailure(`terraform apply failed (exit ${code})`)

  header('terraform output')
  code = await terraform(['output', ...tfColor], env, LIMITS.output)
  if (code !== 0) throw new StepFailure(`terraform output failed (exit ${code})`)

  header('terraform plan -detailed-exitcode (a second plan must be empty)')
  code = await terraform(['plan', '-detailed-exitcode', '-input=false', ...tfColor], env, LIMITS.plan)
  if (code === 2) throw new StepFailure('the second plan is not empty: the provider drifts after apply')
  if (code !== 0) throw new StepFailure(`terraform plan failed (exit ${code})`)
  console.log(green('second plan is empty: no drift after apply'))

  if (flags.keep) return keep(baseUrl, consoleUrl)

  header('terraform destroy -auto-approve')
  code = await terraform(['destroy', '-auto-approve', '-input=false', ...tfColor], env, LIMITS.destroy)
  if (code !== 0) throw new StepFailure(`terraform destroy failed (exit ${code})`)

  console.log(`\n${green(bold(`Demo complete in ${((Date.now() - started) / 1000).toFixed(1)}s.`))}`)
  console.log('Next: README.md shows how to run this example by hand or point Terraform at the real service.')
}

/**
 * --keep: the last step, instead of destroy. Prints where everything is and waits for Ctrl-C (the signal
 * handler then cleans up and exits 0); rejects if the emulator stops on its own meanwhile.
 */
function keep(baseUrl, consoleUrl) {
  header("Keep the emulator running with the demo's objects (Ctrl-C stops it)")
  const origin = new URL(baseUrl).origin
  console.log(`  API:          ${baseUrl}  (API key ${EMULATOR_API_KEY})`)
  console.log(`  web console:  ${consoleUrl}`)
  console.log(`  control API:  ${origin}/_emulator/  (docs/emulator-api.md)`)
  console.log(`\nPoint terraform at it from another terminal; the demo's state is in ${workDir}:`)
  console.log(`  export TF_CLI_CONFIG_FILE=${terraformrc}`)
  console.log(`  export PROVIDER_BASE_URL=${baseUrl} PROVIDER_API_KEY=${EMULATOR_API_KEY}`)
  console.log(`  cd ${workDir} && terraform plan`)
  console.log(`\n${bold('Ctrl-C')} stops the emulator and removes ${workDir}.`)
  keeping = true
  return new Promise((_, reject) => {
    emulator.once('exit', (code, signal) => {
      if (!interrupted) reject(new StepFailure(`the emulator stopped (${signal ?? `exit ${code}`}) while the demo kept it`))
    })
  })
}

/** Stops every child (terraform gets SIGINT so it can finish cleanly) and removes the temp dir. */
async function cleanup() {
  if (cleanedUp) return
  const children = [...running]
  await Promise.all(children.map(stop))
  cleanedUp = true
  if (emulator) await stop(emulator)
  if (workDir) rmSync(workDir, { recursive: true, force: true })
}

/** Last resort when the demo exits without cleanup (a second Ctrl-C, an unexpected throw). */
function hardCleanup() {
  for (const child of running) killGroup(child, 'SIGKILL')
  if (emulator && emulator.exitCode === null && emulator.signalCode === null) killGroup(emulator, 'SIGKILL')
  if (workDir) rmSync(workDir, { recursive: true, force: true })
}
process.on('exit', hardCleanup)

// npm forwards the terminal's SIGINT to us as well, so one Ctrl-C can arrive twice in a row.
const REPEAT_WINDOW_MS = 1500
let interruptedAt = 0
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) {
      if (Date.now() - interruptedAt < REPEAT_WINDOW_MS) return
      console.error(red(`\n${signal} again: stopping everything now`))
      process.exit(130)
    }
    interrupted = true
    interruptedAt = Date.now()
    if (keeping) {
      console.log(`\n${signal}: stopping the emulator and removing ${workDir}`)
      cleanup().finally(() => process.exit(0))
      return
    }
    console.error(red(`\n${signal}: stopping the running step and the emulator, removing the temp dir (repeat to force)`))
    cleanup().finally(() => process.exit(130))
  })
}

try {
  await main()
  await cleanup()
} catch (error) {
  // When interrupted, the signal handler owns cleanup and the exit code.
  if (!interrupted) {
    console.error(`\n${red(bold('Demo failed:'))} ${error instanceof StepFailure ? error.message : (error?.stack ?? String(error))}`)
    await cleanup()
    process.exitCode = 1
  }
}

// Runs the compiled tests (build/**/*.test.js) under Node's test runner.
//
//   node scripts/test.mjs                 everything: builds the pinned real clients first (scripts/tools.mjs,
//                                         cached outside the clone), runs every file with the newest pinned
//                                         Terraform, then the Terraform end-to-end suite (test/e2e) again
//                                         under each other pinned Terraform-protocol client (older Terraform,
//                                         OpenTofu)
//   node scripts/test.mjs --unit          the in-process tests only (no real client, no release build needed);
//                                         --fast is the same
//   node scripts/test.mjs --e2e           the Terraform end-to-end suite (build/test/e2e) under each pinned
//                                         Terraform-protocol client, newest Terraform first (needs `npm run release`)
//   node scripts/test.mjs --faults        the fault matrix (build/test/faults) with the newest pinned Terraform
//   node scripts/test.mjs <part> [...]    only the files whose path contains one of the parts (combines with
//                                         the options above: `--faults postgres`)
//   --release                             the real-client suites install and launch the release's executables
//                                         for this machine (dist/release, checked to be compiled from the
//                                         current build) instead of the build's launcher and bundle; `npm test`
//                                         and `npm run test:e2e` pass it (test/support/artifacts.ts)
//
// The suites that need a real client but belong to neither --e2e nor --faults (test/pulumi-cli, the
// Pulumi engine and SDK tests, start-up, the demo, the PostgreSQL journal) run with everything, or by part.
//
// Node 20's `--test` has no glob support, so the file list is gathered here. The last line sums up every
// pass as "total: N passed, N failed, N skipped".
//
// No file may hang the run: each test file has FILE_TIMEOUT_MS (Node 20 applies `--test-timeout` to a
// whole file run in its own process), after which it fails by name and the run goes on; such a file
// is run once more, and only a second failure or hang fails the run (see run). A minute before the
// limit, a watchdog asks the file's process for a diagnostic report (its JavaScript stack and its open
// handles: sockets with their addresses, timers, child processes) and prints the gist and the CPU it
// used, so that a hang seen once, in CI, leaves evidence of where it waited.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureTools } from './tools.mjs'

/** Files that need a real client (terraform, tofu, pulumi, sdkgen, go, python) or the release build. */
const REAL_CLIENT_PARTS = [
  'build/test/e2e/',
  'build/test/faults/',
  'build/test/pulumi-cli/',
  'build/test/provider-startup',
  'build/test/pulumi-engine',
  'build/test/pulumi-sdk',
  // `npm start` (scripts/demo.mjs) runs terraform.
  'build/test/demo',
  // Not a client, but a server of its own: the shared order journal's tests start a PostgreSQL.
  'build/test/postgres-journal',
  // The emulator's web console in Chromium, after orders placed by terraform (once, with the newest).
  'build/test/console.test',
  // The API client under the release's runtime (Bun, fetched by scripts/runtimes.mjs).
  'build/test/runtime-fetch',
]
/** Run again under each pinned Terraform-protocol client besides the default. */
const PER_CLIENT_PARTS = ['build/test/e2e/']

function collect(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...collect(path))
    else if (entry.name.endsWith('.test.js')) out.push(path)
  }
  return out
}

const needsClients = (f) => REAL_CLIENT_PARTS.some((part) => f.includes(part))
/** Each option names a layer of the suite: which files it keeps. */
const LAYERS = {
  '--unit': (f) => !needsClients(f),
  '--fast': (f) => !needsClients(f),
  '--e2e': (f) => f.includes('build/test/e2e/'),
  '--faults': (f) => f.includes('build/test/faults/'),
}

const args = process.argv.slice(2)
const release = args.includes('--release')
const layers = args.filter((a) => a.startsWith('--') && a !== '--release')
for (const option of layers) {
  if (!(option in LAYERS)) {
    console.error(`unknown option ${option}; known: ${Object.keys(LAYERS).join(', ')}`)
    process.exit(2)
  }
}
const fast = layers.length > 0 && layers.every((option) => option === '--unit' || option === '--fast')
const what = layers.length === 0 ? 'every suite' : `the ${layers.map((option) => option.slice(2)).join(' and ')} tests`
const filter = args.filter((a) => !a.startsWith('--'))
const files = collect('build')
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .filter((f) => layers.length === 0 || layers.some((option) => LAYERS[option](f)))
  .sort()
if (files.length === 0) {
  console.error('no test files found under build/ (run `npm run build` first)')
  process.exit(1)
}

const totals = { pass: 0, fail: 0, skipped: 0 }

/**
 * The longest a test file may run (the longest seen takes about 5 minutes, under load);
 * PROVIDER_TEST_FILE_TIMEOUT_MS sets another, to watch the watchdog work.
 */
const FILE_TIMEOUT_MS = Number(process.env.PROVIDER_TEST_FILE_TIMEOUT_MS ?? 20 * 60_000)
/** When the watchdog asks a file's process that still runs for a report. */
const REPORT_AFTER_MS = Math.max(FILE_TIMEOUT_MS - 60_000, FILE_TIMEOUT_MS * 0.6)
const WATCH_EVERY_MS = Math.min(15_000, FILE_TIMEOUT_MS / 10)
const reports = mkdtempSync(join(tmpdir(), 'provider-test-reports-'))

/**
 * The fields of /proc/<pid>/stat after the command name (state first, then ppid, ...; utime and stime
 * are [11] and [12]), or undefined when the process is gone. The name may hold spaces and parentheses,
 * so the fields start after the last ')'.
 */
function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** The processes whose parent is `pid` (Linux /proc), with their command lines. */
function childrenOf(pid) {
  const found = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(statFields(entry)?.[1]) !== pid) continue
    try {
      found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ') })
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** The CPU time (user and system, in clock ticks of 10 ms) a process has used, from /proc; 0 when gone. */
function cpuTicks(pid) {
  const fields = statFields(pid)
  return fields === undefined ? 0 : Number(fields[11]) + Number(fields[12])
}

/** The gist of a Node diagnostic report: where JavaScript stood, and what the process still waited on. */
function reportGist(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'))
  const stack = (report.javascriptStack?.stack ?? []).slice(0, 12).map((line) => `    ${line.trim()}`)
  const handles = (report.libuv ?? [])
    .filter((h) => h.is_active && ['tcp', 'timer', 'process', 'pipe', 'udp'].includes(h.type))
    .map(
      (h) =>
        `    ${h.type}${h.localEndpoint ? ` ${JSON.stringify(h.localEndpoint)} -> ${JSON.stringify(h.remoteEndpoint)}` : ''}${h.pid ? ` pid ${h.pid}` : ''}${h.firesInMsFromNow !== undefined ? ` fires in ${h.firesInMsFromNow} ms` : ''}`,
    )
  return [`  JavaScript stack (${report.javascriptStack?.message ?? 'none'}):`, ...stack, '  active handles:', ...handles].join('\n')
}

/**
 * Watches the test files' processes under `runner`; one that has run REPORT_AFTER_MS is asked for a
 * report (SIGUSR2 with --report-on-signal), whose gist goes to stderr. Returns the stop function.
 */
function watchdog(runner) {
  const firstSeen = new Map()
  const timer = setInterval(() => {
    const now = Date.now()
    for (const child of childrenOf(runner.pid)) {
      if (!child.command.includes('.test.js')) continue
      const seen = firstSeen.get(child.pid) ?? { at: now, ticks: cpuTicks(child.pid) }
      firstSeen.set(child.pid, seen)
      if (seen.reported || now - seen.at < REPORT_AFTER_MS) continue
      seen.reported = true
      // A process whose JavaScript never yields (a loop that spins, or a call blocked in the kernel, such
      // as a write to a pipe nobody reads) cannot answer the report's signal: its CPU use tells which.
      const busy = Math.round((100 * (cpuTicks(child.pid) - seen.ticks)) / ((now - seen.at) / 10))
      const before = new Set(readdirSync(reports))
      try {
        process.kill(child.pid, 'SIGUSR2')
      } catch {
        continue
      }
      setTimeout(() => {
        const written = readdirSync(reports).filter((name) => !before.has(name) && name.includes(`.${child.pid}.`))
        console.error(`\n# still running after ${Math.round((now - seen.at) / 60_000)} min, using ${busy} % of a core: ${child.command}`)
        for (const name of written) console.error(reportGist(join(reports, name)))
        if (written.length === 0)
          console.error(
            '  (it wrote no report: its JavaScript does not yield, in a loop that spins if it used a core, in a blocking call if not)',
          )
      }, 3_000).unref()
    }
  }, WATCH_EVERY_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * One `node --test` run; its TAP goes through to stdout while the closing counts are added up. Resolves
 * to whether it failed, and the files that ran out of FILE_TIMEOUT_MS (each counted as one failure).
 */
function runOnce(label, list, env) {
  console.log(`\n# ${label}: ${list.length} files`)
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        // The test files' processes inherit these two (the runner passes its own flags on).
        '--report-on-signal',
        `--report-directory=${reports}`,
        '--test',
        '--test-concurrency=2',
        `--test-timeout=${FILE_TIMEOUT_MS}`,
        '--test-reporter=tap',
        ...list,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env },
    )
    const stopWatching = watchdog(child)
    let rest = ''
    let failed = 0
    let topLevelFailures = 0
    /** The file of the last top-level `not ok`, until its YAML block says why. */
    let lastFailedFile
    const timedOut = []
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      const lines = (rest + chunk.toString()).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) {
        const count = /^# (pass|fail|skipped) (\d+)$/.exec(line)
        if (count) totals[count[1]] += Number(count[2])
        if (count?.[1] === 'fail') failed += Number(count[2])
        // A file that fails outside any test (it cannot load, a hook throws) counts no failed test.
        const topLevel = /^not ok \d+ - (.*)$/.exec(line)
        if (topLevel) {
          topLevelFailures++
          lastFailedFile = topLevel[1]
        }
        if (/^ {2}failureType: 'testTimeoutFailure'$/.test(line) && lastFailedFile?.endsWith('.test.js')) timedOut.push(lastFailedFile)
      }
    })
    child.once('close', (code) => {
      stopWatching()
      // A file that ran out of time counts one failure; its tests that did not finish count none.
      totals.fail += timedOut.length
      const others = topLevelFailures - timedOut.length
      if (code !== 0 && failed === 0 && others > 0) totals.fail += others
      const unexplained = code !== 0 && failed === 0 && topLevelFailures === 0
      if (unexplained) totals.fail += 1
      resolve({ failed: failed > 0 || others > 0 || unexplained, timedOut })
    })
  })
}

/**
 * A run, and a second run of each file that ran out of time in it. A hang has been seen once in a few
 * hundred runs of files that pass in seconds, different files each time (the watchdog's report says
 * where each waited): a file that hangs and then passes is reported loudly and does not fail the run;
 * one that fails or hangs again does. Resolves to whether the run failed.
 */
async function run(label, list, env) {
  const first = await runOnce(label, list, env)
  if (first.timedOut.length === 0) return first.failed
  console.log(`\n# HUNG: ${first.timedOut.join(', ')} ran out of ${Math.round(FILE_TIMEOUT_MS / 1000)} s; running it once more`)
  const again = await runOnce(`${label}, again after a hang`, first.timedOut, env)
  if (!again.failed && again.timedOut.length === 0) {
    totals.fail -= first.timedOut.length
    hungOnce.push(...first.timedOut)
  }
  return first.failed || again.failed || again.timedOut.length > 0
}
const hungOnce = []

// In-process providers write their order journal here, never into the repository.
const journal = mkdtempSync(join(tmpdir(), 'provider-orders-'))
// Nor the per-user index of accounts the runs of this machine handed over (XDG_STATE_HOME): the tests'
// emulators reuse account ids, which a user's real index must never learn.
const stateHome = mkdtempSync(join(tmpdir(), 'provider-state-home-'))
const env = { ...process.env, PROVIDER_ORDER_JOURNAL: process.env.PROVIDER_ORDER_JOURNAL ?? journal, XDG_STATE_HOME: stateHome }
if (release) env.PROVIDER_TEST_ARTIFACTS = 'release'
let failed = false
try {
  if (files.some(needsClients)) {
    const tools = await ensureTools({ quiet: true })
    env.PROVIDER_TOOLS_JSON = JSON.stringify(tools)
    const clients = Object.keys(tools).filter((key) => /^(terraform|tofu)-\d/.test(key))
    const newest = clients
      .filter((key) => key.startsWith('terraform-'))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .at(-1)
    const artifacts = release ? 'the release executables' : 'the build'
    failed = await run(`${what}, ${newest}, ${artifacts}`, files, { ...env, PROVIDER_TF_CLIENT: newest })
    const again = files.filter((f) => PER_CLIENT_PARTS.some((part) => f.includes(part)))
    for (const key of clients.filter((c) => c !== newest)) {
      if (again.length === 0) break
      failed = (await run(`the Terraform end-to-end suite, ${key}, ${artifacts}`, again, { ...env, PROVIDER_TF_CLIENT: key })) || failed
    }
  } else {
    failed = await run(fast ? 'in-process tests' : 'tests', files, env)
  }
} finally {
  rmSync(journal, { recursive: true, force: true })
  rmSync(stateHome, { recursive: true, force: true })
  rmSync(reports, { recursive: true, force: true })
}
if (hungOnce.length > 0) console.log(`\n# hung once, then passed when run again (see HUNG above): ${hungOnce.join(', ')}`)
console.log(`\ntotal: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`)
process.exit(failed ? 1 : 0)

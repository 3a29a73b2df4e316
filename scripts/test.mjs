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
// Pulumi engine and SDK tests, start-up, the PostgreSQL journal) run with everything, or by part.
//
// Node 20's `--test` has no glob support, so the file list is gathered here. The last line sums up every
// pass as "total: N passed, N failed, N skipped".
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
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
  // Not a client, but a server of its own: the shared order journal's tests start a PostgreSQL.
  'build/test/postgres-journal',
  // The emulator's web console in Chromium, after orders placed by terraform (once, with the newest).
  'build/test/console.test',
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

/** One `node --test` run; its TAP goes through to stdout while the closing counts are added up. */
function run(label, list, env) {
  console.log(`\n# ${label}: ${list.length} files`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=tap', ...list], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    })
    let rest = ''
    let failed = 0
    let topLevelFailures = 0
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      const lines = (rest + chunk.toString()).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) {
        const count = /^# (pass|fail|skipped) (\d+)$/.exec(line)
        if (count) totals[count[1]] += Number(count[2])
        if (count?.[1] === 'fail') failed += Number(count[2])
        // A file that fails outside any test (it cannot load, a hook throws) counts no failed test.
        if (/^not ok \d+ - /.test(line)) topLevelFailures++
      }
    })
    child.once('close', (code) => {
      if (code !== 0 && failed === 0) totals.fail += Math.max(topLevelFailures, 1)
      resolve(code ?? 1)
    })
  })
}

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
    failed = (await run(`${what}, ${newest}, ${artifacts}`, files, { ...env, PROVIDER_TF_CLIENT: newest })) !== 0
    const again = files.filter((f) => PER_CLIENT_PARTS.some((part) => f.includes(part)))
    for (const key of clients.filter((c) => c !== newest)) {
      if (again.length === 0) break
      failed =
        (await run(`the Terraform end-to-end suite, ${key}, ${artifacts}`, again, { ...env, PROVIDER_TF_CLIENT: key })) !== 0 || failed
    }
  } else {
    failed = (await run(fast ? 'in-process tests' : 'tests', files, env)) !== 0
  }
} finally {
  rmSync(journal, { recursive: true, force: true })
  rmSync(stateHome, { recursive: true, force: true })
}
console.log(`\ntotal: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`)
process.exit(failed ? 1 : 0)

// Runs every compiled test file (build/**/*.test.js) under Node's test runner.
// Node 20's `--test` has no glob support, so the file list is gathered here.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function collect(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...collect(path))
    else if (entry.name.endsWith('.test.js')) out.push(path)
  }
  return out
}

const filter = process.argv.slice(2)
const files = collect('build')
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort()
if (files.length === 0) {
  console.error('no test files found under build/')
  process.exit(1)
}
// In-process providers write their order journal here, never into the repository.
const journal = mkdtempSync(join(tmpdir(), 'provider-orders-'))
const env = { ...process.env, PROVIDER_ORDER_JOURNAL: process.env.PROVIDER_ORDER_JOURNAL ?? journal }
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env })
rmSync(journal, { recursive: true, force: true })
process.exit(result.status ?? 1)

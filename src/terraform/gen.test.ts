// The generated protocol code is fresh: src/terraform/gen/ matches what the .proto files generate.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

// build/src/terraform/gen.test.js → the repository root.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()
}

test('src/terraform/gen is what scripts/gen-proto.mjs generates from proto/', () => {
  const out = mkdtempSync(join(tmpdir(), 'gen-proto-'))
  try {
    const run = spawnSync(process.execPath, [join(root, 'scripts/gen-proto.mjs'), out], { cwd: root, encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    const committed = join(root, 'src/terraform/gen')
    assert.deepEqual(files(out), files(committed), 'run `npm run generate` and commit the result')
    for (const file of files(out)) {
      assert.equal(
        readFileSync(join(out, file), 'utf8'),
        readFileSync(join(committed, file), 'utf8'),
        `${file} is stale: run \`npm run generate\``,
      )
    }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
})

// The state a provider process serves sets its orders apart in a shared order journal (issue 25):
// two states never take over or stop on each other's orders, and a re-run of the same state on
// another runner (another directory, other credentials) is the same state.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { stateScope } from './state-scope.js'

const directories: string[] = []
function workingDirectory(backend?: { type: string; config: Record<string, unknown> }, workspace?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'state-scope-'))
  directories.push(dir)
  mkdirSync(join(dir, '.terraform'))
  if (backend) writeFileSync(join(dir, '.terraform', 'terraform.tfstate'), JSON.stringify({ version: 3, backend: { ...backend, hash: 1 } }))
  if (workspace) writeFileSync(join(dir, '.terraform', 'environment'), workspace)
  return dir
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('the Terraform state an order belongs to', () => {
  test('local states: each working directory is its own state, and each workspace of it', () => {
    const a = workingDirectory()
    const b = workingDirectory()
    assert.notEqual(stateScope({}, a), stateScope({}, b))
    assert.equal(stateScope({}, a), stateScope({}, a))
    assert.notEqual(stateScope({ TF_WORKSPACE: 'staging' }, a), stateScope({}, a))
    assert.match(stateScope({ TF_WORKSPACE: 'staging' }, a), /terraform workspace staging/)
    assert.equal(stateScope({}, workingDirectory(undefined, 'staging')).startsWith('terraform workspace staging'), true)
  })

  test('a remote backend: the same state from any runner whatever its credentials; another schema or workspace is another state', () => {
    const pg = (schema: string, password: string) => ({
      type: 'pg',
      config: { conn_str: `postgres://ci:${password}@db:5432/tf`, schema_name: schema, skip_schema_creation: null },
    })
    const runnerA = stateScope({}, workingDirectory(pg('prod', 'one')))
    const runnerB = stateScope({}, workingDirectory(pg('prod', 'two')))
    assert.equal(runnerA, runnerB, 'two runners of one state')
    assert.notEqual(runnerA, stateScope({}, workingDirectory(pg('staging', 'one'))))
    assert.notEqual(runnerA, stateScope({ TF_WORKSPACE: 'b' }, workingDirectory(pg('prod', 'one'))))
    assert.doesNotMatch(runnerA, /one|ci:|conn_str|prod/, 'neither credentials nor settings appear, only a hash')
    assert.match(runnerA, /^terraform backend pg [0-9a-f]{16}$/)
  })
})

// The state a provider process serves sets its orders apart in a shared order journal (issue 25):
// two states never take over or stop on each other's orders, and a re-run of the same state on
// another runner (another directory, other credentials) is the same state.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, test } from 'node:test'
import { savedStateIds, stateScope } from './state-scope.js'

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

describe('a backend located by the environment (what terraform init does not record), and spellings of one state', () => {
  test("GitLab's managed state (an http backend whose address is TF_HTTP_ADDRESS): staging and prod are two states, each the same from any runner", () => {
    const http = () => workingDirectory({ type: 'http', config: { address: null, lock_address: null, username: null, password: null } })
    const state = (name: string, password: string) =>
      stateScope(
        { TF_HTTP_ADDRESS: `https://gitlab.example/api/v4/projects/7/terraform/state/${name}`, TF_HTTP_PASSWORD: password },
        http(),
      )
    assert.notEqual(state('staging', 'one'), state('prod', 'one'))
    assert.equal(state('prod', 'one'), state('prod', 'two'), 'two runners of one state, with their own tokens')
    assert.doesNotMatch(state('prod', 'one'), /gitlab|prod|one/)
  })

  test("Terraform Cloud's organization from TF_CLOUD_ORGANIZATION: two organizations' workspaces of one name are two states", () => {
    const cloud = () => workingDirectory({ type: 'cloud', config: { organization: null, hostname: null, workspaces: { name: 'app' } } })
    assert.notEqual(stateScope({ TF_CLOUD_ORGANIZATION: 'acme' }, cloud()), stateScope({ TF_CLOUD_ORGANIZATION: 'other' }, cloud()))
    const recorded = workingDirectory({ type: 'cloud', config: { organization: 'acme', hostname: null, workspaces: { name: 'app' } } })
    assert.equal(stateScope({ TF_CLOUD_ORGANIZATION: 'acme' }, cloud()), stateScope({}, recorded), 'the same organization given either way')
  })

  test("the same state whether a runner leaves a default out or spells it (pg's schema_name); kubernetes' secret_suffix tells states apart", () => {
    const pg = (schema: string | null) =>
      workingDirectory({ type: 'pg', config: { conn_str: 'postgres://ci:x@db/tf', schema_name: schema } })
    assert.equal(stateScope({}, pg(null)), stateScope({}, pg('terraform_remote_state')))
    assert.notEqual(stateScope({}, pg(null)), stateScope({}, pg('prod')))
    const kube = (suffix: string) => workingDirectory({ type: 'kubernetes', config: { secret_suffix: suffix, namespace: null } })
    assert.notEqual(stateScope({}, kube('staging')), stateScope({}, kube('prod')))
  })
})

describe('the ids a saved local state names (what a graceful close confirms)', () => {
  const TYPES = new Set(['provider_lite_vm', 'provider_lite_disk'])
  const stateWith = (resources: unknown[]) => JSON.stringify({ version: 4, resources })
  const vm = (ids: unknown[], extra: Record<string, unknown> = {}) => ({
    mode: 'managed',
    type: 'provider_lite_vm',
    name: 'web',
    instances: ids.map((id) => ({ attributes: { id } })),
    ...extra,
  })

  test('the default workspace reads terraform.tfstate, another workspace its own file; only managed objects of our types count', () => {
    const dir = workingDirectory()
    writeFileSync(
      join(dir, 'terraform.tfstate'),
      stateWith([
        vm(['100001', 100002]),
        vm(['100003'], { mode: 'data' }),
        { mode: 'managed', type: 'null_resource', instances: [{ attributes: { id: '100004' } }] },
      ]),
    )
    assert.deepEqual([...savedStateIds(TYPES, {}, dir)].sort(), ['100001', '100002'])
    mkdirSync(join(dir, 'terraform.tfstate.d', 'staging'), { recursive: true })
    writeFileSync(join(dir, 'terraform.tfstate.d', 'staging', 'terraform.tfstate'), stateWith([vm(['100009'])]))
    assert.deepEqual([...savedStateIds(TYPES, { TF_WORKSPACE: 'staging' }, dir)], ['100009'])
    assert.deepEqual([...savedStateIds(TYPES, {}, workingDirectory(undefined, 'staging'))], [], 'no file: nothing is confirmed')
  })

  test('a local backend with its own path is read there; a remote backend confirms nothing; an unreadable state throws', () => {
    const custom = workingDirectory({ type: 'local', config: { path: 'states/main.tfstate' } })
    mkdirSync(join(custom, 'states'))
    writeFileSync(join(custom, 'states', 'main.tfstate'), stateWith([vm(['100005'])]))
    writeFileSync(join(custom, 'terraform.tfstate'), stateWith([vm(['100006'])]))
    assert.deepEqual([...savedStateIds(TYPES, {}, custom)], ['100005'])
    const remote = workingDirectory({ type: 's3', config: { bucket: 'b', key: 'k' } })
    writeFileSync(join(remote, 'terraform.tfstate'), stateWith([vm(['100007'])]))
    assert.deepEqual([...savedStateIds(TYPES, {}, remote)], [], 'a file left in the directory is not the state')
    const broken = workingDirectory()
    writeFileSync(join(broken, 'terraform.tfstate'), '{"version": 4, "resources": [')
    assert.throws(() => savedStateIds(TYPES, {}, broken))
  })
})

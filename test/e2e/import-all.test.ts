// Real terraform against the emulator launcher: every resource of the registry is imported, by
// `import {}` blocks and, for a few, by `terraform import`, with no mutating API call and no order, and the
// plan that follows is empty. The originating configuration sets every input away from its default, plus the
// inputs the API cannot return (each resource doc page lists them under Import); the importing
// configurations leave those out. What differs per resource is its fixture's `importAll` (test/fixtures/).
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { resources } from '../../src/resources/index.js'
import { fixtures, type ImportBlock } from '../fixtures/index.js'
import { block, changeOf, describeRun, type HclValue, importBlock, PROVIDER_BLOCKS } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

type Blocks = Record<string, Record<string, HclValue>>

/** Every resource's import-all blocks, from its fixture (test/fixtures/). */
const BLOCKS: readonly ImportBlock[] = fixtures.flatMap((f) => f.importAll)
const byAddress = (pick: (b: ImportBlock) => Record<string, HclValue> | undefined): Blocks =>
  Object.fromEntries(BLOCKS.flatMap((b) => (pick(b) ? [[b.address, { ...pick(b) }]] : [])))
/** Every input the API returns, away from its default where there is one. Address → attributes. */
const RETURNED: Blocks = byAddress((b) => b.returned)
/** The inputs the API cannot return (docs: Import), set only in the originating configuration. */
const ORIGIN_ONLY: Blocks = byAddress((b) => b.originOnly)

/** The addresses whose first plan after the import records inputs the import does not read (a VM's password). */
const RECORDED = new Set(BLOCKS.filter((b) => (b.recorded ?? []).length > 0).map((b) => b.address))

const RESOURCE_TYPES = new Set(Object.keys(RETURNED).map((address) => address.split('.')[0]))

function config(blocks: Blocks, extra: Blocks = {}, imports = ''): string {
  return [
    PROVIDER_BLOCKS,
    imports,
    ...Object.entries(blocks).map(([address, values]) => {
      const [type = '', name = ''] = address.split('.')
      return block('resource', type, name, { ...values, ...extra[address] })
    }),
  ].join('\n')
}

describe('import of every resource of the registry', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  const workspace = async (configuration: string) => {
    const ws = await e2e.workspace()
    await ws.write(configuration)
    return ws
  }
  /** Address → the import id of the object the originating configuration created. */
  const importIds: Record<string, string> = {}

  before(async () => {
    const origin = await workspace(config(RETURNED, ORIGIN_ONLY))
    const created = await origin.apply()
    if (created.code !== 0) throw new Error(describeRun(created))
    for (const address of Object.keys(RETURNED)) importIds[address] = String((await origin.stateOf(address)).id)
  })

  test('every resource type the provider serves is in the registry and covered', async () => {
    const ws = await workspace(PROVIDER_BLOCKS)
    await ws.init()
    const shown = await ws.ok(['providers', 'schema', '-json'])
    const schemas = JSON.parse(shown.stdout) as { provider_schemas: Record<string, { resource_schemas: Record<string, unknown> }> }
    const served = Object.values(schemas.provider_schemas).flatMap((p) => Object.keys(p.resource_schemas))
    assert.deepEqual([...served].sort(), [...RESOURCE_TYPES].sort())
    assert.equal(RESOURCE_TYPES.size, resources.length)
    for (const block of BLOCKS)
      if (block.importId) assert.equal(importIds[block.address], block.importId(importIds), `${block.address}'s import id`)
  })

  test('import {} blocks for all of them: planned as imports that change nothing but record what the import does not read, applied without a call, then an empty plan', async () => {
    const imports = Object.entries(importIds)
      .map(([address, id]) => importBlock(address, id))
      .join('\n')
    const ws = await workspace(config(RETURNED, {}, imports))
    const count = Object.keys(RETURNED).length
    const recording = RECORDED.size
    const planned = await e2e.emulator.effectsOf(() => ws.planJson())
    assert.match(
      planned.value.run.stdout,
      new RegExp(`Plan: ${count} to import, 0 to add, ${recording} to change, 0 to destroy\\.`),
      describeRun(planned.value.run),
    )
    for (const address of Object.keys(RETURNED)) {
      const change = changeOf(planned.value.plan, address)
      assert.deepEqual(change.actions, [RECORDED.has(address) ? 'update' : 'no-op'], `${address} after import`)
      assert.ok(change.importing, `${address} is imported`)
    }
    assert.deepEqual(planned.mutations, [])

    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, new RegExp(`Resources: ${count} imported, 0 added, ${recording} changed, 0 destroyed\\.`))
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])

    // What the import could not recover is null (or the spec default), what it could is the service's.
    for (const block of BLOCKS) {
      const state = await ws.stateOf(block.address)
      for (const [name, value] of Object.entries(block.imported ?? {}))
        assert.equal(state[name], value, `${block.address}.${name} after import`)
      if (block.importId) assert.equal(state.id, importIds[block.address], `${block.address}.id after import`)
    }

    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the imports is not empty: ${describeRun(next)}`)
  })

  test('terraform import of the resources whose fixtures ask for it (the assignment by <metal_account_id>:<additional_ip_id>)', async () => {
    const server = importIds['provider_baremetal.m'] ?? ''
    const ip = importIds['provider_baremetal_additional_ip.ip'] ?? ''
    // Literal ids instead of references: only these objects are in this configuration.
    const subset: Blocks = Object.fromEntries(
      BLOCKS.flatMap((b) => (b.terraformImport ? [[b.address, { ...b.returned, ...b.terraformImport(importIds) }]] : [])),
    )
    const ws = await workspace(config(subset))
    await ws.init()

    const malformed = await ws.import('provider_baremetal_additional_ip_assignment.assign', ip)
    assert.equal(malformed.code, 1, describeRun(malformed))
    assert.match(malformed.stderr, /Invalid import id/)
    assert.match(malformed.stderr, /100070:100080/)

    const {
      value: runs,
      mutations,
      orders,
    } = await e2e.emulator.effectsOf(async () => {
      const results = []
      for (const address of Object.keys(subset)) results.push(await ws.import(address, importIds[address] ?? ''))
      return results
    })
    for (const run of runs) {
      assert.equal(run.code, 0, describeRun(run))
      assert.match(run.stdout, /Import successful!/)
    }
    assert.deepEqual(mutations, [])
    assert.deepEqual(orders, [])
    const assignment = await ws.stateOf('provider_baremetal_additional_ip_assignment.assign')
    assert.equal(assignment.metal_account_id, Number(server))
    assert.equal(assignment.additional_ip_id, Number(ip))
    assert.equal(assignment.status, 'Active')

    // The first plan records only what the import does not read (a VM's password), calling nothing.
    const recording = Object.keys(subset).filter((address) => RECORDED.has(address))
    const first = await e2e.emulator.effectsOf(() => ws.planJson())
    const changed = (first.value.plan.resource_changes ?? []).filter((c) => !c.change.actions.includes('no-op'))
    assert.deepEqual(
      changed.map((c) => [c.address, c.change.actions]),
      recording.map((address) => [address, ['update']]),
      describeRun(first.value.run),
    )
    if (recording.length > 0) {
      const recorded = await e2e.emulator.effectsOf(() => ws.apply())
      assert.equal(recorded.value.code, 0, describeRun(recorded.value))
      assert.deepEqual([recorded.mutations, recorded.orders], [[], []])
    }
    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after terraform import is not empty: ${describeRun(next)}`)
  })

  test('a malformed assignment import id is explained in Terraform names: <metal_account_id>:<additional_ip_id>', async () => {
    const ws = await workspace(
      config({ 'provider_baremetal_additional_ip_assignment.assign': { additional_ip_id: 1, metal_account_id: 1 } }),
    )
    const run = await ws.import('provider_baremetal_additional_ip_assignment.assign', '100001')
    assert.equal(run.code, 1, describeRun(run))
    assert.match(run.stderr, /<metal_account_id>:<additional_ip_id>/)
    assert.match(run.stderr, /provider_baremetal_additional_ip_assignment/)
  })
})

// A replacement never deletes what it cannot recreate (issue 11's rule), for the inputs that name another
// account: a disk, a snapshot, a restored VM or an elastic storage moved to an account that does not exist
// is refused at plan, naming the input, before Terraform's default replacement deletes the live object.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkPlanOnline, type ValueMap } from '../core/index.js'
import { fixtures } from '../../test/fixtures/index.js'
import { Harness } from '../../test/support/harness.js'
import { resources } from './index.js'

const REFERENCES: Readonly<Record<string, string>> = {
  lite_disk: 'lite_account_id',
  lite_snapshot: 'lite_account_id',
  lite_vm_from_snapshot: 'snapshot_id',
  baremetal_elastic_storage: 'metal_account_id',
}

for (const [name, input] of Object.entries(REFERENCES)) {
  test(`${name}: a ${input} that names no account is refused at plan, and nothing is replaced`, async () => {
    const definition = resources.find((r) => r.name === name)
    const lifecycle = fixtures.find((f) => f.name === name)?.lifecycle
    assert.ok(definition && lifecycle)
    const h = new Harness()
    const deps = await lifecycle.setup(h)
    const config = lifecycle.create(deps) as ValueMap
    const state = await h.create(definition, config)
    const plan = h.plan(definition, state, { ...config, [input]: 999999 })
    assert.deepEqual(plan.replace, [input])
    const issues = await checkPlanOnline(definition, state, plan, h.session)
    const refused = issues.find((d) => d.severity === 'error' && JSON.stringify(d.path) === JSON.stringify([input]))
    assert.ok(refused, `no plan-time error names ${input}: ${JSON.stringify(issues)}`)
    assert.match(refused.detail, /999999|none with this id/)
    // The valid reference it has passes.
    assert.deepEqual(await checkPlanOnline(definition, state, h.plan(definition, state, config), h.session), [])
  })
}

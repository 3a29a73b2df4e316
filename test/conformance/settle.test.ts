// Both front ends tell the order journal that a state names an id when they plan a change of an
// existing object (Terraform PlanResourceChange with a prior state, Pulumi Diff), so that a create in
// a later process never takes over an order whose account is in state (issue 8). Refresh, update,
// delete and import settle in the server (src/server/provider-server.test.ts).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { registerSettlement } from '../../src/server/index.js'
import { fixtureOf } from '../fixtures/index.js'
import { definitionNamed } from '../support/fixtures.js'
import { Harness } from '../support/harness.js'
import { drivers } from '../support/conformance.js'

for (const driver of drivers) {
  test(`${driver.name}: planning a change of an existing object settles its id`, async () => {
    const definition = definitionNamed('baremetal_keypair')
    const example = fixtureOf('baremetal_keypair').lifecycle
    const harness = new Harness()
    const deps = await example.setup(harness)
    const session = await driver.open(definition, harness)
    try {
      const state = await session.apply(null, example.create(deps))
      const named: string[] = []
      const unregister = registerSettlement('front-end-test', { account: (id) => void named.push(id), delivered: () => undefined })
      try {
        await session.plan(state, example.create(deps))
      } finally {
        unregister()
      }
      assert.deepEqual(named, [state.id])
    } finally {
      await session.close()
    }
  })
}

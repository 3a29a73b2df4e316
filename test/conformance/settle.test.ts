// Both front ends tell the order journal that a state names an account when they plan a change of an
// existing one (Terraform PlanResourceChange with a prior state, Pulumi Diff), so that a create in a
// later process never takes over an order whose account is in state (issue 8); an object that is no
// account (a keypair) names nothing. Refresh, update, delete and import settle in the server
// (src/server/provider-server.test.ts).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { registerSettlement } from '../../src/server/index.js'
import { ordersAccounts } from '../../src/core/index.js'
import { fixtureOf, fixtures } from '../fixtures/index.js'
import { definitionNamed } from '../support/fixtures.js'
import { Harness } from '../support/harness.js'
import { type drivers as Drivers, drivers } from '../support/conformance.js'

/** The ids named to the order journal while `driver` plans a change of an existing object of `type`, and that object's id. */
async function namedDuringPlan(driver: (typeof Drivers)[number], type: string): Promise<{ readonly id: string; readonly named: string[] }> {
  const definition = definitionNamed(type)
  const example = fixtureOf(type).lifecycle
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
    return { id: state.id, named }
  } finally {
    await session.close()
  }
}

for (const driver of drivers) {
  test(`${driver.name}: planning a change of an existing account settles its id`, async () => {
    const { id, named } = await namedDuringPlan(driver, 'lite_disk')
    assert.deepEqual(named, [id])
  })

  test(`${driver.name}: planning a change of a keypair settles nothing, its id may equal an account's`, async () => {
    const { named } = await namedDuringPlan(driver, 'baremetal_keypair')
    assert.deepEqual(named, [])
  })
}

// Which types settle is read from the definition (ordersAccounts: it prices its create); the fixtures say
// which place orders. A type that orders without settling would leave its orders handed over and never
// named by a state, and a later create of the same intent would stop on its own account.
test('every type whose create or change places an order settles, and no other', () => {
  for (const fixture of fixtures) {
    const { lifecycle } = fixture
    const placed = [lifecycle.orders, ...lifecycle.inPlace.map((change) => change.orders)]
    const orders = placed.some((kinds) => Object.keys(kinds).length > 0)
    assert.equal(
      ordersAccounts(definitionNamed(fixture.name)),
      orders,
      `${fixture.name}: places orders: ${orders}; ordersAccounts must say the same`,
    )
  }
})

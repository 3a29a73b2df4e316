// The price of a plan (issue 18), through both front ends for every resource of the registry: the
// warning a plan shows names what its orders cost, and that is what the emulator bills for the orders
// the apply then places (the create, then each in-place change of the fixture); a plan that orders
// nothing shows no price; `max_order_total` below the price refuses the plan before any order.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type AnyResource, UNKNOWN } from '../../src/core/index.js'
import { resources } from '../../src/resources/index.js'
import { lite } from '../../src/resources/lite-family.js'
import { fixtures, type Lifecycle } from '../fixtures/index.js'
import { Harness } from '../support/harness.js'
import { type Config, drivers } from '../support/conformance.js'
import { definitionNamed, liteKeypairs, liteVmConfig } from '../support/fixtures.js'

/**
 * The pairs of the fixtures' paid changes that cannot be made in one apply, and the plan's refusal: a
 * Lite VM's disk grown beyond a Pro product's disk cannot migrate to that product, which the service
 * would refuse only after the paid growth.
 */
const CANNOT_PAIR: Readonly<Record<string, RegExp>> = {
  'lite_vm: disk_size grows + migrate_to_pro migrates':
    /(migrate_to_pro|migrateToPro) must be one of the Lite Pro products this VM can move to with the \d+ GB disk/,
}

const examples = Object.fromEntries(fixtures.flatMap((f) => (f.lifecycle ? [[f.name, f.lifecycle] as const] : [])))

interface BilledOrder {
  readonly kind: string
  readonly invoice_amount: number
}

async function billedOrders(harness: Harness): Promise<BilledOrder[]> {
  return ((await harness.control('GET', '/orders')) as { orders: BilledOrder[] }).orders
}

/** What the plan's price warning says this resource's orders cost; null when it shows none. */
function shownPrice(warnings: readonly string[]): number | null {
  const priced = warnings.filter((w) => w.includes('This plan places paid orders'))
  assert.ok(priced.length <= 1, `one price warning at most: ${priced.join('\n')}`)
  const match = /This plan places paid orders: (\d+)/.exec(priced[0] ?? '')
  return match ? Number(match[1]) : null
}

/** The configuration without a promocode: the catalog's price is the price before any discount. */
function undiscounted(definition: AnyResource, config: Config): Config {
  return 'promocode' in definition.attributes ? { ...config, promocode: null } : config
}

for (const driver of drivers) {
  for (const definition of resources) {
    const example: Lifecycle | undefined = examples[definition.name]
    if (!example) continue
    describe(`${driver.name}: ${definition.name}`, () => {
      // The create, then each in-place change of the fixture from a fresh create (as the lifecycle suite does).
      const changes = [null, ...example.inPlace]
      for (const step of changes) {
        test(`the price each plan shows is what its orders bill${step ? `: ${step.name}` : ': create'}; an empty plan shows none`, async () => {
          const harness = new Harness()
          const deps = await example.setup(harness)
          const session = await driver.open(definition, harness)
          try {
            let config = undiscounted(definition, example.create(deps))
            let state = null
            for (const change of step ? [{}, step.change(deps)] : [{}]) {
              config = { ...config, ...change }
              const plan = await session.plan(state, config)
              const before = (await billedOrders(harness)).length
              state = await session.apply(state, config)
              const placed = (await billedOrders(harness)).slice(before)
              const billed = placed.reduce((sum, order) => sum + order.invoice_amount, 0)
              const shown = shownPrice(plan.warnings)
              const what = `${JSON.stringify(change)}: orders ${JSON.stringify(placed)}, warnings ${JSON.stringify(plan.warnings)}`
              if (placed.length === 0) assert.equal(shown, null, `no order, no price: ${what}`)
              else assert.equal(shown, billed, `the price shown is what the orders billed: ${what}`)
            }
            assert.equal(shownPrice((await session.plan(state, config)).warnings), null, 'a plan with no change shows no price')
          } finally {
            await session.close()
          }
        })
      }
    })
  }

  // Every pair of paid in-place changes of a resource, in one apply (issue 26): each step is priced on
  // the object the steps before it leave (a resize then a change of product bills the new product on
  // the new size), as the service bills them.
  for (const definition of resources) {
    const example: Lifecycle | undefined = examples[definition.name]
    const paid = (example?.inPlace ?? []).filter((change) => Object.keys(change.orders).length > 0)
    if (!example || paid.length < 2) continue
    for (const [i, first] of paid.entries()) {
      for (const second of paid.slice(i + 1)) {
        test(`${driver.name}: ${definition.name}: ${first.name} and ${second.name} in one apply are priced as they bill`, async () => {
          const harness = new Harness()
          const deps = await example.setup(harness)
          const session = await driver.open(definition, harness)
          try {
            const created = undiscounted(definition, example.create(deps))
            const state = await session.apply(null, created)
            const config = { ...created, ...first.change(deps), ...second.change(deps) }
            const refused = CANNOT_PAIR[`${definition.name}: ${first.name} + ${second.name}`]
            if (refused) {
              // Not a pair one apply can make: the plan refuses it, before the first is ordered.
              const before = (await billedOrders(harness)).length
              await assert.rejects(session.plan(state, config), refused)
              assert.equal((await billedOrders(harness)).length, before, 'nothing ordered')
              return
            }
            const plan = await session.plan(state, config)
            const before = (await billedOrders(harness)).length
            await session.apply(state, config)
            const placed = (await billedOrders(harness)).slice(before)
            const billed = placed.reduce((sum, order) => sum + order.invoice_amount, 0)
            const what = `orders ${JSON.stringify(placed)}, warnings ${JSON.stringify(plan.warnings)}`
            assert.equal(placed.length, 2, `one order per change: ${what}`)
            assert.equal(shownPrice(plan.warnings), billed, `the price shown is what the orders billed: ${what}`)
          } finally {
            await session.close()
          }
        })
      }
    }
  }

  test(`${driver.name}: a price that depends on a value known only after apply is said to be unknown, and the plan goes on`, async () => {
    const definition = resources.find((r) => r.name === 'lite_vm') as AnyResource
    const example = examples.lite_vm as Lifecycle
    const harness = new Harness()
    const deps = await example.setup(harness)
    const session = await driver.open(definition, harness, { max_order_total: 1 })
    try {
      const plan = await session.plan(null, { ...undiscounted(definition, example.create(deps)), product_id: UNKNOWN })
      const [warning] = plan.warnings.filter((w) => w.includes('This plan places paid orders'))
      assert.match(warning ?? '', /This plan places paid orders: price unknown \(all orders of the plan so far: 0\)/)
      assert.match(warning ?? '', /the new object \(its price depends on values known only after apply\): price unknown/)
    } finally {
      await session.close()
    }
  })

  // A snapshot of a VM whose disk is larger than the restored product's base disk: the service bills
  // the restore that storage too. The snapshot shows no size; the plan tells it from its source VM.
  describe(`${driver.name}: a VM restored from a snapshot larger than its product's base disk`, () => {
    const restored = definitionNamed('lite_vm_from_snapshot')
    const vmDefinition = definitionNamed('lite_vm')
    async function bigSnapshot(harness: Harness) {
      const keys = await liteKeypairs(lite)(harness)
      const vmConfig = { ...liteVmConfig(lite, keys, 'big-source'), disk_size: 35 }
      const vm = await harness.create(vmDefinition, vmConfig)
      const snapshot = await harness.create(definitionNamed('lite_snapshot'), {
        lite_account_id: Number(vm.id),
        cycle: 'm',
        name: 'big-snapshot',
      })
      const config: Config = {
        snapshot_id: Number(snapshot.id),
        product_id: 101, // "XS 1.1": a 20 GB base disk, 60000 a month
        cycle: 'm',
        keypair_id: keys.keypair!,
        name: 'restored-big',
        ssh_and_console_user: 'deployer',
        console_password: 'Secret123',
      }
      return { vm, vmConfig, config }
    }

    test('is priced with the storage above the base, as the restore bills it, and max_order_total counts it', async () => {
      const harness = new Harness()
      const { config } = await bigSnapshot(harness)
      const session = await driver.open(restored, harness)
      let billed: number
      try {
        const plan = await session.plan(null, config)
        const before = (await billedOrders(harness)).length
        await session.apply(null, config)
        const placed = (await billedOrders(harness)).slice(before)
        billed = placed.reduce((sum, order) => sum + order.invoice_amount, 0)
        const what = `orders ${JSON.stringify(placed)}, warnings ${JSON.stringify(plan.warnings)}`
        assert.ok(billed > 60000, `the restore bills the storage above the base: ${what}`)
        assert.equal(shownPrice(plan.warnings), billed, `the price shown is what the restore billed: ${what}`)
        assert.match(plan.warnings.join('\n'), /storage of 15 GB above the base disk: 15000 per Monthly cycle/)
        assert.doesNotMatch(plan.warnings.join('\n'), /or more/)
      } finally {
        await session.close()
      }
      // A limit below what the restore bills refuses another such restore, before it is ordered.
      const limited = await driver.open(restored, harness, { max_order_total: billed - 1 })
      try {
        const before = (await billedOrders(harness)).length
        await assert.rejects(limited.plan(null, { ...config, name: 'restored-two' }), /exceed (provider:maxOrderTotal|max_order_total)/)
        assert.equal((await billedOrders(harness)).length, before, 'nothing is ordered')
      } finally {
        await limited.close()
      }
    })

    test('whose VM grew since, or not known until apply: the least it costs, said to be so and why; the plan goes on', async () => {
      const harness = new Harness()
      const { vm, vmConfig, config } = await bigSnapshot(harness)
      const grown = await harness.update(vmDefinition, vm, { ...vmConfig, disk_size: 40 })
      assert.ok(grown.state, JSON.stringify(grown.diagnostics))
      const session = await driver.open(restored, harness)
      try {
        const plan = await session.plan(null, config)
        const [warning] = plan.warnings.filter((w) => w.includes('This plan places paid orders'))
        assert.match(warning ?? '', /This plan places paid orders: 60000 or more/)
        assert.match(
          warning ?? '',
          new RegExp(
            `new product 101 "XS 1.1": 60000 per Monthly cycle, or more: the service does not show the disk size snapshot ` +
              `${String(config.snapshot_id)} captured, and its source VM ${String(vm.id)} \\(40 GB now\\) has had an order since the snapshot`,
          ),
        )
        assert.match(warning ?? '', /billed the storage above the base too/)
        const before = (await billedOrders(harness)).length
        await session.apply(null, config)
        const placed = (await billedOrders(harness)).slice(before)
        const billed = placed.reduce((sum, order) => sum + order.invoice_amount, 0)
        assert.ok(billed > 60000, `the restore bills the storage of the 35 GB the snapshot captured: ${JSON.stringify(placed)}`)
        const unknown = await session.plan(null, { ...config, name: 'restored-unk', snapshot_id: UNKNOWN })
        assert.match(
          unknown.warnings.join('\n'),
          /new product 101 "XS 1.1": 60000 per Monthly cycle, or more: the snapshot is known only after apply/,
        )
      } finally {
        await session.close()
      }
    })
  })

  test(`${driver.name}: max_order_total below the price refuses the plan, naming the order, and nothing is ordered`, async () => {
    const definition = resources.find((r) => r.name === 'lite_vm') as AnyResource
    const example = examples.lite_vm as Lifecycle
    const harness = new Harness()
    const deps = await example.setup(harness)
    const config = undiscounted(definition, example.create(deps))
    const priced = await driver.open(definition, harness)
    const price = shownPrice((await priced.plan(null, config)).warnings)
    await priced.close()
    assert.ok(price !== null && price > 0)
    const limited = await driver.open(definition, harness, { max_order_total: price - 1 })
    try {
      const before = (await billedOrders(harness)).length
      await assert.rejects(limited.plan(null, config), (thrown: Error) => {
        assert.match(thrown.message, /exceed (provider:maxOrderTotal|max_order_total)/)
        assert.match(thrown.message, new RegExp(`new product ${config.product_id} .*: ${price} per Monthly cycle`))
        return true
      })
      await assert.rejects(limited.apply(null, config), /exceed/)
      assert.equal((await billedOrders(harness)).length, before, 'nothing is ordered')
    } finally {
      await limited.close()
    }
    const enough = await driver.open(definition, harness, { max_order_total: price })
    try {
      assert.equal(shownPrice((await enough.plan(null, config)).warnings), price, 'a limit equal to the price lets the plan through')
    } finally {
      await enough.close()
    }
  })
}

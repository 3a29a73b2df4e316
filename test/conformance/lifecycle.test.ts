// The lifecycle conformance suite (docs/design.md, "Tests"): every resource of the registry through both front ends,
// in-process against the emulator on a manual clock. Written once; it names no resource: what differs
// per resource is its fixture's lifecycle (test/fixtures/), what differs per front end is a driver (driver.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  type AnyResource,
  createOnlyInputs,
  inputNames,
  orderTimeInputs,
  resourceIdentity,
  toCamel,
  toSnake,
  UNKNOWN,
  writeOnlyInputs,
} from '../../src/core/index.js'
import { resources } from '../../src/resources/index.js'
import { type Deps, fixtures, type Lifecycle as Example, type Orders } from '../fixtures/index.js'
import { Harness } from '../support/harness.js'
import { type Config, type DriverSession, type DriverState, drivers, type FrontEndDriver, type PlanView } from '../support/conformance.js'

interface Fixture {
  readonly harness: Harness
  readonly session: DriverSession
  readonly deps: Deps
  readonly config: Config
}

async function open(driver: FrontEndDriver, definition: AnyResource, example: Example): Promise<Fixture> {
  const harness = new Harness()
  const deps = await example.setup(harness)
  const session = await driver.open(definition, harness)
  return { harness, session, deps, config: example.create(deps) }
}

/** Runs `body` on a fresh fixture and always closes the session. */
async function withFixture(driver: FrontEndDriver, definition: AnyResource, example: Example, body: (f: Fixture) => Promise<void>) {
  const fixture = await open(driver, definition, example)
  try {
    await body(fixture)
  } finally {
    await fixture.session.close()
  }
}

/** The orders `action` placed, by kind: the order counters after minus before. */
async function ordersDuring<T>(harness: Harness, action: () => Promise<T>): Promise<{ result: T; orders: Orders }> {
  const before = (await harness.orders()).by_kind
  const result = await action()
  const after = (await harness.orders()).by_kind
  const orders: Record<string, number> = {}
  for (const [kind, count] of Object.entries(after)) {
    const placed = count - (before[kind] ?? 0)
    if (placed !== 0) orders[kind] = placed
  }
  return { result, orders }
}

async function create(f: Fixture, example: Example): Promise<DriverState> {
  const { result, orders } = await ordersDuring(f.harness, () => f.session.apply(null, f.config))
  assert.deepEqual(orders, example.orders, 'the create places exactly the intended orders')
  assert.ok(result.id !== '' && result.id !== 'null', 'the created object has an id')
  return result
}

function assertEmpty(plan: PlanView, what: string): void {
  assert.deepEqual(plan.replace, [], `${what}: nothing is replaced`)
  assert.deepEqual(plan.changed, [], `${what}: the plan is empty`)
}

/** A refresh then a plan with the same configuration: what `terraform plan` / `pulumi preview --refresh` show. */
async function assertNoDrift(f: Fixture, state: DriverState, config: Config, what: string): Promise<DriverState> {
  const refreshed = await f.session.read(state)
  assert.ok(refreshed, `${what}: the object still exists`)
  assertEmpty(await f.session.plan(refreshed, config), what)
  return refreshed
}

/**
 * The write-only inputs' alternatives an import left null (a VM's password: core withoutUnchosenForm,
 * Terraform only). The first plan after the import records them, replacing nothing.
 */
function unread(definition: AnyResource, imported: DriverState, config: Config): string[] {
  return writeOnlyInputs(definition.attributes)
    .map(({ spec }) => spec.alternative)
    .filter((name) => (imported.values[name] ?? null) === null && (config[name] ?? null) !== null)
}

/** The plan after an import: empty, but for recording what the import did not read. */
function assertEmptyAfterImport(plan: PlanView, recorded: readonly string[], what: string): void {
  assert.deepEqual(plan.replace, [], `${what}: nothing is replaced`)
  assert.deepEqual([...plan.changed].sort(), [...recorded].sort(), `${what}: the plan only records what the import did not read`)
}

function withoutUnrecoverable(config: Config, example: Example): Config {
  return Object.fromEntries(Object.entries(config).filter(([name]) => !example.unrecoverable.includes(name)))
}

/** Each fixture's lifecycle, by the definition's canonical name. */
const examples: Readonly<Record<string, Example>> = Object.fromEntries(fixtures.map((f) => [f.name, f.lifecycle]))

test('every resource of the registry has a complete example', () => {
  const missing = resources.filter((r) => !examples[r.name]).map((r) => r.name)
  assert.deepEqual(missing, [], 'a resource without a fixture (test/fixtures/) would skip the lifecycle suite')
  const stale = Object.keys(examples).filter((name) => !resources.some((r) => r.name === name))
  assert.deepEqual(stale, [], 'fixtures of resources the registry no longer has')
  for (const definition of resources) {
    const example = examples[definition.name]!
    const createOnly = createOnlyInputs(definition)
    // A write-only input and its version are exercised by the write-only cases, with their own values.
    const writeOnly = writeOnlyInputs(definition.attributes)
    const versions = writeOnly.map(({ spec }) => spec.version)
    assert.deepEqual(
      Object.keys(example.replace).sort(),
      createOnly.filter((name) => !versions.includes(name)).sort(),
      `${definition.name}: one alternative per create-only input`,
    )
    assert.deepEqual(
      Object.keys(example.writeOnly ?? {}).sort(),
      writeOnly.map(({ name }) => name).sort(),
      `${definition.name}: one value pair per write-only input`,
    )
    const changedInPlace = new Set(example.inPlace.flatMap((c) => Object.keys(c.change({}))))
    const updatable = inputNames(definition).filter(
      (name) => !createOnly.includes(name) && !writeOnly.some((w) => w.name === name || w.spec.version === name),
    )
    assert.deepEqual(
      updatable.filter((name) => !changedInPlace.has(name)),
      [],
      `${definition.name}: one in-place change per updatable input`,
    )
    const declared = (definition.unrecoverable ?? []).filter((name) => inputNames(definition).includes(name))
    assert.deepEqual(
      [...example.unrecoverable].sort(),
      [...declared].sort(),
      `${definition.name}: the unrecoverable inputs the definition declares`,
    )
  }
})

for (const driver of drivers) {
  for (const definition of resources) {
    const example = examples[definition.name]
    if (!example) continue // reported by the completeness test above
    describe(`${driver.name}: ${definition.name}`, () => {
      test('create, then a refresh shows no drift', async () => {
        await withFixture(driver, definition, example, async (f) => {
          const created = await create(f, example)
          const refreshed = await assertNoDrift(f, created, f.config, 'after create')
          assert.equal(refreshed.id, created.id)
        })
      })

      for (const step of example.inPlace) {
        test(`in place: ${step.name}`, async () => {
          await withFixture(driver, definition, example, async (f) => {
            const created = await create(f, example)
            const config = { ...f.config, ...step.change(f.deps) }
            const plan = await f.session.plan(created, config)
            assert.deepEqual(plan.replace, [], 'the change is planned in place')
            for (const name of Object.keys(step.change(f.deps))) assert.ok(plan.changed.includes(name), `the plan shows ${name} changing`)
            // An order-time input (a promocode, the payment flag) is only recorded, and the plan says so.
            for (const name of orderTimeInputs(definition).filter((n) => n in step.change(f.deps))) {
              assert.ok(
                plan.warnings.some(
                  (w) => w.includes('takes effect at the next order') && (w.includes(toSnake(name)) || w.includes(toCamel(name))),
                ),
                `the plan warns that ${name} takes effect at the next order: ${JSON.stringify(plan.warnings)}`,
              )
            }
            const { result: updated, orders } = await ordersDuring(f.harness, () => f.session.apply(created, config))
            assert.equal(updated.id, created.id, 'the same object is kept')
            assert.deepEqual(orders, step.orders, 'the step places exactly the intended orders')
            for (const [name, value] of Object.entries(step.change(f.deps))) {
              assert.deepEqual(updated.values[name], value, `the state records the new ${name}`)
            }
            await assertNoDrift(f, updated, config, 'after the change')
          })
        })
      }

      for (const step of example.inPlace) {
        test(`in place from values not known at plan (another resource's outputs): ${step.name}`, async () => {
          await withFixture(driver, definition, example, async (f) => {
            const created = await create(f, example)
            const change = step.change(f.deps)
            const config = { ...f.config, ...change }
            const { result: updated, orders } = await ordersDuring(f.harness, () =>
              f.session.applyFromUnknown(created, config, Object.keys(change)),
            )
            assert.equal(updated.id, created.id, 'the same object is kept')
            assert.deepEqual(orders, step.orders, 'the step places exactly the intended orders')
            await assertNoDrift(f, updated, config, 'after the change')
          })
        })
      }

      for (const [input, alternative] of Object.entries(example.replace)) {
        const skip = 'impossible' in alternative ? alternative.impossible : false
        const title =
          'notInCatalog' in alternative
            ? `a ${input} the catalog lacks is refused at plan, nothing replaced`
            : `changing ${input} replaces the object`
        test(title, { skip }, async () => {
          if ('impossible' in alternative) return
          await withFixture(driver, definition, example, async (f) => {
            const before = await create(f, example)
            const config = { ...f.config, [input]: alternative.value(f.deps) }
            if ('notInCatalog' in alternative) {
              // A replacement whose create is known to fail is refused at plan: nothing is deleted.
              const loose = (text: string) => text.toLowerCase().replaceAll('_', '')
              await assert.rejects(f.session.plan(before, config), (e: Error) => loose(e.message).includes(loose(`invalid ${input}`)))
              assert.notEqual(await f.session.read(before), null, 'the object is still there')
              return
            }
            const plan = await f.session.plan(before, config)
            assert.deepEqual(plan.replace, [[input]], `only ${input} forces the replacement`)
            const { result: after, orders } = await ordersDuring(f.harness, () => f.session.apply(before, config))
            assert.notEqual(after.id, before.id, 'a new object replaces the old one')
            assert.deepEqual(orders, example.orders, 'the replacement places the orders of one create')
            assert.equal(await f.session.read(before), null, 'the old object is gone')
            await assertNoDrift(f, after, config, 'after the replacement')
          })
        })
      }

      for (const { name: wo, spec } of driver.writeOnly ? writeOnlyInputs(definition.attributes) : []) {
        const values = example.writeOnly?.[wo]
        if (!values) continue // reported by the completeness test above
        const { alternative, version } = spec
        const hidden = [wo, alternative, ...(spec.echoes ?? [])]
        /** The create configuration with the write-only form of the value instead of the alternative. */
        const writeOnlyConfig = (f: Fixture, value: unknown, v: number) => ({ ...f.config, [alternative]: null, [wo]: value, [version]: v })
        const serviceHolds = async (f: Fixture, value: unknown) =>
          JSON.stringify(await f.harness.control('GET', '/accounts')).includes(JSON.stringify(value))
        const assertHidden = (values: Readonly<Record<string, unknown>>, what: string) => {
          for (const name of hidden) assert.equal(values[name] ?? null, null, `${what}: ${name} is null`)
        }

        test(`write-only ${wo}: the service gets it, no plan or state holds it`, async () => {
          await withFixture(driver, definition, example, async (f) => {
            const value = values.value(f.deps)
            const config = writeOnlyConfig(f, value, 1)
            assertHidden((await f.session.plan(null, config)).planned, 'the plan of the create')
            const { result: created, orders } = await ordersDuring(f.harness, () => f.session.apply(null, config))
            assert.deepEqual(orders, example.orders, 'the create places the same orders')
            assertHidden(created.values, 'the state after create')
            assert.equal(created.values[version], 1, `the state records ${version}`)
            assert.ok(!JSON.stringify(created.native, (_, v) => (v instanceof Uint8Array ? [...v] : v)).includes(String(value)))
            assert.ok(await serviceHolds(f, value), `the service received ${wo}`)
            const refreshed = await assertNoDrift(f, created, config, 'after create')
            assertHidden(refreshed.values, 'the state after a refresh')
            // Changed alone, the value is invisible to a plan: that is what the version is for.
            assertEmpty(await f.session.plan(refreshed, writeOnlyConfig(f, values.other(f.deps), 1)), `${wo} changed without ${version}`)
          })
        })

        const live = Object.keys(definition.attributes).filter((name) => definition.attributes[name]?.live === true)
        if (live.length > 0) {
          test(`write-only ${wo}: a refresh an hour later keeps the live figures (${live.join(', ')}), as with ${alternative}`, async () => {
            await withFixture(driver, definition, example, async (f) => {
              for (const config of [f.config, writeOnlyConfig(f, values.value(f.deps), 1)]) {
                const created = await f.session.apply(null, config)
                f.harness.emulator.advance(3_600_000) // a running VM's uptime grows
                const refreshed = await f.session.read(created)
                const form = config === f.config ? alternative : wo
                for (const name of live) assert.equal(refreshed?.values[name], created.values[name], `${form}: ${name} is kept`)
                await f.session.delete(created)
              }
            })
          })
        }

        if (definition.attributes[alternative]?.createOnly) {
          test(`write-only ${wo}: a new ${version} replaces the object, with the new value`, async () => {
            await withFixture(driver, definition, example, async (f) => {
              const before = await f.session.apply(null, writeOnlyConfig(f, values.value(f.deps), 1))
              const other = values.other(f.deps)
              const config = writeOnlyConfig(f, other, 2)
              assert.deepEqual((await f.session.plan(before, config)).replace, [[version]], `only ${version} forces the replacement`)
              const { result: after, orders } = await ordersDuring(f.harness, () => f.session.apply(before, config))
              assert.notEqual(after.id, before.id, 'a new object replaces the old one')
              assert.deepEqual(orders, example.orders, 'the replacement places the orders of one create')
              assertHidden(after.values, 'the state after the replacement')
              assert.ok(await serviceHolds(f, other), `the service received the new ${wo}`)
              await assertNoDrift(f, after, config, 'after the replacement')
            })
          })

          test(`write-only ${wo}: switching from ${alternative} with the same value only records it`, async () => {
            await withFixture(driver, definition, example, async (f) => {
              const before = await create(f, example)
              const config = writeOnlyConfig(f, f.config[alternative], 1)
              assert.deepEqual((await f.session.plan(before, config)).replace, [], 'nothing is replaced')
              const { result: after, orders } = await ordersDuring(f.harness, () => f.session.apply(before, config))
              assert.equal(after.id, before.id, 'the same object is kept')
              assert.deepEqual(orders, {}, 'nothing is ordered')
              assertHidden(after.values, 'the state after the switch')
              await assertNoDrift(f, after, config, 'after the switch')
              // A different value cannot be sent to an existing object: it replaces it, as a change of the alternative does.
              const fresh = await create(f, example)
              const plan = await f.session.plan(fresh, writeOnlyConfig(f, values.other(f.deps), 1))
              assert.deepEqual(plan.replace.map((path) => path.join('.')).sort(), [alternative, version].sort())
            })
          })

          test(`write-only ${wo}: switching back to ${alternative} only records it`, async () => {
            await withFixture(driver, definition, example, async (f) => {
              const before = await f.session.apply(null, writeOnlyConfig(f, f.config[alternative], 1))
              const { result: after, orders } = await ordersDuring(f.harness, () => f.session.apply(before, f.config))
              assert.equal(after.id, before.id, 'the same object is kept')
              assert.deepEqual(orders, {}, 'nothing is ordered')
              assert.equal(after.values[alternative], f.config[alternative], `the state records ${alternative} again`)
              await assertNoDrift(f, after, f.config, 'after switching back')
            })
          })
        }
      }

      test('import by id, then the plan is empty', async () => {
        await withFixture(driver, definition, example, async (f) => {
          const created = await create(f, example)
          const imported = await f.session.import(created.id)
          assert.equal(imported.id, created.id)
          const config = withoutUnrecoverable(f.config, example)
          const recorded = unread(definition, imported, config)
          for (const name of inputNames(definition)) {
            if (example.unrecoverable.includes(name) || recorded.includes(name) || created.values[name] === UNKNOWN) continue
            // Optional+computed inputs left unset (power state) are recovered from the server at import.
            if ((f.config[name] ?? null) === null && definition.attributes[name]?.computed) continue
            assert.deepEqual(imported.values[name] ?? null, created.values[name] ?? null, `the import recovers ${name}`)
          }
          assertEmptyAfterImport(await f.session.plan(imported, config), recorded, 'after import')
        })
      })

      // Identity and listing are Terraform's: a front end without them has no such cases (not skipped ones).
      if (driver.identity)
        test('identity: the parts of the id, kept across refresh and changes in place; an import by it plans empty', async () => {
          await withFixture(driver, definition, example, async (f) => {
            const identity = f.session.identity
            assert.ok(identity, 'the session offers identity')
            const created = await create(f, example)
            const expected = resourceIdentity(definition).of(created.id)
            assert.ok(expected, `the id ${created.id} is written as the import id ${definition.importId.format} says`)
            assert.deepEqual(identity.of(created), expected, 'the create gives the identity of its id')
            const refreshed = await f.session.read(created)
            assert.ok(refreshed)
            assert.deepEqual(identity.of(refreshed), expected, 'a refresh keeps the identity')
            let current = refreshed
            const step = example.inPlace[0]
            if (step) {
              current = await f.session.apply(refreshed, { ...f.config, ...step.change(f.deps) })
              assert.deepEqual(identity.of(current), expected, 'a change in place keeps the identity')
            }
            const imported = await identity.import(expected)
            assert.equal(imported.id, created.id, 'the identity names the same object')
            assert.deepEqual(identity.of(imported), expected)
            const config = withoutUnrecoverable(step ? { ...f.config, ...step.change(f.deps) } : f.config, example)
            const recorded = unread(definition, imported, config)
            assertEmptyAfterImport(await f.session.plan(imported, config), recorded, 'after import by identity')
            const missing = resourceIdentity(definition).parts[0]?.name ?? ''
            await assert.rejects(identity.import({ ...expected, [missing]: null }), /Invalid import identity/)
          })
        })

      if (driver.identity)
        test('list: the listing finds the object by its identity, as its import finds it, and its filters keep or drop it', {
          skip: !definition.list ? `${definition.name} is not listable` : false,
        }, async () => {
          await withFixture(driver, definition, example, async (f) => {
            const identity = f.session.identity
            assert.ok(identity)
            const created = await create(f, example)
            const expected = JSON.stringify(resourceIdentity(definition).of(created.id))
            const listed = await identity.list({})
            assert.ok(listed, 'the front end lists the type')
            const found = listed.filter((item) => JSON.stringify(item.identity) === expected)
            assert.equal(found.length, 1, `the listing has ${created.id} once`)
            const imported = await f.session.import(created.id)
            const item = found[0] as (typeof listed)[number]
            assert.deepEqual(item.values, imported.values, 'the listed object is what its import finds')
            const shownBy = definition.list?.displayName
            const shown = shownBy === undefined ? null : imported.values[shownBy]
            assert.equal(item.displayName, shown === null || shown === undefined || shown === '' ? created.id : String(shown))
            // Each filter keeps the object for its own value and drops it for another.
            for (const [name, filter] of Object.entries(definition.list?.filters ?? {})) {
              const value = String(imported.values[filter.attribute] ?? '')
              const keep = filter.match === 'prefix' ? value.slice(0, Math.max(1, Math.floor(value.length / 2))) : value
              const kept = await identity.list({ [name]: keep })
              assert.ok(
                kept?.some((i) => JSON.stringify(i.identity) === expected),
                `${name} = ${keep} keeps it`,
              )
              // Another value the filter takes: another of its listed values, another id in digits.
              const other = filter.values
                ? (filter.values.find((v) => v.toLowerCase() !== value.toLowerCase()) ?? '')
                : filter.validate
                  ? `9${value}`
                  : `zz-not-${value}`
              const dropped = await identity.list({ [name]: other })
              assert.ok(!dropped?.some((i) => JSON.stringify(i.identity) === expected), `${name} = ${other} drops it`)
              if (filter.values) {
                // Listed values match in any case, as the service compares them; any other is refused.
                const lower = await identity.list({ [name]: value.toLowerCase() })
                assert.ok(
                  lower?.some((i) => JSON.stringify(i.identity) === expected),
                  `${name} = ${value.toLowerCase()} keeps it`,
                )
                await assert.rejects(identity.list({ [name]: `zz-not-${value}` }), new RegExp(`${name} must be one of`))
              }
            }
          })
        })

      for (const importCase of example.importCases ?? []) {
        test(`import of ${importCase.name}: never a replacement, at most a record-only apply`, {
          todo: importCase.todo ?? false,
        }, async () => {
          await withFixture(driver, definition, example, async (f) => {
            const created = await f.session.apply(null, importCase.create(f.deps))
            const imported = await f.session.import(created.id)
            const config = importCase.plan(f.deps)
            const plan = await f.session.plan(imported, config)
            assert.deepEqual(plan.replace, [], 'an import is never followed by a replacement (a second paid order)')
            for (const name of plan.changed) {
              assert.ok(example.unrecoverable.includes(name), `only inputs the API cannot return may differ after import, not ${name}`)
            }
            const { result: applied, orders } = await ordersDuring(f.harness, () => f.session.apply(imported, config))
            assert.deepEqual(orders, {}, 'recording what the import could not recover orders nothing')
            assertEmpty(await f.session.plan(applied, config), 'after import and apply')
          })
        })
      }

      test('delete, then it is gone', async () => {
        await withFixture(driver, definition, example, async (f) => {
          const created = await create(f, example)
          const { orders } = await ordersDuring(f.harness, () => f.session.delete(created))
          assert.deepEqual(orders, {}, 'a delete orders nothing')
          assert.equal(await f.session.read(created), null)
        })
      })

      test('gone after an out-of-band delete', async () => {
        await withFixture(driver, definition, example, async (f) => {
          const created = await create(f, example)
          if (example.removeOutOfBand) await example.removeOutOfBand(f.harness, created.id)
          else await f.harness.control('DELETE', `/accounts/${created.id}`)
          assert.equal(await f.session.read(created), null, 'a refresh removes it from state')
          await f.session.delete(created) // deleting what is already gone succeeds
        })
      })
    })
  }
}

// Write-only inputs (core/write-only.ts) over a resource holding a secret: the load-time checks of the
// declaration, the validation rules between the pair, and what plans, states and handlers see of the value.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { applyCreate, applyUpdate, checkPlanOnline, importResource, readResource, type Session } from './apply.js'
import { type Attribute, type Attributes, int64, string } from './attributes.js'
import { checkResource, DefinitionError, defineDataSource, recordOnly } from './definition.js'
import { type AnyResource, silentLogger } from './definition-types.js'
import { planResource } from './plan.js'
import { validateConfig } from './validate.js'
import { UNKNOWN, type ValueMap } from './values.js'
import { withoutWriteOnlyInputs, withWriteOnlyValues } from './write-only.js'

/** A service that keeps one secret per object and reports it back, as the Lite VM's does. */
class SecretService {
  readonly objects = new Map<string, { name: string; secret: string }>()
  readonly created: Record<string, unknown>[] = []
  private next = 1
  create(input: Record<string, unknown>): string {
    this.created.push(input)
    const id = String(this.next++)
    this.objects.set(id, { name: String(input.name), secret: String(input.secret) })
    return id
  }
}

const writeOnly = { alternative: 'secret', version: 'secret_wo_version', echoes: ['secret_echo'], required: true }

function attributes(overrides: Record<string, Partial<Attribute>> = {}): Attributes {
  const base: Record<string, Attribute> = {
    name: string({ required: true, createOnly: true, description: 'Name.' }),
    secret: string({ optional: true, sensitive: true, createOnly: true, description: 'The secret, kept in state.' }),
    secret_wo: string({ optional: true, sensitive: true, writeOnly, description: 'The secret, write-only.' }),
    secret_wo_version: int64({ optional: true, createOnly: true, description: 'Its version.' }),
    secret_echo: string({ computed: true, sensitive: true, description: 'The secret as the service reports it.' }),
  }
  for (const [name, changes] of Object.entries(overrides)) base[name] = { ...(base[name] as Attribute), ...changes }
  return base
}

/** A resource over SecretService, checked at load as defineResource does. */
function definition(attrs: Attributes = attributes(), updates: AnyResource['updates'] = []): AnyResource {
  const resource: AnyResource = {
    kind: 'resource',
    name: 'secret_box',
    description: 'A box with a secret.',
    importId: { format: '<id>', example: '1', parse: (text) => ({ id: text }) },
    timeouts: {},
    attributes: attrs,
    updates,
    async create({ client, input }: { client: SecretService; input: Record<string, unknown> }) {
      const id = client.create(input)
      return { id, secret_echo: client.objects.get(id)?.secret ?? null }
    },
    async read({ client, id }: { client: SecretService; id: string }) {
      const object = client.objects.get(id)
      return object ? { name: object.name, secret: object.secret, secret_echo: object.secret } : null
    },
    async delete({ client, id }: { client: SecretService; id: string }) {
      client.objects.delete(id)
    },
  }
  checkResource(resource)
  return resource
}

const box = definition()
const session = (client = new SecretService()): Session<SecretService> & { client: SecretService } => ({
  client,
  log: silentLogger,
  signal: new AbortController().signal,
})

const summaries = (config: ValueMap, allowed = true) =>
  validateConfig(box.attributes, config, { requireInputs: false, writeOnlyAllowed: allowed }).map((d) => d.summary)

/** Creates through plan and apply as a front end does: the configuration's write-only values put back for the apply. */
async function create(config: ValueMap, s = session()) {
  const plan = planResource(box, null, config)
  const outcome = await applyCreate(box, withWriteOnlyValues(box.attributes, plan.planned, config) as ValueMap, s)
  assert.ok(outcome.state, outcome.diagnostics.map((d) => d.detail).join('\n'))
  return { plan, state: outcome.state, s }
}

describe('write-only inputs: load-time checks', () => {
  const refused: Record<string, Attributes> = {
    'a computed write-only input': attributes({ secret_wo: { computed: true } }),
    'a create-only write-only input': attributes({ secret_wo: { createOnly: true } }),
    'a required write-only input': attributes({ secret_wo: { optional: undefined, required: true } }),
    'a write-only input that is not sensitive': attributes({ secret_wo: { sensitive: false } }),
    'a required alternative': attributes({ secret: { optional: undefined, required: true } }),
    'a defaulted alternative': attributes({ secret: { default: 'x' } }),
    'a version that is not create-only while the alternative is': attributes({ secret_wo_version: { createOnly: false } }),
    'a sensitive version': attributes({ secret_wo_version: { sensitive: true } }),
    'a computed version': attributes({ secret_wo_version: { computed: true } }),
    'an echo that is an input': attributes({ secret_echo: { computed: undefined, optional: true, createOnly: true } }),
    'a missing version': attributes({ secret_wo: { writeOnly: { ...writeOnly, version: 'nope' } } }),
    'a missing alternative': attributes({ secret_wo: { writeOnly: { ...writeOnly, alternative: 'nope' } } }),
  }
  for (const [what, attrs] of Object.entries(refused)) {
    test(`refuses ${what}`, () => {
      assert.throws(() => definition(attrs), DefinitionError)
    })
  }
  test('accepts the sound declaration; a data source cannot have a write-only attribute', () => {
    assert.doesNotThrow(() => checkResource(box))
    assert.throws(
      () =>
        (defineDataSource as (d: unknown) => unknown)({ name: 'd', description: 'D.', attributes: attributes(), read: async () => ({}) }),
      /secret_wo is write-only, which only a resource's inputs can be/,
    )
  })
  test('an updatable alternative needs its version in the same update step', () => {
    const updatable = attributes({ secret: { createOnly: false }, secret_wo_version: { createOnly: false } })
    const build = (steps: string[][]) =>
      definition(
        updatable,
        steps.map((names) => ({ attributes: names, apply: recordOnly })),
      )
    assert.throws(() => build([['secret'], ['secret_wo_version']]), /secret_wo_version must be named by the update step of secret/)
    assert.doesNotThrow(() => build([['secret', 'secret_wo_version']]))
  })
})

describe('write-only inputs: validation', () => {
  test('the write-only form with its version, or the alternative alone, is valid', () => {
    assert.deepEqual(summaries({ name: 'a', secret_wo: 'S3cret', secret_wo_version: 1 }), [])
    assert.deepEqual(summaries({ name: 'a', secret: 'S3cret' }), [])
    assert.deepEqual(summaries({ name: 'a', secret_wo: UNKNOWN, secret_wo_version: UNKNOWN }), [])
  })
  test('both forms at once are refused, naming both', () => {
    const issues = validateConfig(box.attributes, { name: 'a', secret: 'x', secret_wo: 'y', secret_wo_version: 1 })
    assert.deepEqual(
      issues.map((d) => [d.summary, d.path]),
      // No path: the attribute is sensitive, and a client shows what a path points at (the message names it).
      [['Conflicting secret_wo and secret', undefined]],
    )
    assert.match(issues[0]?.detail ?? '', /set secret_wo \(write-only, with secret_wo_version\) or secret, not both/)
  })
  test('a write-only value needs its version, and a version needs the value', () => {
    assert.deepEqual(summaries({ name: 'a', secret_wo: 'y' }), ['Missing secret_wo_version'])
    assert.deepEqual(summaries({ name: 'a', secret: 'x', secret_wo_version: 1 }), ['secret_wo_version without secret_wo'])
  })
  test('one of the pair is required, even where the client checks required arguments itself', () => {
    assert.deepEqual(summaries({ name: 'a' }), ['Missing secret'])
  })
  test('a rule between the pair waits while a value is unknown: it may still turn out set or unset', () => {
    const configs: ValueMap[] = [
      { name: 'a', secret: UNKNOWN, secret_wo: UNKNOWN, secret_wo_version: UNKNOWN },
      { name: 'a', secret: 'x', secret_wo: UNKNOWN, secret_wo_version: 1 },
      { name: 'a', secret_wo: UNKNOWN },
      { name: 'a', secret: UNKNOWN },
      { name: 'a', secret: 'x', secret_wo_version: UNKNOWN },
    ]
    for (const config of configs) {
      assert.deepEqual(summaries(config), [], JSON.stringify(config))
    }
  })
  test('a client without write-only attributes is told to use the alternative', () => {
    const [issue, ...rest] = validateConfig(
      box.attributes,
      { name: 'a', secret_wo: 'y', secret_wo_version: 1 },
      {
        writeOnlyAllowed: false,
      },
    )
    assert.deepEqual(rest, [])
    assert.equal(issue?.summary, 'Write-only attribute secret_wo not supported by this client')
    assert.equal(issue?.path, undefined, 'a sensitive attribute: no path')
    assert.match(issue?.detail ?? '', /Set secret instead/)
    assert.deepEqual(summaries({ name: 'a', secret: 'x' }, false), [], 'the alternative works with such a client')
  })
})

describe('write-only inputs: plans and states', () => {
  const wo = (value: string, version: number) => ({ name: 'a', secret: null, secret_wo: value, secret_wo_version: version })

  test('a create plans no value, hands it to the handler as the alternative, and states none', async () => {
    const { plan, state, s } = await create(wo('S3cret', 1))
    assert.equal(plan.planned.secret_wo, null)
    assert.equal(plan.planned.secret, null)
    assert.equal(plan.planned.secret_echo, null, 'the echo is planned null, not unknown')
    assert.equal(s.client.created[0]?.secret, 'S3cret', 'the handler receives the value under the alternative')
    assert.equal(s.client.created[0]?.secret_wo, null, 'and never under the write-only name')
    assert.deepEqual([state.secret_wo, state.secret, state.secret_echo, state.secret_wo_version], [null, null, null, 1])
    assert.ok(!JSON.stringify(state).includes('S3cret'))
  })

  test('a plan never changes what the configuration says, even unknown: the alternative stays, the echo waits for the form', () => {
    const allUnknown = planResource(box, null, { name: 'a', secret: UNKNOWN, secret_wo: UNKNOWN, secret_wo_version: UNKNOWN })
    assert.deepEqual(allUnknown.diagnostics, [])
    assert.equal(allUnknown.planned.secret, UNKNOWN, 'an unknown alternative is planned as configured')
    assert.equal(allUnknown.planned.secret_wo, null, 'a write-only value is never planned')
    assert.equal(allUnknown.planned.secret_echo, UNKNOWN, 'the form is unknown, so the echo is')
    const oldForm = planResource(box, null, { name: 'a', secret: 'x', secret_wo_version: null })
    assert.equal(oldForm.planned.secret, 'x')
    assert.equal(oldForm.planned.secret_echo, UNKNOWN, 'the alternative form: the echo comes from the service')
  })

  test('a refresh keeps the value the service reports out of the state; the alternative form keeps it', async () => {
    const { state, s } = await create(wo('S3cret', 1))
    const read = await readResource(box, state, String(state.id), {}, s)
    assert.deepEqual([read.state?.secret, read.state?.secret_echo], [null, null])
    const old = await create({ name: 'b', secret: 'Pl4in' }, s)
    const oldRead = await readResource(box, old.state, String(old.state.id), {}, s)
    assert.deepEqual([oldRead.state?.secret, oldRead.state?.secret_echo], ['Pl4in', 'Pl4in'])
  })

  test('a new version replaces; a new value alone changes nothing a plan can see', async () => {
    const { state } = await create(wo('S3cret', 1))
    assert.deepEqual(planResource(box, state, wo('Other1', 2)).replace, ['secret_wo_version'])
    const unchanged = planResource(box, state, wo('Other1', 1))
    assert.deepEqual([unchanged.replace, unchanged.changed], [[], []])
  })

  test('switching to the write-only form: the same value only records it, another replaces', async () => {
    const { state, s } = await create({ name: 'a', secret: 'S3cret' })
    const same = planResource(box, state, wo('S3cret', 1))
    assert.deepEqual(same.replace, [])
    assert.deepEqual([...same.changed].sort(), ['secret', 'secret_wo_version'])
    assert.equal(same.planned.secret_echo, null)
    const applied = await applyUpdate(box, state, withWriteOnlyValues(box.attributes, same.planned, wo('S3cret', 1)) as ValueMap, {}, s)
    assert.deepEqual([applied.state?.secret, applied.state?.secret_echo, applied.state?.secret_wo_version], [null, null, 1])
    assert.deepEqual([...planResource(box, state, wo('Other1', 1)).replace].sort(), ['secret', 'secret_wo_version'])
    assert.deepEqual([...planResource(box, state, wo(UNKNOWN as never, 1)).replace].sort(), ['secret', 'secret_wo_version'])
  })

  test('switching back to the alternative only records it', async () => {
    const { state } = await create(wo('S3cret', 1))
    const back = planResource(box, state, { name: 'a', secret: 'S3cret' })
    assert.deepEqual(back.replace, [])
    assert.equal(back.planned.secret, 'S3cret')
  })

  test("switching back with another value than the object's is refused at plan, without showing either; the same value passes", async () => {
    const { state, s } = await create(wo('S3cret', 1))
    const other = await checkPlanOnline(box, state, planResource(box, state, { name: 'a', secret: 'Other99' }), s)
    assert.deepEqual(
      other.map((d) => [d.severity, d.summary, d.path]),
      [['error', 'Invalid secret', undefined]],
    )
    assert.match(other[0]?.detail ?? '', /differs from the value secret_box 1 has \(neither is shown.*the next plan would replace/)
    assert.doesNotMatch(JSON.stringify(other), /S3cret|Other99/)
    assert.deepEqual(await checkPlanOnline(box, state, planResource(box, state, { name: 'a', secret: 'S3cret' }), s), [])
  })
})

describe('write-only inputs: imports', () => {
  const wo = (value: string, version: number) => ({ name: 'a', secret: null, secret_wo: value, secret_wo_version: version })

  /** Imports the object `create` made, and refreshes it, as Terraform does before it plans an import. */
  async function imported(s: Session<SecretService>, id: string) {
    const found = await importResource(box, id, s)
    assert.ok(found.state, found.diagnostics.map((d) => d.detail).join('\n'))
    const refreshed = await readResource(box, found.state, id, found.private, s)
    assert.ok(refreshed.state)
    return { found: found.state, refreshed: refreshed.state, private: refreshed.private }
  }

  test('an import and its refresh hold neither the value nor its echo: the configuration has not told the form yet', async () => {
    const { state, s } = await create({ name: 'a', secret: 'S3cret' })
    const { found, refreshed } = await imported(s, String(state.id))
    for (const [when, values] of [
      ['import', found],
      ['refresh after the import', refreshed],
    ] as const) {
      assert.deepEqual([values.secret, values.secret_echo], [null, null], when)
      assert.ok(!JSON.stringify(values).includes('S3cret'), `the ${when} holds the value`)
    }
  })

  test('the plan of an import records the form the configuration gives, replacing nothing, and plans no value in the write-only form', async () => {
    const { state, s } = await create({ name: 'a', secret: 'S3cret' })
    const { refreshed, private: priv } = await imported(s, String(state.id))
    const writeOnlyForm = planResource(box, refreshed, wo('S3cret', 1), priv)
    assert.deepEqual(writeOnlyForm.replace, [])
    assert.ok(!JSON.stringify(writeOnlyForm.planned).includes('S3cret'), 'the plan holds the value')
    const applied = await applyUpdate(
      box,
      refreshed,
      withWriteOnlyValues(box.attributes, writeOnlyForm.planned, wo('S3cret', 1)) as ValueMap,
      priv,
      s,
    )
    assert.deepEqual([applied.state?.secret, applied.state?.secret_echo, applied.state?.secret_wo_version], [null, null, 1])
    const again = await readResource(box, applied.state, String(state.id), applied.private, s)
    assert.deepEqual([again.state?.secret, again.state?.secret_echo], [null, null], 'the write-only form stays clean')

    const alternative = planResource(box, refreshed, { name: 'a', secret: 'S3cret' }, priv)
    assert.deepEqual([alternative.replace, alternative.changed], [[], ['secret']])
    const recorded = await applyUpdate(box, refreshed, alternative.planned, priv, s)
    assert.equal(recorded.state?.secret, 'S3cret')
    const read = await readResource(box, recorded.state, String(state.id), recorded.private, s)
    assert.deepEqual([read.state?.secret, read.state?.secret_echo], ['S3cret', 'S3cret'], 'the alternative form reads the value again')
    assert.equal(s.client.created.length, 1, 'nothing was ordered again')
  })

  test("the plan of an import in the alternative's form with another value than the object's is refused, not recorded for the next plan to replace", async () => {
    const { state, s } = await create({ name: 'a', secret: 'S3cret' })
    const { refreshed, private: priv } = await imported(s, String(state.id))
    const wrong = planResource(box, refreshed, { name: 'a', secret: 'Wrong123' }, priv)
    assert.deepEqual(wrong.replace, [])
    const issues = await checkPlanOnline(box, refreshed, wrong, s)
    assert.deepEqual(
      issues.map((d) => d.summary),
      ['Invalid secret'],
    )
    assert.deepEqual(await checkPlanOnline(box, refreshed, planResource(box, refreshed, { name: 'a', secret: 'S3cret' }, priv), s), [])
  })
})

describe('write-only inputs: clients without them (Pulumi)', () => {
  test('leave out the write-only input and its version and require the alternative', () => {
    const seen = withoutWriteOnlyInputs(box)
    assert.deepEqual(Object.keys(seen.attributes).sort(), ['name', 'secret', 'secret_echo'])
    assert.equal(seen.attributes.secret?.required, true)
    assert.equal(seen.attributes.secret?.optional, undefined)
    assert.doesNotThrow(() => checkResource(seen))
    assert.deepEqual(
      validateConfig(seen.attributes, { name: 'a' }).map((d) => d.summary),
      ['Missing required attribute secret'],
    )
  })
})

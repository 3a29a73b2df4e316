// Core against the box test resource: name derivation and names in diagnostics, the load-time checks of a
// definition, planning (defaults, replacements, order-time and grow-only inputs) and the apply engine
// (ordered update steps, interruptions, unknown outcomes, resumed orders, reads, import, provider bugs).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  applyCreate,
  applyDelete,
  ownCall,
  applyUpdate,
  importResource,
  NEW_ORDER_GRACE_MS,
  readResource,
  runMethod,
  type Session,
} from './apply.js'
import { type Attribute, attributeNotes, bool, int64, object, string } from './attributes.js'
import { checkResource, DefinitionError, defineMethod, defineResource } from './definition.js'
import { silentLogger } from './definition-types.js'
import { clauseOf, error, renderNames, toDiagnostics, verbatim } from './diagnostics.js'
import { nameProblems, toCamel, toPascal, toSnake } from './names.js'
import { planResource } from './plan.js'
import { validateConfig } from './validate.js'
import { BoxService, boxDefinition, NotFound } from '../../test/support/box-resource.js'
import { durationProblem, parseDuration, timeoutMs } from './timeouts.js'
import { length, oneOf, pattern, printable, range } from './validators.js'
import { isUnknown, UNKNOWN, type ValueMap } from './values.js'

function session(service = new BoxService()): Session<BoxService> & { service: BoxService } {
  return { client: service, log: silentLogger, signal: new AbortController().signal, service }
}

async function created(s = session(), config: ValueMap = { name: 'alpha', size: 20 }) {
  const plan = planResource(boxDefinition, null, config)
  const outcome = await applyCreate(boxDefinition, plan.planned, s)
  assert.ok(outcome.state, 'create returns a state')
  s.service.calls.length = 0
  return outcome.state
}

describe('names', () => {
  test('snake and camel derive each other', () => {
    assert.equal(toCamel('pay_with_credit_card'), 'payWithCreditCard')
    assert.equal(toSnake('payWithCreditCard'), 'pay_with_credit_card')
    assert.equal(toPascal('baremetal_additional_ip'), 'BaremetalAdditionalIp')
    assert.equal(toPascal('lite_vm'), 'LiteVm')
  })
  test('only snake_case names that survive the round trip are canonical, and a refusal names the name and the rule', () => {
    assert.deepEqual(nameProblems('attribute', ['product_id', 'ip_v4_address', 'p4', 'pay_with_credit_card']), [])
    const refused = nameProblems('attribute', ['productId', 'vm__name', 'Name', 'a_1b'])
    assert.equal(refused.length, 4)
    for (const [index, name] of ['productId', 'vm__name', 'Name'].entries()) {
      assert.match(refused[index]!, new RegExp(`^attribute ${name} is not snake_case: .*lower-case words.*e\\.g\\. product_id`))
    }
    assert.match(refused[3]!, /^attribute a_1b does not survive the snake\/camel round trip \(a1b reads back as a1b\)/)
  })
})

describe('names in diagnostics', () => {
  const names = new Map([
    ['baremetal', 'provider_baremetal'],
    ['power_state', 'powerState'],
    ['lite_products', 'provider_lite_products'],
  ])
  test('names are rendered as words; API paths, hostnames and verbatim text stay as they are', () => {
    const shown = renderNames(
      error(
        'Invalid power_state',
        `power_state of baremetal: see lite_products; GET /baremetal-elastic-storages/1 at api.baremetal.example; ${verbatim('baremetal said power_state')}.`,
      ),
      names,
    )
    assert.equal(shown.summary, 'Invalid powerState')
    assert.equal(
      shown.detail,
      'powerState of provider_baremetal: see provider_lite_products; GET /baremetal-elastic-storages/1 at api.baremetal.example; baremetal said power_state.',
    )
  })
  test('a name of two words joined by a dot is rendered whole, and only where it stands alone', () => {
    const spelled = new Map([...names, ['timeouts.create', 'customTimeouts.create']])
    const shown = renderNames(error('Timed out', 'raise timeouts.create, not my.timeouts.create nor timeouts.created.'), spelled)
    assert.equal(shown.detail, 'raise customTimeouts.create, not my.timeouts.create nor timeouts.created.')
  })
  test("an API client's error (it names its request) is shown verbatim, once, on the field it rejects", () => {
    const thrown = Object.assign(new Error('HTTP 422 on POST /baremetals: power_state: baremetal says no'), {
      method: 'POST',
      path: '/baremetals',
      fields: [{ field: 'power_state', message: 'baremetal says no' }],
    })
    const shown = toDiagnostics(thrown, 'Creating baremetal failed', ['power_state']).map((d) => renderNames(d, names))
    assert.deepEqual(
      shown.map((d) => [d.summary, d.detail, d.path]),
      [['Creating provider_baremetal failed', 'HTTP 422 on POST /baremetals: power_state: baremetal says no', ['power_state']]],
    )
  })

  test("a clause of an API client's error drops its full stop inside a sentence, so no sentence shows '..'", () => {
    const thrown = Object.assign(new Error('GET /lites/accounts/1 answered 503 (request id r-1).'), {
      method: 'GET',
      path: '/lites/accounts/1',
    })
    const shown = renderNames(error('Failed', `It stopped: ${clauseOf(thrown)}. The resource is kept.`), names)
    assert.equal(shown.detail, 'It stopped: GET /lites/accounts/1 answered 503 (request id r-1). The resource is kept.')
    assert.equal(clauseOf(new Error('plain text.')), 'plain text')
  })
})

describe('validators', () => {
  test('each rule names what is wrong', () => {
    assert.equal(length({ min: 6, max: 16 }).check('abc'), 'must be 6 to 16 characters long (got 3)')
    assert.equal(length({ min: 6, max: 16 }).check('abcdefg'), null)
    assert.match(pattern(/^[a-z]+$/, 'lower-case letters').check('A1') ?? '', /lower-case letters/)
    assert.match(oneOf(['m', 'a']).check('x') ?? '', /one of "m", "a" \(got "x"\)/)
    assert.match(range({ min: 1 }).check(0) ?? '', /at least 1/)
  })
  test('length counts characters, not UTF-16 units', () => {
    assert.equal(length({ max: 3 }).check('ééé'), null)
    assert.equal(length({ max: 3 }).check('😀😀😀'), null)
  })
  test('printable refuses every control character, naming it and where it is; letters of any script pass', () => {
    const rule = printable()
    for (const [text, code, at] of [
      ['a\nb', '000A', 2],
      ['\u0000x', '0000', 1],
      ['tab\there', '0009', 4],
      ['del\u007f', '007F', 4],
      ['next\u0085line', '0085', 5],
      ['😀\r', '000D', 2],
    ] as const) {
      assert.equal(
        rule.check(text),
        `must not contain control characters (line breaks, tabs, NUL): found U+${code} at character ${at}`,
        JSON.stringify(text),
      )
    }
    for (const text of ['café-über', 'Größe — 20 GB', '名前', '😀 ok', '']) assert.equal(rule.check(text), null, text)
    assert.equal(rule.check(42), null, 'not a string: the type check speaks')
  })
  test('oneOf with ignoreCase matches whatever the case and says so in its rule', () => {
    const status = oneOf(['Active', 'Pending'], { ignoreCase: true })
    assert.equal(status.check('active'), null)
    assert.equal(status.check('PENDING'), null)
    assert.equal(status.rule, 'one of "Active", "Pending" (in any case)')
    assert.equal(status.check('running'), 'must be one of "Active", "Pending" (in any case) (got "running")')
    assert.match(oneOf(['Active']).check('active') ?? '', /got "active"/, 'without it, case matters')
  })
})

describe('timeouts', () => {
  test('durations parse as in Terraform', () => {
    assert.equal(parseDuration('20m'), 20 * 60_000)
    assert.equal(parseDuration('1h30m'), 90 * 60_000)
    assert.equal(parseDuration('45s'), 45_000)
    assert.equal(parseDuration('1m500ms'), 60_500)
    // Longer than a timer can wait: refused rather than turned into 1 ms by the runtime.
    assert.equal(parseDuration('596h'), 596 * 3_600_000)
    assert.equal(parseDuration('597h'), null)
    assert.equal(parseDuration('99999999h'), null)
    assert.match(durationProblem('600h', '"20m"') ?? '', /must be at most 596h/)
    assert.match(durationProblem('soon', '"20m"') ?? '', /must be a duration such as "20m"/)
    assert.equal(durationProblem('20m', '"20m"'), null)
    assert.equal(parseDuration('soon'), null)
    assert.equal(parseDuration('0s'), null)
    assert.match(durationProblem('0s', '"20m"') ?? '', /must be longer than 0/)
    // Go's syntax, as Terraform's own providers take it: fractions, and the units below a millisecond.
    assert.equal(parseDuration('1.5h'), 90 * 60_000)
    assert.equal(parseDuration('.5s'), 500)
    assert.equal(parseDuration('2h45m30.5s'), ((2 * 60 + 45) * 60 + 30.5) * 1000)
    assert.equal(parseDuration('1500us'), 2, 'rounded to the millisecond of a timer')
    for (const bad of ['1.5', 'h', '1 h', '1hh', '-5m', '1d', '1.5.5s']) assert.equal(parseDuration(bad), null, bad)
  })
  test('configured values win over defaults', () => {
    assert.equal(timeoutMs({ create: '20m' }, { create: '2m' }, 'create'), 120_000)
    assert.equal(timeoutMs({ create: '20m' }, null, 'create'), 1_200_000)
    // Longer than a timer holds (a Pulumi delete's customTimeouts, which no preview checks): the longest, never 20 minutes.
    assert.equal(timeoutMs({ delete: '10m' }, { delete: '2520000s' }, 'delete'), 2_147_483_647)
    assert.equal(timeoutMs({ delete: '10m' }, { delete: 'soon' }, 'delete'), 600_000)
  })
})

describe('definition check', () => {
  test('an input that no step covers and that is not create-only is refused at load', () => {
    assert.throws(
      () =>
        defineResource({
          ...boxDefinition,
          name: 'broken',
          updates: boxDefinition.updates.filter((s) => !s.attributes.includes('label')),
        }),
      (e: unknown) => e instanceof DefinitionError && /label is neither create-only nor covered/.test(e.message),
    )
  })
  test('a create-only attribute named by a step is refused', () => {
    assert.throws(
      () =>
        checkResource({ ...boxDefinition, updates: [...boxDefinition.updates, { attributes: ['name'], apply: async () => undefined }] }),
      /name is create-only but update step 4 names it/,
    )
  })
  test('a step that calls the service must declare what it affects; a record-only step need not', () => {
    const [label, ...rest] = boxDefinition.updates
    const { affects: _declared, ...undeclared } = label!
    assert.throws(
      () => checkResource({ ...boxDefinition, updates: [undeclared, ...rest] }),
      (e: unknown) =>
        e instanceof DefinitionError && /update step 0 \(label\) calls the service but does not declare what it affects/.test(e.message),
    )
    assert.doesNotThrow(() => checkResource(boxDefinition))
    assert.equal(boxDefinition.updates.find((step) => step.attributes.includes('paid'))?.affects, undefined)
  })
  test('a step may affect only read-only attributes', () => {
    const updates = boxDefinition.updates.map((step, index) => (index === 0 ? { ...step, affects: ['label'] as never } : step))
    assert.throws(() => checkResource({ ...boxDefinition, updates }), /update step 0 affects label, which is not a read-only attribute/)
  })
  test('reserved names and names that are not snake_case are refused', () => {
    assert.throws(
      () =>
        checkResource({
          ...boxDefinition,
          attributes: {
            id: string({ computed: true, description: 'x' }),
            bad__name: int64({ computed: true, description: 'y' }),
            badName: int64({ computed: true, description: 'z' }),
          },
          updates: [],
        }),
      /id is reserved.*attribute bad__name is not snake_case.*attribute badName is not snake_case/,
    )
  })
})

describe('methods', () => {
  const restart = boxDefinition.methods![0]!
  test('a method runs once on the object, with its progress, and changes no state', async () => {
    const s = session()
    const id = String((await created(s)).id)
    const progress: string[] = []
    const outcome = await runMethod(boxDefinition, restart, id, { mode: 'hard' }, s, (m) => progress.push(m))
    assert.deepEqual(outcome.diagnostics, [])
    assert.deepEqual(s.service.calls, ['restart:hard'])
    assert.deepEqual(progress, [`restarting box ${id}`, `box ${id} restarted`])
  })
  test('arguments are checked as written before anything is called, naming the argument and the rule', async () => {
    const s = session()
    const id = String((await created(s)).id)
    const missing = await runMethod(boxDefinition, restart, id, {}, s, () => undefined)
    assert.match(missing.diagnostics.map((d) => `${d.summary}: ${d.detail}`).join('\n'), /mode/)
    assert.deepEqual(missing.diagnostics[0]?.path, ['mode'])
    const wrong = await runMethod(boxDefinition, restart, id, { mode: 'gentle' }, s, () => undefined)
    assert.match(wrong.diagnostics[0]?.detail ?? '', /soft.*hard/)
    assert.deepEqual(s.service.calls, [])
  })
  test('a failure is an error naming the method and the object', async () => {
    const outcome = await runMethod(boxDefinition, restart, '99', { mode: 'soft' }, session(), () => undefined)
    assert.equal(outcome.diagnostics[0]?.severity, 'error')
    assert.match(outcome.diagnostics[0]?.summary ?? '', /box restart of 99 failed/)
    assert.match(outcome.diagnostics[0]?.detail ?? '', /box 99 not found/)
  })
  test('methods are checked at load: unique snake_case names, a duration, plain arguments', () => {
    const bad = defineMethod<BoxService, { at: ReturnType<typeof int64> }>({
      name: 'Restart',
      description: 'x',
      inputs: { at: int64({ optional: true, computed: true, description: 'y' }) },
      timeout: 'soon',
      async run() {},
    })
    assert.throws(
      () => checkResource({ ...boxDefinition, methods: [restart, restart, bad] }),
      (e: unknown) =>
        e instanceof DefinitionError &&
        /two methods are named restart/.test(e.message) &&
        /method Restart is not snake_case/.test(e.message) &&
        /method Restart has a timeout that is not a duration/.test(e.message) &&
        /method Restart: at must be a plain required or optional argument/.test(e.message),
    )
    assert.doesNotThrow(() => checkResource(boxDefinition))
  })
})

describe('planning: create, validation and replacement', () => {
  test('create: defaults applied, computed unknown, optional+computed unknown when unset', () => {
    const plan = planResource(boxDefinition, null, { name: 'alpha' })
    assert.equal(plan.planned.label, 'box-label')
    assert.equal(plan.planned.paid, true)
    assert.equal(plan.planned.status, UNKNOWN)
    assert.equal(plan.planned.size, UNKNOWN)
    assert.equal(plan.planned.id, UNKNOWN)
    assert.deepEqual(plan.diagnostics, [])
  })
  test('every invalid input is reported at once, each with its path', () => {
    const plan = planResource(boxDefinition, null, { name: 'ab', power: 'sideways', size: 1.5, timeouts: { create: 'soon' } })
    assert.deepEqual(
      plan.diagnostics.map((d) => d.path),
      [['name'], ['size'], ['power'], ['timeouts', 'create']],
    )
    assert.ok(plan.diagnostics.every((d) => d.severity === 'error'))
  })
  test('a missing required input is an error; unknown values skip validation', () => {
    assert.deepEqual(
      planResource(boxDefinition, null, {}).diagnostics.map((d) => d.path),
      [['name']],
    )
    assert.deepEqual(planResource(boxDefinition, null, { name: UNKNOWN }).diagnostics, [])
  })
  test('no change: the plan equals the prior state', async () => {
    const prior = await created()
    const plan = planResource(boxDefinition, prior, { name: 'alpha', size: 20 })
    assert.deepEqual(plan.planned, prior)
    assert.deepEqual(plan.changed, [])
    assert.equal(plan.applies, false, 'nothing to apply')
  })
  test('a create-only change plans a replacement', async () => {
    const prior = await created()
    const plan = planResource(boxDefinition, prior, { name: 'bravo', size: 20 })
    assert.deepEqual(plan.replace, ['name'])
  })
  test('a change waiting for payment is announced while the object is kept, not when the plan replaces it', async () => {
    const prior = await created()
    const waiting = { waiting: 'invoice 7 is unpaid' }
    const titles = (plan: ReturnType<typeof planResource>) => plan.diagnostics.map((d) => d.summary)
    const kept = planResource(boxDefinition, prior, { name: 'alpha', size: 20 }, waiting)
    assert.deepEqual(titles(kept), [`box ${String(prior.id)} waits for payment`])
    // The replacement deletes the old object and its unpaid invoice goes with it: nothing waits.
    const replaced = planResource(boxDefinition, prior, { name: 'bravo', size: 20 }, waiting)
    assert.deepEqual(replaced.replace, ['name'])
    assert.deepEqual(titles(replaced), [])
    const resumedAndReplaced = planResource(boxDefinition, prior, { name: 'bravo', size: 20 }, { ...waiting, resume: true })
    assert.deepEqual(titles(resumedAndReplaced), [])
  })
})

describe('planning: order-time, unrecoverable, grow-only and computed values', () => {
  test('changing an order-time input on an existing object records it with a warning naming it, never a replacement', async () => {
    const s = session()
    const prior = await created(s, { name: 'alpha', size: 20, coupon: 'SAVE' })
    for (const coupon of ['TYPO', null]) {
      const plan = planResource(boxDefinition, prior, { name: 'alpha', size: 20, coupon })
      assert.deepEqual(plan.replace, [], `coupon ${String(coupon)}: nothing is replaced`)
      assert.deepEqual(plan.changed, ['coupon'])
      assert.equal(plan.planned.status, prior.status, 'nothing the service reports can change')
      const warnings = plan.diagnostics.filter((d) => d.severity === 'warning')
      assert.equal(warnings.length, 1, `coupon ${String(coupon)}: one warning`)
      assert.deepEqual(warnings[0]?.path, ['coupon'])
      assert.match(`${warnings[0]?.summary} ${warnings[0]?.detail}`, /coupon/)
      assert.match(warnings[0]?.summary ?? '', /takes effect at the next order/)
      // The box has no paid change of its own: only a new object reads it.
      assert.match(warnings[0]?.detail ?? '', /box places no order after its create/)
      assert.match(warnings[0]?.detail ?? '', /nothing is deleted/)
      assert.match(warnings[0]?.detail ?? '', /-replace.*--replace/)
      s.service.calls.length = 0
      const outcome = await applyUpdate(boxDefinition, prior, plan.planned, {}, s)
      assert.equal(outcome.state?.id, prior.id, 'the same object is kept')
      assert.equal(outcome.state?.coupon, coupon, 'the new value is recorded')
      assert.deepEqual(s.service.calls, [], 'recording it calls nothing')
    }
    // Changed with something that replaces the object, it is simply part of the new order.
    const replaced = planResource(boxDefinition, prior, { name: 'bravo', size: 20, coupon: 'OTHER' })
    assert.deepEqual(replaced.replace, ['name'])
    assert.deepEqual(replaced.diagnostics, [])
  })
  test('an order-time input is neither create-only nor named by an update step', () => {
    const coupon: Attribute = { ...boxDefinition.attributes.coupon!, orderTime: true }
    assert.throws(
      () => checkResource({ ...boxDefinition, attributes: { ...boxDefinition.attributes, coupon: { ...coupon, createOnly: true } } }),
      /coupon is an order-time input, so it cannot be create-only/,
    )
    assert.throws(
      () =>
        checkResource({
          ...boxDefinition,
          attributes: { ...boxDefinition.attributes, coupon },
          updates: [...boxDefinition.updates, { attributes: ['coupon'], apply: async () => undefined }],
        }),
      /coupon is an order-time input: core records its changes, so update step 4 cannot name it/,
    )
  })
  test('only a priced step (an order) is placed with an order-time input, and only with one', () => {
    const [label, size, ...rest] = boxDefinition.updates
    const placed = (step: object) => checkResource({ ...boxDefinition, updates: [label!, { ...size!, ...step }, ...rest] })
    assert.throws(() => placed({ placedWith: ['coupon'] }), /update step 1 is placed with coupon but has no price, so it places no order/)
    assert.throws(
      () => placed({ placedWith: ['label'], price: async () => [] }),
      /update step 1 is placed with label, which is not an order-time input/,
    )
    assert.doesNotThrow(() => placed({ placedWith: ['coupon'], price: async () => [] }))
  })
  test('setting an order-time input the service never reports, after an import, records it without a warning', async () => {
    const s = session()
    const prior = await created(s, { name: 'alpha', size: 20, coupon: 'SAVE' })
    const imported = await importResource(boxDefinition, String(prior.id), s)
    assert.ok(imported.state)
    assert.equal(imported.state.coupon, null)
    const plan = planResource(boxDefinition, imported.state, { name: 'alpha', size: 20, coupon: 'SAVE' }, imported.private)
    assert.deepEqual(plan.replace, [])
    assert.deepEqual(plan.changed, ['coupon'])
    assert.deepEqual(plan.diagnostics, [], 'the import could not know it: nothing to warn about')
  })
  test('setting an unrecoverable create-only input after an import records it instead of replacing', async () => {
    // The box's coupon made create-only: an input the service never reports that does matter afterwards.
    const { orderTime: _orderTime, ...coupon } = boxDefinition.attributes.coupon as typeof boxDefinition.attributes.coupon & {
      orderTime?: boolean
    }
    const box = { ...boxDefinition, attributes: { ...boxDefinition.attributes, coupon: { ...coupon, createOnly: true } } }
    assert.doesNotThrow(() => checkResource(box))
    const s = session()
    const prior = await created(s, { name: 'alpha', size: 20, coupon: 'SAVE' })
    assert.deepEqual(planResource(box, prior, { name: 'alpha', size: 20, coupon: 'OTHER' }).replace, ['coupon'])
    const imported = (await importResource(box, String(prior.id), s)).state
    assert.ok(imported)
    assert.equal(imported.coupon, null)
    const plan = planResource(box, imported, { name: 'alpha', size: 20, coupon: 'SAVE' })
    assert.deepEqual(plan.replace, [])
    assert.deepEqual(plan.changed, ['coupon'])
    s.service.calls.length = 0
    const outcome = await applyUpdate(box, imported, plan.planned, {}, s)
    assert.equal(outcome.state?.coupon, 'SAVE')
    assert.deepEqual(s.service.calls, [], 'recording it calls nothing')
  })
  test('a grow-only shrink is an error naming the attribute', async () => {
    const prior = await created()
    const plan = planResource(boxDefinition, prior, { name: 'alpha', size: 10 })
    assert.equal(plan.diagnostics.length, 1)
    assert.deepEqual(plan.diagnostics[0]?.path, ['size'])
    assert.match(plan.diagnostics[0]?.detail ?? '', /grow-only.*from 20 to 10/)
  })
  test('a replacement is a new order: a smaller grow-only value with it is no error', async () => {
    const prior = await created()
    const plan = planResource(boxDefinition, prior, { name: 'beta', size: 10 })
    assert.deepEqual(plan.replace, ['name'])
    assert.deepEqual(plan.diagnostics, [])
  })
  test('an in-place change marks computed values unknown, but keeps stable ones', async () => {
    const prior = await created()
    const plan = planResource(boxDefinition, prior, { name: 'alpha', size: 20, label: 'new-label' })
    assert.equal(plan.planned.status, UNKNOWN)
    assert.equal(plan.planned.serial, prior.serial)
    assert.equal(plan.planned.id, prior.id)
  })
  test('removing an action changes nothing (it keeps its last value); a record-only change keeps computed values known', async () => {
    const prior = await created(session(), { name: 'alpha', size: 20, power: 'off' })
    const plan = planResource(boxDefinition, prior, { name: 'alpha', size: 20, paid: false })
    assert.deepEqual(plan.changed, ['paid'])
    assert.equal(plan.planned.power, 'off')
    assert.equal(plan.planned.status, prior.status)
  })
  test('a step that declares what it affects leaves every other read-only attribute known', async () => {
    const prior = await created()
    const plan = planResource({ ...boxDefinition, updates: boxDefinition.updates.map((step) => ({ ...step, affects: [] })) }, prior, {
      name: 'alpha',
      size: 30,
    })
    assert.equal(plan.planned.status, prior.status)
    const declared = planResource(boxDefinition, prior, { name: 'alpha', size: 30 })
    assert.equal(isUnknown(declared.planned.status), true)
  })
  test('an unset optional+computed input keeps the state value', async () => {
    const prior = await created()
    assert.equal(planResource(boxDefinition, prior, { name: 'alpha' }).planned.size, 20)
  })
})

describe('apply: update steps', () => {
  test('an update runs only the changed steps, in the definition order, then reads', async () => {
    const s = session()
    const prior = await created(s)
    const config = { name: 'alpha', size: 30, label: 'relabeled', power: 'off' }
    const plan = planResource(boxDefinition, prior, config)
    const outcome = await applyUpdate(boxDefinition, prior, plan.planned, {}, s)
    assert.deepEqual(s.service.calls, ['relabel', 'grow-order', 'grow-wait', 'power:off', 'read'])
    assert.equal(outcome.state?.size, 30)
    assert.equal(outcome.state?.label, 'relabeled')
  })
  test('clearing an action calls nothing; setting the same value again calls nothing; a new value re-fires', async () => {
    const s = session()
    let state = await created(s, { name: 'alpha', size: 20, power: 'off' })
    const step = async (config: ValueMap) => {
      s.service.calls.length = 0
      const plan = planResource(boxDefinition, state, config)
      const outcome = await applyUpdate(boxDefinition, state, plan.planned, {}, s)
      state = outcome.state ?? state
      return s.service.calls
    }
    assert.deepEqual(await step({ name: 'alpha', size: 20 }), [])
    assert.deepEqual(await step({ name: 'alpha', size: 20, power: 'on' }), ['power:on', 'read'])
    assert.deepEqual(await step({ name: 'alpha', size: 20, power: 'on' }), [])
    assert.deepEqual(await step({ name: 'alpha', size: 20, power: 'off' }), ['power:off', 'read'])
  })
  test('a failed step returns the state reached; a retry never re-sends a step that succeeded', async () => {
    const s = session()
    const prior = await created(s)
    s.service.failOnce.add('power:off')
    const config = { name: 'alpha', size: 30, label: 'relabeled', power: 'off' }
    const first = await applyUpdate(boxDefinition, prior, planResource(boxDefinition, prior, config).planned, {}, s)
    assert.ok(first.diagnostics.some((d) => d.severity === 'error'))
    assert.equal(first.state?.label, 'relabeled')
    assert.equal(first.state?.size, 30)
    assert.ok(first.state)
    s.service.calls.length = 0
    await applyUpdate(boxDefinition, first.state, planResource(boxDefinition, first.state, config).planned, first.private, s)
    assert.deepEqual(s.service.calls, ['power:off', 'read'])
  })
  test('an interrupted apply stops at a step boundary with the finished steps recorded', async () => {
    const service = new BoxService()
    const prior = await created(session(service))
    const stop = new AbortController()
    const s = { client: service, log: silentLogger, signal: stop.signal }
    service.failOnce.add('never')
    const config = { name: 'alpha', size: 30, label: 'relabeled', power: 'off' }
    const planned = planResource(boxDefinition, prior, config).planned
    const original = boxDefinition.updates[0]!.apply
    const interrupted = {
      ...boxDefinition,
      updates: [
        {
          ...boxDefinition.updates[0]!,
          apply: async (ctx: never) => {
            const r = await original(ctx)
            stop.abort()
            return r
          },
        },
        ...boxDefinition.updates.slice(1),
      ],
    }
    const outcome = await applyUpdate(interrupted, prior, planned, {}, s)
    assert.deepEqual(service.calls, ['relabel'])
    assert.equal(outcome.state?.label, 'relabeled')
    assert.equal(outcome.state?.size, 20, 'the step not run is not recorded')
    assert.match(outcome.diagnostics[0]?.summary ?? '', /Interrupted/)
  })
})

describe('apply: payment, unknown outcomes and resumed orders', () => {
  test('a change left waiting for payment stays marked when a later step fails, so a refresh keeps its target', async () => {
    const s = session()
    const prior = await created(s)
    // The relabel step is told its change waits for an unpaid invoice; the power step then fails.
    const relabel = boxDefinition.updates[0]!
    const unpaid = {
      ...boxDefinition,
      updates: [
        {
          ...relabel,
          apply: async (ctx: never) => {
            const result = await relabel.apply(ctx)
            ;(ctx as { waitingFor: (why: string) => void }).waitingFor('invoice 7 is unpaid')
            return result
          },
        },
        ...boxDefinition.updates.slice(1),
      ],
    }
    s.service.failOnce.add('power:off')
    const config = { name: 'alpha', label: 'relabeled', power: 'off' }
    const outcome = await applyUpdate(unpaid, prior, planResource(unpaid, prior, config).planned, {}, s)
    assert.ok(
      outcome.diagnostics.some((d) => d.severity === 'error'),
      'the failed step is reported',
    )
    assert.equal(outcome.private.waiting, 'invoice 7 is unpaid', 'the unpaid change keeps its mark')
    assert.ok(outcome.state)
    // The service does not show the new label until paid: the refresh keeps the ordered target.
    s.service.boxes.get(String(prior.id))!.label = String(prior.label)
    const refreshed = await readResource(unpaid, outcome.state, String(prior.id), outcome.private, s)
    assert.equal(refreshed.state?.label, 'relabeled', 'the refresh keeps the label that was ordered')
  })
  test('an order step whose outcome is unknown is read back: done when the service shows it, failed and recorded as it is otherwise', async () => {
    class Unknown extends Error {
      readonly outcomeUnknown = true
    }
    // The order step gets no answer; `processed` says whether the service made the change anyway.
    const unanswered = (processed: boolean) => ({
      ...boxDefinition,
      updates: boxDefinition.updates.map((step) =>
        step.attributes.includes('size')
          ? {
              ...step,
              apply: async ({ client, id, input }: { client: BoxService; id: string; input: { size?: number } }) => {
                client.call('grow-order')
                const box = client.boxes.get(id)
                if (processed && box) box.size = input.size ?? box.size
                throw new Unknown('no answer to the order; it may have been processed')
              },
            }
          : step,
      ),
    })
    const config = { name: 'alpha', size: 30, power: 'off' }
    for (const processed of [true, false]) {
      const s = session()
      const prior = await created(s)
      const definition = unanswered(processed) as typeof boxDefinition
      const outcome = await applyUpdate(definition, prior, planResource(definition, prior, config).planned, {}, s)
      assert.equal(s.service.calls.filter((c) => c === 'grow-order').length, 1, 'ordered once')
      assert.equal(outcome.state?.size, processed ? 30 : 20, 'the state holds what the service shows')
      const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
      if (processed) {
        assert.deepEqual(errors, [], 'a change the service shows made is no failure')
        assert.ok(s.service.calls.includes('power:off'), 'the steps after it run')
        assert.ok(outcome.diagnostics.some((d) => d.severity === 'warning' && /shows the change of size/.test(d.detail)))
      } else {
        assert.match(errors[0]?.detail ?? '', /may have been processed/)
        assert.ok(!s.service.calls.includes('power:off'), 'nothing runs after the failed step')
      }
    }
  })
  test('a paid step that fails after its order is recorded and resumed, not re-ordered', async () => {
    const s = session()
    const prior = await created(s)
    s.service.failOnce.add('grow-wait')
    const config = { name: 'alpha', size: 30 }
    const first = await applyUpdate(boxDefinition, prior, planResource(boxDefinition, prior, config).planned, {}, s)
    assert.equal(first.incomplete, true)
    assert.equal(first.state?.size, 30)
    assert.deepEqual(first.private, { resume: true })
    assert.ok(first.state)
    s.service.calls.length = 0
    const again = planResource(boxDefinition, first.state, config, first.private)
    assert.equal(again.planned.status, UNKNOWN, 'the resumed wait shows as a change')
    assert.deepEqual([again.changed, again.applies], [[], true], 'no input changed, and the apply has work: the wait')
    assert.ok(again.diagnostics.some((d) => d.severity === 'warning' && /waits for it again/.test(d.detail)))
    const second = await applyUpdate(boxDefinition, first.state, again.planned, first.private, s)
    assert.deepEqual(s.service.calls, ['wait', 'read'])
    assert.deepEqual(second.private, {})
  })
  test('a refresh while an order is still in flight keeps the recorded target, so the plan does not order it again', async () => {
    const s = session()
    const prior = await created(s)
    s.service.failOnce.add('grow-wait')
    const config = { name: 'alpha', size: 30 }
    const first = await applyUpdate(boxDefinition, prior, planResource(boxDefinition, prior, config).planned, {}, s)
    assert.ok(first.state)
    assert.equal(s.service.boxes.get(String(prior.id))?.size, 20, 'the service does not show the change yet')
    const refreshed = await readResource(boxDefinition, first.state, String(prior.id), first.private, s)
    assert.equal(refreshed.state?.size, 30)
    assert.ok(refreshed.state)
    assert.deepEqual(planResource(boxDefinition, refreshed.state, config, refreshed.private).changed, [])
  })
  test('a create that fails after its order keeps the id and can resume', async () => {
    const s = session()
    s.service.failOnce.add('wait')
    const plan = planResource(boxDefinition, null, { name: 'alpha' })
    const outcome = await applyCreate(boxDefinition, plan.planned, s)
    assert.equal(outcome.incomplete, true)
    assert.equal(outcome.state?.id, '1')
    assert.equal(outcome.state?.status, 'Pending')
    assert.match(outcome.diagnostics.map((d) => d.detail).join('\n'), /resumes waiting/)
    assert.deepEqual(s.service.calls, ['order', 'wait'])
  })
  test('a create that fails before any order records nothing', async () => {
    const s = session()
    s.service.failOnce.add('order')
    const outcome = await applyCreate(boxDefinition, planResource(boxDefinition, null, { name: 'alpha' }).planned, s)
    assert.equal(outcome.state, null)
    assert.equal(outcome.incomplete, false)
  })
})

describe('apply: a wait that runs out of its timeout', () => {
  /** The API client's wait error as core reads it: reason 'timeout' and the time waited. */
  const waitTimeout = () =>
    Object.assign(new Error('Timed out after 2m0s waiting for box 1 to become Active (last status: Pending)'), {
      reason: 'timeout',
      elapsedMs: 120_000,
    })

  test('a create that timed out after its order says which timeout ran out and to raise it', async () => {
    const slow: typeof boxDefinition = {
      ...boxDefinition,
      async create(ctx) {
        ctx.checkpoint({ id: '1', status: 'Pending' })
        throw waitTimeout()
      },
    }
    const planned = planResource(boxDefinition, null, { name: 'alpha', timeouts: { create: '2m' } }).planned
    const outcome = await applyCreate(slow, planned, session())
    assert.equal(outcome.state?.id, '1')
    const kept = outcome.diagnostics.find((d) => /order was placed and is kept in state/.test(d.summary))
    assert.match(kept?.detail ?? '', /The create timeout is 2m: if the service needs longer, raise timeouts\.create\.$/)
  })

  test('a wait that ran out while the service failed its reads gives no such advice: the service, not the time, was short', async () => {
    const failing: typeof boxDefinition = {
      ...boxDefinition,
      async create(ctx) {
        ctx.checkpoint({ id: '1', status: 'Pending' })
        throw Object.assign(waitTimeout(), { cause: new Error('HTTP 503 on GET /boxes/1') })
      },
    }
    const outcome = await applyCreate(failing, planResource(boxDefinition, null, { name: 'alpha' }).planned, session())
    assert.equal(outcome.state?.id, '1')
    assert.ok(
      outcome.diagnostics.every((d) => !/raise timeouts/.test(d.detail)),
      JSON.stringify(outcome.diagnostics),
    )
  })

  test('a create that failed otherwise after its order gives no such advice', async () => {
    const refused: typeof boxDefinition = {
      ...boxDefinition,
      async create(ctx) {
        ctx.checkpoint({ id: '1', status: 'Pending' })
        throw new Error('no answer within 30s (request_timeout)')
      },
    }
    const outcome = await applyCreate(refused, planResource(boxDefinition, null, { name: 'alpha' }).planned, session())
    assert.ok(outcome.diagnostics.every((d) => !/raise timeouts/.test(d.detail)))
  })
})

describe('apply: a 404 that is not about the object itself', () => {
  /** A box whose create, once ordered, fails on a later call with a 404; `gone` also removes the box first. */
  const failingLater = (gone: boolean): typeof boxDefinition => ({
    ...boxDefinition,
    async create(ctx) {
      const observed = await boxDefinition.create(ctx)
      if (gone) ctx.client.boxes.delete(String(observed.id))
      throw new NotFound('power action: not found')
    },
  })

  test('a create whose later call answers 404 keeps the ordered object in state when a read finds it', async () => {
    const s = session()
    const outcome = await applyCreate(failingLater(false), planResource(boxDefinition, null, { name: 'alpha' }).planned, s)
    assert.equal(outcome.state?.id, '1', 'the paid object stays in state')
    assert.ok(outcome.diagnostics.some((d) => d.severity === 'error' && /order was placed and is kept in state/.test(d.summary)))
    assert.equal(s.service.calls.filter((c) => c === 'order').length, 1)
  })

  test('a create whose later call answers 404 while the object is gone records nothing', async () => {
    const outcome = await applyCreate(failingLater(true), planResource(boxDefinition, null, { name: 'alpha' }).planned, session())
    assert.equal(outcome.state, null)
  })

  test("a 404 of a read's or a delete's other call fails it and keeps the object; only the object's own call says gone", async () => {
    /** A box whose read and delete first make another call (details, a detach) that answers 404. */
    const otherCall404 = (answer: Error): typeof boxDefinition => ({
      ...boxDefinition,
      async read(ctx) {
        await boxDefinition.read(ctx)
        throw answer
      },
      async delete() {
        throw answer
      },
    })
    const s = session()
    const prior = await created(s)
    const detail = otherCall404(new NotFound('details: not found'))
    const refreshed = await readResource(detail, prior, String(prior.id), {}, s)
    assert.equal(refreshed.state?.id, prior.id, 'the live object stays in state')
    assert.ok(refreshed.diagnostics.some((d) => d.severity === 'error' && /Reading box 1 failed/.test(d.summary)))
    const deleted = await applyDelete(detail, prior, {}, s)
    assert.equal(deleted.state?.id, prior.id, 'nothing was deleted: it stays in state')
    assert.ok(deleted.diagnostics.some((d) => d.severity === 'error' && /Deleting box 1 failed/.test(d.summary)))
    assert.ok(s.service.boxes.has(String(prior.id)))

    // Identical reads in flight share one answer: another caller's ownCall marks a copy, never the answer itself.
    const shared = new NotFound('GET /boxes/1: not found')
    await assert.rejects(ownCall(Promise.reject(shared)), (copy: Error) => copy !== shared && copy.message === shared.message)
    assert.equal((await readResource(otherCall404(shared), prior, String(prior.id), {}, s)).state?.id, prior.id)
  })

  test('a refresh of an object whose order was placed moments ago (resume) keeps it on a 404, with a warning; later, or without the mark, it is gone', async () => {
    let now = 1_000_000
    const s = { ...session(), now: () => now }
    const prior = await created(s)
    s.service.boxes.clear()
    const mark = { resume: true, orderedAt: now - 30_000 }
    const inFlight = await readResource(boxDefinition, prior, String(prior.id), mark, s)
    assert.equal(inFlight.state?.id, prior.id)
    assert.deepEqual(inFlight.private, mark)
    assert.ok(inFlight.diagnostics.some((d) => d.severity === 'warning' && /not found yet; it is kept in state/.test(d.summary)))
    assert.equal((await readResource(boxDefinition, prior, String(prior.id), {}, s)).state, null)
    assert.equal(
      (await readResource(boxDefinition, prior, String(prior.id), { resume: true }, s)).state,
      null,
      'a mark of an earlier version',
    )
    now += NEW_ORDER_GRACE_MS
    assert.equal((await readResource(boxDefinition, prior, String(prior.id), mark, s)).state, null, 'past the grace: gone')
  })

  test('an unfinished create records when its order was placed, beside the resume mark', async () => {
    const s = { ...session(), now: () => 5_000_000 }
    const box = { ...boxDefinition, resume: boxDefinition.resume }
    s.service.failOnce.add('wait')
    const outcome = await applyCreate(box, planResource(boxDefinition, null, { name: 'alpha' }).planned, s)
    assert.equal(outcome.state?.id, '1')
    assert.deepEqual(outcome.private, { resume: true, orderedAt: 5_000_000 })
  })

  test('an apply that resumes an unfinished create and stops again keeps when the order was placed', async () => {
    let now = 1_000_000
    const s = { ...session(), now: () => now }
    const prior = await created(s)
    const stillPending: typeof boxDefinition = {
      ...boxDefinition,
      async resume({ resumeLater }) {
        resumeLater()
        return { status: 'Pending' }
      },
    }
    const mark = { resume: true, orderedAt: now }
    now += 10_000
    const config = { name: 'alpha', size: 20 }
    const resumed = await applyUpdate(stillPending, prior, planResource(stillPending, prior, config, mark).planned, mark, s)
    assert.deepEqual(resumed.private, mark, 'the order time survives the resume')
    assert.ok(resumed.state)
    s.service.boxes.clear()
    const refreshed = await readResource(stillPending, resumed.state, String(prior.id), resumed.private, s)
    assert.equal(refreshed.state?.id, prior.id, 'a 404 within the grace keeps the object')
  })

  test('a delete that fails keeps the object with its private state: a wait an earlier apply left is still resumed', async () => {
    const s = session()
    const prior = await created(s)
    const mark = { resume: true, orderedAt: 1 }
    s.service.failOnce.add('delete')
    const failed = await applyDelete(boxDefinition, prior, mark, s)
    assert.equal(failed.state?.id, prior.id, 'kept in state')
    assert.ok(failed.diagnostics.some((d) => d.severity === 'error' && /Deleting box 1 failed/.test(d.summary)))
    assert.deepEqual(failed.private, mark, 'the resume mark (and any other) is not dropped')
  })

  test('a delete of an object whose order was placed moments ago (resume) that answers 404 deletes nothing and keeps it; later, it is done', async () => {
    let now = 1_000_000
    const s = { ...session(), now: () => now }
    const prior = await created(s)
    s.service.boxes.clear()
    const mark = { resume: true, orderedAt: now }
    const inFlight = await applyDelete(boxDefinition, prior, mark, s)
    assert.equal(inFlight.state?.id, prior.id, 'kept in state')
    assert.ok(inFlight.diagnostics.some((d) => d.severity === 'error' && /not found yet; nothing was deleted/.test(d.summary)))
    assert.equal((await applyDelete(boxDefinition, prior, {}, s)).state, null)
    now += NEW_ORDER_GRACE_MS
    assert.equal((await applyDelete(boxDefinition, prior, mark, s)).state, null, 'past the grace: deleted')
  })
})

describe('apply: reads, import and provider bugs', () => {
  test('gone: a read that finds nothing removes the resource; deleting a gone object succeeds', async () => {
    const s = session()
    const prior = await created(s)
    s.service.boxes.clear()
    assert.equal((await readResource(boxDefinition, prior, String(prior.id), {}, s)).state, null)
    const deleted = await applyDelete(boxDefinition, prior, {}, s)
    assert.equal(deleted.state, null)
    assert.deepEqual(deleted.diagnostics, [])
  })
  test('a read keeps inputs the service cannot report and the timeouts', async () => {
    const s = session()
    const prior = await created(s, { name: 'alpha', size: 20, paid: false, timeouts: { create: '9m' } })
    const read = await readResource(boxDefinition, prior, String(prior.id), {}, s)
    assert.equal(read.state?.paid, false)
    assert.deepEqual(read.state?.timeouts, { create: '9m' })
  })
  test('import: unrecoverable inputs take their defaults; a bad id names the format', async () => {
    const s = session()
    const prior = await created(s)
    const imported = await importResource(boxDefinition, String(prior.id), s)
    assert.equal(imported.state?.paid, true)
    assert.equal(imported.state?.power, null)
    assert.equal(imported.state?.name, 'alpha')
    const bad = await importResource(boxDefinition, 'abc', s)
    assert.match(bad.diagnostics[0]?.detail ?? '', /<id>, e\.g\. 1: expected digits/)
  })
  test("a programming error is reported as a provider bug, never as the user's fault", async () => {
    const broken = defineResource({
      ...boxDefinition,
      async create() {
        throw new TypeError('x is undefined')
      },
    })
    const outcome = await applyCreate(broken, planResource(broken, null, { name: 'alpha' }).planned, session())
    assert.equal(outcome.diagnostics[0]?.summary, 'Provider bug')
  })
})

describe('validation never shows a sensitive value', () => {
  test('a sensitive input of the wrong type is named with the rule, and its value is not shown', () => {
    const attributes = {
      console_password: string({ required: true, sensitive: true, description: 'A password.' }),
      label: string({ optional: true, description: 'A label.' }),
    }
    const issues = validateConfig(attributes, { console_password: 12345678, label: 87654321 })
    const password = issues.find((d) => d.summary === 'Invalid console_password')
    assert.ok(password, JSON.stringify(issues))
    assert.match(password.detail ?? '', /console_password must be a string \(got a number, not shown: the value is sensitive\)/)
    assert.doesNotMatch(JSON.stringify(issues.filter((d) => d !== password)), /12345678/)
    assert.doesNotMatch(JSON.stringify(password), /12345678/)
    assert.match(JSON.stringify(issues), /87654321/, 'a value that is not sensitive is still shown')
  })
  test('inside an object, a sensitive field, or any field of a sensitive object, is refused without its value or a path to it', () => {
    const login = (sensitive: boolean) =>
      object(
        {
          user: string({ optional: true, description: 'A user.' }),
          secret: string({ optional: true, sensitive: !sensitive, validate: [length({ min: 8, max: 64 })], description: 'A secret.' }),
        },
        { optional: true, sensitive, description: 'A login.' },
      )
    const attributes = { login: login(false), vault: login(true) }
    const config = { login: { user: 'ops', secret: 'hunter2' }, vault: { user: 24681357, secret: 13572468 } }
    const issues = validateConfig(attributes, config)
    assert.equal(issues.length, 3, JSON.stringify(issues))
    assert.doesNotMatch(JSON.stringify(issues), /hunter2|24681357|13572468/)
    assert.ok(
      issues.every((d) => d.path === undefined),
      'a client shows what a path points at: the configuration line holds the secret',
    )
    assert.ok(issues.some((d) => d.summary === 'Invalid login.secret'))
    assert.ok(issues.some((d) => /vault\.user must be a string \(got a number, not shown/.test(d.detail ?? '')))
  })
})

describe("attributeNotes: the rules every client's schema states", () => {
  test("an input states each of its flags, the client's command to order again, its default and its value rules", () => {
    const trigger = string({ optional: true, action: true, validate: [oneOf(['on', 'off'])], description: 'Power.' })
    assert.deepEqual(attributeNotes(trigger, 'pulumi up --replace'), [
      'In-place action: the call is made only when the value changes to a non-empty one; the same value, or none, calls nothing.',
      'Must be one of "on", "off".',
    ])
    const pay = bool({ optional: true, orderTime: true, default: true, description: 'Pay.' })
    assert.deepEqual(attributeNotes(pay, 'terraform apply -replace'), [
      'Order-time: read only when an order is placed; a later change is recorded with a warning and replaces nothing (`terraform apply -replace` orders again).',
      'Default: `true`.',
    ])
    const size = int64({ required: true, createOnly: true, growOnly: true, description: 'Size.' })
    assert.deepEqual(attributeNotes(size, 'x'), ['Changing it replaces the resource.', 'Grow-only: a smaller value is refused.'])
  })

  test('an output is not said to replace anything', () => {
    assert.deepEqual(attributeNotes(string({ computed: true, createOnly: true, description: 'Id.' }), 'x'), [])
  })
})

// Bad input for every resource and lookup of the registry, generated from each definition's attributes
// and validators (which carry the spec's Limits): wrong types, out-of-range and negative numbers, empty
// and 300-character strings, non-ASCII text, bad timeouts and grow-only shrinks. Each is refused at plan
// (Terraform) / Check or Diff (Pulumi) with an error naming the field and the rule, and no API call is
// made; unknown values at plan are accepted without any call.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { type Attribute, type Attributes, meansUnset } from '../../src/core/attributes.js'
import { toCamel, toPascal, toSnake } from '../../src/core/names.js'
import { UNKNOWN_WIRE, type WireMap } from '../../src/pulumi/wire.js'
import { pulumiRegistry } from '../../src/pulumi/provider.js'
import { dataSources, providerDefinition, resources } from '../../src/resources/index.js'
import { describeRun, diagnostics, PROVIDER_BLOCKS, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { Plugin, startFakeEngine, urnOf } from '../support/pulumi/plugin-harness.js'
import { Report } from '../support/faults/report.js'

type Value = string | number | boolean | string[]

interface Case {
  readonly field: string
  readonly value: Value
  /** Words the error must contain besides the field name (the rule broken). */
  readonly rule: string
  readonly typeError: boolean
}

interface Target {
  readonly name: string
  readonly kind: 'resource' | 'data'
  readonly attributes: Attributes
  readonly timeouts: readonly string[]
  readonly cases: readonly Case[]
  readonly valid: Record<string, Value>
}

const STRINGS: readonly string[] = ['', 'ab', 'x'.repeat(300), 'Ünïcödé-名前-テスト', 'bogus value!', 'a\nb']
const NUMBERS: readonly number[] = [0, -1, -250, 5, 100_000]
const VALID_STRINGS: readonly string[] = ['Valid-name1', 'S3cretPass9', 'deployer', '201', 'ubuntu-22']
const VALID_NUMBERS: readonly number[] = [1, 60, 100, 101]

const settable = (a: Attribute) => a.required === true || a.optional === true
const oneOfValues = (a: Attribute) =>
  (a.validate ?? []).flatMap((v) =>
    v.rule.startsWith('one of ') ? [...v.rule.matchAll(/"([^"]*)"|(\d+)/g)].map((m) => m[1] ?? Number(m[2])) : [],
  )

function validValue(a: Attribute): Value | undefined {
  const passes = (v: unknown) => (a.validate ?? []).every((x) => x.check(v) === null)
  const listed = oneOfValues(a)
  if (listed.length > 0) return listed[0] as Value
  if (a.type.kind === 'string') return VALID_STRINGS.find(passes)
  if (a.type.kind === 'int64') return VALID_NUMBERS.find(passes)
  if (a.type.kind === 'bool') return true
  return undefined
}

/** Every generated bad value of one attribute: each candidate a validator refuses, plus a wrong type. */
function casesOf(name: string, a: Attribute): Case[] {
  const out: Case[] = []
  const candidates: readonly unknown[] = a.type.kind === 'string' ? STRINGS : a.type.kind === 'int64' ? NUMBERS : []
  for (const value of candidates) {
    // An input that reads empty as unset (emptyIsUnset) takes '' as it takes no value: no bad input.
    if (!a.required && meansUnset(a, value)) continue
    const problem = (a.validate ?? []).map((v) => v.check(value)).find((p) => p !== null)
    if (problem) out.push({ field: name, value: value as Value, rule: problem, typeError: false })
  }
  if (a.type.kind === 'int64') out.push({ field: name, value: 1.5, rule: 'must be a whole number', typeError: false })
  const wrong: Record<string, [Value, string]> = {
    string: [['x'], 'string required'],
    int64: ['abc', 'a number is required'],
    bool: ['maybe', 'a bool is required'],
  }
  const bad = wrong[a.type.kind]
  if (bad) out.push({ field: name, value: bad[0], rule: bad[1], typeError: true })
  return out
}

function targetOf(definition: { name: string; attributes: Attributes; timeouts?: object }, kind: Target['kind']): Target {
  const cases: Case[] = []
  const valid: Record<string, Value> = {}
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    if (!settable(attribute)) continue
    cases.push(...casesOf(name, attribute))
    const ok = validValue(attribute)
    if (attribute.required && ok !== undefined) valid[name] = ok
  }
  return { name: definition.name, kind, attributes: definition.attributes, timeouts: Object.keys(definition.timeouts ?? {}), cases, valid }
}

const TARGETS: readonly Target[] = [
  ...resources.map((r) => targetOf(r, 'resource')),
  ...dataSources.map((d) => targetOf(d, 'data')).filter((t) => t.cases.length > 0),
]

/** What Pulumi serves: the same, less the write-only inputs, which Pulumi has no form of (src/pulumi/provider.ts). */
const PULUMI_TARGETS: readonly Target[] = (() => {
  const served = pulumiRegistry({ provider: providerDefinition, resources, dataSources })
  return [
    ...served.resources.map((r) => targetOf(r, 'resource')),
    ...served.dataSources.map((d) => targetOf(d, 'data')).filter((t) => t.cases.length > 0),
  ]
})()

const hcl = (value: Value): string => (Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value))

/** Round `k`: the k-th value refused by validators of every field of every target (types in round "types"). */
function roundConfig(round: number | 'types' | 'unknown'): { text: string; expected: { address: string; c: Case }[] } {
  const blocks: string[] = [PROVIDER_BLOCKS]
  const expected: { address: string; c: Case }[] = []
  if (round === 'unknown') blocks.push('resource "terraform_data" "u" {\n  input = "x"\n}\n')
  for (const target of TARGETS) {
    const type = `provider_${target.name}`
    const address = target.kind === 'data' ? `data.${type}.bad` : `${type}.bad`
    const values: Record<string, string> = {}
    for (const [name, value] of Object.entries(target.valid)) values[toSnake(name)] = hcl(value)
    let bad = 0
    const byField = new Map<string, Case[]>()
    for (const c of target.cases) if (c.typeError === (round === 'types')) byField.set(c.field, [...(byField.get(c.field) ?? []), c])
    if (round === 'unknown') {
      for (const [name, attribute] of Object.entries(target.attributes))
        if (settable(attribute)) values[toSnake(name)] = 'terraform_data.u.output'
      bad = 1
    } else {
      for (const [field, list] of byField) {
        const c = round === 'types' ? list[0] : list[round]
        if (!c) continue
        values[toSnake(field)] = hcl(c.value)
        expected.push({ address, c })
        bad++
      }
    }
    if (bad === 0) continue
    let body = Object.entries(values)
      .map(([k, v]) => `  ${k} = ${v}`)
      .join('\n')
    if (round === 0 && target.timeouts.includes('create')) {
      body += '\n  timeouts {\n    create = "soon"\n  }'
      expected.push({ address, c: { field: 'timeouts.create', value: 'soon', rule: 'must be a duration', typeError: false } })
    }
    blocks.push(`${target.kind === 'data' ? 'data' : 'resource'} "${type}" "bad" {\n${body}\n}\n`)
  }
  return { text: blocks.join('\n'), expected }
}

const flat = (text: string) => text.replace(/\s+/g, ' ')
const ROUNDS = Math.max(
  ...TARGETS.flatMap((t) =>
    [...new Set(t.cases.map((c) => c.field))].map((f) => t.cases.filter((c) => c.field === f && !c.typeError).length),
  ),
)

const report = new Report('bad-input')
const tally = new Map<string, { tried: number; rejected: number; apiCalls: number }>()
function count(front: string, target: string, rejected: boolean, calls = 0) {
  const key = `${front}\t${target}`
  const row = tally.get(key) ?? { tried: 0, rejected: 0, apiCalls: 0 }
  row.tried++
  if (rejected) row.rejected++
  row.apiCalls += calls
  tally.set(key, row)
}

describe('bad input is refused at plan and Check with the field and the rule, with no API call', { concurrency: 2 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  after(async () => {
    for (const [key, row] of tally) {
      const [front, target] = key.split('\t') as ['terraform' | 'pulumi', string]
      report.add({ kind: 'input', front, target, ...row })
    }
  })

  test('the generated cases cover every resource and lookup with inputs', () => {
    assert.ok(TARGETS.length >= resources.length)
    for (const target of TARGETS) assert.ok(target.cases.length > 0, `${target.name} has no case`)
  })

  test('terraform plan: every case names its field and rule; unknowns pass; no API call', { timeout: 120_000 }, async () => {
    const ws = await Workspace.create(e2e.emulator)
    try {
      const rounds: (number | 'types' | 'unknown')[] = [...Array.from({ length: ROUNDS }, (_, i) => i), 'types', 'unknown']
      for (const round of rounds) {
        const { text, expected } = roundConfig(round)
        await ws.write(text)
        const seq = await e2e.emulator.lastSeq()
        const run = await ws.plan()
        const calls = (await e2e.emulator.requests(seq)).length
        if (round === 'unknown') {
          assert.equal(run.code, 2, `unknown values must plan: ${describeRun(run)}`)
          assert.equal(calls, 0, 'a plan with unknown inputs calls nothing')
          continue
        }
        assert.equal(run.code, 1, describeRun(run))
        const blocks = diagnostics(run.stdout + run.stderr).map(flat)
        for (const { address, c } of expected) {
          const field = toSnake(c.field.split('.').pop() as string)
          const [kind, type] = address.startsWith('data.') ? ['data', address.split('.')[1]] : ['resource', address.split('.')[0]]
          const where = (b: string) => b.includes(address) || b.includes(`in ${kind} "${type}" "bad"`)
          const found = blocks.some((b) => where(b) && b.includes(field) && b.includes(flat(c.rule)))
          count('terraform', address.replace(/\.bad$/, ''), found, 0)
          assert.ok(found, `round ${round}: no error for ${address} ${c.field}=${JSON.stringify(c.value)} (${c.rule})\n${describeRun(run)}`)
        }
        assert.equal(calls, 0, `round ${round} made ${calls} API calls`)
      }
    } finally {
      await ws.cleanup()
    }
  })

  test('Pulumi Check / Invoke / Diff: every case names its property and rule; unknowns pass; no API call', {
    timeout: 60_000,
  }, async () => {
    const engine = await startFakeEngine()
    const plugin = await Plugin.launch(engine.address)
    try {
      await plugin.configure({ apiKey: e2e.emulator.apiKey, baseUrl: e2e.emulator.baseUrl, pollInterval: '100ms' })
      const seq = await e2e.emulator.lastSeq()
      for (const target of PULUMI_TARGETS) {
        const camel = (values: Record<string, Value>) =>
          Object.fromEntries(Object.entries(values).map(([k, v]) => [toCamel(k), v])) as WireMap
        const token = target.kind === 'data' ? `provider:index:${toCamel(target.name)}` : `provider:index:${toPascal(target.name)}`
        const urn = urnOf(token, 'bad')
        for (const c of target.cases) {
          const news = { ...camel(target.valid), [toCamel(c.field)]: c.value } as WireMap
          const failures = target.kind === 'data' ? (await plugin.invoke(token, news)).failures : (await plugin.check(urn, news)).failures
          const rule = c.typeError ? /must be|a string|whole number|true or false/ : null
          // A sensitive value's failure names its property in the reason only: the engine would show the value.
          const sensitive = target.kind === 'resource' && target.attributes[c.field]?.sensitive === true
          const found = failures.some(
            (f) =>
              (sensitive ? f.property === '' && f.reason.includes(toCamel(c.field)) : f.property === toCamel(c.field)) &&
              (rule ? rule.test(f.reason) : flat(f.reason).includes(flat(c.rule))),
          )
          count('pulumi', token, found)
          assert.ok(found, `${token} ${c.field}=${JSON.stringify(c.value)}: ${JSON.stringify(failures)}`)
        }
        if (target.kind === 'resource') {
          const unknown = Object.fromEntries(
            Object.entries(target.attributes)
              .filter(([, a]) => settable(a))
              .map(([k]) => [toCamel(k), UNKNOWN_WIRE]),
          )
          const { failures } = await plugin.check(urn, unknown)
          assert.deepEqual(failures, [], `${token}: unknown inputs wait until known`)
        }
      }
      // Grow-only Limits (disk sizes, VM disk_size, elastic size): a smaller value than the old input is refused by Check,
      // before any call (Diff never refuses: a refresh diffs in reverse).
      for (const target of PULUMI_TARGETS.filter((t) => t.kind === 'resource')) {
        for (const [name, attribute] of Object.entries(target.attributes)) {
          if (!attribute.growOnly) continue
          const token = `provider:index:${toPascal(target.name)}`
          const olds = { ...target.valid, [name]: 500 } as Record<string, Value>
          const camelOlds = Object.fromEntries(Object.entries(olds).map(([k, v]) => [toCamel(k), v])) as WireMap
          const { failures } = await plugin.check(urnOf(token, 'grow'), { ...camelOlds, [toCamel(name)]: 400 }, camelOlds)
          const message = JSON.stringify(failures)
          const found = failures.some((f) => f.property === toCamel(name) && /grow-only/.test(f.reason))
          count('pulumi', token, found)
          assert.ok(found, `${token} ${name} shrink: ${message}`)
        }
      }
      const calls = (await e2e.emulator.requests(seq)).length
      assert.equal(calls, 0, `Check and Invoke of bad input made ${calls} API calls`)
    } finally {
      await plugin.stop()
      engine.stop()
    }
  })
})

// The rules only the service's catalog states (products, OS names per product, stock, regions, sizes
// within a product's limits): refused at plan (Terraform) and before a preview answers (Pulumi), with
// the field and the rule, and with no call that changes anything.
interface CatalogCase {
  readonly type: string
  readonly config: Record<string, Value>
  readonly field: string
  /** The rule broken; `{name}` is a lookup's canonical name, spelt by each front end. */
  readonly rule: string
}

const ruleIn = (rule: string, spell: (name: string) => string) => rule.replace(/\{(\w+)\}/g, (_, name: string) => spell(name))

const VM = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: 1,
  cycle: 'm',
}
const METAL = { product_id: 301, cycle: 'm', keypair_id: 1, label: 'bad-catalog' }
const CATALOG_CASES: readonly CatalogCase[] = [
  { type: 'lite_vm', config: { ...VM, product_id: 999 }, field: 'product_id', rule: 'must be a product of {lite_products}' },
  { type: 'lite_vm', config: { ...VM, select_os: 'Windows-11' }, field: 'select_os', rule: 'must be an OS of product 101' },
  {
    type: 'lite_pro_vm',
    config: { ...VM, product_id: 201, select_os: 'ubuntu-99' },
    field: 'select_os',
    rule: 'must be an OS of product 201',
  },
  {
    type: 'lite_vm_from_snapshot',
    config: {
      snapshot_id: 1,
      product_id: 999,
      cycle: 'm',
      keypair_id: 1,
      name: 'restored1',
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
    },
    field: 'product_id',
    rule: 'must be a product of {lite_products}',
  },
  {
    type: 'lite_disk',
    config: { product_id: 60, cycle: 'm', lite_account_id: 1, size: 2001 },
    field: 'size',
    rule: 'must be at most 2000 GB for product 60',
  },
  {
    type: 'lite_disk',
    config: { product_id: 999, cycle: 'm', lite_account_id: 1 },
    field: 'product_id',
    rule: 'must be a product of {lite_disk_products}',
  },
  { type: 'baremetal', config: { ...METAL, product_id: 303 }, field: 'product_id', rule: 'out of stock' },
  { type: 'baremetal', config: { ...METAL, product_id: 999 }, field: 'product_id', rule: 'must be a product of {baremetal_products}' },
  { type: 'baremetal', config: { ...METAL, select_os: 'ubuntu-99' }, field: 'select_os', rule: 'must be an OS of product 301' },
  {
    type: 'baremetal_additional_ip',
    config: { product_id: 401, cycle: 'm', region: 'mars-1' },
    field: 'region',
    rule: 'must be one of the regions "wjv-1"',
  },
  {
    type: 'baremetal_additional_ip',
    config: { product_id: 999, cycle: 'm' },
    field: 'product_id',
    rule: 'must be a product of {baremetal_additional_ip_products}',
  },
  {
    type: 'baremetal_additional_ip_assignment',
    config: { additional_ip_id: 999999, metal_account_id: 999998 },
    field: 'additional_ip_id',
    rule: 'must be an additional IP of this account',
  },
  {
    type: 'baremetal_additional_ip_assignment',
    config: { additional_ip_id: 999999, metal_account_id: 999998 },
    field: 'metal_account_id',
    rule: 'must be a Metal server of this account',
  },
  {
    type: 'baremetal_elastic_storage',
    config: { product_id: 999, cycle: 'm', storage_name: 'data', metal_account_id: 1 },
    field: 'product_id',
    rule: 'must be a product of {baremetal_elastic_storage_products}',
  },
]

describe('catalog limits are refused at plan and preview with the field and the rule, with no mutating call', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })

  test('terraform plan', { timeout: 60_000 }, async () => {
    const ws = await Workspace.create(e2e.emulator)
    try {
      const blocks = CATALOG_CASES.map((c, i) => {
        const body = Object.entries(c.config)
          .map(([k, v]) => `  ${k} = ${hcl(v)}`)
          .join('\n')
        return `resource "provider_${c.type}" "c${i}" {\n${body}\n}\n`
      })
      await ws.write([PROVIDER_BLOCKS, ...blocks].join('\n'))
      const seq = await e2e.emulator.lastSeq()
      const run = await ws.plan()
      const mutating = (await e2e.emulator.requests(seq)).filter((e) => e.method !== 'GET')
      assert.equal(run.code, 1, describeRun(run))
      const errors = diagnostics(run.stdout + run.stderr).map(flat)
      CATALOG_CASES.forEach((c, i) => {
        const address = `provider_${c.type}.c${i}`
        const rule = flat(ruleIn(c.rule, (name) => `provider_${name}`))
        const found = errors.some((e) => e.includes(`${address},`) && e.includes(`Invalid ${c.field}`) && e.includes(rule))
        assert.ok(found, `no error for ${address} ${c.field} (${rule})\n${describeRun(run)}`)
      })
      assert.deepEqual(mutating, [])
    } finally {
      await ws.cleanup()
    }
  })

  test('Pulumi Create in preview', { timeout: 60_000 }, async () => {
    const engine = await startFakeEngine()
    const plugin = await Plugin.launch(engine.address)
    try {
      await plugin.configure({ apiKey: e2e.emulator.apiKey, baseUrl: e2e.emulator.baseUrl, pollInterval: '100ms' })
      const seq = await e2e.emulator.lastSeq()
      for (const c of CATALOG_CASES) {
        const token = `provider:index:${toPascal(c.type)}`
        const news = Object.fromEntries(Object.entries(c.config).map(([k, v]) => [toCamel(k), v])) as WireMap
        let message = ''
        try {
          await plugin.create(urnOf(token, 'catalog'), news, { preview: true })
        } catch (thrown) {
          message = (thrown as { details?: string }).details ?? String(thrown)
        }
        const rule = ruleIn(c.rule, toCamel)
        assert.ok(message.includes(toCamel(c.field)) && message.includes(rule), `${token} ${c.field}: ${message}`)
      }
      const mutating = (await e2e.emulator.requests(seq)).filter((e) => e.method !== 'GET')
      assert.deepEqual(mutating, [])
    } finally {
      await plugin.stop()
      engine.stop()
    }
  })
})

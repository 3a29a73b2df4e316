// The engine-protocol suite: the built plugin, started as the engine starts it, driven through the
// engine's call sequences for every resource against the emulator launcher. The per-resource data
// (an example, one change per in-place input, create-only changes, Limit violations) is each
// resource's fixture's `engine` cases (test/fixtures/).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../src/core/names.js'
import { resources } from '../src/resources/index.js'
import { isSecret, SIG_KEY, SIG_RESOURCE_REF, UNKNOWN_WIRE, type Wire, type WireMap } from '../src/pulumi/wire.js'
import { Emulator } from './support/e2e/harness.js'
import { type EngineCase, type EngineRefs, fixtures } from './fixtures/index.js'
import { initFailure, PLUGIN, Plugin, ROOT, type RpcError, startFakeEngine, urnOf } from './support/pulumi/plugin-harness.js'

const CODE = { UNKNOWN: 2, INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9, UNIMPLEMENTED: 12, UNAUTHENTICATED: 16 }

type Refs = EngineRefs
type ResourceCase = EngineCase

/** The resources' engine cases, from their fixtures (test/fixtures/), in the registry's order. */
const CASES: readonly ResourceCase[] = fixtures.flatMap((f) => f.engine ?? [])

let emulator: Emulator
let engine: Awaited<ReturnType<typeof startFakeEngine>>
let plugin: Plugin
const refs: Refs = {}
const secretsSeen = new Set<string>()

/** The definition a Pulumi type token names (`provider:index:LiteVm` is lite_vm). */
function definitionOf(token: string) {
  const found = resources.find((r) => `provider:index:${toPascal(r.name)}` === token)
  assert.ok(found, `a definition for ${token}`)
  return found
}

async function apiRequests(which: 'all' | 'mutating' = 'all'): Promise<number> {
  return (await emulator.requests()).filter((e) => e.path.startsWith('/v1') && (which === 'all' || e.method !== 'GET')).length
}

function assertSecret(map: WireMap, keys: readonly string[], where: string) {
  for (const key of keys) {
    if (map[key] === undefined || map[key] === null) continue
    assert.ok(isSecret(map[key]), `${where}: ${key} must be a secret, got ${JSON.stringify(map[key])}`)
    const inner = (map[key] as { value: Wire }).value
    if (typeof inner === 'string' && inner !== UNKNOWN_WIRE && inner.length > 3) secretsSeen.add(inner)
  }
}

/**
 * The engine log lines after `from` once one satisfies `wanted`, or all of them after 5 s: the plugin
 * sends its Log calls without waiting for them, so one may arrive after the response of its RPC.
 */
async function logsUntil(from: number, wanted: (log: (typeof engine.logs)[number]) => boolean): Promise<typeof engine.logs> {
  for (let waited = 0; waited < 5_000 && !engine.logs.slice(from).some(wanted); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return engine.logs.slice(from)
}

async function rejects(promise: Promise<unknown>, code: number, pattern?: RegExp): Promise<RpcError> {
  try {
    await promise
  } catch (error) {
    const e = error as RpcError
    assert.equal(e.code, code, `expected code ${code}, got ${e.code}: ${e.details}`)
    if (pattern) assert.match(e.details, pattern)
    return e
  }
  assert.fail('expected the call to fail')
}

before(async () => {
  emulator = await Emulator.start({ apiKey: 'emulator-key', provisioningDelayMs: 100 })
  engine = await startFakeEngine()
  plugin = await Plugin.launch(engine.address)
})
after(async () => {
  await plugin?.stop()
  engine?.stop()
  await emulator?.stop()
})

describe('plugin start-up and configuration', () => {
  test('GetPluginInfo, GetSchema (the committed schema), Handshake (secrets accepted; refresh before update taken up)', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    assert.equal(await plugin.pluginInfo(), version)
    assert.equal(await plugin.schema(), readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8'))
    assert.deepEqual(await plugin.handshake(engine.address, { supportsRefreshBeforeUpdate: true }), {
      acceptSecrets: true,
      acceptResources: false,
      acceptOutputs: false,
      supportsAutonamingConfiguration: false,
    })
  })

  test('CheckConfig tolerates engine keys, wraps the API key, reports a bad URL with its key', async () => {
    const ok = await plugin.checkConfig({ version: '0.1.0', apiKey: 'emulator-key', baseUrl: emulator.baseUrl })
    assert.deepEqual(ok.failures, [])
    assert.ok(isSecret(ok.inputs.apiKey))
    const bad = await plugin.checkConfig({ baseUrl: 'ftp://nowhere', pollInterval: 'soon' })
    assert.deepEqual(bad.failures.map((f) => f.property).sort(), ['baseUrl', 'pollInterval'])
  })

  test('DiffConfig never replaces', async () => {
    const diff = await plugin.diffConfig({ baseUrl: 'http://a/v1' }, { baseUrl: 'http://b/v1' })
    assert.equal(diff.changes, 'some')
    assert.deepEqual(diff.replaces, [])
    assert.deepEqual(diff.diffs, ['baseUrl'])
    assert.equal((await plugin.diffConfig({ baseUrl: 'http://a/v1' }, { baseUrl: 'http://a/v1', version: '1' })).changes, 'none')
  })

  test('Configure without an API key is a clear INVALID_ARGUMENT naming provider:apiKey', async () => {
    const error = await rejects(plugin.configure({ baseUrl: emulator.baseUrl }), CODE.INVALID_ARGUMENT, /provider:apiKey/)
    assert.doesNotMatch(error.details, /api_key/, 'Terraform names in a Pulumi error')
  })

  test('Configure with a secret API key accepts secrets and supports preview', async () => {
    const flags = await plugin.configure({
      apiKey: { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', value: 'emulator-key' },
      baseUrl: emulator.baseUrl,
      pollInterval: '50ms',
      version: '0.1.0',
    })
    assert.deepEqual(flags, { acceptSecrets: true, supportsPreview: true, acceptResources: false, acceptOutputs: false })
  })
})

CASES.forEach((c, index) => {
  describe(`${c.token} #${index}`, () => {
    const urn = urnOf(c.token, `r${index}`)
    let inputs: WireMap
    let outputs: WireMap
    let id: string

    test('Check rejects every Limit at once, each with its property path', async () => {
      const base = c.example(refs)
      const { failures } = await plugin.check(urn, { ...base, ...c.invalid.news })
      assert.deepEqual([...new Set(failures.map((f) => f.property))].sort(), [...c.invalid.paths].sort(), JSON.stringify(failures))
    })

    test('Check applies defaults, keeps unknowns unvalidated, wraps sensitive inputs', async () => {
      const checked = await plugin.check(urn, c.example(refs))
      assert.deepEqual(checked.failures, [])
      inputs = checked.inputs
      assertSecret(inputs, c.secretOutputs, 'Check')
      const withUnknown = await plugin.check(urn, Object.fromEntries(Object.keys(c.example(refs)).map((k) => [k, UNKNOWN_WIRE])))
      assert.deepEqual(withUnknown.failures, [])
    })

    test('Create in preview changes nothing at the API and leaves computed outputs unknown', async () => {
      // A preview may read the catalog to check a new object's inputs, never change anything.
      const before = await apiRequests('mutating')
      const logged = engine.logs.length
      const preview = await plugin.create(urn, inputs, { preview: true })
      assert.equal(preview.id, '')
      // The price of what it orders is a message of the resource, not of the stack.
      const prices = engine.logs.slice(logged).filter((l) => /This plan places paid orders/.test(l.message))
      for (const log of prices) assert.equal(log.urn, urn, `the price is logged on the resource: ${log.message}`)
      assert.equal(await apiRequests('mutating'), before, 'preview made a mutating API call')
      assertSecret(preview.properties, c.secretOutputs, 'Create(preview)')
      const unknownOutputs = Object.entries(preview.properties).filter(
        ([, v]) => v === UNKNOWN_WIRE || (isSecret(v) && v.value === UNKNOWN_WIRE),
      )
      assert.ok(unknownOutputs.length > 0, 'some computed output is unknown')
    })

    test('Create, then a second Check + Diff with no change is DIFF_NONE', async () => {
      const logged = engine.logs.length
      const { value: created, orders } = await emulator.effectsOf(() => plugin.create(urn, inputs, { timeout: 120 }))
      assert.match(created.id, /^\d+$/)
      // The trail of its order (the answer names the account) is a message of the resource that orders.
      const answered = (l: { message: string }) => / answered: account \d+/.test(l.message)
      const trail = (orders.length > 0 ? await logsUntil(logged, answered) : engine.logs.slice(logged)).filter(answered)
      if (orders.length > 0) assert.ok(trail.length > 0, `the order's answer is logged: ${JSON.stringify(engine.logs.slice(logged))}`)
      for (const log of trail) assert.equal(log.urn, urn, `the order is logged on the resource: ${log.message}`)
      assert.equal(created.refreshBeforeUpdate, true, 'the engine handshook with refresh before update: every resource asks for it')
      id = created.id
      outputs = created.properties
      assertSecret(outputs, c.secretOutputs, 'Create')
      assert.equal(outputs.__meta, undefined)
      if (c.exports) refs[c.exports.as] = outputs[c.exports.output] as number
      const again = await plugin.check(urn, c.example(refs), inputs)
      const diff = await plugin.diff(urn, id, outputs, inputs, again.inputs)
      assert.equal(diff.changes, 'none', JSON.stringify(diff))
      assert.equal(diff.hasDetailedDiff, true)
    })

    for (const [key, value] of Object.entries(c.createOnly)) {
      test(`changing ${key} replaces (UPDATE_REPLACE)`, async () => {
        const news = (await plugin.check(urn, { ...c.example(refs), [key]: value }, inputs)).inputs
        const diff = await plugin.diff(urn, id, outputs, inputs, news)
        assert.equal(diff.changes, 'some')
        assert.deepEqual(diff.replaces, [key], JSON.stringify(diff))
        assert.equal(diff.detailedDiff[key]?.kind, 'UPDATE_REPLACE')
      })
    }

    if (c.grow) {
      const key = c.grow.key
      test(`shrinking the grow-only ${key} is refused by Check and by Update (preview too), never by Diff`, async () => {
        const oldInputs = { ...inputs, [key]: 40 }
        const stateWithSize = { ...outputs, [key]: 40 }
        const checked = await plugin.check(urn, { ...stripSecrets(inputs), [key]: 20 }, oldInputs)
        assert.deepEqual(
          checked.failures.map((f) => f.property),
          [key],
        )
        // Lowered below its value rule too: one failure, the rule's, not a second one for the shrink.
        const invalid = await plugin.check(urn, { ...stripSecrets(inputs), [key]: 0 }, oldInputs)
        assert.deepEqual(
          invalid.failures.map((f) => f.property),
          [key],
          invalid.failures.map((f) => f.reason).join('\n'),
        )
        assert.doesNotMatch(invalid.failures[0]?.reason ?? '', /grow-only/)
        const news = { ...inputs, [key]: 20 }
        // `pulumi refresh` diffs with old and new swapped: a Diff that refused the "shrink" would fail the refresh.
        const diff = await plugin.diff(urn, id, stateWithSize, oldInputs, news)
        assert.deepEqual(diff.diffs, [key])
        const before = await apiRequests()
        await rejects(plugin.update(urn, id, stateWithSize, oldInputs, news, { preview: true }), CODE.INVALID_ARGUMENT, new RegExp(key))
        await rejects(plugin.update(urn, id, stateWithSize, oldInputs, news), CODE.INVALID_ARGUMENT, new RegExp(key))
        assert.equal(await apiRequests(), before, 'a refused shrink made an API call')
      })
    }

    const inPlace = (step: ResourceCase['inPlace'][number]) =>
      test(`changing ${step.key} updates in place`, async () => {
        const config = { ...stripSecrets(inputs), [step.key]: step.value(refs) }
        const news = (await plugin.check(urn, config, inputs)).inputs
        const diff = await plugin.diff(urn, id, outputs, inputs, news)
        assert.equal(diff.changes, 'some', JSON.stringify(diff))
        assert.deepEqual(diff.replaces, [])
        assert.deepEqual(diff.diffs, [step.key])
        assert.ok(['UPDATE', 'ADD'].includes(diff.detailedDiff[step.key]?.kind ?? ''), JSON.stringify(diff.detailedDiff))
        // A preview may read the service's lists (the OS names a rebuild may take) but changes nothing.
        const before = await apiRequests('mutating')
        await plugin.update(urn, id, outputs, inputs, news, { preview: true })
        assert.equal(await apiRequests('mutating'), before, 'preview made a mutating API call')
        const updated = await plugin.update(urn, id, outputs, inputs, news)
        assert.equal(updated.refreshBeforeUpdate, true)
        assertSecret(updated.properties, c.secretOutputs, 'Update')
        inputs = news
        outputs = updated.properties
        assert.deepEqual(plainOf(outputs[step.key]), step.value(refs))
        const after = await plugin.diff(urn, id, outputs, inputs, (await plugin.check(urn, stripSecrets(inputs), inputs)).inputs)
        assert.equal(after.changes, 'none', JSON.stringify(after))
      })
    c.inPlace.forEach(inPlace)

    test('Read (refresh) finds no drift', async () => {
      // A minute passes at the service: live figures (a VM's uptime) move on.
      await emulator.control('POST', '/clock', { advance_ms: 60_000 })
      const read = await plugin.read(urn, id, outputs, inputs)
      assert.equal(read.id, id)
      assertSecret(read.properties, c.secretOutputs, 'Read')
      assertSecret(read.inputs, c.secretOutputs, 'Read inputs')
      const diff = await plugin.diff(urn, id, read.properties, read.inputs, inputs)
      assert.equal(diff.changes, 'none', JSON.stringify(diff))
      // Live figures (a VM's uptime and memory) move on every read: a refresh that finds nothing else
      // keeps the recorded ones, so a refresh before every update leaves the stack's outputs as they were.
      for (const [name, attribute] of Object.entries(definitionOf(c.token).attributes)) {
        if (!attribute.live) continue
        const key = toCamel(name)
        assert.deepEqual(read.properties[key], outputs[key], `${key}: a refresh that found nothing else records the live figure again`)
      }
    })

    test('import: Read with only the id, then a Diff against the recovered inputs, secrets given by the program, is empty', async () => {
      const imported = await plugin.read(urn, id)
      assert.equal(imported.id, id)
      assertSecret(imported.properties, c.secretOutputs, 'Read(import)')
      // `pulumi import` writes these inputs into the code it generates: no secret among them. The
      // program that adopts the object gives its secret inputs (here, those it was created with).
      const secretInputs = Object.entries(inputs).filter(([, value]) => isSecret(value))
      for (const [key] of secretInputs) assert.equal(imported.inputs[key], undefined, `the import rebuilt the secret input ${key}`)
      const program = { ...stripSecrets(imported.inputs), ...Object.fromEntries(secretInputs) }
      const news = (await plugin.check(urn, program, imported.inputs)).inputs
      const diff = await plugin.diff(urn, id, imported.properties, imported.inputs, news)
      assert.equal(diff.changes, 'none', JSON.stringify(diff))
      for (const key of c.recovered) assert.deepEqual(plainOf(imported.inputs[key]), plainOf(inputs[key]), `import recovered ${key}`)
    })

    ;(c.afterImport ?? []).forEach(inPlace)

    if (c.account) {
      test('after an out-of-band deletion Read returns an empty id, and Delete still succeeds', async () => {
        await emulator.control('DELETE', `/accounts/${id}`)
        const read = await plugin.read(urn, id, outputs, inputs)
        assert.equal(read.id, '')
        await plugin.delete(urn, id, outputs, inputs)
      })
    } else {
      test('Delete removes it; a second Delete succeeds; Read then returns an empty id', async () => {
        if (c.exports) return // referenced by a later case
        await plugin.delete(urn, id, outputs, inputs)
        await plugin.delete(urn, id, outputs, inputs)
        assert.equal((await plugin.read(urn, id, outputs, inputs)).id, '')
      })
    }
  })
})

describe('every resource and function of the schema', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8')) as {
    resources: Record<string, { requiredInputs: string[]; methods?: Record<string, string> }>
    functions: Record<string, { inputs?: { required?: string[] } }>
  }
  const methodTokens = new Set(Object.values(schema.resources).flatMap((r) => Object.values(r.methods ?? {})))
  test('Check with no inputs names every required input of every resource', async () => {
    for (const [token, spec] of Object.entries(schema.resources)) {
      const { failures } = await plugin.check(urnOf(token, 'empty'), {})
      assert.deepEqual([...new Set(failures.map((f) => f.property))].sort(), [...spec.requiredInputs].sort(), token)
    }
  })
  test('Create in preview answers for every resource without changing anything at the API', async () => {
    const before = await apiRequests('mutating')
    for (const [token, spec] of Object.entries(schema.resources)) {
      const unknowns = Object.fromEntries(spec.requiredInputs.map((k) => [k, UNKNOWN_WIRE]))
      const preview = await plugin.create(urnOf(token, 'preview'), unknowns, { preview: true })
      assert.equal(preview.id, '', token)
    }
    assert.equal(await apiRequests('mutating'), before, 'a preview made a mutating API call')
  })
  test('Call in a preview (dryRun) answers for every method, with the object and its arguments unknown, touching nothing', async () => {
    assert.ok(methodTokens.size > 0)
    const before = await apiRequests('all')
    for (const token of methodTokens) {
      const type = token.slice(0, token.indexOf('/'))
      const self = { [SIG_KEY]: SIG_RESOURCE_REF, urn: urnOf(type, 'preview'), id: UNKNOWN_WIRE, packageVersion: '' }
      const args = Object.fromEntries(
        (schema.functions[token]?.inputs?.required ?? []).filter((k) => k !== '__self__').map((k) => [k, UNKNOWN_WIRE]),
      )
      assert.deepEqual(await plugin.callMethod(token, { __self__: self, ...args }, { dryRun: true }), { return: {}, failures: [] }, token)
    }
    assert.equal(await apiRequests('all'), before, 'a preview of a method called the API')
  })
  test('Invoke with missing arguments reports them as failures for every function', async () => {
    for (const [token, spec] of Object.entries(schema.functions)) {
      if (methodTokens.has(token)) continue // a method is served by Call, not Invoke (below)
      const required = spec.inputs?.required ?? []
      if (required.length === 0) continue
      const { failures } = await plugin.invoke(token, {})
      assert.deepEqual([...new Set(failures.map((f) => f.property))].sort(), [...required].sort(), token)
    }
  })
})

/** A Lite VM's inputs as a program gives them. */
function vmProgram(productId = 101): WireMap {
  return {
    sshAndConsoleUser: 'deployer',
    consolePassword: 'S3cretPass9',
    productId,
    selectOs: 'Ubuntu-22.04',
    keypairId: refs.keypair ?? 0,
    cycle: 'm',
  }
}

describe('methods (Call): vm.power({ state })', () => {
  const tok = 'provider:index:LiteVm/power'
  const urn = urnOf('provider:index:LiteVm', 'powered')
  let id = ''
  const self = (over: Partial<{ urn: string; id: string }> = {}) => ({ [SIG_KEY]: SIG_RESOURCE_REF, urn, id, packageVersion: '', ...over })
  const vmState = async () => (await emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)).status

  before(async () => {
    const news = (await plugin.check(urn, vmProgram())).inputs
    id = (await plugin.create(urn, news, { timeout: 120 })).id
  })

  test('in a preview (dryRun) nothing runs; a known wrong argument fails the preview, naming it and the rule', async () => {
    const effects = await emulator.effectsOf(async () => {
      assert.deepEqual(await plugin.callMethod(tok, { __self__: self(), state: 'stop' }, { dryRun: true }), { return: {}, failures: [] })
      await rejects(
        plugin.callMethod(tok, { __self__: self(), state: 'halt' }, { dryRun: true }),
        CODE.INVALID_ARGUMENT,
        /^state: .*one of/,
      )
    })
    assert.deepEqual(effects.log, [], 'a preview of a method called the API')
    assert.equal(await vmState(), 'running')
  })

  test("a preview of vm.rebuild({ os }) checks os against the VM's OS list: a wrong one fails the preview, naming os and the list", async () => {
    const rebuild = 'provider:index:LiteVm/rebuild'
    const effects = await emulator.effectsOf(async () => {
      await rejects(
        plugin.callMethod(rebuild, { __self__: self(), os: 'Windows-11' }, { dryRun: true }),
        CODE.INVALID_ARGUMENT,
        /^os: .*must be an OS of product 101: "Ubuntu-22\.04", "Ubuntu-24\.04", "Debian-12", "Rocky-9"/,
      )
      const logged = engine.logs.length
      assert.deepEqual(await plugin.callMethod(rebuild, { __self__: self(), os: 'Debian-12' }, { dryRun: true }), {
        return: {},
        failures: [],
      })
      // Destructive: the preview warns on the VM, as a Terraform plan of the action does.
      const warned = (l: (typeof engine.logs)[number]) =>
        l.urn === urn && /LiteVm\/rebuild is destructive.*cannot be undone/s.test(l.message)
      assert.ok((await logsUntil(logged, warned)).some(warned), 'the preview warns that a rebuild cannot be undone')
    })
    assert.deepEqual(effects.mutations, [], 'a preview changes nothing')
  })

  test('in an update it runs once on the object: the VM is stopped, the progress is logged on its URN, nothing is returned', async () => {
    const logged = engine.logs.length
    const effects = await emulator.effectsOf(() => plugin.callMethod(tok, { __self__: self(), state: 'stop' }))
    assert.deepEqual(effects.value, { return: {}, failures: [] })
    assert.deepEqual(effects.mutations, [`PUT /v1/lites/accounts/${id}/vm-state/stop`])
    assert.deepEqual(effects.orders, [])
    assert.equal(await vmState(), 'stopped')
    const sent = (l: { urn: string; message: string }) => l.urn === urn && /power action stop sent/.test(l.message)
    const progress = (await logsUntil(logged, sent)).filter(sent)
    assert.equal(progress.length, 1, JSON.stringify(engine.logs.slice(logged)))
    await plugin.callMethod(tok, { __self__: self(), state: 'start' })
    assert.equal(await vmState(), 'running')
  })

  test("a failure at the service is an error naming the method and the object, with the API's code", async () => {
    await rejects(
      plugin.callMethod(tok, { __self__: self({ id: '999999' }), state: 'stop' }),
      CODE.NOT_FOUND,
      /LiteVm power of 999999 failed/,
    )
  })

  test('a wrong call is refused before any API call, naming what is wrong', async () => {
    const effects = await emulator.effectsOf(async () => {
      await rejects(plugin.callMethod(tok, { state: 'stop' }), CODE.INVALID_ARGUMENT, /__self__ must be a reference/)
      await rejects(
        plugin.callMethod(tok, { __self__: self({ urn: urnOf('provider:index:LiteKeypair', 'k') }), state: 'stop' }),
        CODE.INVALID_ARGUMENT,
        /not a provider:index:LiteVm/,
      )
      await rejects(
        plugin.callMethod('provider:index:LiteVm/explode', { __self__: self() }),
        CODE.INVALID_ARGUMENT,
        /LiteVm has no method explode; its methods: power, rebuild/,
      )
      await rejects(
        plugin.callMethod(tok, { __self__: self(), state: 'stop', force: true }),
        CODE.INVALID_ARGUMENT,
        /force is not an argument of the method; its arguments: state/,
      )
      await rejects(plugin.callMethod(tok, { __self__: self() }), CODE.INVALID_ARGUMENT, /^state: Missing required attribute state/)
      await rejects(
        plugin.callMethod(tok, { __self__: self({ id: UNKNOWN_WIRE }), state: 'stop' }),
        CODE.FAILED_PRECONDITION,
        /not known outside a preview/,
      )
    })
    assert.deepEqual(effects.mutations, [])
  })
})

describe('functions and the rest', () => {
  test('Invoke liteProducts returns camelCase products', async () => {
    const result = await plugin.invoke('provider:index:liteProducts', {})
    assert.deepEqual(result.failures, [])
    const products = result.return.products as { productId: number; billing: unknown[] }[]
    assert.ok(products.some((p) => p.productId === 101))
  })

  test('Invoke liteOsList: a result, and a missing argument as a CheckFailure', async () => {
    const ok = await plugin.invoke('provider:index:liteOsList', { productId: 101 })
    assert.deepEqual(ok.failures, [])
    assert.ok((ok.return.oss as { name: string }[]).some((o) => o.name === 'Ubuntu-22.04'))
    const bad = await plugin.invoke('provider:index:liteOsList', {})
    assert.deepEqual(
      bad.failures.map((f) => f.property),
      ['productId'],
    )
    await rejects(plugin.invoke('provider:index:noSuchFunction', {}), CODE.INVALID_ARGUMENT)
  })

  test("every SDK's exists(id) (the engine's Read under an __exists__ URN): true for an object, false for a missing one or another type's; an import of a missing id still fails naming it", async () => {
    const keyUrn = urnOf('provider:index:LiteKeypair', 'exists-key')
    const key = await plugin.create(keyUrn, (await plugin.check(keyUrn, { name: 'exists-check-key' })).inputs)
    const existence = (type: string) => urnOf(type, `__exists__${Math.floor(Math.random() * 1000)}`)
    const found = await plugin.read(existence('provider:index:LiteKeypair'), key.id)
    assert.equal(found.id, key.id)
    assert.equal(found.hasProperties, true)
    const before = await apiRequests('mutating')
    // No properties at all: the engine takes an empty map for "unknown", and the SDK's exists() then never answers false.
    const missing = await plugin.read(existence('provider:index:LiteKeypair'), '999999')
    assert.deepEqual([missing.id, missing.hasProperties], ['', false], 'a missing keypair does not exist')
    assert.equal((await plugin.read(existence('provider:index:LiteVm'), '999999')).id, '', 'a missing VM does not exist')
    assert.equal((await plugin.read(existence('provider:index:BaremetalAdditionalIpAssignment'), '1:2')).id, '')
    assert.equal((await plugin.read(existence('provider:index:BaremetalKeypair'), key.id)).id, '', 'a Lite keypair is no Metal keypair')
    assert.equal(await apiRequests('mutating'), before, 'an existence check changed something at the API')
    // A malformed id is the caller's mistake, not an answer.
    await rejects(plugin.read(existence('provider:index:LiteVm'), 'abc'), CODE.NOT_FOUND, /Invalid import id/)
    await rejects(
      plugin.read(urnOf('provider:index:LiteVm', 'imported'), '999999'),
      CODE.NOT_FOUND,
      /Cannot import a missing object.*999999/,
    )
    await plugin.delete(keyUrn, key.id, key.properties)
  })

  test('an API rejection maps to a precise code, not UNKNOWN', async () => {
    const urn = urnOf('provider:index:LiteVm', 'bad')
    const news = (await plugin.check(urn, vmProgram(999))).inputs
    const error = await rejects(plugin.create(urn, news), CODE.INVALID_ARGUMENT)
    assert.equal(initFailure(error), null)
  })

  test('an order placed whose wait fails is a partial failure: UNKNOWN + ErrorResourceInitFailed with the id', async () => {
    const urn = urnOf('provider:index:LiteVm', 'unpaid')
    const news = (await plugin.check(urn, vmProgram())).inputs
    const fault = await emulator.control<{ fault_id: string }>('POST', '/faults', {
      method: 'GET',
      path: '/lites/accounts/*',
      status: 403,
      count: -1,
    })
    const error = await rejects(plugin.create(urn, news, { timeout: 60 }), CODE.UNKNOWN).finally(() =>
      emulator.control('DELETE', `/faults/${fault.fault_id}`),
    )
    const failure = initFailure(error)
    assert.ok(failure, `no ErrorResourceInitFailed detail: ${error.details}`)
    assert.match(failure.id, /^\d+$/)
    assert.ok(failure.reasons.length > 0)
    assert.ok(isSecret(failure.properties.consolePassword))
    assert.equal(failure.properties.__meta !== undefined, true, 'the resume marker is kept in outputs')
    assert.equal(failure.refreshBeforeUpdate, true, 'read before the next up, like a resource that succeeded')
    // The next preview's Diff warns that the order is unfinished, naming the VM by its id.
    const logged = engine.logs.length
    await plugin.diff(urn, failure.id, failure.properties, failure.inputs, news)
    const warned = (
      await logsUntil(logged, (l) => l.message.includes(`LiteVm ${failure.id}`) || l.message.includes(`lite_vm ${failure.id}`))
    ).map((l) => l.message)
    assert.ok(
      warned.some((m) => m.includes(`LiteVm ${failure.id}`) || m.includes(`lite_vm ${failure.id}`)),
      `no warning names the id: ${warned.join(' | ')}`,
    )
    assert.ok(!warned.some((m) => / undefined\b/.test(m)), warned.join(' | '))
  })

  test("SIGTERM during a create's wait acts as Cancel: the Create answers with the new id, then the plugin exits", async () => {
    const own = await Plugin.launch(engine.address)
    try {
      await own.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '100ms' })
      const urn = urnOf('provider:index:LiteVm', 'terminated')
      const news = (await own.check(urn, vmProgram())).inputs
      // A slow order: the VM stays provisioning far longer than the test runs.
      await emulator.control('PATCH', '/config', { provisioning_delay_ms: 600_000 })
      const seen = (await emulator.orders()).orders.length
      const since = await emulator.lastSeq()
      const creating = own.create(urn, news).then(
        () => assert.fail('the create cannot have finished: the VM is still provisioning'),
        (error: RpcError) => error,
      )
      // Once the plugin polls the new account, it holds the id and is waiting.
      let id = ''
      for (let i = 0; i < 600 && id === ''; i++) {
        const order = (await emulator.orders()).orders[seen]
        const polled = order && (await emulator.requests(since)).some((e) => e.method === 'GET' && e.path.endsWith(`/${order.account_id}`))
        if (polled) id = String(order.account_id)
        else await new Promise((resolve) => setTimeout(resolve, 25))
      }
      assert.notEqual(id, '', 'the order was placed and its wait began')
      const exit = new Promise((resolve) => own.child.once('exit', (code, signal) => resolve({ code, signal })))
      own.child.kill('SIGTERM')
      const error = await creating
      const failure = initFailure(error)
      assert.ok(failure, `the answer carries no ErrorResourceInitFailed: ${error.code} ${error.details}`)
      assert.equal(failure.id, id)
      // Exit code 0: the plugin closed once the answer was sent, not when its grace period ran out (143).
      assert.deepEqual(await exit, { code: 0, signal: null })
    } finally {
      await emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 })
      await own.stop()
    }
  })

  test('the launcher works when reached through a chain of symlinks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plugin-link-'))
    try {
      symlinkSync(PLUGIN, join(dir, 'real-link'))
      symlinkSync('real-link', join(dir, 'pulumi-resource-provider'))
      const linked = await Plugin.launch(engine.address, {}, { executable: join(dir, 'pulumi-resource-provider') })
      try {
        assert.equal(await linked.pluginInfo(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
      } finally {
        await linked.stop()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('refresh before update is asked for only of an engine that said in Handshake it supports it', async () => {
    const keypair = CASES.find((c) => c.token === 'provider:index:LiteKeypair')
    assert.ok(keypair, 'a LiteKeypair engine case')
    const urn = urnOf(keypair.token, 'refresh-before-update')
    const inputs = (await plugin.check(urn, { ...keypair.example(refs), name: 'refresh-before-update' })).inputs
    const created = await plugin.create(urn, inputs, { timeout: 60 })
    try {
      assert.equal((await plugin.read(urn, created.id, created.properties, inputs)).refreshBeforeUpdate, true)
      for (const handshake of [undefined, false] as const) {
        const own = await Plugin.launch(engine.address)
        try {
          if (handshake !== undefined) await own.handshake(engine.address, { supportsRefreshBeforeUpdate: handshake })
          await own.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms', version: '0.1.0' })
          const read = await own.read(urn, created.id, created.properties, inputs)
          assert.equal(read.id, created.id)
          assert.equal(
            read.refreshBeforeUpdate,
            false,
            `an engine that ${handshake === undefined ? 'did not handshake' : 'does not support it'}`,
          )
        } finally {
          await own.stop()
        }
      }
    } finally {
      await plugin.delete(urn, created.id, created.properties, inputs)
    }
  })

  test("a refresh refused the key: the error says a refresh reads with the state's configuration, and how to read with the program's", async () => {
    const keypair = CASES.find((c) => c.token === 'provider:index:LiteKeypair')
    assert.ok(keypair, 'a LiteKeypair engine case')
    const urn = urnOf(keypair.token, 'rotated-key')
    const inputs = (await plugin.check(urn, { ...keypair.example(refs), name: 'rotated-key' })).inputs
    const created = await plugin.create(urn, inputs, { timeout: 60 })
    const own = await Plugin.launch(engine.address)
    try {
      // The key the state recorded, since revoked: the engine configures the refresh's provider with it.
      await own.configure({ apiKey: 'revoked-key', baseUrl: emulator.baseUrl, pollInterval: '50ms', version: '0.1.0' })
      const error = await rejects(own.read(urn, created.id, created.properties, inputs), CODE.UNAUTHENTICATED, /HTTP 401/)
      assert.match(error.details, /check provider:apiKey/)
      assert.match(error.details, /the provider configuration the stack's state recorded at its last update/)
      assert.match(error.details, /pulumi refresh --run-program/)
    } finally {
      await own.stop()
      await plugin.delete(urn, created.id, created.properties, inputs)
    }
  })

  test('Cancel answers', async () => {
    await plugin.cancel()
  })

  test('no Log call carries a secret value', () => {
    secretsSeen.add('emulator-key')
    for (const log of engine.logs) for (const s of secretsSeen) assert.ok(!log.message.includes(s), `a log leaks a secret: ${log.message}`)
  })
})

function plainOf(value: Wire | undefined): Wire | undefined {
  return isSecret(value) ? (value.value as Wire) : value
}
function stripSecrets(map: WireMap): WireMap {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, plainOf(v) ?? null]))
}

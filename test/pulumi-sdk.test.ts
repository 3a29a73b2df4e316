// The generated TypeScript SDK (sdk/nodejs): it is up to date with the schema, it builds with tsc, and
// the example programs under examples/pulumi/ (compiled against the SDK as an installed package) run
// under pulumi.runtime.setMocks with every registration and invoke delegated to the real provider
// class (src/pulumi/provider.ts) over an in-process emulator on a manual clock.
//
// The SDK is CommonJS TypeScript (as `pulumi package gen-sdk` writes it) and is not part of the root
// tsconfig, whose ESM and strict settings it does not follow. So the test compiles it the way a user
// does, into a temp dir laid out like node_modules/@provider/pulumi, and loads the compiled programs
// with require(). @pulumi/pulumi there is a symlink to the repository's copy: one copy is loaded,
// which the mocks need.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createClient } from '../src/api/index.js'
import type { AnyProvider } from '../src/core/index.js'
import { createEmulator, type Emulator } from '../src/emulator/index.js'
import { PulumiProvider } from '../src/pulumi/provider.js'
import { secret, UNKNOWN_WIRE, type Wire, type WireMap } from '../src/pulumi/wire.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SDK = join(ROOT, 'sdk', 'nodejs')
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc')
const BASE = 'http://emulator.invalid'
const requireHere = createRequire(import.meta.url)
const pulumi = requireHere('@pulumi/pulumi') as typeof import('@pulumi/pulumi')
type Output<T> = import('@pulumi/pulumi').Output<T>

/** Output internals the runtime keeps on every Output. */
interface OutputInternals {
  promise(withUnknowns?: boolean): Promise<unknown>
  readonly isKnown: Promise<boolean>
  readonly isSecret: Promise<boolean>
}
const internals = (o: Output<unknown>) => o as unknown as OutputInternals

function run(command: string, args: readonly string[], cwd = ROOT): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' })
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** Files under a folder, relative, leaving out what a build or an install adds (bin/, node_modules/). */
function listFiles(dir: string, base = dir): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (dir === base && (entry.name === 'bin' || entry.name === 'node_modules')) continue
      out.push(...listFiles(path, base))
    } else out.push(relative(base, path))
  }
  return out.sort()
}

// ---------------------------------------------------------------------------------------------
// A temp dir shaped like a user's machine: the SDK installed in node_modules, the programs beside it.

let tmp = ''

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'pulumi-sdk-'))
  writeFileSync(join(tmp, 'package.json'), '{ "private": true }\n')
  const modules = join(tmp, 'node_modules')
  mkdirSync(modules)
  symlinkSync(join(ROOT, 'node_modules', '@pulumi'), join(modules, '@pulumi'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', '@types'), join(modules, '@types'), 'dir')
  const installed = join(modules, '@provider', 'pulumi')
  mkdirSync(installed, { recursive: true })
  cpSync(join(SDK, 'package.json'), join(installed, 'package.json'))
  run(TSC, ['-p', join(SDK, 'tsconfig.json'), '--outDir', join(installed, 'bin')])
  for (const name of ['typescript-metal', 'typescript-lite']) {
    const dir = join(tmp, 'programs', name)
    mkdirSync(dir, { recursive: true })
    for (const file of ['index.ts', 'tsconfig.json']) cpSync(join(ROOT, 'examples', 'pulumi', name, file), join(dir, file))
    run(TSC, ['-p', join(dir, 'tsconfig.json')])
  }
})

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------

describe('the generated SDK', () => {
  test('sdk/nodejs is what the generator writes for schema/schema.json', () => {
    const fresh = join(tmp, 'fresh')
    run(process.execPath, [join(ROOT, 'scripts', 'gen-sdk.mjs'), '--out', fresh])
    const expected = listFiles(fresh)
    const actual = listFiles(SDK)
    const stale = [
      ...expected.filter((f) => !actual.includes(f)).map((f) => `missing: ${f}`),
      ...actual.filter((f) => !expected.includes(f)).map((f) => `not generated: ${f}`),
      ...expected.filter((f) => actual.includes(f) && readFileSync(join(fresh, f), 'utf8') !== readFileSync(join(SDK, f), 'utf8')).map((f) => `differs: ${f}`),
    ]
    assert.deepEqual(stale, [], `sdk/nodejs is stale: run \`npm run generate\` and commit the result.\n${stale.join('\n')}`)
  })

  test('the package manifest names the plugin and carries the schema version', () => {
    const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'))
    const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8'))
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    assert.deepEqual(manifest.pulumi, { resource: true, name: 'provider' })
    assert.equal(manifest.version, schema.version)
    assert.equal(manifest.version, root.version)
    assert.equal(manifest.name, schema.language.nodejs.packageName)
    assert.ok(manifest.peerDependencies['@pulumi/pulumi'])
  })

  test('builds with tsc, against the repository copy of @pulumi/pulumi', () => {
    const listed = run(TSC, ['-p', join(SDK, 'tsconfig.json'), '--noEmit', '--listFiles'])
    assert.ok(listed.includes(join(ROOT, 'node_modules', '@pulumi', 'pulumi', 'index.d.ts')), 'tsc did not resolve @pulumi/pulumi from the repository')
  })

  test('the programs and the test load one copy of @pulumi/pulumi', () => {
    const fromProgram = createRequire(join(tmp, 'programs', 'typescript-metal', 'bin', 'index.js'))
    const fromSdk = createRequire(join(tmp, 'node_modules', '@provider', 'pulumi', 'bin', 'index.js'))
    const here = realpathSync(requireHere.resolve('@pulumi/pulumi'))
    assert.equal(realpathSync(fromProgram.resolve('@pulumi/pulumi')), here)
    assert.equal(realpathSync(fromSdk.resolve('@pulumi/pulumi')), here)
  })
})

// ---------------------------------------------------------------------------------------------
// The provider behind the mocks: the real PulumiProvider, its client wired to an in-process emulator
// whose clock moves only when the client waits (as in test/harness.ts).

interface Backend {
  readonly emulator: Emulator
  readonly provider: PulumiProvider
}

function backend(): Backend {
  const emulator = createEmulator({ clock: 'manual', provisioningDelayMs: 2000 })
  // Same attributes and validation as the real provider configuration; only the client is in-process.
  const inProcess: AnyProvider = {
    ...providerDefinition,
    configure: () =>
      createClient({
        baseUrl: `${BASE}/v1`,
        apiKey: emulator.apiKey,
        userAgent: 'provider-sdk-test/0',
        fetch: (request) => emulator.fetch(request),
        now: () => emulator.now(),
        sleep: async (ms) => emulator.advance(ms),
        random: () => 0.5,
        pollIntervalMs: 1000,
        log: () => {},
      }),
  }
  const provider = new PulumiProvider({ provider: inProcess, resources, dataSources }, { version: '0.1.0', log: () => {} })
  provider.configure({ args: { apiKey: secret(emulator.apiKey), baseUrl: `${BASE}/v1`, pollInterval: '1s' }, variables: {} })
  return { emulator, provider }
}

/** SDK-side values to wire values: Pulumi's Unknown object becomes the sentinel; undefined is dropped. */
function toWire(value: unknown): Wire {
  if (pulumi.isUnknown(value)) return UNKNOWN_WIRE
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(toWire)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toWire(v)]),
    )
  }
  return (value ?? null) as Wire
}

function mocks(provider: PulumiProvider, preview: boolean): import('@pulumi/pulumi').runtime.Mocks {
  return {
    async newResource(args) {
      if (args.type.startsWith('pulumi:providers:')) return { id: `${args.name}-id`, state: args.inputs }
      const urn = `urn:pulumi:stack::project::${args.type}::${args.name}`
      if (args.id) {
        // X.get(name, id): a read by id, as `pulumi import` and refresh do.
        const read = await provider.read({ urn, type: args.type, id: args.id, properties: {}, inputs: {} })
        return { id: read.id, state: read.properties }
      }
      const checked = provider.check({ urn, type: args.type, news: toWire(args.inputs) as WireMap })
      if (checked.failures.length > 0) {
        throw new Error(`Check of ${args.name} failed: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join('; ')}`)
      }
      const created = await provider.create({ urn, type: args.type, properties: checked.inputs, preview })
      return { id: created.id, state: created.properties }
    },
    async call(args) {
      const result = await provider.invoke({ tok: args.token, args: toWire(args.inputs) as WireMap })
      if (result.failures.length > 0) throw new Error(`${args.token}: ${result.failures.map((f) => f.reason).join('; ')}`)
      return result.return
    },
  }
}

type Program = Record<string, Output<unknown>>

async function runProgram(name: string, provider: PulumiProvider, preview: boolean): Promise<Program> {
  await pulumi.runtime.setMocks(mocks(provider, preview), 'project', 'stack', preview)
  pulumi.runtime.setAllConfig({ 'project:consolePassword': 'S3cretPass9' }, ['project:consolePassword'])
  const file = join(tmp, 'programs', name, 'bin', 'index.js')
  const load = createRequire(file)
  delete load.cache[load.resolve(file)]
  return load(file) as Program
}

/** Every export of a program, settled: value, known, secret. */
async function settle(program: Program): Promise<Record<string, { value: unknown; known: boolean; secret: boolean }>> {
  const out: Record<string, { value: unknown; known: boolean; secret: boolean }> = {}
  for (const [key, output] of Object.entries(program)) {
    assert.ok(pulumi.Output.isInstance(output), `export ${key} is not an Output`)
    const o = internals(output)
    out[key] = { value: await o.promise(), known: await o.isKnown, secret: await o.isSecret }
  }
  return out
}

async function mutations(emulator: Emulator): Promise<string[]> {
  const response = await emulator.fetch(new Request(`${BASE}/_emulator/requests`))
  const entries = ((await response.json()) as { data: { method: string; path: string }[] }).data
  await emulator.fetch(new Request(`${BASE}/_emulator/requests`, { method: 'DELETE' }))
  return entries.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)
}

/** The installed SDK, loaded as the programs load it (typed just enough for the tests below). */
interface Sdk {
  Baremetal: {
    new (name: string, args: Record<string, unknown>): Record<string, unknown>
    get(name: string, id: string): Record<string, Output<unknown>>
    isInstance(obj: unknown): boolean
  }
  BaremetalKeypair: new (name: string, args: Record<string, unknown>) => Record<string, unknown>
}
const loadSdk = () => createRequire(join(tmp, 'programs', 'package.json'))('@provider/pulumi') as Sdk

describe('example programs on the generated SDK, under mocks delegating to the provider', () => {
  const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/

  test('typescript-metal: products, keypair, server, additional IP and its assignment, elastic storage', async () => {
    const { emulator, provider } = backend()
    const out = await settle(await runProgram('typescript-metal', provider, false))
    for (const [key, { known }] of Object.entries(out)) assert.ok(known, `${key} is unknown after an update`)
    assert.equal(typeof out.keypairId?.value, 'number')
    assert.match(String(out.privateKey?.value), /PRIVATE KEY/)
    assert.equal(out.privateKey?.secret, true)
    assert.match(String(out.serverId?.value), /^\d+$/)
    assert.equal(out.serverStatus?.value, 'Active')
    assert.match(String(out.serverIp?.value), ipv4)
    assert.equal(out.serverRaw?.secret, true, 'raw is a secret Output')
    assert.equal(out.serverId?.secret, false)
    assert.match(String(out.additionalIpId?.value), /^\d+$/)
    assert.match(String(out.additionalIpAddress?.value), ipv4)
    assert.equal(out.assignmentId?.value, `${out.serverId?.value}:${out.additionalIpId?.value}`)
    assert.equal(out.assignmentStatus?.value, 'Active')
    assert.match(String(out.storageId?.value), /^\d+$/)
    assert.equal(out.storageStatus?.value, 'Active')
    assert.equal(out.summary?.value, `metal-example (${out.serverIp?.value}) with ${out.additionalIpAddress?.value}`)
    const posted = await mutations(emulator)
    assert.ok(posted.length >= 5, `expected the orders to reach the API, got ${posted.join(', ')}`)

    // Baremetal.get: a read by id through the provider's import path.
    const sdk = loadSdk()
    const read = sdk.Baremetal.get('again', String(out.serverId?.value))
    assert.ok(sdk.Baremetal.isInstance(read))
    assert.equal(await internals(read.label as Output<unknown>).promise(), 'metal-example')
    assert.equal(await internals(read.status as Output<unknown>).promise(), 'Active')
  })

  test('typescript-lite: products, OS list, keypair, VM', async () => {
    const { provider } = backend()
    const out = await settle(await runProgram('typescript-lite', provider, false))
    assert.equal(typeof out.keypairId?.value, 'number')
    assert.equal(out.privateKey?.secret, true)
    assert.match(String(out.vmId?.value), /^\d+$/)
    assert.equal(out.vmStatus?.value, 'Active')
    assert.equal(typeof out.vmOs?.value, 'string')
    assert.equal(out.consolePassword?.value, 'S3cretPass9')
    assert.equal(out.consolePassword?.secret, true, 'the console password stays secret')
  })

  test('preview: no order is placed, computed outputs are unknown, secret outputs stay secret', async () => {
    const { emulator, provider } = backend()
    await mutations(emulator)
    const out = await settle(await runProgram('typescript-metal', provider, true))
    assert.equal(out.serverStatus?.known, false)
    assert.equal(out.storageStatus?.known, false)
    assert.equal(out.privateKey?.known, false)
    assert.equal(out.privateKey?.secret, true)
    assert.deepEqual(await mutations(emulator), [], 'a preview must not change anything')
  })

  test('a missing required input fails in the SDK, an invalid one in the provider', async () => {
    const { provider } = backend()
    await pulumi.runtime.setMocks(mocks(provider, false), 'project', 'stack', false)
    const sdk = loadSdk()
    assert.throws(() => new sdk.Baremetal('no-label', { productId: 301, cycle: 'm', keypairId: 1 }), /Missing required property 'label'/)

    const bad = new sdk.BaremetalKeypair('bad', { name: '' })
    // A failed registration rejects every output; catch them all so none goes unhandled.
    const outputs = Object.values(bad).filter((v): v is Output<unknown> => pulumi.Output.isInstance(v))
    for (const o of outputs) {
      const i = internals(o)
      for (const p of [i.promise(), i.isKnown, i.isSecret]) p.catch(() => {})
    }
    await assert.rejects(internals(bad.name as Output<unknown>).promise(), /Check of bad failed: name/)
  })
})


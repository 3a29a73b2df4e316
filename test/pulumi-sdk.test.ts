// The generated Pulumi SDKs (sdk/nodejs, sdk/python, sdk/go): each is what Pulumi's own generators write
// for schema/schema.json now, carries the package version and no plugin download URL, and builds and
// installs as users get it from a release (scripts/sdk-packages.mjs, which the release uses too).
// Then programs run on each SDK under that language's Pulumi mocks: the example programs under
// examples/pulumi/ on the TypeScript SDK installed from its npm tarball, with every registration and
// invoke delegated to the real provider service (src/pulumi/provider.ts) over an in-process emulator on a
// manual clock; and a small Python and a small Go program, which must register the names and whole
// numbers the provider expects.
//
// The generated TypeScript SDK calls @pulumi/pulumi APIs newer than the repository's own copy (which
// the provider bundle pins for its gRPC stubs), so it is compiled and run against the copy
// scripts/sdk-packages.mjs installs under .cache/; the programs, the SDK and the mocks load that one
// copy. The Go build is the slow test: minutes with a cold Go build cache, seconds once it holds the
// Pulumi Go SDK.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createClient } from '../src/api/index.js'
import type { AnyProvider } from '../src/core/index.js'
import { createEmulator, type Emulator } from '../src/emulator/index.js'
import { type PulumiService, pulumiService } from '../src/pulumi/provider.js'
import { secret, UNKNOWN_WIRE, type Wire, type WireMap } from '../src/pulumi/wire.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { tool } from './support/tools.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SDKS = join(ROOT, 'sdk')
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc')
const BASE = 'http://emulator.invalid'
type Pulumi = typeof import('@pulumi/pulumi')
type Output<T> = import('@pulumi/pulumi').Output<T>

/** scripts/gen-sdk.mjs and scripts/sdk-packages.mjs, loaded from the repository (they are not compiled). */
interface GenSdk {
  readonly SDK_LANGUAGES: readonly string[]
  generateSdks(options: { sdkgen: string; out: string }): string[]
}
interface SdkPackages {
  nodeEnv(): string
  pythonEnv(): string
  packNodejs(sdk: string, out: string, work: string): string
  buildPython(sdk: string, out: string, work: string): string[]
}
const script = async <T>(name: string) => (await import(pathToFileURL(join(ROOT, 'scripts', name)).href)) as T
const { generateSdks, SDK_LANGUAGES } = await script<GenSdk>('gen-sdk.mjs')
const packages = await script<SdkPackages>('sdk-packages.mjs')

/** Output internals the runtime keeps on every Output. */
interface OutputInternals {
  promise(withUnknowns?: boolean): Promise<unknown>
  readonly isKnown: Promise<boolean>
  readonly isSecret: Promise<boolean>
}
const internals = (o: Output<unknown>) => o as unknown as OutputInternals

function run(command: string, args: readonly string[], cwd = ROOT, env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 })
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** What a build or an install adds to an SDK directory, and the generated .gitignore files leave out. */
const BUILD_OUTPUT = /^(bin|node_modules|build|dist)$|\.egg-info$|^__pycache__$|^\.mypy_cache$|\.pyc$/

/** Files under a folder, relative, leaving out build output. */
function listFiles(dir: string, base = dir): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (BUILD_OUTPUT.test(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listFiles(path, base))
    else out.push(relative(base, path))
  }
  return out.sort()
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const { version } = json(join(ROOT, 'package.json')) as { version: string }

// ---------------------------------------------------------------------------------------------
// A temp dir shaped like a user's machine: the TypeScript SDK installed from its tarball in
// node_modules, the programs beside it (installTypeScriptSdk, before the tests that use them).

let tmp = ''
let pulumi: Pulumi

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'pulumi-sdk-'))
})

/** Installs the TypeScript SDK from its npm tarball and compiles the example programs against it. */
function installTypeScriptSdk(): void {
  const tarball = packages.packNodejs(join(SDKS, 'nodejs'), join(tmp, 'dist'), join(tmp, 'work'))
  writeFileSync(join(tmp, 'package.json'), '{ "private": true }\n')
  const modules = join(tmp, 'node_modules')
  const env = join(packages.nodeEnv(), 'node_modules')
  mkdirSync(join(modules, '@provider', 'pulumi'), { recursive: true })
  symlinkSync(join(env, '@pulumi'), join(modules, '@pulumi'), 'dir')
  symlinkSync(join(env, '@types'), join(modules, '@types'), 'dir')
  run('tar', ['-xzf', tarball, '-C', join(modules, '@provider', 'pulumi'), '--strip-components=1'])
  for (const name of ['typescript-metal', 'typescript-lite']) {
    const dir = join(tmp, 'programs', name)
    mkdirSync(dir, { recursive: true })
    for (const file of ['index.ts', 'tsconfig.json']) cpSync(join(ROOT, 'examples', 'pulumi', name, file), join(dir, file))
    run(TSC, ['-p', join(dir, 'tsconfig.json')])
  }
  pulumi = createRequire(join(tmp, 'package.json'))('@pulumi/pulumi') as Pulumi
}

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------

describe('the generated SDKs', () => {
  test('sdk/ is what Pulumi’s generators write for schema/schema.json (regenerate with `npm run generate`)', () => {
    const fresh = join(tmp, 'fresh')
    generateSdks({ sdkgen: tool('sdkgen').bin, out: fresh })
    const stale: string[] = []
    for (const language of SDK_LANGUAGES) {
      const expected = listFiles(join(fresh, language))
      const actual = existsSync(join(SDKS, language)) ? listFiles(join(SDKS, language)) : []
      const at = (f: string) => `sdk/${language}/${f}`
      stale.push(
        ...expected.filter((f) => !actual.includes(f)).map((f) => `missing: ${at(f)}`),
        ...actual.filter((f) => !expected.includes(f)).map((f) => `not generated: ${at(f)}`),
        ...expected
          .filter((f) => actual.includes(f) && !readFileSync(join(fresh, language, f)).equals(readFileSync(join(SDKS, language, f))))
          .map((f) => `differs: ${at(f)}`),
      )
    }
    assert.deepEqual(stale, [], `sdk/ is stale: run \`npm run generate\` and commit the result.\n${stale.join('\n')}`)
  })

  test('each SDK carries the package version and its name, and no plugin download URL', () => {
    const schema = json(join(ROOT, 'schema', 'schema.json'))
    assert.equal(schema.version, version)
    assert.equal(schema.pluginDownloadURL, undefined, 'the plugin is installed from the release tarball, never downloaded')
    const plugin = { resource: true, name: 'provider', version }
    const manifest = json(join(SDKS, 'nodejs', 'package.json'))
    assert.equal(manifest.name, schema.language.nodejs.packageName)
    assert.equal(manifest.version, version)
    assert.deepEqual(manifest.pulumi, plugin)
    assert.match(readFileSync(join(SDKS, 'nodejs', 'utilities.ts'), 'utf8'), /return \{ version: getVersion\(\) \};/)
    const python = schema.language.python.packageName
    const pyproject = readFileSync(join(SDKS, 'python', 'pyproject.toml'), 'utf8')
    assert.match(pyproject, new RegExp(`^\\s*name = "${python}"$`, 'm'))
    assert.match(pyproject, new RegExp(`^\\s*version = "${version}"$`, 'm'))
    assert.deepEqual(json(join(SDKS, 'python', python, 'pulumi-plugin.json')), plugin)
    assert.match(readFileSync(join(SDKS, 'python', python, '_utilities.py'), 'utf8'), /def get_plugin_download_url\(\):\n\s+return None\n/)
    const importPath: string = schema.language.go.importBasePath
    assert.match(readFileSync(join(SDKS, 'go', 'go.mod'), 'utf8'), new RegExp(`^module ${dirname(importPath)}$`, 'm'))
    assert.deepEqual(json(join(SDKS, 'go', 'provider', 'pulumi-plugin.json')), plugin)
    assert.doesNotMatch(readFileSync(join(SDKS, 'go', 'provider', 'internal', 'pulumiUtilities.go'), 'utf8'), /PluginDownloadURL\(/)
  })

  test('the Python SDK builds a wheel and an sdist; installed, a program under mocks registers camelCase inputs and whole numbers', () => {
    const built = packages.buildPython(join(SDKS, 'python'), join(tmp, 'python-dist'), join(tmp, 'work'))
    const wheel = built.find((f) => f.endsWith('-py3-none-any.whl'))
    assert.ok(wheel, `no wheel among ${built.join(', ')}`)
    assert.ok(
      built.some((f) => f.endsWith(`-${version}.tar.gz`)),
      `no sdist among ${built.join(', ')}`,
    )
    const python = packages.pythonEnv()
    const site = join(tmp, 'python-site')
    run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '--no-deps', '--no-index', '--target', site, wheel])
    writeFileSync(join(tmp, 'program.py'), PYTHON_PROGRAM)
    const out = JSON.parse(run(python, [join(tmp, 'program.py')], tmp, { PYTHONPATH: site }))
    assert.deepEqual(out.types, { keypairId: 'int', productId: 'int' }, 'integer outputs are Python ints')
    checkRegistered(out.registered)
  })

  test('the Go SDK builds in a module that requires it, and a program under mocks registers camelCase inputs and whole numbers', {
    timeout: 15 * 60_000,
  }, () => {
    const sdk = join(SDKS, 'go')
    const modulePath = /^module\s+(\S+)$/m.exec(readFileSync(join(sdk, 'go.mod'), 'utf8'))?.[1]
    assert.ok(modulePath, 'sdk/go/go.mod names its module')
    const dir = join(tmp, 'go')
    mkdirSync(dir)
    writeFileSync(
      join(dir, 'go.mod'),
      [
        'module example.invalid/sdkcheck',
        '',
        'go 1.25',
        '',
        `require ${modulePath} v0.0.0`,
        `require github.com/pulumi/pulumi/sdk/v3 v${tool('sdkgen').version}`,
        '',
        `replace ${modulePath} => ${sdk}`,
        '',
      ].join('\n'),
    )
    writeFileSync(join(dir, 'main.go'), GO_PROGRAM.replaceAll('SDK_MODULE', modulePath))
    // The flags of the Pulumi CLI's build (scripts/tools.mjs), so that Go's build cache shares its packages.
    const env = { CGO_ENABLED: '0' }
    const flags = ['-trimpath', '-tags', 'osusergo,grpcnotrace']
    run('go', ['mod', 'tidy'], dir, env)
    run('go', ['build', ...flags, './...', `${modulePath}/...`], dir, env)
    run('go', ['build', ...flags, '-o', join(dir, 'program'), '.'], dir, env)
    const out = JSON.parse(run(join(dir, 'program'), [], dir))
    checkRegistered(out)
  })
})

/** What the Python and Go programs register: a keypair, then a VM given whole numbers. */
function checkRegistered(registered: Record<string, Record<string, unknown>>): void {
  assert.deepEqual(Object.keys(registered).sort(), ['provider:index:LiteKeypair', 'provider:index:LiteVm'])
  assert.deepEqual(registered['provider:index:LiteKeypair'], { name: 'deploy-key' })
  const vm = registered['provider:index:LiteVm']!
  for (const key of ['productId', 'keypairId', 'selectOs', 'cycle', 'sshAndConsoleUser', 'consolePassword', 'diskSize'])
    assert.ok(key in vm, key)
  assert.equal(vm.productId, 101)
  assert.equal(vm.keypairId, 7)
  assert.equal(vm.diskSize, 40)
  assert.equal(vm.vmName, 'server-name', 'the schema default')
}

/** A Python program on the installed SDK, under mocks that record each registration; prints JSON. */
const PYTHON_PROGRAM = `import json
import pulumi

registered = {}

class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        registered[args.typ] = {k: (v["value"] if isinstance(v, dict) and "value" in v else v) for k, v in args.inputs.items()}
        return [args.name + "-id", {**args.inputs, "keypairId": 7}]

    def call(self, args):
        return {"products": [{"productId": 101}]}

pulumi.runtime.set_mocks(Mocks(), preview=False)

import pulumi_provider as provider

@pulumi.runtime.test
def program():
    products = provider.lite_products()
    key = provider.LiteKeypair("key", name="deploy-key")
    vm = provider.LiteVm(
        "vm",
        product_id=products.products[0].product_id,
        keypair_id=key.keypair_id,
        select_os="ubuntu-22",
        cycle="m",
        ssh_and_console_user="deployer",
        console_password="S3cretPass9",
        disk_size=40,
    )

    def report(values):
        keypair_id, product_id = values
        types = {"keypairId": type(keypair_id).__name__, "productId": type(product_id).__name__}
        print(json.dumps({"registered": registered, "types": types}))

    return pulumi.Output.all(key.keypair_id, vm.product_id).apply(report)

program()
`

/** A Go program on the SDK (SDK_MODULE is replaced by its module path), under mocks; prints JSON. */
const GO_PROGRAM = `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"SDK_MODULE/provider"
	"SDK_MODULE/provider/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type mocks struct {
	lock       sync.Mutex
	registered map[string]map[string]any
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.registered[args.TypeToken] = args.Inputs.Copy().Mappable()
	outputs := args.Inputs.Copy()
	outputs["keypairId"] = resource.NewNumberProperty(7)
	return args.Name + "-id", outputs, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	return resource.NewPropertyMapFromMap(map[string]any{"products": []any{map[string]any{"productId": 101}}}), nil
}

func main() {
	m := &mocks{registered: map[string]map[string]any{}}
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		_ = config.GetBaseUrl(ctx)
		products, err := provider.LiteProducts(ctx)
		if err != nil {
			return err
		}
		key, err := provider.NewLiteKeypair(ctx, "key", &provider.LiteKeypairArgs{Name: pulumi.String("deploy-key")})
		if err != nil {
			return err
		}
		_, err = provider.NewLiteVm(ctx, "vm", &provider.LiteVmArgs{
			ProductId:         pulumi.Int(products.Products[0].ProductId),
			KeypairId:         key.KeypairId,
			SelectOs:          pulumi.String("ubuntu-22"),
			Cycle:             pulumi.String("m"),
			SshAndConsoleUser: pulumi.String("deployer"),
			ConsolePassword:   pulumi.String("S3cretPass9"),
			DiskSize:          pulumi.IntPtr(40),
		})
		return err
	}, pulumi.WithMocks("project", "stack", m))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(m.registered); err != nil {
		panic(err)
	}
}
`

// ---------------------------------------------------------------------------------------------
// The provider behind the mocks: the real PulumiService, its client wired to an in-process emulator
// whose clock moves only when the client waits (as in test/support/harness.ts).

interface Backend {
  readonly emulator: Emulator
  readonly provider: PulumiService
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
  const provider = pulumiService({ provider: inProcess, resources, dataSources }, { version: '0.1.0', log: () => {} })
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

function mocks(provider: PulumiService, preview: boolean): import('@pulumi/pulumi').runtime.Mocks {
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

async function runProgram(name: string, provider: PulumiService, preview: boolean): Promise<Program> {
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

describe('the TypeScript SDK, and the example programs on it under mocks delegating to the provider', () => {
  before(installTypeScriptSdk)

  test('the TypeScript SDK compiles and packs as users install it, and it and the programs load one @pulumi/pulumi', () => {
    const installed = join(tmp, 'node_modules', '@provider', 'pulumi')
    for (const file of ['index.js', 'index.d.ts', 'package.json', 'README.md', 'LICENSE', 'types/input.d.ts'])
      assert.ok(existsSync(join(installed, file)), file)
    assert.equal(json(join(installed, 'package.json')).version, version)
    const fromProgram = createRequire(join(tmp, 'programs', 'typescript-metal', 'bin', 'index.js'))
    const fromSdk = createRequire(join(installed, 'index.js'))
    const here = realpathSync(createRequire(join(tmp, 'package.json')).resolve('@pulumi/pulumi'))
    assert.equal(realpathSync(fromProgram.resolve('@pulumi/pulumi')), here)
    assert.equal(realpathSync(fromSdk.resolve('@pulumi/pulumi')), here)
  })

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

// The committed schema/schema.json is what the definitions generate (run `node scripts/gen-pulumi.mjs`
// after tsc when this fails), and it names every resource, function and config key of the registry.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { functionToken, methodName, methodToken, resourceToken, schemaText } from '../src/pulumi/index.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { ROOT } from './support/pulumi/plugin-harness.js'

const registry = { provider: providerDefinition, resources, dataSources }
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const committed = readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8')

test('schema/schema.json is fresh (regenerate with `node scripts/gen-pulumi.mjs`)', () => {
  assert.equal(committed, schemaText(registry, { version }), 'schema/schema.json is stale: run `npm run generate` and commit the result')
})

test('the schema names every resource, function and config key, with secrets and replaceOnChanges', () => {
  const schema = JSON.parse(committed) as {
    name: string
    config: { variables: Record<string, { secret?: boolean; defaultInfo?: { environment: string[] } }> }
    resources: Record<string, { properties: Record<string, { secret?: boolean; replaceOnChanges?: boolean }> }>
    functions: Record<string, unknown>
  }
  assert.equal(schema.name, 'provider')
  assert.deepEqual(Object.keys(schema.resources).sort(), resources.map(resourceToken).sort())
  const methods = resources.flatMap((r) => (r.methods ?? []).map((m) => methodToken(r, m)))
  assert.ok(methods.length > 0, 'some resource declares methods')
  assert.deepEqual(Object.keys(schema.functions).sort(), [...dataSources.map(functionToken), ...methods].sort())
  assert.equal(schema.config.variables.apiKey?.secret, true)
  assert.deepEqual(schema.config.variables.apiKey?.defaultInfo?.environment, ['PROVIDER_API_KEY'])
  assert.deepEqual(schema.config.variables.baseUrl?.defaultInfo?.environment, ['PROVIDER_BASE_URL'])
  const vm = schema.resources['provider:index:LiteVm']!.properties
  for (const key of ['raw', 'consolePassword', 'cipassword']) assert.equal(vm[key]?.secret, true, key)
  for (const key of ['selectOs', 'cycle', 'sshAndConsoleUser']) assert.equal(vm[key]?.replaceOnChanges, true, key)
  assert.equal(vm.vmName?.replaceOnChanges, undefined)
  // Inputs an import cannot recover are only recorded by Diff after an import; replaceOnChanges would override it.
  for (const key of ['promocode', 'payWithCreditCard']) assert.equal(vm[key]?.replaceOnChanges, undefined, key)
})

test('methods: a resource names each as a function `<type>/<name>` whose first input is __self__, a reference to it', () => {
  const schema = JSON.parse(committed) as {
    resources: Record<string, { methods?: Record<string, string> }>
    functions: Record<string, { inputs?: { properties: Record<string, { $ref?: string }>; required: string[] }; outputs?: unknown }>
  }
  for (const definition of resources) {
    const token = resourceToken(definition)
    const declared = (definition.methods ?? []).map(methodName)
    assert.deepEqual(Object.keys(schema.resources[token]?.methods ?? {}).sort(), [...declared].sort(), token)
    for (const [name, fn] of Object.entries(schema.resources[token]?.methods ?? {})) {
      assert.equal(fn, `${token}/${name}`)
      const spec = schema.functions[fn]
      // Pulumi's binder takes the first input in name order as the receiver; every other name is camelCase.
      assert.equal(Object.keys(spec?.inputs?.properties ?? {}).sort()[0], '__self__', fn)
      assert.equal(spec?.inputs?.properties.__self__?.$ref, `#/resources/${token}`, fn)
      assert.ok(spec?.inputs?.required.includes('__self__'), fn)
      assert.equal(spec?.outputs, undefined, `${fn} returns nothing`)
    }
  }
  const power = schema.functions['provider:index:LiteVm/power']
  assert.deepEqual(power?.inputs?.required, ['__self__', 'state'])
  assert.deepEqual(Object.keys(schema.resources['provider:index:Baremetal']?.methods ?? {}).sort(), ['power', 'rebuild', 'reset'])
})

test('types the SDKs can hold: whole numbers as integer, nullable nested and unrecoverable outputs', () => {
  const schema = JSON.parse(committed) as {
    resources: Record<
      string,
      { properties: Record<string, { type?: string }>; inputProperties: Record<string, { type?: string }>; required: string[] }
    >
    types: Record<string, { required: string[] }>
  }
  const vm = schema.resources['provider:index:LiteVm']!
  // A Go program writes pulumi.Int(101), a Python one gets an int back; memory sizes fit Go's 64-bit int.
  for (const key of ['maxmem', 'maxdisk', 'productId', 'keypairId', 'diskSize']) assert.equal(vm.properties[key]?.type, 'integer', key)
  for (const key of ['productId', 'keypairId', 'diskSize']) assert.equal(vm.inputProperties[key]?.type, 'integer', key)
  // The interface has no fractional numbers: every number in it is an integer.
  assert.equal(JSON.stringify(schema).match(/"type":"number"/g), null)
  // An unpaid invoice has no datepaid nor paidId; an imported keypair has no private key.
  const invoice = Object.entries(schema.types).find(([token]) => token.endsWith('LastInvoice'))?.[1]
  assert.ok(invoice, 'a last-invoice type')
  for (const key of ['datepaid', 'paidId']) assert.ok(!invoice.required.includes(key), key)
  assert.ok(!schema.resources['provider:index:LiteKeypair']!.required.includes('privateKey'))
})

test('the SDK metadata: package names, a Go import path inside the Go module, the version stamped, no download URL', () => {
  const schema = JSON.parse(committed) as {
    version: string
    pluginDownloadURL?: string
    meta: { supportPack?: boolean }
    language: {
      nodejs: { packageName: string }
      python: { packageName: string; pyproject: { enabled: boolean } }
      go: { importBasePath: string }
    }
  }
  assert.equal(schema.version, version)
  assert.equal(schema.pluginDownloadURL, undefined)
  assert.equal(schema.meta.supportPack, true)
  assert.equal(schema.language.nodejs.packageName, '@provider/pulumi')
  assert.equal(schema.language.python.packageName, 'pulumi_provider')
  assert.equal(schema.language.go.importBasePath, 'github.com/provider/pulumi-provider/sdk/go/provider')
  assert.ok(!/https?:/.test(JSON.stringify(schema.language)), 'the SDK metadata names no web address')
})

test('descriptions name properties and lookups by Pulumi doc reference, so each SDK spells them its own way', () => {
  const schema = JSON.parse(committed) as Record<string, unknown>
  // Every property name of the schema, in its wire (camelCase) spelling, and every description.
  const properties = new Set<string>()
  const descriptions: string[] = []
  const walk = (value: unknown, key?: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v)
      return
    }
    if (value === null || typeof value !== 'object') return
    for (const [k, v] of Object.entries(value)) {
      if ((k === 'properties' || k === 'inputProperties' || k === 'variables') && v && typeof v === 'object') {
        for (const name of Object.keys(v)) properties.add(name)
      }
      if (k === 'description' && typeof v === 'string' && key !== 'description') descriptions.push(v)
      walk(v, k)
    }
  }
  walk(schema)
  // A property in backquotes is spelled one way for every SDK: camelCase is wrong in Python, Go's fields are PascalCase.
  const spelled = descriptions.flatMap((d) => [...d.matchAll(/`([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)`/g)].map((m) => m[1]))
  assert.deepEqual(
    spelled.filter((name) => properties.has(name!)),
    [],
  )
  const accountId = (schema.resources as Record<string, { properties: Record<string, { description: string }> }>)['provider:index:LiteVm']!
    .properties.accountId!.description
  assert.match(accountId, /\{\{% ref #\/resources\/provider:index:LiteDisk\/properties\/liteAccountId %\}\}/)
  // A lookup is a function, spelled per SDK too (liteProducts, lite_products, LiteProducts).
  const productId = (schema.resources as Record<string, { inputProperties: Record<string, { description: string }> }>)[
    'provider:index:LiteVm'
  ]!.inputProperties.productId!.description
  assert.match(productId, /\{\{% ref #\/functions\/provider:index:liteProducts %\}\}/)
  // An API value is not a name of ours: it stays as the service spells it.
  assert.ok(descriptions.some((d) => d.includes('`change_package`')))
})

test('the SDKs doc comments spell names their own way: Python snake_case, Go PascalCase, TypeScript camelCase', () => {
  const doc = (path: string, marker: string) => {
    const text = readFileSync(join(ROOT, 'sdk', path), 'utf8')
    const line = text.split('\n').find((l) => l.includes(marker))
    assert.ok(line, `${path} documents ${marker}`)
    return line
  }
  const marker = 'what the inputs naming an account take'
  assert.match(doc('python/pulumi_provider/lite_vm.py', marker), /LiteDisk\.lite_account_id, LiteVmFromSnapshot\.snapshot_id/)
  assert.match(doc('nodejs/liteVm.ts', marker), /LiteDisk\.liteAccountId, LiteVmFromSnapshot\.snapshotId/)
  assert.match(doc('go/provider/liteVm.go', marker), /LiteDisk\.LiteAccountId, LiteVmFromSnapshot\.SnapshotId/)
  assert.match(doc('python/pulumi_provider/lite_vm.py', 'The OS to install'), /a `name` from lite_os_list\. .*LiteVm\.rebuild_os/)
})

test("no property's description references the property itself (a bare name meant another resource's input)", () => {
  const schema = JSON.parse(committed) as Record<string, unknown>
  const selfRefs: string[] = []
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return
    for (const [k, v] of Object.entries(value)) {
      const here = `${path}/${k}`
      if ((k === 'properties' || k === 'inputProperties') && v && typeof v === 'object') {
        for (const [name, property] of Object.entries(v)) {
          const description = (property as { description?: unknown }).description
          if (typeof description === 'string' && description.includes(`{{% ref ${here}/${name} %}}`)) selfRefs.push(`${here}/${name}`)
        }
      }
      walk(v, here)
    }
  }
  walk(schema, '#')
  assert.deepEqual(selfRefs, [])
})

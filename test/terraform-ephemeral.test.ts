// Ephemeral resources through the Terraform front end, in process over gRPC as Terraform drives them:
// a lookup flagged `ephemeral` is listed and described as an ephemeral resource, validated and opened
// (the service read with the configured client), renewed and closed with nothing to release. The
// OpenVPN profile against the in-process emulator, and a test lookup for the general rules.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fromBinary } from '@bufbuild/protobuf'
import { decode, ExtData, encode } from '@msgpack/msgpack'
import { defineDataSource, length, string } from '../src/core/index.js'
import { createGrpcServer, type GrpcServer } from '../src/grpc/index.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { type Diagnostic, Diagnostic_Severity, GetProviderSchema_ResponseSchema, Provider } from '../src/terraform/gen/tfplugin6.10_pb.js'
import { createLogger } from '../src/terraform/index.js'
import { providerSchemaResponse, providerService, type Registry } from '../src/terraform/provider-service.js'
import { Harness } from './support/harness.js'
import { connectGrpcTestClient, type GrpcTestClient } from './support/terraform/grpc-client.js'

const OPENVPN = 'provider_baremetal_openvpn'

/** Terraform's unknown on the wire. */
const TF_UNKNOWN = new ExtData(0, new Uint8Array([0]))

const dynamic = (object: Record<string, unknown>) => ({ msgpack: encode(object) })

function errors(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)
}

/** A provider service on a loopback port, its API client the harness's, with every log line it writes at trace. */
async function serve(registry: Registry) {
  const lines: string[] = []
  const server: GrpcServer = createGrpcServer({})
  const log = createLogger({ level: 'trace', write: (line) => lines.push(line) })
  providerService(registry, { log, userAgent: 'provider-terraform/ephemeral-test' }).attach(server)
  const client: GrpcTestClient = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen('127.0.0.1', 0)}` })
  const configure = async () => {
    const schemas = await client.call(Provider.method.getProviderSchema, {})
    const names = schemas.provider?.block?.attributes.map((a) => a.name) ?? []
    const config = { ...Object.fromEntries(names.map((n) => [n, null])), api_key: 'key', base_url: 'http://emulator.invalid/v1' }
    const configured = await client.call(Provider.method.configureProvider, { terraformVersion: '1.16.4', config: dynamic(config) })
    assert.deepEqual(errors(configured.diagnostics), [])
  }
  const close = async () => {
    await client.close()
    await server.close()
  }
  return { client, lines, configure, close }
}

describe('ephemeral resources: the OpenVPN profile', () => {
  const harness = new Harness()
  const registry: Registry = { provider: { ...providerDefinition, configure: () => harness.client }, resources, dataSources }
  let served: Awaited<ReturnType<typeof serve>>
  let profile = ''
  before(async () => {
    served = await serve(registry)
    const answer = await harness.emulator.fetch(
      new Request('http://emulator.invalid/v1/baremetals/openvpn', { headers: { 'x-token': harness.emulator.apiKey } }),
    )
    profile = ((await answer.json()) as { data: { config: string } }).data.config
    assert.match(profile, /^client\n/)
  })
  after(() => served.close())

  test('the metadata and the schema list exactly the lookups flagged ephemeral, with the lookup’s schema', async () => {
    const flagged = dataSources.filter((d) => d.ephemeral).map((d) => `provider_${d.name}`)
    assert.deepEqual(flagged, [OPENVPN])
    const metadata = await served.client.call(Provider.method.getMetadata, {})
    assert.deepEqual(
      metadata.ephemeralResources.map((e) => e.typeName),
      flagged,
    )
    const schemas = await served.client.call(Provider.method.getProviderSchema, {})
    assert.deepEqual(Object.keys(schemas.ephemeralResourceSchemas), flagged)
    const block = schemas.ephemeralResourceSchemas[OPENVPN]?.block
    const config = block?.attributes.find((a) => a.name === 'config')
    assert.ok(config?.computed && config.sensitive, 'config is computed and sensitive')
    assert.ok(!block?.attributes.some((a) => a.name === 'id'), 'an ephemeral resource has no id')
    assert.deepEqual(block, schemas.dataSourceSchemas[OPENVPN]?.block)
    // The schema bytes the release bundle answers with, without loading the definitions, say the same.
    const bundled = fromBinary(GetProviderSchema_ResponseSchema, providerSchemaResponse(registry))
    assert.deepEqual(Object.keys(bundled.ephemeralResourceSchemas), flagged)
  })

  test('opening reads the service and answers the profile, with no handle to renew or close', async () => {
    await served.configure()
    const lines = served.lines.length
    await harness.requests()
    const opened = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: OPENVPN,
      config: dynamic({ config: null, raw: null }),
      clientCapabilities: { deferralAllowed: true },
    })
    assert.deepEqual(errors(opened.diagnostics), [])
    const result = decode(opened.result?.msgpack ?? new Uint8Array()) as { config: string; raw: string }
    assert.equal(result.config, profile)
    assert.ok(!result.raw.includes(profile) && result.raw.includes('***'), `raw redacts the profile: ${result.raw}`)
    assert.equal(opened.private, undefined, 'nothing to hand back at close')
    assert.equal(opened.renewAt, undefined, 'nothing expires')
    assert.equal(opened.deferred, undefined)
    assert.deepEqual(
      (await harness.requests()).map((r) => `${r.method} ${r.path}`),
      ['GET /v1/baremetals/openvpn'],
    )

    const renewed = await served.client.call(Provider.method.renewEphemeralResource, { typeName: OPENVPN })
    assert.deepEqual(errors(renewed.diagnostics), [])
    assert.equal(renewed.renewAt, undefined, 'no further renewal')
    const closed = await served.client.call(Provider.method.closeEphemeralResource, { typeName: OPENVPN })
    assert.deepEqual(errors(closed.diagnostics), [])
    assert.deepEqual(await harness.requests(), [], 'renew and close call nothing')

    const logged = served.lines.slice(lines).join('')
    for (const line of profile.split('\n').filter((l) => l.length >= 20)) assert.ok(!logged.includes(line), `the log holds ${line}`)
  })

  test('a failed read is an error naming the ephemeral resource, and the log stays clean', async () => {
    await served.configure()
    await harness.control('POST', '/faults', { method: 'GET', path: '/baremetals/openvpn', status: 403, count: 1 })
    const opened = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: OPENVPN,
      config: dynamic({ config: null, raw: null }),
    })
    assert.equal(opened.result, undefined)
    const [failure, ...more] = errors(opened.diagnostics)
    assert.deepEqual(more, [])
    assert.match(failure ?? '', /provider_baremetal_openvpn/)
    const logged = served.lines.join('')
    for (const line of profile.split('\n').filter((l) => l.length >= 20)) assert.ok(!logged.includes(line), `the log holds ${line}`)
  })
})

describe('ephemeral resources: the general rules', () => {
  const reads: string[] = []
  const echoAttributes = {
    name: string({ required: true, validate: [length({ min: 3 })], description: 'What to read.' }),
    secret: string({ computed: true, sensitive: true, description: 'The secret read.' }),
  }
  const echo = defineDataSource<unknown, typeof echoAttributes>({
    name: 'echo',
    description: 'A test lookup also served as an ephemeral resource.',
    attributes: echoAttributes,
    ephemeral: true,
    async read({ input }) {
      reads.push(String(input.name))
      return { secret: `secret of ${input.name}` }
    },
  })
  const plain = defineDataSource({ ...echo, name: 'plain', ephemeral: false })
  const registry: Registry = { provider: { ...providerDefinition, configure: () => ({}) }, resources: [], dataSources: [echo, plain] }
  let served: Awaited<ReturnType<typeof serve>>
  before(async () => {
    served = await serve(registry)
  })
  after(() => served.close())

  test('only a flagged lookup is an ephemeral resource; any other type is named in an error by every call', async () => {
    const metadata = await served.client.call(Provider.method.getMetadata, {})
    assert.deepEqual(
      metadata.ephemeralResources.map((e) => e.typeName),
      ['provider_echo'],
    )
    assert.deepEqual(
      metadata.dataSources.map((d) => d.typeName),
      ['provider_echo', 'provider_plain'],
    )
    const config = dynamic({ name: 'abc', secret: null })
    const calls = [
      served.client.call(Provider.method.validateEphemeralResourceConfig, { typeName: 'provider_plain', config }),
      served.client.call(Provider.method.openEphemeralResource, { typeName: 'provider_plain', config }),
      served.client.call(Provider.method.renewEphemeralResource, { typeName: 'provider_plain' }),
      served.client.call(Provider.method.closeEphemeralResource, { typeName: 'provider_plain' }),
    ]
    for (const answer of await Promise.all(calls)) {
      const [only, ...more] = errors(answer.diagnostics)
      assert.deepEqual(more, [])
      assert.match(only ?? '', /no ephemeral resource type provider_plain/)
    }
    assert.deepEqual(reads, [])
  })

  test('validation reports the lookup’s rules with the attribute path', async () => {
    const bad = await served.client.call(Provider.method.validateEphemeralResourceConfig, {
      typeName: 'provider_echo',
      config: dynamic({ name: 'ab', secret: null }),
    })
    const [problem] = bad.diagnostics
    assert.equal(problem?.severity, Diagnostic_Severity.ERROR)
    assert.match(`${problem?.summary} ${problem?.detail}`, /name/)
    assert.ok(problem?.attribute, 'the error points at the attribute')
    const good = await served.client.call(Provider.method.validateEphemeralResourceConfig, {
      typeName: 'provider_echo',
      config: dynamic({ name: 'abc', secret: null }),
    })
    assert.deepEqual(errors(good.diagnostics), [])
  })

  test('opening before ConfigureProvider says so and reads nothing', async () => {
    const opened = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: 'provider_echo',
      config: dynamic({ name: 'abc', secret: null }),
    })
    assert.match(errors(opened.diagnostics).join('\n'), /not configured/)
    assert.deepEqual(reads, [])
  })

  test('opening answers the inputs as configured and the values read; an unknown input is refused, naming it', async () => {
    await served.configure()
    const opened = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: 'provider_echo',
      config: dynamic({ name: 'abc', secret: null }),
    })
    assert.deepEqual(errors(opened.diagnostics), [])
    assert.deepEqual(decode(opened.result?.msgpack ?? new Uint8Array()), { name: 'abc', secret: 'secret of abc' })
    assert.deepEqual(reads, ['abc'])

    const unknown = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: 'provider_echo',
      config: dynamic({ name: TF_UNKNOWN, secret: null }),
    })
    assert.equal(unknown.result, undefined)
    assert.match(errors(unknown.diagnostics).join('\n'), /provider_echo.*unknown values: name is not known yet/)
    assert.deepEqual(reads, ['abc'], 'nothing is read with an unknown input')

    const invalid = await served.client.call(Provider.method.openEphemeralResource, {
      typeName: 'provider_echo',
      config: dynamic({ name: 'ab', secret: null }),
    })
    assert.equal(invalid.result, undefined)
    assert.match(errors(invalid.diagnostics).join('\n'), /name/)
    assert.deepEqual(reads, ['abc'], 'nothing is read with an invalid input')
  })
})

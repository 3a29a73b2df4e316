// Write-only inputs as Terraform sees them, over gRPC in process: the schema flags exactly the
// definitions' write-only inputs, ValidateResourceConfig refuses a write-only value from a client that
// says it cannot keep one out of its state (naming the attribute to use instead), and the Pulumi view
// of the same registry has no write-only input. No resource is named: every write-only input of the
// registry is checked.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { decode as decodeMsgpack, encode } from '@msgpack/msgpack'
import { toCamel, toSnake, writeOnlyInputs } from '../src/core/index.js'
import { createGrpcServer, type GrpcServer } from '../src/grpc/index.js'
import { pulumiRegistry, resourceToken } from '../src/pulumi/provider.js'
import { packageSchema } from '../src/pulumi/schema.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { Diagnostic_Severity, Provider } from '../src/terraform/gen/tfplugin6.10_pb.js'
import { silentLogger } from '../src/terraform/index.js'
import { providerService } from '../src/terraform/provider-service.js'
import { connectGrpcTestClient, type GrpcTestClient } from './support/terraform/grpc-client.js'

const registry = { provider: providerDefinition, resources, dataSources }
const withWriteOnly = resources.filter((r) => writeOnlyInputs(r.attributes).length > 0)

describe('write-only inputs over the Terraform protocol', () => {
  let server: GrpcServer
  let client: GrpcTestClient
  before(async () => {
    server = createGrpcServer({})
    providerService(registry, { log: silentLogger, userAgent: 'provider-terraform/test' }).attach(server)
    client = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen('127.0.0.1', 0)}` })
  })
  after(async () => {
    await client?.close()
    await server?.close()
  })

  test('the registry declares write-only inputs (the VMs console passwords)', () => {
    assert.ok(withWriteOnly.length >= 3, `resources with a write-only input: ${withWriteOnly.map((r) => r.name).join(', ')}`)
  })

  test('the schema flags write_only on exactly the write-only inputs', async () => {
    const schemas = await client.call(Provider.method.getProviderSchema, {})
    for (const definition of resources) {
      const block = schemas.resourceSchemas[`provider_${definition.name}`]?.block
      assert.ok(block, definition.name)
      const flagged = block.attributes.filter((a) => a.writeOnly).map((a) => a.name)
      const expected = writeOnlyInputs(definition.attributes).map(({ name }) => toSnake(name))
      assert.deepEqual(flagged, expected, `${definition.name}: write_only attributes`)
      for (const a of block.attributes.filter((x) => x.writeOnly)) {
        assert.ok(
          a.optional && a.sensitive && !a.computed && !a.required,
          `${definition.name}.${a.name}: optional, sensitive, not computed`,
        )
      }
    }
  })

  for (const definition of withWriteOnly) {
    test(`${definition.name}: a plan that fails hands back no write-only value (OpenTofu checks it even beside the error)`, async () => {
      const config: Record<string, unknown> = Object.fromEntries(Object.keys(definition.attributes).map((n) => [toSnake(n), null]))
      for (const { name, spec } of writeOnlyInputs(definition.attributes)) {
        config[toSnake(name)] = 'Wr1teOnlyPass'
        config[toSnake(spec.version)] = 1
      }
      const given = { ...config, id: null, timeouts: null }
      // Required inputs left null: the plan fails on them.
      const answer = await client.call(Provider.method.planResourceChange, {
        typeName: `provider_${definition.name}`,
        priorState: { msgpack: encode(null) },
        proposedNewState: { msgpack: encode(given) },
        config: { msgpack: encode(given) },
        clientCapabilities: { writeOnlyAttributesAllowed: true },
      })
      assert.ok(
        answer.diagnostics.some((d) => d.severity === Diagnostic_Severity.ERROR),
        'the plan fails',
      )
      const planned = decodeMsgpack(answer.plannedState?.msgpack ?? new Uint8Array()) as Record<string, unknown>
      for (const { name } of writeOnlyInputs(definition.attributes)) assert.equal(planned[toSnake(name)], null, toSnake(name))
    })

    for (const { name, spec } of writeOnlyInputs(definition.attributes)) {
      test(`${definition.name}.${name}: refused from a client without write-only attributes, naming ${spec.alternative}`, async () => {
        const config = Object.fromEntries(Object.keys(definition.attributes).map((n) => [toSnake(n), null]))
        const given = { ...config, id: null, timeouts: null, [toSnake(name)]: 'Wr1teOnlyPass', [toSnake(spec.version)]: 1 }
        const ask = (allowed: boolean) =>
          client.call(Provider.method.validateResourceConfig, {
            typeName: `provider_${definition.name}`,
            config: { msgpack: encode(given) },
            clientCapabilities: { writeOnlyAttributesAllowed: allowed },
          })
        const refused = (await ask(false)).diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR)
        assert.equal(refused.length, 1, refused.map((d) => d.summary).join('; '))
        assert.equal(refused[0]?.summary, `Write-only attribute ${toSnake(name)} not supported by this client`)
        assert.match(refused[0]?.detail ?? '', new RegExp(`Set ${toSnake(spec.alternative)} instead`))
        // No attribute path: the attribute is sensitive, and Terraform would quote its configuration line.
        assert.equal(refused[0]?.attribute, undefined)
        assert.match(refused[0]?.summary ?? '', new RegExp(toSnake(name)))
        assert.deepEqual(
          (await ask(true)).diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => d.summary),
          [],
          'a client with write-only attributes is served',
        )
      })
    }
  }
})

test('Pulumi sees no write-only input nor its version, and the alternative required where the pair is', () => {
  for (const definition of pulumiRegistry(registry).resources) {
    const original = resources.find((r) => r.name === definition.name)
    assert.ok(original)
    for (const { name, spec } of writeOnlyInputs(original.attributes)) {
      assert.equal(definition.attributes[name], undefined, `${definition.name}: ${toCamel(name)} left out`)
      assert.equal(definition.attributes[spec.version], undefined, `${definition.name}: ${toCamel(spec.version)} left out`)
      assert.equal(definition.attributes[spec.alternative]?.required, spec.required === true)
    }
    assert.deepEqual(writeOnlyInputs(definition.attributes), [])
  }
})

test('the Pulumi schema has no write-only input nor its version, and the alternative is a required secret', () => {
  const schema = packageSchema(registry, { version: '0.0.0' }) as {
    resources: Record<string, { inputProperties: Record<string, { secret?: boolean }>; requiredInputs: string[] }>
  }
  for (const definition of withWriteOnly) {
    const resource = schema.resources[resourceToken(definition)]
    assert.ok(resource, definition.name)
    for (const { name, spec } of writeOnlyInputs(definition.attributes)) {
      assert.equal(resource.inputProperties[toCamel(name)], undefined)
      assert.equal(resource.inputProperties[toCamel(spec.version)], undefined)
      assert.equal(resource.inputProperties[toCamel(spec.alternative)]?.secret, true)
      assert.equal(resource.requiredInputs.includes(toCamel(spec.alternative)), spec.required === true)
    }
  }
})

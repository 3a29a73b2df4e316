// The filters of Terraform's list resources (`terraform query`) over gRPC in-process, with the real
// resource definitions against the emulator of a Harness: a status filter matches the way the service
// compares statuses (whatever the case), and a value no listed object can have is refused at
// validation, naming the filter and the values it takes, before anything is listed.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encode } from '@msgpack/msgpack'
import { createGrpcServer, type GrpcServer } from '../src/grpc/index.js'
import { lite } from '../src/resources/lite-family.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { type Diagnostic, Diagnostic_Severity, Provider } from '../src/terraform/gen/tfplugin6.10_pb.js'
import { silentLogger } from '../src/terraform/index.js'
import { providerService } from '../src/terraform/provider-service.js'
import { liteVms } from './support/fixtures.js'
import { Harness } from './support/harness.js'
import { connectGrpcTestClient, type GrpcTestClient } from './support/terraform/grpc-client.js'

const dynamic = (object: Record<string, unknown>) => ({ msgpack: encode(object) })
const errors = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)

describe('Terraform list filters', () => {
  const harness = new Harness()
  let server: GrpcServer
  let grpc: GrpcTestClient
  let vms: string[] = []
  before(async () => {
    const made = await liteVms(lite)(harness)
    vms = [String(made.vm), String(made.vm2)]
    server = createGrpcServer()
    providerService(
      { provider: { ...providerDefinition, configure: () => harness.client }, resources, dataSources },
      { log: silentLogger, userAgent: 'provider-terraform/list-filters-test' },
    ).attach(server)
    grpc = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen()}` })
    const schema = await grpc.call(Provider.method.getProviderSchema, {})
    const settings = Object.fromEntries((schema.provider?.block?.attributes ?? []).map((a) => [a.name, null]))
    const configured = await grpc.call(Provider.method.configureProvider, {
      terraformVersion: '1.16.4',
      config: dynamic({ ...settings, api_key: harness.emulator.apiKey, base_url: 'http://emulator.invalid/v1' }),
    })
    assert.deepEqual(errors(configured.diagnostics), [])
  })
  after(async () => {
    await grpc?.close()
    await server?.close()
  })

  const config = (filters: Record<string, string | null>) =>
    dynamic({ vm_name_prefix: null, status: null, ...filters }) as { msgpack: Uint8Array }

  test('status = "active" finds the Active VMs: the service compares statuses case-insensitively', async () => {
    const events = await grpc.stream(Provider.method.listResource, { typeName: 'provider_lite_vm', config: config({ status: 'active' }) })
    assert.deepEqual(
      events.flatMap((e) => (e.diagnostic.length > 0 ? errors(e.diagnostic) : [])),
      [],
    )
    assert.equal(events.filter((e) => e.displayName !== '').length, vms.length)
  })

  test('a status no listed object can have is refused at validation and by the listing, naming the values it takes', async () => {
    for (const status of ['running', 'Terminated', 'activ']) {
      const validated = await grpc.call(Provider.method.validateListResourceConfig, {
        typeName: 'provider_lite_vm',
        config: config({ status }),
      })
      assert.deepEqual(errors(validated.diagnostics), [
        `Invalid status: status must be one of "Active", "Pending", "Suspended" (in any case) (got ${JSON.stringify(status)}).`,
      ])
    }
    await harness.requests()
    const events = await grpc.stream(Provider.method.listResource, { typeName: 'provider_lite_vm', config: config({ status: 'running' }) })
    assert.match(events.flatMap((e) => errors(e.diagnostic)).join('\n'), /status must be one of "Active", "Pending", "Suspended"/)
    assert.deepEqual(await harness.requests(), [], 'nothing was listed')
  })

  test("a filter error points at the filter inside the list block's config block (path config.<filter>), so Terraform shows its line", async () => {
    const validated = await grpc.call(Provider.method.validateListResourceConfig, {
      typeName: 'provider_lite_vm',
      config: config({ status: 'Terminated' }),
    })
    const steps = validated.diagnostics[0]?.attribute?.steps.map((s) => s.selector.value)
    assert.deepEqual(steps, ['config', 'status'])
  })

  test('an account id filter must be an id in digits', async () => {
    const validated = await grpc.call(Provider.method.validateListResourceConfig, {
      typeName: 'provider_lite_disk',
      config: dynamic({ lite_account_id: 'web-1', status: null }),
    })
    assert.deepEqual(errors(validated.diagnostics), [
      'Invalid lite_account_id: lite_account_id must be a positive whole number written in digits.',
    ])
  })
})

// The refresh of a no-op plan of 500 keypairs, as Terraform runs it (ReadResource per resource, ten at
// a time, over gRPC in-process), with the provider's order journal in a directory: the journal's files
// are read a number of times that does not grow with the count of resources, and each pool is listed a
// few times, not once per keypair (issue 29). Counts, not timings.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { encode } from '@msgpack/msgpack'
import { type Client, createClient, type OperationFrame } from '../src/api/index.js'
import type { ConfigureMeta } from '../src/core/index.js'
import { createGrpcServer, type GrpcServer } from '../src/grpc/index.js'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { type Diagnostic, Diagnostic_Severity, Provider } from '../src/terraform/gen/tfplugin6.10_pb.js'
import { silentLogger } from '../src/terraform/index.js'
import { providerService } from '../src/terraform/provider-service.js'
import { fileReads } from './support/file-reads.js'
import { BASE, Harness } from './support/harness.js'
import { connectGrpcTestClient, type GrpcTestClient } from './support/terraform/grpc-client.js'

const COUNT = 500
const PARALLELISM = 10
const TYPE = 'provider_lite_keypair'

const dynamic = (object: Record<string, unknown>) => ({ msgpack: encode(object) })
const errors = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)

describe(`the refresh of a no-op plan of ${COUNT} keypairs`, () => {
  const harness = new Harness()
  const journal = mkdtempSync(join(tmpdir(), 'refresh-scale-journal-'))
  let server: GrpcServer
  let grpc: GrpcTestClient
  /** Configures the provider again with a client of its own, as the next command's process does. */
  let configureAnew: () => Promise<void>
  /** What Terraform keeps of each keypair after its import: the state and the private bytes. */
  let states: { state: { msgpack: Uint8Array }; private: Uint8Array }[] = []

  /** One ReadResource per state, PARALLELISM at a time, as `terraform plan` refreshes. */
  async function refresh(): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < states.length) {
        const kept = states[next++] as (typeof states)[number]
        const read = await grpc.call(Provider.method.readResource, { typeName: TYPE, currentState: kept.state, private: kept.private })
        assert.deepEqual(errors(read.diagnostics), [])
        assert.ok(read.newState?.msgpack.length, 'the keypair is still there')
        kept.state = { msgpack: read.newState?.msgpack ?? new Uint8Array() }
        kept.private = read.private
      }
    }
    await Promise.all(Array.from({ length: PARALLELISM }, worker))
  }

  before(async () => {
    const emulator = harness.emulator
    // The provider's own configure, but on the in-process emulator and its clock, with a journal.
    const configure = (_config: unknown, meta: ConfigureMeta<OperationFrame>): Client => {
      const client = createClient({
        baseUrl: `${BASE}/v1`,
        apiKey: emulator.apiKey,
        userAgent: meta.userAgent,
        fetch: (request) => emulator.fetch(request),
        now: () => emulator.now(),
        sleep: async (ms) => emulator.advance(ms),
        random: () => 0.5,
        journalDirectory: journal,
        operation: meta.operation,
      })
      if (client.settlement) meta.registerSettlement(client.settlement.where, client.settlement)
      return client
    }
    server = createGrpcServer()
    providerService(
      { provider: { ...providerDefinition, configure }, resources, dataSources },
      { log: silentLogger, userAgent: 'provider-terraform/refresh-scale-test' },
    ).attach(server)
    grpc = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen()}` })
    const schema = await grpc.call(Provider.method.getProviderSchema, {})
    const settings = Object.fromEntries((schema.provider?.block?.attributes ?? []).map((a) => [a.name, null]))
    /** A configured provider with a client of its own, remembering nothing, as each command's is. */
    configureAnew = async () => {
      const configured = await grpc.call(Provider.method.configureProvider, {
        terraformVersion: '1.16.4',
        config: dynamic({ ...settings, api_key: emulator.apiKey, base_url: `${BASE}/v1` }),
      })
      assert.deepEqual(errors(configured.diagnostics), [])
    }
    await configureAnew()
    // The keypairs exist and are imported (the first command that names them records them in the journal).
    for (let i = 0; i < COUNT; i++) {
      const made = await harness.client.lites.createKeypair({ name: `key-${i}` })
      const imported = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: String(made.keypair_id) })
      assert.deepEqual(errors(imported.diagnostics), [])
      const [object] = imported.importedResources
      assert.ok(object?.state)
      states.push({ state: { msgpack: object.state.msgpack }, private: object.private })
    }
    await refresh()
    assert.equal(readdirSync(journal).length, COUNT, 'the first refresh recorded each keypair as in state')
    // The next command comes later, in a provider process of its own: the journal's files have not
    // been written for a while, and no answer of the service from before is fresh any more.
    const earlier = new Date(Date.now() - 60_000)
    for (const name of readdirSync(journal)) utimesSync(join(journal, name), earlier, earlier)
    utimesSync(journal, earlier, earlier)
    emulator.advance(60_000)
    await harness.requests()
  })
  after(async () => {
    await grpc?.close()
    await server?.close()
    rmSync(journal, { recursive: true, force: true })
    states = []
  })

  test('reads each journal file about once and lists the pool a few times, whatever the count', async (t) => {
    const reads = await fileReads(journal, async () => {
      await configureAnew()
      await refresh()
    })
    const requests = await harness.requests()
    const lists = requests.filter((r) => r.method === 'GET' && r.path === '/v1/lites/keypairs/').length
    t.diagnostic(`${reads} journal file reads, ${lists} listings of the pool, ${requests.length} requests`)
    assert.ok(lists >= 1, 'the refresh reads the service')
    assert.ok(
      reads >= COUNT && reads <= COUNT + 10,
      `${reads} journal file reads for ${COUNT} keypairs (before: one read of every file per keypair, ${COUNT * COUNT})`,
    )
    assert.ok(lists <= 3, `${lists} listings of the pool for ${COUNT} keypairs (before: one per keypair, less those in flight together)`)
    assert.equal(requests.length, lists, 'and no other request')
  })
})

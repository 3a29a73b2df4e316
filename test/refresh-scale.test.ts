// The refresh of a no-op plan of 500 keypairs, as Terraform runs it (ReadResource per resource, ten at
// a time, over gRPC in-process), with the provider's order journal in a directory that holds as many
// orders of accounts (a workspace with VMs too): a keypair is no account, so its reads neither read nor
// write the journal, not even the orders of accounts whose ids equal keypair ids; and each pool is listed
// a few times, not once per keypair (issue 29). Counts, not timings. The journal's own cost per account
// read is held to counts in src/api/orders/journal.test.ts.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
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
import { directoryListings, fileReads } from './support/file-reads.js'
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
  /** File reads and listings of the journal's directory during the first refresh after the imports (see before). */
  let first = { reads: Number.NaN, listings: Number.NaN }

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
    // The keypairs exist and are imported; the journal holds an order handed over for an account of each
    // keypair's id, as a journal of a workspace with VMs may (a keypair's id and an account's can be equal).
    mkdirSync(journal, { recursive: true })
    for (let i = 0; i < COUNT; i++) {
      const made = await harness.client.lites.createKeypair({ name: `key-${i}` })
      writeFileSync(
        join(journal, `order-${i}.json`),
        JSON.stringify({
          v: 1,
          id: `order-${i}`,
          fingerprint: `intent-${i}`,
          service: 'service',
          key: `key-${i}`,
          method: 'POST',
          path: '/lites',
          sentAt: emulator.now(),
          state: 'delivered',
          accountId: String(made.keypair_id),
        }),
      )
      const imported = await grpc.call(Provider.method.importResourceState, { typeName: TYPE, id: String(made.keypair_id) })
      assert.deepEqual(errors(imported.diagnostics), [])
      const [object] = imported.importedResources
      assert.ok(object?.state)
      states.push({ state: { msgpack: object.state.msgpack }, private: object.private })
    }
    let reads = 0
    const listings = await directoryListings(journal, async () => {
      reads = await fileReads(journal, refresh)
    })
    first = { reads, listings }
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

  test('neither reads nor writes the order journal: a keypair is no account', () => {
    // Before, each read settled the orders of the account with the keypair's id, and recorded the id as
    // an account in state: a read and a write per keypair, and a listing of the directory after each write.
    assert.deepEqual(first, { reads: 0, listings: 0 }, 'no journal file read, no listing of its directory')
    const states = readdirSync(journal).map((name) => JSON.parse(readFileSync(join(journal, name), 'utf8')).state)
    assert.equal(states.length, COUNT, 'no entry recorded')
    assert.ok(
      states.every((state) => state === 'delivered'),
      'the orders of the accounts whose ids equal keypair ids are left as they were',
    )
  })

  test('the next command reads the journal once, at its configure, and its refresh lists the pool a few times, whatever the count', async (t) => {
    const during = async (action: () => Promise<void>) => {
      let reads = 0
      const listings = await directoryListings(journal, async () => {
        reads = await fileReads(journal, action)
      })
      return { reads, listings }
    }
    // The configure looks once at every order for the warnings a run owes (orders no state holds).
    const configure = await during(configureAnew)
    const read = await during(refresh)
    const requests = await harness.requests()
    const lists = requests.filter((r) => r.method === 'GET' && r.path === '/v1/lites/keypairs/').length
    t.diagnostic(
      `configure: ${JSON.stringify(configure)}; refresh: ${JSON.stringify(read)}, ${lists} listings of the pool, ${requests.length} requests`,
    )
    assert.ok(
      configure.reads <= COUNT && configure.listings <= 1,
      `the configure read ${configure.reads} journal files, listed ${configure.listings} times`,
    )
    assert.deepEqual(read, { reads: 0, listings: 0 }, 'the refresh reads nothing of the journal (before: every file once per keypair)')
    assert.ok(lists >= 1, 'the refresh reads the service')
    assert.ok(lists <= 3, `${lists} listings of the pool for ${COUNT} keypairs (before: one per keypair, less those in flight together)`)
    assert.equal(requests.length, lists, 'and no other request')
  })
})

// One provider process that Terraform reattaches to (the serve mode) with two `provider` blocks (an
// alias): Terraform connects once per block and configures each connection with its block's settings.
// Each block's resources are served with its own configuration, whichever was configured last;
// before, the last configuration served both (the first block's orders went to the other account).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encode } from '@msgpack/msgpack'
import { type AnyProvider, string } from '../core/index.js'
import { createGrpcServer, type GrpcServer } from '../grpc/index.js'
import { BoxService, boxDefinition } from '../../test/support/box-resource.js'
import { boxState } from '../../test/support/terraform/box-server.js'
import { connectGrpcTestClient, type GrpcTestClient } from '../../test/support/terraform/grpc-client.js'
import { type Diagnostic, Diagnostic_Severity, Provider } from './gen/tfplugin6.10_pb.js'
import { silentLogger } from './log.js'
import { providerService } from './provider-service.js'

const TYPE = 'provider_box'
const msgpack = (value: unknown) => ({ msgpack: encode(value) })
const errors = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.severity === Diagnostic_Severity.ERROR).map((d) => `${d.summary}: ${d.detail}`)

describe('Terraform: one served process, two provider blocks', () => {
  const accounts = { alice: new BoxService(), bob: new BoxService() }
  const provider: AnyProvider = {
    description: 'Test.',
    attributes: { account: string({ optional: true, description: 'Whose boxes.' }) },
    environment: {},
    configure: (config) => accounts[config.account as keyof typeof accounts],
  }
  let server: GrpcServer
  let address: string
  const clients: GrpcTestClient[] = []
  before(async () => {
    server = createGrpcServer()
    providerService({ provider, resources: [boxDefinition], dataSources: [] }, { log: silentLogger, userAgent: 'test' }).attach(server)
    address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`
  })
  after(async () => {
    for (const client of clients) await client.close()
    await server.close()
  })

  /** A connection configured for `account`, as Terraform opens one per provider block. */
  const block = async (account: string): Promise<GrpcTestClient> => {
    const grpc = connectGrpcTestClient({ address })
    clients.push(grpc)
    const configured = await grpc.call(Provider.method.configureProvider, { terraformVersion: '1.16.4', config: msgpack({ account }) })
    assert.deepEqual(errors(configured.diagnostics), [])
    return grpc
  }

  const create = async (grpc: GrpcTestClient, name: string) => {
    const config = { ...boxState(null as unknown as string, { name }), id: null, size: null, status: null, serial: null }
    const plan = await grpc.call(Provider.method.planResourceChange, {
      typeName: TYPE,
      priorState: msgpack(null),
      proposedNewState: msgpack(config),
      config: msgpack(config),
    })
    assert.deepEqual(errors(plan.diagnostics), [])
    const applied = await grpc.call(Provider.method.applyResourceChange, {
      typeName: TYPE,
      priorState: msgpack(null),
      plannedState: plan.plannedState,
      config: msgpack(config),
      plannedPrivate: plan.plannedPrivate,
    })
    assert.deepEqual(errors(applied.diagnostics), [])
  }

  const names = (service: BoxService) => [...service.boxes.values()].map((box) => box.name)

  test("each block's creates go to its own account, though the other block was configured after it", async () => {
    const first = await block('alice')
    const second = await block('bob')
    await create(first, 'alpha')
    await create(second, 'bravo')
    await create(first, 'charlie')
    assert.deepEqual(names(accounts.alice), ['alpha', 'charlie'])
    assert.deepEqual(names(accounts.bob), ['bravo'])
  })

  test('a connection that was never configured is told so, whatever the others were configured with', async () => {
    const bare = connectGrpcTestClient({ address })
    clients.push(bare)
    const read = await bare.call(Provider.method.readResource, { typeName: TYPE, currentState: msgpack(boxState('1')) })
    assert.match(errors(read.diagnostics).join('\n'), /not configured/)
  })
})

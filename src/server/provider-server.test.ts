// The provider server: which operations settle the id they name, the operation frame a create and an
// update run in, the not-configured error, and the price of a plan with its running total.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type AnyProvider, type AnyResource, planResource, silentLogger, type ValueMap } from '../core/index.js'
import { BoxService, boxDefinition } from '../../test/support/box-resource.js'
import { currentOperation, registerSettlement } from './operation.js'
import { ProviderServer } from './provider-server.js'

const box = boxDefinition as unknown as AnyResource

function configuredServer(service = new BoxService()) {
  const provider: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => service }
  const server = new ProviderServer(
    { provider, resources: [box], dataSources: [] },
    {
      naming: {
        resourceType: (n) => n,
        dataSourceType: (n) => n,
        lookup: 'lookup',
        words: { resource: (n) => n, dataSource: (n) => n, attribute: (n) => n, setting: (n) => n },
      },
      notConfigured: 'not configured',
    },
  )
  assert.deepEqual(server.configure({}, { userAgent: 'test', log: silentLogger }).issues, [])
  return server
}

test('a refresh, an update, a delete and an import settle the id they name; a create does not', async () => {
  const named: string[] = []
  const unregister = registerSettlement('server-test', { account: (id) => void named.push(id), delivered: () => undefined })
  try {
    const server = configuredServer()
    const session = server.session(undefined, silentLogger)
    const created = await server.create(box, planResource(box, null, { name: 'alpha', size: 20 }).planned, session)
    const prior = created.state as ValueMap
    assert.deepEqual(named, [])
    const id = String(prior.id)
    await server.read(box, prior, id, {}, session)
    await server.update(box, prior, planResource(box, prior, { name: 'alpha', size: 30 }).planned, {}, session)
    await server.importById(box, id, session)
    await server.delete(box, prior, session)
    assert.deepEqual(named, [id, id, id, id])
  } finally {
    unregister()
  }
})

test('a create and an update run in an operation frame: the scope, the timeout, and warnings shown first', async () => {
  const service = new BoxService()
  const server = configuredServer(service)
  const frames: { scope: string | undefined; timeoutMs: number | undefined }[] = []
  const original = box.create
  const watched: AnyResource = {
    ...box,
    create: async (ctx) => {
      const frame = currentOperation()
      frames.push({ scope: frame?.scope, timeoutMs: frame?.timeoutMs })
      frame?.warn?.('Order taken over', 'from an earlier run')
      return original(ctx)
    },
  }
  const planned = planResource(watched, null, { name: 'alpha', size: 20, timeouts: { create: '9m' } }).planned
  const outcome = await server.create(watched, planned, server.session('urn:one', silentLogger))
  assert.deepEqual(frames, [{ scope: 'urn:one', timeoutMs: 9 * 60_000 }])
  assert.equal(outcome.diagnostics[0]?.summary, 'Order taken over')
  assert.equal(currentOperation(), undefined)
})

test("a call before configure is refused with the protocol's words", () => {
  const provider: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => ({}) }
  const naming = {
    resourceType: (n: string) => n,
    dataSourceType: (n: string) => n,
    lookup: 'lookup',
    words: { resource: String, dataSource: String, attribute: String, setting: String },
  }
  const server = new ProviderServer({ provider, resources: [], dataSources: [] }, { naming, notConfigured: 'configure first' })
  assert.throws(() => server.session(undefined, silentLogger), /configure first/)
  assert.throws(() => server.types.resource('nothing'), /This provider has no resource type nothing\./)
})

test('a plan whose price cannot be asked still plans: the same warning says the price is unknown', async () => {
  const server = configuredServer()
  const priced: AnyResource = {
    ...box,
    priceCreate: async () => {
      throw new Error('the catalog is unreachable')
    },
  }
  const plan = planResource(priced, null, { name: 'alpha', size: 20 })
  const diagnostics = await server.pricePlan(priced, null, plan, server.session(undefined, silentLogger))
  assert.deepEqual(
    diagnostics.map((d) => d.severity),
    ['warning'],
  )
  assert.match(diagnostics[0]?.detail ?? '', /box: the new object \(asking the catalog failed: the catalog is unreachable\): price unknown/)
})

test('Terraform names no resource: the running total adds each call; a key (a Pulumi URN) counts a resource once', async () => {
  const server = configuredServer()
  const priced: AnyResource = { ...box, priceCreate: async () => [{ what: 'new box', amount: 100, cycle: 'Monthly' }] }
  const plan = planResource(priced, null, { name: 'alpha', size: 20 })
  const session = server.session(undefined, silentLogger)
  const totals = []
  for (const key of [undefined, undefined, 'urn:a', 'urn:a']) {
    const [shown] = await server.pricePlan(priced, null, plan, session, key)
    totals.push(/All orders of this plan so far: (\d+)/.exec(shown?.detail ?? '')?.[1])
  }
  assert.deepEqual(totals, ['100', '200', '300', '300'])
})

// The provider server: which operations settle the id they name, the operation frame a create and an
// update run in, the not-configured error, the price of a plan with its running total, and the one plan
// every front end calls: what it asks the service, in which order, and where it stops.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type AnyProvider, type AnyResource, planResource, silentLogger, type ValueMap } from '../core/index.js'
import { BoxService, boxDefinition } from '../../test/support/box-resource.js'
import { currentOperation, registerSettlement, withOperation } from './operation.js'
import { ProviderServer } from './provider-server.js'
import type { Naming } from './registry.js'

const box = boxDefinition
const NAMING: Naming = {
  resourceType: (n) => n,
  dataSourceType: (n) => n,
  lookup: 'lookup',
  words: { resource: (n) => n, dataSource: (n) => n, attribute: (n) => n, setting: (n) => n, timeout: (n) => `timeouts.${n}` },
}

function configuredServer(service = new BoxService()) {
  const provider: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => service }
  const server = new ProviderServer({ provider, resources: [box], dataSources: [] }, { naming: NAMING, notConfigured: 'not configured' })
  assert.deepEqual(server.configure({}, { userAgent: 'test', log: silentLogger }).issues, [])
  return server
}

/** The ids named to the order journal while each of a refresh, an update, an import and a delete of `kind` runs after its create. */
async function settledIds(kind: AnyResource): Promise<{ readonly id: string; readonly named: string[]; readonly atCreate: string[] }> {
  const named: string[] = []
  const unregister = registerSettlement('server-test', { account: (id) => void named.push(id), delivered: () => undefined })
  try {
    const server = configuredServer()
    const session = server.session(undefined, silentLogger)
    const created = await server.create(kind, planResource(kind, null, { name: 'alpha', size: 20 }).planned, session)
    const prior = created.state as ValueMap
    const atCreate = [...named]
    const id = String(prior.id)
    await server.read(kind, prior, id, {}, session)
    await server.update(kind, prior, planResource(kind, prior, { name: 'alpha', size: 30 }).planned, {}, session)
    await server.importById(kind, id, session)
    await server.delete(kind, prior, {}, session)
    return { id, named, atCreate }
  } finally {
    unregister()
  }
}

test('a refresh, an update, a delete and an import of an ordered account settle the id they name; a create does not', async () => {
  // A type that prices its create orders a billed account: its ids name the journal's orders.
  const { id, named, atCreate } = await settledIds({ ...box, priceCreate: async () => [] })
  assert.deepEqual(atCreate, [])
  assert.deepEqual(named, [id, id, id, id])
})

test('an object that is no ordered account settles nothing: its id may equal an account id', async () => {
  const { named } = await settledIds(box)
  assert.deepEqual(named, [])
})

test('an order journal that cannot be read is a warning of every configured run, not silence until the apply fails', async () => {
  const unregister = registerSettlement('server-test-unreadable', {
    account: () => undefined,
    delivered: () => undefined,
    notices: async () => {
      throw new Error('could not connect to the order journal at postgresql://ci@db:5432/tf (table provider_order_journal): refused')
    },
  })
  try {
    const notices = await configuredServer().notices()
    assert.equal(notices.length, 1)
    assert.match(JSON.stringify(notices[0]), /The order journal could not be read/)
    assert.match(
      JSON.stringify(notices[0]),
      /could not connect to the order journal at postgresql:\/\/ci@db:5432\/tf .*fails before it is sent/,
    )
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

test('a delete runs in an operation frame bounded by its delete timeout, so its retries stop there', async () => {
  const service = new BoxService()
  const server = configuredServer(service)
  const created = await server.create(
    box,
    planResource(box, null, { name: 'alpha', size: 20 }).planned,
    server.session(undefined, silentLogger),
  )
  const frames: (number | undefined)[] = []
  const watched: AnyResource = {
    ...box,
    delete: async (ctx) => {
      frames.push(currentOperation()?.timeoutMs)
      return box.delete(ctx)
    },
  }
  const prior = { ...(created.state ?? {}), timeouts: { delete: '7m' } }
  await server.delete(watched, prior, {}, server.session(undefined, silentLogger))
  assert.deepEqual(frames, [7 * 60_000])
  assert.equal(currentOperation(), undefined)
})

test("a call before configure is refused with the protocol's words", () => {
  const provider: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => ({}) }
  const naming = {
    resourceType: (n: string) => n,
    dataSourceType: (n: string) => n,
    lookup: 'lookup',
    words: { resource: String, dataSource: String, attribute: String, setting: String, timeout: String },
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
  const diagnostics = await server.priceWithTotal(priced, null, plan, server.session(undefined, silentLogger))
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
    const [shown] = await server.priceWithTotal(priced, null, plan, session, key)
    totals.push(/All orders of this plan so far: (\d+)/.exec(shown?.detail ?? '')?.[1])
  }
  assert.deepEqual(totals, ['100', '200', '300', '300'])
})

test('a process Terraform reattaches to serves one command after another: each configure starts the plan total afresh', async () => {
  const server = configuredServer()
  const priced: AnyResource = { ...box, priceCreate: async () => [{ what: 'new box', amount: 100, cycle: 'Monthly' }] }
  const plan = planResource(priced, null, { name: 'alpha', size: 20 })
  const totals = []
  for (let command = 0; command < 3; command++) {
    if (command > 0) assert.deepEqual(server.configure({}, { userAgent: 'test', log: silentLogger }).issues, [])
    const [shown] = await server.priceWithTotal(priced, null, plan, server.session(undefined, silentLogger))
    totals.push(/All orders of this plan so far: (\d+)/.exec(shown?.detail ?? '')?.[1])
  }
  assert.deepEqual(totals, ['100', '100', '100'], 'the orders of the commands before are not counted again')
})

test('the plan asks the service only once configured, in order, and stops at the first error: the refusal, the checks, the price', async () => {
  const asked: string[] = []
  const checked: AnyResource = {
    ...box,
    createChecks: [
      {
        attribute: 'name',
        check: async (ctx) => {
          asked.push('check')
          return (ctx as { input: ValueMap }).input.name === 'bad' ? 'no such name at the service' : null
        },
      },
    ],
    priceCreate: async () => {
      asked.push('price')
      return [{ what: 'new box', amount: 100, cycle: 'Monthly' }]
    },
  }
  const request = (server: ProviderServer, prior: ValueMap | null, config: ValueMap | null, refused = false) =>
    server.plan({
      definition: checked,
      prior,
      config,
      priorPrivate: {},
      session: () => server.session(undefined, silentLogger),
      refuseDelete: () => (refused ? { severity: 'error', summary: 'refused', detail: 'by the front end' } : null),
      online: true,
      price: {},
    })
  const severities = (planned: { diagnostics: readonly { severity: string; summary: string }[] }) =>
    planned.diagnostics.map((d) => `${d.severity}: ${d.summary}`)

  const unconfigured: AnyProvider = { description: '', attributes: {}, environment: {}, configure: () => ({}) }
  const offline = new ProviderServer(
    { provider: unconfigured, resources: [checked], dataSources: [] },
    { naming: NAMING, notConfigured: 'not configured' },
  )
  assert.deepEqual(severities(await request(offline, null, { name: 'alpha', size: 20 })), [], 'not configured: nothing is asked')
  assert.deepEqual(asked, [])

  const server = configuredServer()
  const prior = { id: '1', name: 'alpha', size: 20 }
  const replaced = await request(server, prior, { name: 'gamma', size: 20 }, true)
  assert.deepEqual(replaced.plan?.replace, ['name'])
  assert.deepEqual(severities(replaced), ['error: refused'], 'a refused replacement asks nothing')
  assert.deepEqual(asked, [])

  const refusedByService = await request(server, null, { name: 'bad', size: 20 })
  assert.deepEqual(
    refusedByService.online.map((d) => d.severity),
    ['error'],
  )
  assert.deepEqual(refusedByService.diagnostics, refusedByService.online)
  assert.deepEqual(asked, ['check'])
  assert.deepEqual(refusedByService.price, [], 'a failed check is not priced')

  const created = await request(server, null, { name: 'alpha', size: 20 })
  assert.deepEqual(created.online, [])
  assert.equal(created.price.length, 1)
  assert.deepEqual(created.diagnostics, created.price)
  assert.deepEqual(asked, ['check', 'check', 'price'])

  const deleted = await request(server, prior, null, true)
  assert.equal(deleted.plan, null)
  assert.deepEqual(severities(deleted), ['error: refused'], 'a delete is refused by the same rule')

  // Pulumi's Diff: offline, but a delete-before-replace replacement is created first when the service would refuse it.
  const first: AnyResource = { ...checked, deleteBeforeReplace: true }
  const diff = (name: string) =>
    server.plan({
      definition: first,
      prior,
      config: { name, size: 20 },
      priorPrivate: {},
      session: () => server.session(undefined, silentLogger),
      online: false,
      price: false,
      replacement: { name, size: 20 },
    })
  assert.deepEqual((await diff('gamma')).deleteBeforeReplace, { ok: true, invalid: [], warnings: [] })
  const unfit = (await diff('bad')).deleteBeforeReplace
  assert.equal(unfit?.ok, false)
  assert.deepEqual(
    unfit?.warnings.map((d) => d.severity),
    ['warning'],
  )
  assert.match(unfit?.warnings[0]?.detail ?? '', /The object is not deleted before its replacement is created\.$/)
})

test('a delete of an object a create of this run took over deletes nothing and says which resource holds it, whatever the engine', async () => {
  for (const scope of ['urn:new', undefined]) {
    const service = new BoxService()
    const server = configuredServer(service)
    const first = await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session('urn:old', silentLogger))
    const id = String(first.state?.id)
    service.takeOverByName = true
    // The renamed resource (a new URN, or a new Terraform address) takes the same object over...
    const renamed = await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(scope, silentLogger))
    assert.equal(String(renamed.state?.id), id)
    // ...and the old resource's delete, whichever resource it is, leaves it to the new one.
    const kept = await server.delete(box, first.state as ValueMap, {}, server.session('urn:old', silentLogger))
    assert.equal(kept.state, null, 'the old resource leaves the state')
    assert.ok(service.boxes.has(id), 'the object the new resource holds is not deleted')
    assert.match(
      kept.diagnostics[0]?.summary ?? '',
      new RegExp(`box ${id} is not deleted: ${scope ?? 'another resource of this run'} holds it`),
    )
    assert.ok(!service.calls.includes('delete'))
  }
})

test('a process Terraform reattaches to serves one command after another: a take-over of an earlier command keeps no later delete from running', async () => {
  const service = new BoxService()
  const server = configuredServer(service)
  await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
  service.takeOverByName = true
  // terraform apply: a resource of the same name takes the object over (a stopped run's, found by its name).
  const taken = await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
  const id = String(taken.state?.id)
  // terraform destroy, reattached to the same process: a new command, configured anew.
  assert.deepEqual(server.configure({}, { userAgent: 'test', log: silentLogger }).issues, [])
  const destroyed = await server.delete(box, taken.state as ValueMap, {}, server.session(undefined, silentLogger))
  assert.equal(destroyed.state, null)
  assert.deepEqual(destroyed.diagnostics, [], 'no warning that another resource of this run holds it')
  assert.ok(!service.boxes.has(id), 'the object is deleted, not left in the service with no state naming it')
})

test('a create that would take over an object this run is deleting waits for the delete and makes its own; objects it made are deleted as ever', async () => {
  const service = new BoxService()
  const server = configuredServer(service)
  const old = await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
  const oldId = String(old.state?.id)
  service.takeOverByName = true
  let release: () => void = () => undefined
  service.deleteGate = new Promise<void>((resolve) => {
    release = resolve
  })
  // Terraform runs the old address's delete beside the new address's create.
  const deleting = server.delete(box, old.state as ValueMap, {}, server.session(undefined, silentLogger))
  const creating = server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
  await new Promise((resolve) => setImmediate(resolve))
  release()
  const [deleted, created] = await Promise.all([deleting, creating])
  assert.equal(deleted.state, null)
  assert.ok(!service.boxes.has(oldId), 'the old object is deleted')
  const newId = String(created.state?.id)
  assert.notEqual(newId, oldId, 'the create made its own object instead of one being deleted')
  assert.ok(service.boxes.has(newId))
  assert.ok(!service.calls.includes('take-over'))
  // A create that made its object (terraform test: apply, then destroy in one process) is deleted.
  const again = await server.delete(box, created.state as ValueMap, {}, server.session(undefined, silentLogger))
  assert.equal(again.state, null)
  assert.ok(!service.boxes.has(newId))
})

test('a create does not take over an object whose delete in this run failed: the old resource still holds it', async () => {
  for (const order of ['beside', 'after'] as const) {
    const service = new BoxService()
    const server = configuredServer(service)
    const old = await server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
    const oldId = String(old.state?.id)
    service.takeOverByName = true
    let fail: (error: Error) => void = () => undefined
    service.deleteGate = new Promise<void>((_, reject) => {
      fail = reject
    })
    // The old address's delete fails (a service error, a Ctrl-C), beside the new address's create or before it.
    const deleting = server.delete(box, old.state as ValueMap, {}, server.session(undefined, silentLogger))
    let creating: Promise<Awaited<ReturnType<typeof server.create>>> | undefined
    if (order === 'beside') {
      creating = server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
      await new Promise((resolve) => setImmediate(resolve))
    }
    fail(new Error('the service refused the delete'))
    const failed = await deleting
    assert.notEqual(failed.state, null, `${order}: the old resource stays in the state`)
    assert.ok(service.boxes.has(oldId))
    creating ??= server.create(box, planResource(box, null, { name: 'alpha' }).planned, server.session(undefined, silentLogger))
    const created = await creating
    assert.notEqual(
      String(created.state?.id),
      oldId,
      `${order}: the new resource took over the object the old one still holds (the next apply's delete of the old one removes it)`,
    )
  }
})

test("an operation whose receiver is gone (Terraform's call, in a process that outlives it) tells its finishers that nothing was handed over", async () => {
  const told: boolean[] = []
  const receiver = new AbortController()
  await withOperation({ log: silentLogger, receiver: receiver.signal }, undefined, async () => {
    currentOperation()?.onFinish((handedOver) => void told.push(handedOver))
    receiver.abort(new Error('terraform is gone'))
  })
  await withOperation({ log: silentLogger, receiver: new AbortController().signal }, undefined, async () => {
    currentOperation()?.onFinish((handedOver) => void told.push(handedOver))
  })
  assert.deepEqual(told, [false, true])
})

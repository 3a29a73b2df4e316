// The plugin under the engine's own rules (EngineModel in test/support/pulumi/plugin-harness.ts): replaceOnChanges as
// the SDK registers them, Same steps when Diff says none, old inputs with new outputs after a
// partially failed update, init errors cleared by a refresh, and the refresh's inverted Diff.
// Each test is one flow a user runs with `pulumi up` / `refresh` / `import`, counted in orders.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { isSecret, UNKNOWN_WIRE, type WireMap } from '../src/pulumi/wire.js'
import { Emulator } from './support/e2e/harness.js'
import {
  EngineModel,
  Plugin,
  ROOT,
  type RpcError,
  replaceOnChangesOf,
  type Saved,
  startFakeEngine,
  urnOf,
} from './support/pulumi/plugin-harness.js'

let emulator: Emulator
let engine: Awaited<ReturnType<typeof startFakeEngine>>
let plugin: Plugin
let model: EngineModel
let keypairId = 0

const VM = 'provider:index:LiteVm'
const vmProgram = (extra: WireMap = {}): WireMap => ({
  sshAndConsoleUser: 'deployer',
  consolePassword: 'S3cretPass9',
  productId: 101,
  selectOs: 'Ubuntu-22.04',
  keypairId,
  cycle: 'm',
  vmName: 'engine-model',
  ...extra,
})

/** The outputs that hold a value. */
const filled = (outputs: WireMap) =>
  Object.keys(outputs)
    .filter((k) => outputs[k] !== null && outputs[k] !== undefined)
    .sort()

async function ordersOf<T>(action: () => Promise<T>): Promise<{ value: T; kinds: string[] }> {
  const before = (await emulator.orders()).orders.length
  const value = await action()
  const kinds = (await emulator.orders()).orders.slice(before).map((o) => o.kind)
  return { value, kinds }
}

function mustSave(saved: Saved | null): Saved {
  assert.ok(saved, 'the engine saved no state')
  return saved
}

async function upOk(urn: string, program: WireMap, saved: Saved | null, timeout = 60): Promise<Saved> {
  const result = await model.up(urn, program, saved, { timeout })
  assert.equal(result.error, undefined, result.error?.details)
  return mustSave(result.saved)
}

async function settled(urn: string, program: WireMap, saved: Saved): Promise<void> {
  const result = await model.up(urn, program, saved, { preview: true })
  assert.equal(result.op, 'same', `the next preview is not empty: ${JSON.stringify(result.diff)}`)
}

before(async () => {
  emulator = await Emulator.start({ apiKey: 'emulator-key', provisioningDelayMs: 100 })
  engine = await startFakeEngine()
  plugin = await Plugin.launch(engine.address)
  await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms' })
  model = new EngineModel(plugin, replaceOnChangesOf(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8')))
  const keypair = await upOk(urnOf('provider:index:LiteKeypair', 'kp'), { name: 'engine-model' }, null)
  keypairId = keypair.outputs.keypairId as number
})
after(async () => {
  await plugin?.stop()
  engine?.stop()
  await emulator?.stop()
})

describe('the plugin under the engine rules', () => {
  test('import, then the promocode and card flag written into the program: an update that orders nothing, never a replacement', async () => {
    const created = await upOk(urnOf(VM, 'source'), vmProgram({ promocode: 'PROMO10', payWithCreditCard: true }), null)
    const urn = urnOf(VM, 'imported')
    const imported = await model.import(urn, created.id)
    const program = { ...imported.program, promocode: 'PROMO10', payWithCreditCard: true }
    const { value: result, kinds } = await ordersOf(() => model.up(urn, program, imported))
    assert.notEqual(result.op, 'replace', `the engine replaces the imported VM: ${JSON.stringify(result.diff)}`)
    assert.equal(result.error, undefined, result.error?.details)
    assert.deepEqual(kinds, [])
    assert.equal((await emulator.account(created.id))?.status, 'Active')
    await settled(urn, program, mustSave(result.saved))
  })

  test('a Metal keypair generated without publicKey, then written with publicKey empty: recorded, never replaced', async () => {
    const urn = urnOf('provider:index:BaremetalKeypair', 'generated')
    const created = await upOk(urn, { name: 'engine-model-metal' }, null)
    const program = { name: 'engine-model-metal', publicKey: '' }
    const result = await model.up(urn, program, created)
    assert.notEqual(result.op, 'replace', `the engine replaces the keypair: ${JSON.stringify(result.diff)}`)
    assert.equal(result.error, undefined, result.error?.details)
    const saved = mustSave(result.saved)
    assert.equal(saved.id, created.id)
    assert.equal(saved.outputs.privateKey !== null && saved.outputs.privateKey !== undefined, true, 'the private key is kept')
    await settled(urn, program, saved)
    // A key to import is another keypair: Diff still asks for the replacement.
    const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes])
    const key = `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(Buffer.alloc(32, 7))]).toString('base64')}`
    const imported = await model.up(urn, { ...program, publicKey: key }, saved, { preview: true })
    assert.equal(imported.op, 'replace', JSON.stringify(imported.diff))
  })

  test('an unpaid create with a power state and disk size: after payment the next up applies both', async () => {
    const urn = urnOf(VM, 'unpaid')
    const program = vmProgram({ vmName: 'unpaid-vm', payWithCreditCard: false, powerState: 'stop', diskSize: 40 })
    const first = await upOk(urn, program, null)
    assert.equal((await emulator.account(first.id))?.status, 'Pending')
    await emulator.control('POST', `/accounts/${first.id}/pay`)
    // The card flag is still false, so the disk growth is an order of its own that waits for payment too.
    const { value: second, kinds } = await ordersOf(() => model.up(urn, program, first, { timeout: 60 }))
    assert.equal(second.op, 'update', 'the deferred work needs an Update: a Same step never calls the plugin')
    assert.equal(second.error, undefined, second.error?.details)
    assert.deepEqual(kinds, ['lite.vm.storage'])
    await emulator.control('POST', `/accounts/${first.id}/pay`)
    const { value: third, kinds: more } = await ordersOf(() => model.up(urn, program, mustSave(second.saved), { timeout: 60 }))
    assert.equal(third.op, 'update')
    assert.equal(third.error, undefined, third.error?.details)
    assert.deepEqual(more, [], 'the paid growth was ordered again')
    const account = await emulator.account(first.id)
    assert.equal(account?.status, 'Active')
    assert.equal(String(account?.extra_details.disk_size), '40')
    const details = await emulator.api<{ status: string }>('GET', `/lites/accounts/${first.id}/vm-details`)
    assert.equal(details.status, 'stopped')
    const normal = await upOk(urnOf(VM, 'paid-at-once'), vmProgram({ vmName: 'paid-at-once', powerState: 'stop', diskSize: 40 }), null)
    assert.deepEqual(
      filled(mustSave(third.saved).outputs),
      filled(normal.outputs),
      'the resumed create reports less than a create that finished at once',
    )
    await settled(urn, program, mustSave(third.saved))
  })

  test('a timed-out create, then `pulumi refresh` (which clears init errors), then up: the deferred disk size is applied', async () => {
    const urn = urnOf(VM, 'timed-out')
    const program = vmProgram({ vmName: 'slow-vm-01', diskSize: 40 })
    await emulator.control('PATCH', '/config', { provisioning_delay_ms: 1500 })
    const first = await model
      .up(urn, program, null, { timeout: 1 })
      .finally(() => emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 }))
    assert.ok(first.error, 'the create did not time out')
    const kept = mustSave(first.saved)
    assert.ok(kept.initErrors.length > 0)
    const refreshed = await model.refresh(urn, kept)
    const saved = mustSave(refreshed.saved)
    assert.deepEqual(saved.initErrors, [], 'the engine clears init errors on refresh')
    const { value: second, kinds } = await ordersOf(() => model.up(urn, program, saved, { timeout: 60 }))
    assert.equal(second.op, 'update')
    assert.equal(second.error, undefined, second.error?.details)
    assert.deepEqual(kinds, ['lite.vm.storage'], 'the re-run orders the disk growth once and no second VM')
    assert.equal(String((await emulator.account(kept.id))?.extra_details.disk_size), '40')
    // The resumed create reports everything a create that finished at once does.
    const normal = await upOk(urnOf(VM, 'normal'), vmProgram({ vmName: 'normal-vm-01', diskSize: 40 }), null)
    assert.deepEqual(filled(mustSave(second.saved).outputs), filled(normal.outputs))
    await settled(urn, program, mustSave(second.saved))
  })

  test('a partially failed package change: the engine keeps the old inputs, and the next up orders nothing again', async () => {
    const urn = urnOf(VM, 'partial')
    const created = await upOk(urn, vmProgram({ vmName: 'partial-vm' }), null)
    const program = vmProgram({ vmName: 'partial-vm', productId: 102 })
    // The reads before the order pass (the preview's price, then the update's check that the VM takes
    // changes); every read after the order fails.
    const first = await emulator.control<{ fault_id: string }>('POST', '/faults', {
      method: 'GET',
      path: '/lites/accounts/*',
      mode: 'delay',
      delay_ms: 0,
      count: 2,
      priority: 1,
    })
    const fault = await emulator.control<{ fault_id: string }>('POST', '/faults', {
      method: 'GET',
      path: '/lites/accounts/*',
      status: 403,
      count: -1,
    })
    const { value: failed, kinds } = await ordersOf(() =>
      model
        .up(urn, program, created, { timeout: 60 })
        .finally(() =>
          Promise.all([emulator.control('DELETE', `/faults/${fault.fault_id}`), emulator.control('DELETE', `/faults/${first.fault_id}`)]),
        ),
    )
    assert.ok(failed.error, 'the wait did not fail')
    assert.equal(kinds.length, 1, `one change-package order: ${kinds.join(', ')}`)
    const kept = mustSave(failed.saved)
    assert.equal(kept.inputs.productId, 101, 'the engine saves the old inputs after a partially failed update')
    const { value: again, kinds: more } = await ordersOf(() => model.up(urn, program, kept, { timeout: 60 }))
    assert.equal(again.error, undefined, again.error?.details)
    assert.deepEqual(more, [], 'the change was ordered again')
    assert.equal((await emulator.account(created.id))?.product_id, 102)
    await settled(urn, program, mustSave(again.saved))
  })

  test('an unpaid disk growth, then refresh and up before payment: nothing is ordered again', async () => {
    const urn = urnOf(VM, 'unpaid-growth')
    const created = await upOk(urn, vmProgram({ vmName: 'unpaid-grow' }), null)
    const program = vmProgram({ vmName: 'unpaid-grow', diskSize: 40, payWithCreditCard: false })
    const { value: grown, kinds } = await ordersOf(() => model.up(urn, program, created, { timeout: 60 }))
    assert.equal(grown.error, undefined, grown.error?.details)
    assert.deepEqual(kinds, ['lite.vm.storage'])
    const invoice = (await emulator.account(created.id))?.last_invoice?.id
    const refreshed = mustSave((await model.refresh(urn, mustSave(grown.saved))).saved)
    const logged = engine.logs.length
    const { value: again, kinds: more } = await ordersOf(() => model.up(urn, program, refreshed, { timeout: 60 }))
    assert.equal(again.error, undefined, again.error?.details)
    assert.equal(again.op, 'same')
    assert.deepEqual(more, [], 'the unpaid growth was ordered again')
    assert.ok(
      engine.logs.slice(logged).some((l) => l.urn === urn && l.message.includes(`invoice ${invoice}`)),
      `a warning of the next up names invoice ${invoice}`,
    )
  })

  test('a rename preview shows only what it can change; removing rebuildOs is a Same step', async () => {
    const urn = urnOf(VM, 'quiet')
    const created = await upOk(urn, vmProgram({ vmName: 'quiet-vm-1' }), null)
    const checked = await plugin.check(urn, vmProgram({ vmName: 'quiet-vm-2' }), created.inputs)
    const preview = await plugin.update(urn, created.id, created.outputs, created.inputs, checked.inputs, { preview: true })
    const unknown = Object.entries(preview.properties)
      .filter(([, v]) => v === UNKNOWN_WIRE || (isSecret(v) && v.value === UNKNOWN_WIRE))
      .map(([k]) => k)
    assert.deepEqual(unknown, ['raw'])
    for (const kept of ['cpus', 'status', 'nextDue', 'productName', 'lastInvoice']) {
      assert.deepEqual(preview.properties[kept], created.outputs[kept], kept)
    }
    const rebuilt = await upOk(urn, vmProgram({ vmName: 'quiet-vm-1', rebuildOs: 'Debian-12' }), created)
    const { value: removed, kinds } = await ordersOf(() => model.up(urn, vmProgram({ vmName: 'quiet-vm-1' }), rebuilt))
    assert.equal(removed.op, 'same', JSON.stringify(removed.diff))
    assert.deepEqual(kinds, [])
  })

  test('`pulumi refresh` after a grow-only size was raised outside Pulumi succeeds and changes nothing: the size is a floor, and the next up is a Same step', async () => {
    const vm = await upOk(urnOf(VM, 'disk-host'), vmProgram({ vmName: 'disk-host-1' }), null)
    const urn = urnOf('provider:index:LiteDisk', 'disk')
    const program: WireMap = { productId: 60, cycle: 'm', liteAccountId: Number(vm.id), serviceName: 'data-disk-01', size: 60 }
    const disk = await upOk(urn, program, null)
    await emulator.control('PATCH', `/accounts/${disk.id}`, { extra_details: { size: 80 } })
    const refreshed = await model.refresh(urn, disk)
    assert.equal(refreshed.diff?.changes ?? 'none', 'none', JSON.stringify(refreshed.diff))
    const saved = mustSave(refreshed.saved)
    assert.equal(saved.outputs.size, 60, 'the floor the program set, not the 80 GB the disk has')
    // The program still says 60: nothing to refuse, nothing to order.
    assert.deepEqual((await plugin.check(urn, program, saved.inputs)).failures, [])
    const { value: same, kinds } = await ordersOf(() => model.up(urn, program, saved))
    assert.equal(same.error, undefined, same.error?.details)
    assert.equal(same.op, 'same')
    assert.deepEqual(kinds, [])
    // With a create-only change the disk is replaced: a new order, as in a Terraform plan.
    const renamed = { ...program, serviceName: 'data-disk-02' }
    assert.deepEqual((await plugin.check(urn, renamed, saved.inputs)).failures, [])
    const replaced = await model.up(urn, renamed, saved)
    assert.equal(replaced.error, undefined, replaced.error?.details)
    assert.deepEqual(replaced.diff?.replaces, ['serviceName'])
  })

  test('`pulumi import` of a disk grown outside, then the program writing a smaller size or none: recorded as its floor with a warning, nothing ordered, never "Cannot shrink"', async () => {
    const vm = await upOk(urnOf(VM, 'import-host'), vmProgram({ vmName: 'import-host-1' }), null)
    const created = await upOk(
      urnOf('provider:index:LiteDisk', 'made'),
      { productId: 60, cycle: 'm', liteAccountId: Number(vm.id), serviceName: 'import-disk-1', size: 60 },
      null,
    )
    // Grown in the portal, then imported into another stack (a program adopting it).
    await emulator.control('PATCH', `/accounts/${created.id}`, { extra_details: { size: 80 } })
    const cases: [string, (program: WireMap) => WireMap][] = [
      ['size 60', (program) => ({ ...program, size: 60 })],
      ['size left out', ({ size: _size, ...program }) => program],
    ]
    for (const [name, write] of cases) {
      const urn = urnOf('provider:index:LiteDisk', `imported-${name.replace(/ /g, '-')}`)
      const imported = await model.import(urn, created.id)
      assert.equal(imported.outputs.size, 80, 'the import reads the size the disk has')
      const program = write(imported.program)
      const logged = engine.logs.length
      const { value: result, kinds } = await ordersOf(() => model.up(urn, program, imported))
      assert.equal(result.error, undefined, `${name}: ${result.error?.details}`)
      assert.equal(result.op, 'update', `${name}: ${JSON.stringify(result.diff)}`)
      assert.deepEqual(kinds, [], `${name}: nothing is ordered`)
      const warnings = engine.logs
        .slice(logged)
        .filter((l) => l.urn === urn)
        .map((l) => l.message)
      assert.ok(
        warnings.some((m) => m.includes('size 60 is recorded as the floor of an object of 80')),
        `${name}: ${warnings.join('\n')}`,
      )
      const saved = mustSave(result.saved)
      assert.equal(saved.outputs.size, 60, `${name}: the floor is recorded`)
      await settled(urn, program, saved)
      // From then on a smaller size is a shrink like any other.
      const shrunk = await plugin.check(urn, { ...program, size: 50 }, saved.inputs, saved.outputs)
      assert.deepEqual(
        shrunk.failures.map((f) => f.property),
        ['size'],
      )
    }
  })
})

describe('replacements that cannot be created', () => {
  test('an IP assignment moved to an IP that does not exist, under `up --skip-preview`: the live assignment is not deleted first', async () => {
    const keypair = await upOk(urnOf('provider:index:BaremetalKeypair', 'dbr-kp'), { name: 'dbr-keypair' }, null)
    const server = await upOk(
      urnOf('provider:index:Baremetal', 'dbr-server'),
      { productId: 301, cycle: 'm', keypairId: keypair.outputs.keypairId ?? Number(keypair.id), label: 'dbr-01' },
      null,
    )
    const ip = await upOk(urnOf('provider:index:BaremetalAdditionalIp', 'dbr-ip'), { productId: 401, cycle: 'm' }, null)
    const urn = urnOf('provider:index:BaremetalAdditionalIpAssignment', 'dbr-assignment')
    const program: WireMap = { additionalIpId: Number(ip.id), metalAccountId: Number(server.id) }
    const assigned = await upOk(urn, program, null)
    const deletes = async () => (await emulator.requests()).filter((e) => e.method === 'DELETE').length
    const deletesBefore = await deletes()
    const result = await model.up(urn, { ...program, additionalIpId: 999999 }, assigned)
    assert.ok(result.diff?.replaces.includes('additionalIpId'), 'the IP change is a replacement')
    assert.equal(result.diff?.deleteBeforeReplace, false, 'a replacement whose create is known to fail is not deleted first')
    assert.ok(result.error, 'the up fails')
    assert.match(result.error.details, /additionalIpId/)
    assert.equal(await deletes(), deletesBefore, 'the live assignment is not deleted')
    assert.equal(mustSave(result.saved).id, assigned.id, 'the live assignment stays in the stack')
  })
})

describe('failOnUnfinished', () => {
  test('a create whose storage step the service refuses after the paid order: the up fails, the VM is kept with the size it has, and the next up retries only that step', async () => {
    const urn = urnOf(VM, 'step-failed')
    const program = vmProgram({ vmName: 'step-failed', diskSize: 40 })
    await emulator.control('POST', '/faults', {
      method: 'PUT',
      path: '/lites/accounts/*/storage',
      mode: 'error',
      status: 409,
      count: 1,
      detail: 'storage pool busy',
    })
    const { value: first, kinds } = await ordersOf(() => model.up(urn, program, null, { timeout: 60 }))
    assert.ok(first.error, 'a create whose storage step failed reported success')
    assert.match(first.error.details, /storage pool busy/)
    assert.deepEqual(kinds, ['lite.vm.create'])
    const kept = mustSave(first.saved)
    assert.match(kept.id, /^\d+$/)
    assert.equal(kept.outputs.diskSize, 20, 'the saved outputs hold what the server has, not the size that failed')
    const { value: second, kinds: more } = await ordersOf(() => model.up(urn, program, kept, { timeout: 60 }))
    assert.equal(second.error, undefined, second.error?.details)
    assert.deepEqual(more, ['lite.vm.storage'], 'only the failed step is ordered; no second VM')
    assert.equal(String((await emulator.account(kept.id))?.extra_details.disk_size), '40')
    await settled(urn, program, mustSave(second.saved))
  })

  test('an unpaid create fails the up but is kept with its id; after payment the next up finishes it without a second order', async () => {
    await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms', failOnUnfinished: 'true' })
    try {
      const urn = urnOf(VM, 'strict')
      const program = vmProgram({ vmName: 'strict-unpaid', payWithCreditCard: false, powerState: 'stop' })
      const { value: first, kinds } = await ordersOf(() => model.up(urn, program, null, { timeout: 60 }))
      assert.ok(first.error, 'an unfinished create succeeded')
      assert.match(first.error.details, /failOnUnfinished/)
      assert.match(first.error.details, /invoice \d+/)
      assert.deepEqual(kinds, ['lite.vm.create'])
      const kept = mustSave(first.saved)
      assert.match(kept.id, /^\d+$/)
      await emulator.control('POST', `/accounts/${kept.id}/pay`)
      const { value: second, kinds: more } = await ordersOf(() => model.up(urn, program, kept, { timeout: 60 }))
      assert.equal(second.error, undefined, second.error?.details)
      assert.deepEqual(more, [])
      const details = await emulator.api<{ status: string }>('GET', `/lites/accounts/${kept.id}/vm-details`)
      assert.equal(details.status, 'stopped')
    } finally {
      await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms' })
    }
  })
  test('an unpaid create with nothing deferred: the next up waits for it again (failing while unpaid) and records it Active once paid', async () => {
    await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms', failOnUnfinished: 'true' })
    try {
      const urn = urnOf(VM, 'strict-plain')
      const program = vmProgram({ vmName: 'strict-plain', payWithCreditCard: false })
      const first = await model.up(urn, program, null, { timeout: 60 })
      assert.ok(first.error, 'an unfinished create succeeded')
      const kept = mustSave(first.saved)
      const { value: unpaid, kinds } = await ordersOf(() => model.up(urn, program, kept, { timeout: 60 }))
      assert.ok(unpaid.error, 'an up before payment took the unpaid VM as finished')
      assert.match(unpaid.error.details, /failOnUnfinished/)
      assert.deepEqual(kinds, [])
      await emulator.control('POST', `/accounts/${kept.id}/pay`)
      const { value: paid, kinds: more } = await ordersOf(() => model.up(urn, program, mustSave(unpaid.saved), { timeout: 60 }))
      assert.equal(paid.error, undefined, paid.error?.details)
      assert.deepEqual(more, [])
      assert.equal(mustSave(paid.saved).outputs.status, 'Active')
    } finally {
      await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.baseUrl, pollInterval: '50ms' })
    }
  })
})

describe('configuration errors name what to fix (Pulumi names)', () => {
  test('a base URL without the API version is refused by Configure, naming baseUrl and /v1', async () => {
    const refused = await plugin.configure({ apiKey: 'emulator-key', baseUrl: emulator.origin }).then(
      () => null,
      (e: RpcError) => e,
    )
    assert.ok(refused, 'Configure accepted a base URL without /v1')
    assert.equal(refused.code, 3)
    assert.match(refused.details, /baseUrl/)
    assert.ok(refused.details.includes(`${emulator.origin}/v1`), refused.details)
  })

  test('a wrong API key: the failure names apiKey and PROVIDER_API_KEY', async () => {
    await plugin.configure({ apiKey: 'not-the-key', baseUrl: emulator.baseUrl, pollInterval: '50ms' })
    const result = await model.up(urnOf('provider:index:LiteKeypair', 'refused'), { name: 'refused-key' }, null)
    assert.ok(result.error, 'the create succeeded with a wrong key')
    assert.match(result.error.details, /401/)
    assert.match(result.error.details, /apiKey/)
    assert.match(result.error.details, /PROVIDER_API_KEY/)
    assert.doesNotMatch(result.error.details, /not-the-key/)
  })
})

// Order-time inputs under the real `pulumi` CLI (a YAML program, so the CLI is this test's child): a
// changed or removed promocode and a changed payment flag on existing resources are updates that call
// nothing, with a warning that they take effect at the next order; never a replacement, whatever Diff or
// the schema's replaceOnChanges could say. `pulumi up --replace <urn>` still orders the VM again.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { CONSOLE_PASSWORD } from '../support/pulumi/chains.js'
import { type CliRun, describeCli, type OpResult, PulumiHome, Stack, stepsOf } from '../support/pulumi/cli-harness.js'

const ref = (path: string) => `\${${path}}`

function program(vm: Record<string, unknown>, ip: Record<string, unknown>): string {
  const resources = {
    key: { type: 'provider:index:LiteKeypair', properties: { name: 'order-time-key' } },
    vm: {
      type: 'provider:index:LiteVm',
      properties: {
        productId: 101,
        selectOs: 'Ubuntu-22.04',
        keypairId: ref('key.keypairId'),
        cycle: 'm',
        vmName: 'order-time-vm',
        sshAndConsoleUser: 'deployer',
        consolePassword: ref('consolePassword'),
        ...vm,
      },
    },
    ip: { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm', ...ip } },
  }
  const project = { name: 'order-time', runtime: 'yaml', config: { consolePassword: { type: 'string', secret: true } }, resources }
  return JSON.stringify(project, null, 2)
}

function ok(run: CliRun, what: string): void {
  assert.equal(run.code, 0, `${what}: ${describeCli(run)}`)
}

/** The warnings of a run that say `name` takes effect at the next order. */
function orderTimeWarnings(result: OpResult, name: string): string[] {
  return result.events
    .filter((e) => e.kind === 'diag' && e.severity === 'warning')
    .map((e) => (e as { message: string }).message)
    .filter((m) => m.includes(`${name} takes effect at the next order`))
}

describe('order-time inputs (promocode, payWithCreditCard) under pulumi up', () => {
  let emulator: Emulator
  let stack: Stack
  let vm: Record<string, unknown> = { promocode: 'PROMO10' }
  let ip: Record<string, unknown> = {}
  const ids: Record<string, string> = {}
  let address = ''

  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 100 })
    const home = await PulumiHome.create(emulator)
    stack = await Stack.init(home, 'order-time', 'dev', { 'Pulumi.yaml': program(vm, ip) })
    await stack.setConfig({ consolePassword: CONSOLE_PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
  })
  after(async () => {
    await emulator?.stop()
  })

  async function write(): Promise<void> {
    await writeFile(join(stack.dir, 'Pulumi.yaml'), program(vm, ip))
  }

  async function assertKept(what: string): Promise<void> {
    const state = await stack.resources()
    for (const name of ['vm', 'ip']) {
      assert.equal(state[name]?.id, ids[name], `${what}: ${name} keeps its id`)
      assert.ok(await emulator.account(ids[name] ?? ''), `${what}: the service still has ${name}`)
    }
    assert.equal(state.ip?.outputs?.ipAddress, address, `${what}: the IP keeps its address`)
  }

  /** Previews then applies the written program: `name` of `resource` is an update that calls nothing, with the warning. */
  async function assertRecordedOnly(resource: string, name: string, value: unknown): Promise<void> {
    await write()
    const preview = await stack.withEvents(['preview'])
    ok(preview.run, 'preview')
    const planned = stepsOf(preview)
    assert.equal(planned[resource]?.op, 'update', `the preview updates ${resource} in place: ${JSON.stringify(planned)}`)
    for (const other of ['key', 'vm', 'ip'].filter((n) => n !== resource)) assert.equal(planned[other]?.op, 'same', other)
    assert.ok(
      orderTimeWarnings(preview, name).length > 0,
      `the preview warns that ${name} takes effect at the next order:\n${preview.output}`,
    )

    const { value: up, mutations, orders } = await emulator.effectsOf(() => stack.withEvents(['up', '--yes', '--skip-preview']))
    ok(up.run, 'up')
    assert.equal(stepsOf(up)[resource]?.op, 'update')
    assert.deepEqual(mutations, [], 'no DELETE and no other call that changes anything')
    assert.deepEqual(orders, [], 'no order')
    const [warning] = orderTimeWarnings(up, name)
    assert.ok(warning, `the up warns that ${name} takes effect at the next order:\n${up.output}`)
    assert.match(warning, /pulumi up --replace/)
    assert.equal((await stack.resources())[resource]?.outputs?.[name] ?? null, value, `the state records the new ${name}`)
    await assertKept(`after changing ${name}`)
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'a preview afterwards finds nothing to change')
  }

  test('up: a keypair, a VM with a promocode, an additional IP', async () => {
    ok((await stack.withEvents(['up', '--yes', '--skip-preview'])).run, 'first up')
    const state = await stack.resources()
    ids.vm = state.vm?.id ?? ''
    ids.ip = state.ip?.id ?? ''
    address = String(state.ip?.outputs?.ipAddress ?? '')
    assert.match(ids.vm, /^\d+$/)
    assert.match(address, /^\d+\.\d+\.\d+\.\d+$/)
  })

  test('a promocode the service refuses is an update that calls nothing: no DELETE, no order', async () => {
    assert.ok(ids.vm, 'created')
    vm = { ...vm, promocode: 'NO-SUCH-CODE' }
    await assertRecordedOnly('vm', 'promocode', 'NO-SUCH-CODE')
  })

  test('removing the promocode keeps the VM', async () => {
    assert.ok(ids.vm, 'created')
    const { promocode: _removed, ...rest } = vm
    vm = rest
    await assertRecordedOnly('vm', 'promocode', null)
  })

  test('changing payWithCreditCard on the additional IP keeps it and its address', async () => {
    assert.ok(ids.ip, 'created')
    ip = { ...ip, payWithCreditCard: false }
    await assertRecordedOnly('ip', 'payWithCreditCard', false)
  })

  test('pulumi up --replace orders the VM again, with the promocode recorded for it', async () => {
    assert.ok(ids.vm, 'created')
    vm = { ...vm, promocode: 'PROMO10' }
    await write()
    ok((await stack.withEvents(['up', '--yes', '--skip-preview'])).run, 'up recording PROMO10')
    const urn = (await stack.resources()).vm?.urn ?? ''
    const { value: up, log, orders } = await emulator.effectsOf(() => stack.withEvents(['up', '--yes', '--skip-preview', '--replace', urn]))
    ok(up.run, 'up --replace')
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['lite.vm.create'],
      'one new order',
    )
    const posted = log.find((e) => e.method === 'POST' && e.path === '/v1/lites')
    assert.equal((posted?.body as Record<string, unknown> | undefined)?.promocode, 'PROMO10', 'the new order carries the promocode')
    assert.ok(
      log.some((e) => e.method === 'DELETE' && e.path.endsWith(`/${ids.vm}`)),
      'the replaced VM is deleted',
    )
    const state = await stack.resources()
    assert.notEqual(state.vm?.id, ids.vm, 'a new VM')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'a preview afterwards finds nothing to change')
    ok((await stack.destroy()).run, 'destroy')
  })
})

// Issue 15, cases 1 to 3: the exactly-once protection must not stop what users do every day. Under
// the real terraform against one emulator: workspaces of one directory, twin directories under one
// API key (a named VM and a nameless additional IP), destroy then create again, and a fresh directory
// on a shared state. Each ends with every apply succeeding and exactly the orders intended.
import assert from 'node:assert/strict'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, diagnostics, type RunResult } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { providerBlock } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, type Ids, OPERATIONS } from '../support/faults/matrix.js'

const vm = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const ip = OPERATIONS.find((o) => o.key === 'ip-create') as (typeof OPERATIONS)[number]

function config(ids: Ids, extraVm?: string): string {
  const blocks = [
    providerBlock(),
    block('resource', `provider_${vm.resource}`, 'web', vm.inputs(ids)),
    block('resource', `provider_${ip.resource}`, 'ip', ip.inputs(ids)),
  ]
  if (extraVm) blocks.push(block('resource', `provider_${vm.resource}`, 'second', { ...vm.inputs(ids), vm_name: extraVm }))
  return blocks.join('\n')
}

function ok(run: RunResult, what: string): void {
  assert.equal(run.code, 0, `${what}\n${describeRun(run)}`)
  assert.doesNotMatch(run.stdout + run.stderr, /Not ordering/, `${what}: stopped\n${describeRun(run)}`)
}

describe('ordinary workflows are never stopped, and order exactly what they ask (issue 15)', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  const workspace = async () => {
    const ws = await e2e.workspace()
    return ws
  }

  test('two workspaces of one directory apply the same configuration: each orders its own, no stop, both plan empty', async () => {
    await freshEmulator(e2e.emulator, 200)
    const ids = await vm.setup(e2e.emulator)
    const ws = await workspace()
    await ws.write(config(ids))
    ok(await ws.apply(), 'apply in the default workspace')
    ok(await ws.run(['workspace', 'new', '-no-color', 'b']), 'workspace new b')
    ok(await ws.apply(), 'apply in workspace b')
    assert.deepEqual(byKind((await e2e.emulator.orders()).orders), { [vm.kind]: 2, [ip.kind]: 2 })
    assert.equal((await ws.plan()).code, 0, 'workspace b plans empty')
    ok(await ws.run(['workspace', 'select', '-no-color', 'default']), 'workspace select default')
    assert.equal((await ws.plan()).code, 0, 'the default workspace plans empty')
  })

  test('twin directories under one API key on two machines (same VM name, a nameless IP), the second applied later the same day: ordered, with a warning naming the twins', async () => {
    await freshEmulator(e2e.emulator, 200)
    const ids = await vm.setup(e2e.emulator)
    const staging = await workspace()
    await staging.write(config(ids))
    ok(await staging.apply(), 'apply in staging/')
    const twins = (await e2e.emulator.orders()).orders.map((o) => o.account_id)
    // Earlier the same day: what a twin configuration's accounts look like, unlike a killed run's.
    for (const id of twins)
      await e2e.emulator.control('PATCH', `/accounts/${id}`, {
        date_created: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 19).replace('T', ' '),
      })
    const prod = await workspace()
    await prod.write(config(ids))
    // Another machine: nothing there knows the accounts staging/ handed over (the per-user index).
    const otherMachine = await mkdtemp(join(tmpdir(), 'provider-other-machine-'))
    const applied = await prod.apply([], { env: { XDG_STATE_HOME: otherMachine } })
    await rm(otherMachine, { recursive: true, force: true })
    ok(applied, 'apply in prod/')
    const warnings = diagnostics(applied.stdout + applied.stderr, 'Warning').join('\n')
    for (const id of twins) assert.match(warnings, new RegExp(`\\b${id}\\b`), `the warning names twin account ${id}`)
    assert.deepEqual(byKind((await e2e.emulator.orders()).orders), { [vm.kind]: 2, [ip.kind]: 2 })
    assert.equal((await prod.plan()).code, 0)
  })

  test('destroy, then create the same again in the same directory: no stop, one new order each', async () => {
    await freshEmulator(e2e.emulator, 200)
    const ids = await vm.setup(e2e.emulator)
    const ws = await workspace()
    await ws.write(config(ids))
    ok(await ws.apply(), 'first apply')
    ok(await ws.destroy(), 'destroy')
    ok(await ws.apply(), 'apply again')
    assert.deepEqual(byKind((await e2e.emulator.orders()).orders), { [vm.kind]: 2, [ip.kind]: 2 })
    assert.equal((await ws.plan()).code, 0)
  })

  test('a fresh directory on a shared state (another runner): plans empty, and a resource added there is ordered without a stop', async () => {
    await freshEmulator(e2e.emulator, 200)
    const ids = await vm.setup(e2e.emulator)
    const first = await workspace()
    await first.write(config(ids))
    ok(await first.apply(), 'apply on the first runner')
    const runner = await workspace()
    await runner.write(config(ids))
    await copyFile(join(first.dir, 'terraform.tfstate'), join(runner.dir, 'terraform.tfstate'))
    assert.equal((await runner.plan()).code, 0, 'the shared state plans empty on the new runner')
    await runner.write(config(ids, 'web-second'))
    ok(await runner.apply(), 'apply with one more VM on the new runner')
    assert.deepEqual(byKind((await e2e.emulator.orders()).orders), { [vm.kind]: 2, [ip.kind]: 1 })
  })
})

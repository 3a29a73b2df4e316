// Under the real `pulumi` CLI (a YAML program, a self-managed backend): `pulumi cancel` removes the
// lock of an `up` that still runs. The next `up` of the same stack must not order a second VM for the
// resource the first `up` is creating: the two saves of the stack would drop one of them, paid and in
// no state. It stops at once, naming the process; once the first `up` has ended, a refresh and an `up`
// leave one VM, in the stack: also when the first `up` ends right after that VM (cancelled while it
// waits for the VM to become Active), whose save a second `up` stopped only then would overwrite.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/index.js'
import { journalEntry, keyLines } from '../support/faults/accounted.js'
import { byKind, freshEmulator, OPERATIONS } from '../support/faults/matrix.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'

const ref = (name: string) => `\${${name}}`
const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

describe('pulumi cancel while the up still runs, then up again', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let home: PulumiHome
  before(async () => {
    home = await PulumiHome.create(e2e.emulator)
  })

  test('a VM then an IP: the second up stops on the VM the first up was answered with, naming it; one VM ordered, and the stack holds it', {
    timeout: 300_000,
  }, async (t) => {
    const em = e2e.emulator
    await freshEmulator(em, 200)
    const ids = await op.setup(em)
    const program = {
      name: 'cancelled-busy',
      runtime: 'yaml',
      resources: {
        vm: {
          type: `provider:index:${toPascal(op.resource)}`,
          properties: Object.fromEntries(Object.entries(op.inputs(ids)).map(([k, v]) => [toCamel(k), v])),
        },
        ip: {
          type: 'provider:index:BaremetalAdditionalIp',
          properties: { productId: 401, cycle: 'm' },
          options: { dependsOn: [ref('vm')] },
        },
      },
    }
    const stack = await Stack.init(home, 'cancelled-busy', 'dev', { 'Pulumi.yaml': JSON.stringify(program, null, 2) })
    await stack.setConfig({ 'provider:pollInterval': '100ms' })
    const seen = (await em.orders()).orders.length
    // The VM's order is answered after 10 s; the IP's (ordered once the VM is done) after 30 s: the first
    // up still runs long after it was handed the VM.
    await em.control('POST', '/faults', { method: 'POST', path: '/lites', mode: 'delay', delay_ms: 10_000, count: 1 })
    await em.control('POST', '/faults', { method: 'POST', path: '/baremetal-additional-ips', mode: 'delay', delay_ms: 30_000, count: 1 })
    const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
    try {
      await journalEntry(join(stack.dir, '.provider-orders'), 'POST', '/lites')
      const cancel = await stack.run(['cancel', '--yes'])
      assert.equal(cancel.code, 0, describeCli(cancel))
      if (((await stack.export()).deployment.pending_operations ?? []).length > 0) await stack.refresh(['--clear-pending-creates'])
      const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
      const first = await done
      const vms = (await em.orders()).orders.slice(seen).filter((o) => o.kind === op.kind)
      for (const line of keyLines(again.output)) t.diagnostic(`again: ${line}`)
      assert.equal(vms.length, 1, `VMs ordered: ${JSON.stringify(vms.map((o) => o.account_id))}\n${describeCli(again.run)}`)
      const vm = String(vms[0]?.account_id)
      assert.notEqual(again.run.code, 0, 'the second up stops')
      assert.match(
        again.output,
        /the same order of this resource .* is in flight in provider process .*Let that update end, then run pulumi refresh/s,
      )
      assert.equal(first.run.code, 0, describeCli(first.run))
      // The first up saved last: after a refresh and an up, the stack holds that VM and nothing more is ordered.
      await stack.refresh()
      const last = await stack.withEvents(['up', '--yes', '--skip-preview'])
      assert.equal(last.run.code, 0, describeCli(last.run))
      const held = Object.values(await stack.resources()).flatMap((r) => (r.id ? [r.id] : []))
      assert.ok(held.includes(vm), `the stack holds VM ${vm}: ${JSON.stringify(held)}`)
      assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 1, 'additional_ip.create': 1 })
    } finally {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL')
      await done.catch(() => undefined)
    }
  })

  test('a VM alone, cancelled while it waits for Active: the second up stops; after the first ends, a refresh and an up keep the VM in the stack, one VM ordered', {
    timeout: 300_000,
  }, async (t) => {
    const em = e2e.emulator
    await freshEmulator(em, 6000)
    const ids = await op.setup(em)
    const program = {
      name: 'cancelled-waiting',
      runtime: 'yaml',
      resources: {
        vm: {
          type: `provider:index:${toPascal(op.resource)}`,
          properties: Object.fromEntries(Object.entries(op.inputs(ids)).map(([k, v]) => [toCamel(k), v])),
        },
      },
    }
    const stack = await Stack.init(home, 'cancelled-waiting', 'dev', { 'Pulumi.yaml': JSON.stringify(program, null, 2) })
    await stack.setConfig({ 'provider:pollInterval': '100ms' })
    const seen = (await em.orders()).orders.length
    const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
    try {
      // Answered: the first up waits for the VM to become Active (6 s).
      await journalEntry(join(stack.dir, '.provider-orders'), 'POST', '/lites', 'answered')
      const cancel = await stack.run(['cancel', '--yes'])
      assert.equal(cancel.code, 0, describeCli(cancel))
      if (((await stack.export()).deployment.pending_operations ?? []).length > 0) await stack.refresh(['--clear-pending-creates'])
      const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
      for (const line of keyLines(again.output)) t.diagnostic(`again: ${line}`)
      const first = await done
      assert.equal(first.run.code, 0, describeCli(first.run))
      assert.notEqual(again.run.code, 0, 'the second up stops')
      await stack.refresh()
      const last = await stack.withEvents(['up', '--yes', '--skip-preview'])
      const vms = (await em.orders()).orders.slice(seen).filter((o) => o.kind === op.kind)
      assert.equal(vms.length, 1, `VMs ordered: ${JSON.stringify(vms.map((o) => o.account_id))}`)
      const held = Object.values(await stack.resources()).flatMap((r) => (r.id ? [r.id] : []))
      assert.deepEqual(held, [String(vms[0]?.account_id)], `the stack holds the VM\n${describeCli(again.run)}\n${describeCli(last.run)}`)
      assert.equal(last.run.code, 0, describeCli(last.run))
    } finally {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL')
      await done.catch(() => undefined)
    }
  })
})

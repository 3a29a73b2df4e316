// Two identical nameless additional IPs in one Pulumi stack (a YAML program; one provider, or two explicit
// providers of one configuration, which are two plugin processes): a service that ignores
// Idempotency-Key holds the first IP order; `pulumi up` is killed (kill -9) once that order's journal
// entry exists, the stack is recovered as the guide says and `pulumi up` runs again. Each IP must end
// with one account, in the stack, and nothing ordered twice.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { heldRequestDone, journalEntry } from '../support/faults/accounted.js'
import { freshEmulator, sleep } from '../support/faults/matrix.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { type CliRun, describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'

describe('identical twins in one Pulumi stack after a kill', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let home: PulumiHome
  before(async () => {
    home = await PulumiHome.create(e2e.emulator)
  })
  const ip = { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm' } }
  // Two explicit providers of one configuration are two plugin processes, each re-running one twin.
  const explicit = { type: 'pulumi:providers:provider', properties: {} }
  const programs = {
    'one provider': { a: ip, b: ip },
    'two explicit providers of one configuration': {
      p1: explicit,
      p2: explicit,
      a: { ...ip, options: { provider: `\${p1}` } },
      b: { ...ip, options: { provider: `\${p2}` } },
    },
  }
  for (const [providers, resources] of Object.entries(programs))
    test(`${providers}: each twin ends with one of the two accounts, nothing ordered again`, { timeout: 300_000 }, async (t) => {
      await freshEmulator(e2e.emulator, 200)
      await e2e.emulator.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
      const program = { name: 'twins', runtime: 'yaml', resources }
      const stack = await Stack.init(home, 'twins', providers.startsWith('one') ? 'dev' : 'explicit', {
        'Pulumi.yaml': JSON.stringify(program, null, 2),
      })
      await stack.setConfig({ 'provider:pollInterval': '100ms' }, [])
      const fault = await e2e.emulator.control<{ fault_id: string }>('POST', '/faults', {
        method: 'POST',
        path: '/baremetal-additional-ips',
        mode: 'delay',
        delay_ms: 4000,
        count: 2,
      })
      const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
      await journalEntry(join(stack.dir, '.provider-orders'), 'POST', '/baremetal-additional-ips')
      await sleep(500)
      child.kill('SIGKILL')
      const first = (await done).run
      const recovery: CliRun[] = [await stack.run(['cancel', '--yes'])]
      const pending = (await stack.export()).deployment.pending_operations ?? []
      if (pending.length > 0) recovery.push((await stack.refresh(['--clear-pending-creates'])).run)
      const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
      await heldRequestDone(e2e.emulator, fault.fault_id, 60_000)
      const orders = (await e2e.emulator.orders()).orders.map((o) => o.account_id)
      const kept = Object.values(await stack.resources()).flatMap((r) => (r.id ? [r.id] : []))
      const runs = `${describeCli(first)}\n${recovery.map(describeCli).join('\n')}\n${describeCli(again.run)}`
      t.diagnostic(`orders ${JSON.stringify(orders)} stack ${JSON.stringify(kept)} pending ${pending.length}`)
      t.diagnostic(runs)
      assert.equal(again.run.code, 0, runs)
      assert.equal(orders.length, 2, `IPs ordered\n${runs}`)
      assert.deepEqual([...kept].sort(), [...orders].map(String).sort(), `accounts in the stack\n${runs}`)
    })
})

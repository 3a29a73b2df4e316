// Issue 25, case 1, under the real `pulumi` CLI (a YAML program): a service that ignores
// Idempotency-Key holds the VM order (POST /lites) 4 s, or 15 s; `pulumi up` is stopped once the
// order's journal entry exists (kill -9 of the CLI, or Ctrl-C: SIGINT to its process group), the stack
// is recovered as the guide says (`pulumi cancel` for the lock a killed CLI leaves, `pulumi refresh
// --clear-pending-creates` for its pending create) and `pulumi up` runs again at once (after 5 s while
// the service holds the order 15 s). The service must end with one VM ordered, and every ordered
// account in the stack or named in what the recovery and the new `up` printed.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { CONSOLE_PASSWORD } from '../support/pulumi/chains.js'
import { type CliRun, describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import {
  everyRound,
  heldRequestDone,
  heldRequestKey,
  HOLDS,
  journalEntry,
  keyLines,
  REPEAT,
  STOPS,
  unaccounted,
  watchHeld,
} from '../support/faults/accounted.js'
import { freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'

const ref = (path: string) => `\${${path}}`
const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

describe('a service that ignores Idempotency-Key holds the order; pulumi up is stopped and run again (issue 25, case 1)', {
  concurrency: 1,
}, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let home: PulumiHome
  let stacks = 0
  before(async () => {
    home = await PulumiHome.create(e2e.emulator)
  })

  for (const { holdMs, rerunAfterMs } of HOLDS)
    for (const stop of STOPS) {
      const how = stop === 'SIGKILL' ? 'kill -9 of the CLI' : 'Ctrl-C (SIGINT to the process group)'
      const when = rerunAfterMs === 0 ? 'at once' : `after ${rerunAfterMs / 1000} s`
      test(`pulumi: POST /lites held ${holdMs / 1000} s, ${how}, recover and up again ${when}: one VM ordered, every account in the stack or named (${REPEAT}×)`, {
        timeout: REPEAT * (holdMs + 180_000),
      }, async (t) => {
        await everyRound(REPEAT, async (round) => {
          const started = Date.now()
          await freshEmulator(e2e.emulator, 200)
          await e2e.emulator.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
          const ids = await op.setup(e2e.emulator)
          const name = `held-order-${++stacks}`
          const program = {
            name,
            runtime: 'yaml',
            config: { consolePassword: { type: 'string', secret: true } },
            resources: {
              vm: {
                type: 'provider:index:LiteVm',
                properties: {
                  productId: 101,
                  selectOs: 'Ubuntu-22.04',
                  keypairId: ids.kp,
                  cycle: 'm',
                  vmName: 'fault-vm-one',
                  sshAndConsoleUser: 'deployer',
                  consolePassword: ref('consolePassword'),
                },
              },
            },
          }
          const stack = await Stack.init(home, name, 'dev', { 'Pulumi.yaml': JSON.stringify(program, null, 2) })
          await stack.setConfig({ consolePassword: CONSOLE_PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
          const seen = (await e2e.emulator.orders()).orders.length
          const fault = await e2e.emulator.control<{ fault_id: string }>('POST', '/faults', {
            method: 'POST',
            path: '/lites',
            mode: 'delay',
            delay_ms: holdMs,
            count: 1,
          })
          const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
          try {
            await journalEntry(join(stack.dir, '.provider-orders'), 'POST', '/lites')
            if (stop === 'SIGKILL') child.kill('SIGKILL')
            else if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT')
            const first = (await done).run
            const held = watchHeld(e2e.emulator, fault.fault_id, holdMs + 60_000)
            if (rerunAfterMs > 0) await sleep(rerunAfterMs)
            // The recovery the engine asks for: the lock of a killed CLI, then its pending create.
            const since = await e2e.emulator.lastSeq()
            const recovery: CliRun[] = []
            if (stop === 'SIGKILL') recovery.push(await stack.run(['cancel', '--yes']))
            const pending = (await stack.export()).deployment.pending_operations ?? []
            if (pending.length > 0) recovery.push((await stack.refresh(['--clear-pending-creates'])).run)
            const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
            await heldRequestDone(e2e.emulator, fault.fault_id, holdMs + 60_000)
            const orders = (await e2e.emulator.orders()).orders.slice(seen)
            const kept = new Set(Object.values(await stack.resources()).flatMap((r) => (r.id ? [r.id] : [])))
            const output = [...recovery.map((r) => r.stdout + r.stderr), again.output].join('\n')
            const heldKey = await heldRequestKey(e2e.emulator, fault.fault_id)
            const namedByKey = heldKey !== null && output.includes(heldKey) && orders.length === 1
            const lost = namedByKey
              ? []
              : await unaccounted(
                  e2e.emulator,
                  orders.map((o) => o.account_id),
                  [kept],
                  output,
                )
            t.diagnostic(
              `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; stopped up exited ${first.code ?? first.signal}; ` +
                `pending creates ${pending.length}; up again exited ${again.run.code}; ` +
                `recovery and up reached the service while the order was held: ${await held.cameBefore(since)}; orders ${JSON.stringify(orders.map((o) => o.account_id))}; ` +
                `stack ${JSON.stringify([...kept])}; lost ${JSON.stringify(lost)}`,
            )
            for (const line of keyLines(again.output)) t.diagnostic(`  up again: ${line}`)
            const runs = `round ${round}\n${describeCli(first)}\n${recovery.map(describeCli).join('\n')}\n${describeCli(again.run)}`
            assert.deepEqual(lost, [], `accounts ordered, in no stack and named by no message\n${runs}`)
            assert.equal(orders.length, 1, `VMs ordered (a second order beside the held one)\n${runs}`)
          } finally {
            if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL')
            await done.catch(() => undefined)
          }
        })
      })
    }
})

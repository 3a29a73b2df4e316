// tf-key-ignored-takeover.test.ts for every order kind (not only the Lite VM): a service that
// ignores Idempotency-Key holds the order (a delay fault), terraform is stopped (kill -9, or Ctrl-C) once
// the order's journal entry exists, and `terraform apply` runs again at once; then apply and plan once
// more. One order of the kind, every ordered account in state or named, and the last plan converges.
// HELD_OPS=key,key narrows the operations; HELD_STOPS=SIGKILL,SIGINT the stops; HELD_MS the hold.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import { accountedSince, caseLane, heldRequestDone, journalEntry, keyLines, terraformVersions } from '../support/faults/accounted.js'
import { providerBlock, stateIds } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'

const only = process.env.HELD_OPS?.split(',').filter(Boolean)
const ops = OPERATIONS.filter((o) => !only || only.includes(o.key))
const stops = (process.env.HELD_STOPS ?? 'SIGKILL,SIGINT').split(',') as ('SIGKILL' | 'SIGINT')[]
const holdMs = Number(process.env.HELD_MS ?? 4000)

describe('key-ignoring service holds the order of every kind; terraform stopped and applied again', { concurrency: 1 }, () => {
  const lane = caseLane()
  for (const client of terraformVersions().slice(0, 1))
    for (const op of ops)
      for (const stop of stops) {
        test(`${client.key}: ${op.key}: ${op.order.method} ${op.order.path} held ${holdMs} ms, ${stop}, apply again`, {
          timeout: 300_000,
        }, async (t) => {
          await freshEmulator(lane.em, 200)
          await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
          const ids = await op.setup(lane.em)
          const ws = await lane.workspace(client)
          const inputs = (changing: boolean) => ({ ...op.inputs(ids), ...(changing ? (op.change ?? {}) : {}) })
          if (op.existing) {
            const imported = `import {\n  to = provider_${op.resource}.r\n  id = "${op.existing(ids)}"\n}\n`
            await ws.write([providerBlock(), imported, block('resource', `provider_${op.resource}`, 'r', inputs(false))].join('\n'))
            await ws.init()
            const adopted = await ws.apply()
            assert.equal(adopted.code, 0, describeRun(adopted))
          }
          await ws.write([providerBlock(), block('resource', `provider_${op.resource}`, 'r', inputs(true))].join('\n'))
          await ws.init()
          const seen = (await lane.em.orders()).orders.length
          const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
            method: op.order.method,
            path: op.order.path,
            mode: 'delay',
            delay_ms: holdMs,
            count: 1,
          })
          const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
          const dir = join(ws.dir, '.terraform', 'provider-orders')
          try {
            await journalEntry(dir, op.order.method, op.order.path).catch(async (e: Error) => {
              throw new Error(`${e.message}\n${describeRun(await running.done)}`)
            })
            await sleep(200)
            if (stop === 'SIGKILL') running.signal('SIGKILL')
            else running.signalGroup('SIGINT')
            const first = await running.done
            const again = await ws.apply()
            await heldRequestDone(lane.em, fault.fault_id, holdMs + 60_000)
            const third = await ws.apply()
            const final = await ws.plan(['-detailed-exitcode'])
            const state = await stateIds(ws.dir)
            const output = again.stdout + again.stderr + third.stdout + third.stderr
            const { orders, lost } = await accountedSince(lane.em, seen, state, output)
            t.diagnostic(
              `first rc ${first.code}; re-run rc ${again.code}; third rc ${third.code}; plan rc ${final.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
            )
            for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  re-run: ${line}`)
            for (const line of keyLines(third.stdout + third.stderr)) t.diagnostic(`  third: ${line}`)
            const runs = `${describeRun(first)}\n${describeRun(again)}\n${describeRun(third)}\n${describeRun(final)}`
            assert.deepEqual(lost, [], `accounts ordered, in no state and named by no message\n${runs}`)
            assert.equal(byKind(orders)[op.kind] ?? 0, 1, `orders of ${op.kind}\n${runs}`)
            assert.equal(final.code, 0, `the last plan converges\n${runs}`)
          } finally {
            running.signalGroup('SIGKILL')
            await running.done.catch(() => undefined)
          }
        })
      }
})

// Issue 25, case 1, under the real terraform: a service that ignores Idempotency-Key holds the VM
// order (POST /lites) 4 s, or 15 s; terraform is stopped once the order's journal entry exists
// (kill -9 of terraform, or Ctrl-C: SIGINT to its process group, as a terminal sends it), and
// `terraform apply` runs again at once (after 5 s while the service holds the order 15 s). The held
// order is processed after the stopped run is gone. Whatever the re-run does (wait for the held
// order's outcome and adopt it, or stop naming the Idempotency-Key), the service must end with one
// VM ordered, and every ordered account in the state or named in the re-run's output.
// Each cell runs FAULT_REPEAT times (default 1; the issue asks for 5), under every pinned Terraform.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import {
  caseLane,
  everyRound,
  heldRequestDone,
  heldRequestKey,
  HOLDS,
  journalEntry,
  keyLines,
  REPEAT,
  STOPS,
  terraformVersions,
  unaccounted,
  watchHeld,
} from '../support/faults/accounted.js'
import { providerBlock, stateIds } from '../support/faults/exactly-once-cells.js'
import { freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

describe('a service that ignores Idempotency-Key holds the order; terraform is stopped and applied again (issue 25, case 1)', {
  concurrency: 1,
}, () => {
  const lane = caseLane()

  for (const client of terraformVersions())
    for (const { holdMs, rerunAfterMs } of HOLDS)
      for (const stop of STOPS) {
        const how = stop === 'SIGKILL' ? 'kill -9 of terraform' : 'Ctrl-C (SIGINT to the process group)'
        const when = rerunAfterMs === 0 ? 'at once' : `after ${rerunAfterMs / 1000} s`
        test(`${client.key}: POST /lites held ${holdMs / 1000} s, ${how}, apply again ${when}: one VM ordered, every account in state or named (${REPEAT}×)`, {
          timeout: REPEAT * (holdMs + 120_000),
        }, async (t) => {
          await everyRound(REPEAT, async (round) => {
            const started = Date.now()
            await freshEmulator(lane.em, 200)
            await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
            const ids = await op.setup(lane.em)
            const ws = await lane.workspace(client)
            await ws.write([providerBlock(), block('resource', `provider_${op.resource}`, 'r', op.inputs(ids))].join('\n'))
            await ws.init()
            const seen = (await lane.em.orders()).orders.length
            const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
              method: 'POST',
              path: '/lites',
              mode: 'delay',
              delay_ms: holdMs,
              count: 1,
            })
            const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
            try {
              // The entry is written before the order leaves: from here the order may be placed.
              await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), 'POST', '/lites')
              if (stop === 'SIGKILL') running.signal('SIGKILL')
              else running.signalGroup('SIGINT')
              const first = await running.done
              const held = watchHeld(lane.em, fault.fault_id, holdMs + 60_000)
              if (rerunAfterMs > 0) await sleep(rerunAfterMs)
              const since = await lane.em.lastSeq()
              const again = await ws.apply()
              // The count is taken once the held order has been processed, whenever the re-run ended.
              await heldRequestDone(lane.em, fault.fault_id, holdMs + 60_000).catch(async (error: unknown) => {
                const log = (await lane.em.requests()).map((e) => `${e.seq} ${e.method} ${e.path} ${e.status} ${e.fault_id ?? ''}`)
                throw new Error(`${String(error)}\n${describeRun(first)}\n${describeRun(again)}\nrequests:\n${log.join('\n')}`)
              })
              const orders = (await lane.em.orders()).orders.slice(seen)
              const state = await stateIds(ws.dir)
              const output = again.stdout + again.stderr
              const heldKey = await heldRequestKey(lane.em, fault.fault_id)
              // A stop that names the held order's Idempotency-Key names the one account that order made.
              const namedByKey = heldKey !== null && output.includes(heldKey) && orders.length === 1
              const lost = namedByKey
                ? []
                : await unaccounted(
                    lane.em,
                    orders.map((o) => o.account_id),
                    [state],
                    output,
                  )
              t.diagnostic(
                `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; stopped run exited ${first.code}; re-run exited ${again.code}; ` +
                  `re-run reached the service while the order was held: ${await held.cameBefore(since)}; ` +
                  `orders ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
              )
              for (const line of keyLines(output)) t.diagnostic(`  re-run: ${line}`)
              const runs = `round ${round}\n${describeRun(first)}\n${describeRun(again)}`
              assert.deepEqual(lost, [], `accounts ordered, in no state and named by no message\n${runs}`)
              assert.equal(orders.length, 1, `VMs ordered (a second order beside the held one)\n${runs}`)
            } finally {
              running.signalGroup('SIGKILL')
              await running.done.catch(() => undefined)
            }
          })
        })
      }
})

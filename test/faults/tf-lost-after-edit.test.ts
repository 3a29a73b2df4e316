// Issue 25, case 2, under the real terraform: kill -9 of terraform while a new VM is being provisioned
// (its order answered and recorded in the journal), then the configuration is edited (`vm_name`, or
// `cycle`) and applied. The edited configuration may order a VM of its own, but the first account, which the
// journal saw answered, must not be lost: it ends in the state, or the re-run names it (its id, in a
// warning or an error), and no ordered account is in no state and named by no message.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import {
  accountedSince,
  caseLane,
  everyRound,
  journalEntry,
  keyLines,
  names,
  REPEAT,
  terraformVersions,
} from '../support/faults/accounted.js'
import { providerBlock, stateIds } from '../support/faults/exactly-once-cells.js'
import { freshEmulator, type Inputs, OPERATIONS, orderPlaced } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

/** The edits a user makes before applying again. */
const EDITS: readonly { title: string; change: Inputs }[] = [
  { title: 'vm_name changed', change: { vm_name: 'fault-vm-renamed' } },
  { title: 'cycle changed', change: { cycle: 'q' } },
]

describe('kill -9 of terraform while a VM is provisioned, then an edited configuration applied (issue 25, case 2)', {
  concurrency: 1,
}, () => {
  const lane = caseLane()

  for (const client of terraformVersions())
    for (const edit of EDITS)
      test(`${client.key}: ${edit.title}: the first account is in the state or named by the re-run, and none is lost (${REPEAT}×)`, {
        timeout: REPEAT * 150_000,
      }, async (t) => {
        await everyRound(REPEAT, async (round) => {
          const started = Date.now()
          // Long enough that the first VM is still provisioning when terraform is killed.
          await freshEmulator(lane.em, 30_000)
          const ids = await op.setup(lane.em)
          const ws = await lane.workspace(client)
          const config = (inputs: Inputs) => [providerBlock(), block('resource', `provider_${op.resource}`, 'r', inputs)].join('\n')
          await ws.write(config(op.inputs(ids)))
          await ws.init()
          const seen = (await lane.em.orders()).orders.length
          const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
          try {
            const firstId = await orderPlaced(lane.em, op.kind, seen)
            // The journal has the answer: what the provider knows of the first account when terraform dies.
            await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), 'POST', '/lites', 'answered')
            running.signal('SIGKILL')
            const first = await running.done
            await lane.em.control('PATCH', '/config', { provisioning_delay_ms: 200 })
            await ws.write(config({ ...op.inputs(ids), ...edit.change }))
            const again = await ws.apply()
            const state = await stateIds(ws.dir)
            const output = again.stdout + again.stderr
            const { orders, lost } = await accountedSince(lane.em, seen, state, output)
            t.diagnostic(
              `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; first account ${firstId}; re-run exited ${again.code}; ` +
                `orders ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
            )
            for (const line of keyLines(output)) t.diagnostic(`  re-run: ${line}`)
            const runs = `round ${round}\n${describeRun(first)}\n${describeRun(again)}`
            assert.ok(
              state.has(firstId) || names(output, firstId),
              `the first account ${firstId} is in no state and the re-run does not name it\n${runs}`,
            )
            assert.deepEqual(lost, [], `accounts ordered, in no state and named by no message\n${runs}`)
          } finally {
            running.signalGroup('SIGKILL')
            await running.done.catch(() => undefined)
          }
        })
      })
})

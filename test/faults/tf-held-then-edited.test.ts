// A service that ignores Idempotency-Key holds a create order; terraform is killed (kill -9)
// while it is held; the configuration is edited and applied again while the order is still held; the held
// order is then processed. Its account must end in the state or be named by a later run (in a warning or
// an error), never be billed and named by nothing. HELD_OPS narrows the operations (creates only).
// Edited in an order-time input that no account shows (the promocode), the edited create is the same
// account as far as the service can tell: it waits for the held order and stops naming its account,
// never orders a second one beside it.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import { accountedSince, caseLane, heldRequestDone, journalEntry, keyLines, terraformVersions } from '../support/faults/accounted.js'
import { providerBlock, stateIds } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, type Inputs, OPERATIONS, sleep } from '../support/faults/matrix.js'

const EDITS: Record<string, Inputs> = {
  'metal-create': { label: 'fault-metal-edited' },
  'lite-vm-create': { vm_name: 'fault-vm-edited' },
  'disk-create': { service_name: 'fault-disk-edit' },
}
const only = process.env.HELD_OPS?.split(',').filter(Boolean)
const ops = OPERATIONS.filter((o) => EDITS[o.key] !== undefined && (!only || only.includes(o.key)))
const holdMs = Number(process.env.HELD_MS ?? 15_000)
const keysIgnored = process.env.HELD_KEYS !== 'honoured'

describe('a held create, terraform killed, the configuration edited and applied while the order is held', { concurrency: 1 }, () => {
  const lane = caseLane()
  for (const client of terraformVersions().slice(0, 1))
    for (const op of ops)
      for (const [edited, edit] of [
        ['a shown input', EDITS[op.key] ?? {}],
        ['the promocode', { promocode: 'PROMO10' }],
      ] as const)
        test(`${client.key}: ${op.key}: ${edited} edited: the held order's account is in the state or named${edited === 'the promocode' ? ', and no second is ordered' : ''}`, {
          timeout: 300_000,
        }, async (t) => {
          await freshEmulator(lane.em, 200)
          await lane.em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: keysIgnored } })
          const ids = await op.setup(lane.em)
          const ws = await lane.workspace(client)
          const config = (inputs: Inputs) => [providerBlock(), block('resource', `provider_${op.resource}`, 'r', inputs)].join('\n')
          await ws.write(config(op.inputs(ids)))
          await ws.init()
          const seen = (await lane.em.orders()).orders.length
          const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
            ...op.order,
            mode: 'delay',
            delay_ms: holdMs,
            count: 1,
          })
          const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
          try {
            await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), op.order.method, op.order.path)
            await sleep(200)
            running.signal('SIGKILL')
            const first = await running.done
            await ws.write(config({ ...op.inputs(ids), ...edit }))
            const again = await ws.apply()
            await heldRequestDone(lane.em, fault.fault_id, holdMs + 60_000)
            await sleep(1000)
            const third = await ws.apply()
            const plan = await ws.plan()
            const state = await stateIds(ws.dir)
            const later = third.stdout + third.stderr + plan.stdout + plan.stderr
            const { orders, lost } = await accountedSince(lane.em, seen, state, again.stdout + again.stderr + later)
            t.diagnostic(
              `re-run rc ${again.code}; third rc ${third.code}; plan rc ${plan.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; state ${JSON.stringify([...state])}; lost ${JSON.stringify(lost)}`,
            )
            for (const line of keyLines(again.stdout + again.stderr)) t.diagnostic(`  re-run: ${line}`)
            for (const line of keyLines(later)) t.diagnostic(`  later: ${line}`)
            const runs = `${describeRun(first)}\n${describeRun(again)}\n${describeRun(third)}\n${describeRun(plan)}`
            assert.deepEqual(lost, [], `accounts ordered, in no state and named by no message\n${runs}`)
            if (edited === 'the promocode') assert.equal(byKind(orders)[op.kind] ?? 0, 1, `orders of ${op.kind}\n${runs}`)
          } finally {
            running.signalGroup('SIGKILL')
            await running.done.catch(() => undefined)
          }
        })
})

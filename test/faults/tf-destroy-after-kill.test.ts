// A paid create held by a service that ignores Idempotency-Key, `terraform` killed (kill -9) while the
// order is in flight, and `terraform destroy` at once: the user gives up on the configuration. The
// destroy removes what the state holds; the held order makes its account a moment later, in no state.
// The destroy must say so (the order, its key, that it may still make an account), and the next plan
// names the account it made: a paid account is never left named by no run.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import { caseLane, heldRequestDone, journalEntry, names, terraformVersions } from '../support/faults/accounted.js'
import { providerBlock } from '../support/faults/exactly-once-cells.js'
import { freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'metal-create') as (typeof OPERATIONS)[number]
const HOLD_MS = 4000
// Something else of the configuration is in state, so that the destroy configures the provider
// (Terraform configures none for a state with nothing in it).
const KEYPAIR = block('resource', 'provider_lite_keypair', 'other', { name: 'other-key' })

describe('terraform killed during a held paid create, then destroy at once', { concurrency: 1 }, () => {
  const lane = caseLane()
  for (const client of terraformVersions().slice(0, 1))
    test(`${client.key}: the destroy names the order still in flight, the next plan its account`, { timeout: 300_000 }, async () => {
      const { em } = lane
      await freshEmulator(em, 200)
      await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
      const ids = await op.setup(em)
      const ws = await lane.workspace(client)
      await ws.write([providerBlock(), KEYPAIR].join('\n'))
      await ws.init()
      const first = await ws.apply()
      assert.equal(first.code, 0, describeRun(first))
      await ws.write([providerBlock(), KEYPAIR, block('resource', `provider_${op.resource}`, 'r', op.inputs(ids))].join('\n'))
      const fault = await em.control<{ fault_id: string }>('POST', '/faults', { ...op.order, mode: 'delay', delay_ms: HOLD_MS, count: 1 })
      const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      try {
        const { key } = await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), op.order.method, op.order.path)
        await sleep(200)
        running.signal('SIGKILL')
        await running.done
        const destroyed = await ws.destroy()
        assert.equal(destroyed.code, 0, describeRun(destroyed))
        assert.match(destroyed.stdout + destroyed.stderr, /may still make an account that no state holds/, describeRun(destroyed))
        assert.ok((destroyed.stdout + destroyed.stderr).replace(/\s+/g, '').includes(key), describeRun(destroyed))
        await heldRequestDone(em, fault.fault_id, HOLD_MS + 60_000)
        const [order] = (await em.orders()).orders.filter((o) => o.kind === op.kind)
        assert.ok(order, 'the held order was placed')
        const plan = await ws.plan()
        assert.ok(names(plan.stdout + plan.stderr, order.account_id), `the plan names account ${order.account_id}\n${describeRun(plan)}`)
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
    })
})

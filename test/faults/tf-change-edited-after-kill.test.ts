// A service holds an extra disk's +10 GB (60 to 70 GB); terraform is killed (kill -9) while it is held;
// the size is edited to 80 GB and applied while the first order is still held. That apply was planned
// from 60 GB, so its +20 GB on top of the held +10 GB would leave 90 GB paid for and a state that
// cannot plan (grow-only). It must send nothing and say when to apply again; once the held order has
// taken effect, the next apply orders the +10 GB still missing: 80 GB, two orders of +10 GB, and an
// empty plan. Against a service that ignores keys and one that honours them (the held request has its
// own key either way).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { describeRun } from '../support/e2e/harness.js'
import { caseLane, heldRequestDone, journalEntry, terraformVersions } from '../support/faults/accounted.js'
import { liteDiskWorkspace } from '../support/faults/exactly-once-cells.js'
import { sleep } from '../support/faults/matrix.js'

const HOLD_MS = 15_000

describe('a held disk upgrade, terraform killed, the size edited and applied while the order is held', { concurrency: 1 }, () => {
  const lane = caseLane()
  for (const client of terraformVersions().slice(0, 1))
    for (const keysIgnored of [true, false])
      test(`${client.key}: keys ${keysIgnored ? 'ignored' : 'honoured'}: the edited apply sends nothing; the next orders only what is missing`, {
        timeout: 300_000,
      }, async () => {
        const { ws, write, path } = await liteDiskWorkspace(lane, client, keysIgnored)
        const upgrades = async () => (await lane.em.orders()).orders.filter((o) => o.kind.endsWith('disk.upgrade'))

        const fault = await lane.em.control<{ fault_id: string }>('POST', '/faults', {
          method: 'PUT',
          path,
          mode: 'delay',
          delay_ms: HOLD_MS,
          count: 1,
        })
        await write(70)
        const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
        try {
          await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), 'PUT', path)
          await sleep(300)
          running.signal('SIGKILL')
          await running.done
        } finally {
          running.signalGroup('SIGKILL')
          await running.done.catch(() => undefined)
        }
        await write(80)
        const edited = await ws.apply()
        assert.notEqual(edited.code, 0, `the edited apply succeeded\n${describeRun(edited)}`)
        assert.match(
          edited.stdout + edited.stderr,
          /Not sending PUT \S+: a run that was stopped sent\s+another\s+change\s+of\s+it\s+at .*Apply\s+again/s,
        )

        await heldRequestDone(lane.em, fault.fault_id, HOLD_MS + 60_000)
        await sleep(1_500)
        const again = await ws.apply()
        assert.equal(again.code, 0, describeRun(again))
        const disk = await lane.em.api<{ extra_details: { size: number } }>('GET', path)
        assert.equal(disk.extra_details.size, 80, 'the service ends at the 80 GB asked')
        const placed = await upgrades()
        assert.equal(placed.length, 2, `two upgrade orders, +10 GB each: ${JSON.stringify(placed)}`)
        assert.equal((await ws.stateOf('provider_lite_disk.d')).size, 80)
        const plan = await ws.plan(['-detailed-exitcode'])
        assert.equal(plan.code, 0, `the next plan is empty\n${describeRun(plan)}`)
      })
})

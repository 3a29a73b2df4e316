// A paid change that a stopped run left open in the order journal, then the same request again later,
// under the real terraform. An extra disk grows by +10 GB (D4 sends the increment, so the second +10
// GB's request is the first one's, byte for byte):
// a. keys honoured: the first +10 is processed, its answer never arrives (the service hangs after it),
//    and terraform is stopped (Ctrl-C); the re-run shows 70 GB and has nothing to do; then 80 GB;
// b. keys ignored: the first +10's answer is lost (the connection drops after it is processed); it is not
//    sent again, and the disk's invoice for it is taken as its answer; the re-run shows 70 GB; then 80 GB.
// c. keys honoured, the first +10 GB stopped as in a; then 80 GB applied with -refresh=false, from the
//    state the stopped run saved (60 GB; the service has 70 GB, so the step's increment is +10 GB again);
// d. the first +10 GB answered and terraform killed (kill -9) during its wait; 80 GB planned (refreshed)
//    while the disk is still Pending at 60 GB, and that saved plan applied once it is Active at 70 GB.
// The second +10 must be ordered (a new order with its own key), and the service, the state and the
// next plan must agree on 80 GB: it was once answered from the first one's entry (a, c, d), or stopped
// as that unresolved order's repeat (b).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { describeRun, type RunResult } from '../support/e2e/harness.js'
import { caseLane, journalEntry, keyLines, terraformVersions } from '../support/faults/accounted.js'
import { liteDiskWorkspace } from '../support/faults/exactly-once-cells.js'
import { sleep } from '../support/faults/matrix.js'

type T = { diagnostic(message: string): void }

describe('the same paid change again after a stopped run left the first open: ordered again, nothing lost', { concurrency: 1 }, () => {
  const lane = caseLane()

  for (const client of terraformVersions()) {
    /** A workspace with one disk of `size` GB on a VM made through the API, applied. */
    async function diskOf(t: T, ignoreKeys: boolean) {
      const { ws, write, path } = await liteDiskWorkspace(lane, client, ignoreKeys)
      const served = async () => (await lane.em.api<{ extra_details: { size: number } }>('GET', path)).extra_details.size
      const upgrades = async () => (await lane.em.orders()).orders.filter((o) => o.kind.endsWith('upgrade')).length
      const active = async () => {
        for (let look = 0; look < 800 && (await lane.em.api<{ status: string }>('GET', path)).status !== 'Active'; look++) await sleep(50)
      }
      const report = (what: string, run: { code: number; stdout: string; stderr: string }) => {
        t.diagnostic(`${what}: exited ${run.code}`)
        for (const line of keyLines(run.stdout + run.stderr)) t.diagnostic(`  ${what}: ${line}`)
      }
      return { ws, write, path, served, upgrades, active, report }
    }

    /** 80 GB applied (`apply` runs it) is ordered once, and the service, the state and the next plan agree on it. */
    async function eighty(disk: Awaited<ReturnType<typeof diskOf>>, apply: () => Promise<RunResult>) {
      const { ws } = disk
      const second = await apply()
      disk.report('80 GB', second)
      assert.equal(second.code, 0, describeRun(second))
      assert.doesNotMatch(second.stdout + second.stderr, /not sent again|Not ordering/)
      await disk.active()
      assert.equal(await disk.upgrades(), 2, 'the second +10 GB is an order of its own')
      assert.equal(await disk.served(), 80)
      assert.equal((await ws.stateOf('provider_lite_disk.d')).size, 80)
      const plan = await ws.plan(['-detailed-exitcode'])
      assert.equal(plan.code, 0, `the next plan has nothing to do\n${describeRun(plan)}`)
    }

    /** The re-run at 70 GB has nothing to do; then 80 GB is ordered once, and all agree on it. */
    async function thenEighty(disk: Awaited<ReturnType<typeof diskOf>>) {
      const { ws } = disk
      await disk.active()
      assert.equal(await disk.served(), 70, 'the first +10 GB was processed')
      const rerun = await ws.apply()
      disk.report('the re-run at 70 GB', rerun)
      assert.equal(rerun.code, 0, describeRun(rerun))
      await disk.write(80)
      await eighty(disk, () => ws.apply())
    }

    /** The first +10 GB processed, its answer held back, and terraform stopped with Ctrl-C. */
    async function stoppedUnanswered(disk: Awaited<ReturnType<typeof diskOf>>) {
      const { ws } = disk
      await lane.em.control('POST', '/faults', { method: 'PUT', path: disk.path, mode: 'hang_after', count: 1 })
      await disk.write(70)
      const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      try {
        await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), 'PUT', disk.path)
        // Processed, then held without an answer: stopped as a user would.
        for (let look = 0; look < 400 && (await disk.upgrades()) === 0; look++) await sleep(25)
        assert.equal(await disk.upgrades(), 1)
        running.signalGroup('SIGINT')
        disk.report('the stopped apply', await running.done)
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
      await lane.em.control('DELETE', '/faults')
    }

    test(`${client.key}: a. keys honoured, no answer to the first +10 GB and Ctrl-C; 70 GB again, then 80 GB: ordered`, {
      timeout: 240_000,
    }, async (t) => {
      const disk = await diskOf(t, false)
      await stoppedUnanswered(disk)
      await thenEighty(disk)
    })

    test(`${client.key}: b. keys ignored, the first +10 GB's answer lost, not sent again, its invoice taken as the answer; 70 GB again, then 80 GB: ordered, no stop`, {
      timeout: 240_000,
    }, async (t) => {
      const disk = await diskOf(t, true)
      const { ws } = disk
      await lane.em.control('POST', '/faults', { method: 'PUT', path: disk.path, mode: 'drop_after', count: 1 })
      await disk.write(70)
      const lost = await ws.apply()
      disk.report('the apply whose answer was lost', lost)
      // Not sent again: the disk shows the order's invoice, which is taken as its answer, and the apply waits for it.
      const said = lost.stdout + lost.stderr
      assert.match(said, /not sent again/)
      assert.equal(lost.code, 0, describeRun(lost))
      assert.match(said.replace(/\s+/g, ' '), /account \d+ shows it placed \(invoice \d+, upgrade, Paid\), so that is taken as its answer/)
      assert.equal(await disk.upgrades(), 1)
      await thenEighty(disk)
    })

    test(`${client.key}: c. keys honoured, the first +10 GB stopped as in a; 80 GB with -refresh=false from the state it left: ordered`, {
      timeout: 240_000,
    }, async (t) => {
      const disk = await diskOf(t, false)
      await stoppedUnanswered(disk)
      await disk.active()
      assert.equal(await disk.served(), 70, 'the first +10 GB was processed')
      assert.equal((await disk.ws.stateOf('provider_lite_disk.d')).size, 60, 'the stopped run saved 60 GB')
      await disk.write(80)
      await eighty(disk, () => disk.ws.apply(['-refresh=false']))
    })

    test(`${client.key}: d. the first +10 GB answered, kill -9 in its wait; 80 GB planned while Pending, the saved plan applied once Active: ordered`, {
      timeout: 240_000,
    }, async (t) => {
      const disk = await diskOf(t, false)
      const { ws } = disk
      await lane.em.control('PATCH', '/config', { provisioning_delay_ms: 20_000 })
      await disk.write(70)
      const running = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      try {
        await journalEntry(join(ws.dir, '.terraform', 'provider-orders'), 'PUT', disk.path, 'answered')
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
      await disk.write(80)
      const planned = await ws.plan(['-out=eighty.tfplan'])
      disk.report('the plan of 80 GB while the disk is Pending', planned)
      assert.equal(planned.code, 2, `a change is planned\n${describeRun(planned)}`)
      await lane.em.control('PATCH', '/config', { provisioning_delay_ms: 200 })
      await disk.active()
      assert.equal(await disk.served(), 70, 'the first +10 GB was processed')
      await eighty(disk, () => ws.run(['apply', '-no-color', '-input=false', 'eighty.tfplan']))
    })
  }
})

// Issue 25, case 3, under the real terraform: runners A and B, two working directories with identical
// configurations and separate local states, share the order journal in PostgreSQL (`order_journal`).
// - A orders a VM and waits for it; the database restarts (an immediate shutdown, as a crash: every
//   session ends, A's included) while A still runs, and B applies meanwhile. No account may end in
//   both states (either one's destroy would delete it for the other), and every ordered account ends
//   in exactly one state or named (by its id) in A's or B's output.
// - Without the restart: A finishes, then B applies its identical configuration. B is another
//   configuration's runner, not a re-run of A: it orders its own VM and is not stopped.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { block, describeRun, type RunResult, type Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { type PostgresServer, startPostgres } from '../support/postgres.js'
import { everyRound, inTwoStates, keyLines, REPEAT, terraformVersions, unaccounted } from '../support/faults/accounted.js'
import { stateIds } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, type Ids, OPERATIONS, orderPlaced, sleep } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

describe('runners A and B sharing a PostgreSQL order journal, with separate states (issue 25, case 3)', { concurrency: 1 }, () => {
  let server: PostgresServer
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  before(async () => {
    server = await startPostgres()
  })
  after(async () => {
    await server?.stop()
  })

  function configuration(ids: Ids, journal: string): string {
    return [
      'terraform {',
      '  required_providers {',
      '    provider = { source = "provider/provider" }',
      '  }',
      '}',
      '',
      'provider "provider" {',
      '  poll_interval = "100ms"',
      `  order_journal = "${journal}"`,
      '}',
      '',
      block('resource', `provider_${op.resource}`, 'r', op.inputs(ids)),
    ].join('\n')
  }

  async function runner(client: ReturnType<typeof terraformVersions>[number], config: string): Promise<Workspace> {
    const ws = await e2e.workspace(undefined, client)
    await ws.write(config)
    await ws.init()
    return ws
  }

  function report(t: { diagnostic(message: string): void }, label: string, run: RunResult): void {
    t.diagnostic(`${label} exited ${run.code}`)
    for (const line of keyLines(run.stdout + run.stderr)) t.diagnostic(`  ${label}: ${line}`)
    assert.ok(!(run.stdout + run.stderr).includes(server.password), `the database password shows in the output of ${label}`)
  }

  for (const client of terraformVersions()) {
    test(`${client.key}: the database restarts while A waits for its VM and B applies: no account in both states, none lost (${REPEAT}×)`, {
      timeout: REPEAT * 240_000,
    }, async (t) => {
      await everyRound(REPEAT, async (round) => {
        const started = Date.now()
        // A waits long enough for the restart and B's whole apply to happen meanwhile.
        await freshEmulator(e2e.emulator, 20_000)
        const ids = await op.setup(e2e.emulator)
        const journal = await server.database()
        const config = configuration(ids, journal)
        const a = await runner(client, config)
        const b = await runner(client, config)
        const seen = (await e2e.emulator.orders()).orders.length
        const runningA = a.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
        let aEnded = false
        void runningA.done.then(
          () => {
            aEnded = true
          },
          () => {
            aEnded = true
          },
        )
        try {
          const first = await orderPlaced(e2e.emulator, op.kind, seen)
          // A has recorded the answer and now waits for the VM, with nothing to write until it is Active.
          await answeredInDatabase(journal, first)
          await server.restart()
          const stillRunning = !aEnded
          const runB = await b.apply()
          const runA = await runningA.done
          const orders = (await e2e.emulator.orders()).orders.slice(seen)
          const states = [await stateIds(a.dir), await stateIds(b.dir)]
          const output = runA.stdout + runA.stderr + runB.stdout + runB.stderr
          const shared = inTwoStates(states)
          const lost = await unaccounted(
            e2e.emulator,
            orders.map((o) => o.account_id),
            states,
            output,
          )
          t.diagnostic(
            `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; A ordered ${first}; A still ran when B started: ${stillRunning}; ` +
              `orders ${JSON.stringify(orders.map((o) => o.account_id))}; A's state ${JSON.stringify([...(states[0] ?? [])])}; ` +
              `B's state ${JSON.stringify([...(states[1] ?? [])])}; in both ${JSON.stringify(shared)}; lost ${JSON.stringify(lost)}`,
          )
          report(t, 'A', runA)
          report(t, 'B', runB)
          const runs = `round ${round}\n${describeRun(runA)}\n${describeRun(runB)}`
          assert.ok(stillRunning, `A had ended before B started: the case did not happen\n${runs}`)
          assert.deepEqual(shared, [], `accounts in both states (a destroy from either deletes the other's VM)\n${runs}`)
          assert.deepEqual(lost, [], `accounts ordered, in no state and named by no message\n${runs}`)
        } finally {
          runningA.signalGroup('SIGKILL')
          await runningA.done.catch(() => undefined)
        }
      })
    })

    test(`${client.key}: A finishes, then B applies its identical configuration: B orders its own VM and is not stopped (${REPEAT}×)`, {
      timeout: REPEAT * 120_000,
    }, async (t) => {
      await everyRound(REPEAT, async (round) => {
        const started = Date.now()
        await freshEmulator(e2e.emulator, 200)
        const ids = await op.setup(e2e.emulator)
        const config = configuration(ids, await server.database())
        const a = await runner(client, config)
        const b = await runner(client, config)
        const seen = (await e2e.emulator.orders()).orders.length
        const runA = await a.apply()
        assert.equal(runA.code, 0, describeRun(runA))
        const runB = await b.apply()
        const orders = (await e2e.emulator.orders()).orders.slice(seen)
        const states = [await stateIds(a.dir), await stateIds(b.dir)]
        t.diagnostic(
          `round ${round}: ${Math.round((Date.now() - started) / 1000)} s; orders ${JSON.stringify(orders.map((o) => o.account_id))}; ` +
            `A's state ${JSON.stringify([...(states[0] ?? [])])}; B's state ${JSON.stringify([...(states[1] ?? [])])}`,
        )
        report(t, 'B', runB)
        const text = runB.stdout + runB.stderr
        assert.doesNotMatch(text, /Not ordering/, `B was stopped\n${describeRun(runB)}`)
        assert.equal(runB.code, 0, describeRun(runB))
        assert.deepEqual(byKind(orders), { [op.kind]: 2 }, `each runner orders its own VM\n${describeRun(runB)}`)
        assert.deepEqual(inTwoStates(states), [], 'no account in both states')
        assert.equal(states[1]?.size, 1, "B's state holds its VM")
      })
    })
  }
})

/** Resolves once the journal's table records the order of `accountId` as answered (bounded). */
async function answeredInDatabase(url: string, accountId: string, limitMs = 30_000): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const until = Date.now() + limitMs
    for (;;) {
      const { rows } = await client.query<{ state: string }>('SELECT state FROM provider_order_journal WHERE account_id = $1', [accountId])
      if (rows.some((r) => r.state === 'answered')) return
      if (Date.now() > until) throw new Error(`the journal does not record account ${accountId} as answered within ${limitMs} ms`)
      await sleep(50)
    }
  } finally {
    await client.end()
  }
}

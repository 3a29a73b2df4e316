// Issue 15, runners that share no disk: each runner is its own working directory (its own .terraform,
// nothing shared on disk), with the state in Terraform's `pg` backend and the order journal in the
// same PostgreSQL server (`order_journal`), as a team's CI runners or Atlantis would have them.
// - a runner killed mid-order (the whole runner, or its terraform alone while the provider waits on),
//   and the re-run on another runner: one order, no stop, and every runner then plans no change;
// - two runners racing on one configuration: one order, no stop.
// Without the shared journal the re-run stops (a fresh directory cannot tell the killed run's
// account from another's: tf-other-machine.test.ts). Only clients that carry the `pg` backend run
// this (Terraform 1.16.4 as built here does not: see tools/README.md).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type PostgresServer, startPostgres } from '../support/postgres.js'
import { type Tool, terraformClients } from '../support/tools.js'
import { block, describeRun, diagnostics, type RunResult, type Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { childrenOf } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS, orderPlaced } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]

/**
 * The clients whose build carries the `pg` state backend: asked, not assumed. A real one tries to
 * connect (to a port where nothing listens); a stand-in refuses the configuration.
 */
function clientsWithPgBackend(): { key: string; tool: Tool }[] {
  const dir = mkdtempSync(join(tmpdir(), 'provider-pg-probe-'))
  try {
    writeFileSync(join(dir, 'main.tf'), 'terraform {\n  backend "pg" {\n    conn_str = "postgres://probe@127.0.0.1:1/none"\n  }\n}\n')
    return terraformClients()
      .filter((client) => {
        const probe = spawnSync(client.tool.bin, ['init', '-input=false', '-no-color'], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
        rmSync(join(dir, '.terraform'), { recursive: true, force: true })
        return /connection refused/i.test(`${probe.stdout}${probe.stderr}`)
      })
      .map((client) => ({ key: client.name.replace(' ', '-'), tool: client.tool }))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('runners that share no disk: the order journal in PostgreSQL', { concurrency: 1 }, () => {
  let server: PostgresServer
  const e2e = useEmulatorWorkspace({ workspace: false })
  let schema = 0

  before(async () => {
    server = await startPostgres()
  })
  after(async () => {
    await server?.stop()
  })

  /**
   * One configuration, as every runner of a team checks it out: the state and the journal in the shared
   * database. `schemaFromEnvironment`: the backend block leaves `schema_name` out, for PG_SCHEMA_NAME to give.
   */
  function configuration(ids: Record<string, number>, schemaFromEnvironment = false): string {
    if (!schemaFromEnvironment) schema++
    return [
      'terraform {',
      '  required_providers {',
      '    provider = { source = "provider/provider" }',
      '  }',
      '  backend "pg" {',
      `    conn_str    = "${server.url}?sslmode=disable"`,
      ...(schemaFromEnvironment ? [] : [`    schema_name = "runners_${schema}"`]),
      '  }',
      '}',
      '',
      'provider "provider" {',
      '  poll_interval = "100ms"',
      `  order_journal = "${server.url}"`,
      '}',
      '',
      block('resource', `provider_${op.resource}`, 'r', op.inputs(ids)),
    ].join('\n')
  }

  async function runnerFor(client: ReturnType<typeof clientsWithPgBackend>[number], config: string): Promise<Workspace> {
    const ws = await e2e.workspace(undefined, client)
    await ws.write(config)
    await ws.init()
    return ws
  }

  function assertClean(runs: readonly RunResult[]): void {
    for (const run of runs) {
      const text = run.stdout + run.stderr
      assert.doesNotMatch(text, /Not ordering/, describeRun(run))
      assert.ok(!text.includes(server.password), `the database password shows in the output of ${run.args.join(' ')}`)
    }
  }

  const clients = clientsWithPgBackend()
  test('some pinned client carries the pg backend', () => {
    assert.ok(clients.length > 0, 'no pinned terraform or tofu has the pg backend: nothing below runs')
  })

  for (const client of clients) {
    for (const kill of ['the whole runner', 'terraform alone, its provider waiting on'] as const) {
      test(`${client.key}: ${kill} killed mid-order, the re-run on another runner orders nothing more and stops nothing`, {
        timeout: 240_000,
      }, async () => {
        await freshEmulator(e2e.emulator, 3_000)
        const ids = await op.setup(e2e.emulator)
        const config = configuration(ids)
        const first = await runnerFor(client, config)
        const second = await runnerFor(client, config)
        const seen = (await e2e.emulator.orders()).orders.length
        const running = first.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
        try {
          const accountId = await orderPlaced(e2e.emulator, op.kind, seen)
          if (kill === 'the whole runner') running.signalGroup('SIGKILL')
          else {
            // The provider outlives its engine for a moment: its journal session, and the entry, are still live.
            assert.ok(childrenOf(running.pid).length > 0, 'the provider runs')
            running.signal('SIGKILL')
          }
          await running.done
          const { value: rerun, orders } = await e2e.emulator.effectsOf(() => second.apply())
          assert.equal(rerun.code, 0, describeRun(rerun))
          assert.deepEqual(byKind(orders), {}, `a second ${op.kind} was ordered\n${describeRun(rerun)}`)
          assert.equal(String((await e2e.emulator.orders()).orders.slice(seen).length), '1')
          const again = await first.plan()
          const other = await second.plan()
          assert.equal(again.code, 0, `the killed runner's directory plans a change\n${describeRun(again)}`)
          assert.equal(other.code, 0, describeRun(other))
          assertClean([rerun, again, other])
          assert.match(rerun.stdout + rerun.stderr, new RegExp(accountId), "the re-run manages the killed run's account")
        } finally {
          running.signalGroup('SIGKILL')
          await running.done.catch(() => undefined)
        }
      })
    }

    test(`${client.key}: one state configured two ways (schema_name written out on one runner, PG_SCHEMA_NAME on the other), killed mid-order on the first: the other takes the order over, one order`, {
      timeout: 240_000,
    }, async () => {
      await freshEmulator(e2e.emulator, 3_000)
      const ids = await op.setup(e2e.emulator)
      const laptop = await runnerFor(client, configuration(ids))
      // The same state: its schema comes from the environment, which terraform init records as null.
      const env = { PG_SCHEMA_NAME: `runners_${schema}` }
      const ci = await e2e.workspace(undefined, client)
      await ci.write(configuration(ids, true))
      await ci.ok(['init', '-no-color', '-input=false'], { env })
      const seen = (await e2e.emulator.orders()).orders.length
      const running = laptop.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      try {
        const accountId = await orderPlaced(e2e.emulator, op.kind, seen)
        running.signalGroup('SIGKILL')
        await running.done
        const { value: rerun, orders } = await e2e.emulator.effectsOf(() =>
          ci.run(['apply', '-no-color', '-input=false', '-auto-approve'], { env }),
        )
        assert.equal(rerun.code, 0, describeRun(rerun))
        assert.deepEqual(byKind(orders), {}, `a second ${op.kind} was ordered\n${describeRun(rerun)}`)
        assert.equal(String((await e2e.emulator.orders()).orders.slice(seen).length), '1')
        assert.match(rerun.stdout + rerun.stderr, /sent by a stopped run under another identity/, describeRun(rerun))
        assert.match(rerun.stdout + rerun.stderr, new RegExp(accountId), "the re-run manages the killed run's account")
        const again = await laptop.plan()
        const other = await ci.run(['plan', '-no-color', '-input=false', '-detailed-exitcode'], { env })
        assert.equal(again.code, 0, `the killed runner's directory plans a change\n${describeRun(again)}`)
        assert.equal(other.code, 0, describeRun(other))
        assertClean([rerun, again, other])
      } finally {
        running.signalGroup('SIGKILL')
        await running.done.catch(() => undefined)
      }
    })

    test(`${client.key}: two runners racing on one configuration order once and stop nothing`, { timeout: 240_000 }, async () => {
      await freshEmulator(e2e.emulator, 1_500)
      const ids = await op.setup(e2e.emulator)
      const config = configuration(ids)
      const runners = [await runnerFor(client, config), await runnerFor(client, config)]
      const seen = (await e2e.emulator.orders()).orders.length
      // The state lock serialises them; whichever runs second finds the VM in the shared state.
      const runs = await Promise.all(runners.map((ws) => ws.apply(['-lock-timeout=180s'])))
      for (const run of runs) assert.equal(run.code, 0, describeRun(run))
      assert.deepEqual(byKind((await e2e.emulator.orders()).orders.slice(seen)), { [op.kind]: 1 })
      assertClean(runs)
      for (const ws of runners) {
        const plan = await ws.plan(['-lock-timeout=60s'])
        assert.equal(plan.code, 0, describeRun(plan))
      }
      assert.deepEqual(diagnostics(runs.map((r) => r.stdout + r.stderr).join('\n')), [])
    })
  }
})

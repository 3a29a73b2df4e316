// Issue 8, the Pulumi side of settling: a create whose outcome went back to an engine that was then
// killed (before it saved its checkpoint), or that closed the plugin as it does at the end of a run
// (SIGINT to the plugin), is never given to the next `up` of the same URN and inputs (issue 25: the
// account may be in that engine's state, and two states holding one account destroy it for each
// other): that create stops naming the account and the import, with no second order, and orders anew
// with PROVIDER_ALLOW_UNRECORDED_MATCH=1. Each plugin runs under an engine stand-in of its own (a
// `sh`), as each `pulumi up` is its own process. Both with the journal in a directory and in
// PostgreSQL (the `orderJournal` setting of runners that share no disk), where the close's settling
// is written to the database before the plugin exits.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/names.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { type PostgresServer, startPostgres } from '../support/postgres.js'
import { Plugin, startFakeEngine, urnOf } from '../support/pulumi/plugin-harness.js'
import { childrenOf } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')

describe('a Pulumi create handed to an engine that may not have saved it (issue 8)', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let engine: Awaited<ReturnType<typeof startFakeEngine>>
  let postgres: PostgresServer
  before(async () => {
    engine = await startFakeEngine()
    postgres = await startPostgres()
  })
  after(async () => {
    engine?.stop()
    await postgres?.stop()
  })

  /** A directory in the environment, or a database in the provider's configuration. */
  async function plugin(journal: string, env: Record<string, string> = {}): Promise<Plugin> {
    const database = journal.startsWith('postgresql://')
    const launched = await Plugin.launch(
      engine.address,
      { ...(database ? {} : { PROVIDER_ORDER_JOURNAL: journal }), ...env },
      { viaShell: true },
    )
    await launched.configure({
      apiKey: e2e.emulator.apiKey,
      baseUrl: e2e.emulator.baseUrl,
      pollInterval: '100ms',
      ...(database ? { orderJournal: journal } : {}),
    })
    return launched
  }

  for (const where of ['a directory', 'PostgreSQL'] as const)
    for (const ending of ['SIGKILL', 'SIGINT'] as const) {
      const title =
        ending === 'SIGKILL'
          ? 'the plugin killed after its create returned: the next up of the URN stops naming the account, no order; allowed, it orders anew'
          : 'the plugin closed by the engine after its run: the next up of the URN stops naming the account; allowed, it orders anew'
      test(`${where}: ${title}`, { timeout: 60_000 }, async () => {
        await freshEmulator(e2e.emulator, 200)
        const directory = await mkdtemp(join(tmpdir(), 'pulumi-settle-'))
        const journal = where === 'a directory' ? directory : await postgres.database()
        try {
          const ids = await op.setup(e2e.emulator)
          const seen = (await e2e.emulator.orders()).orders.length
          const program = Object.fromEntries(Object.entries(op.inputs(ids)).map(([k, v]) => [toCamel(k), v])) as WireMap
          const first = await plugin(journal)
          const created = await first.create(urn, (await first.check(urn, program)).inputs)
          // The plugin itself, under its engine stand-in; the stand-in exits with it.
          const exited = new Promise((resolve) => first.child.once('exit', resolve))
          const [pluginPid] = childrenOf(first.child.pid as number)
          assert.ok(pluginPid !== undefined, 'the plugin runs under its engine stand-in')
          process.kill(pluginPid, ending)
          await exited
          await first.stop()

          const second = await plugin(journal)
          try {
            const inputs = (await second.check(urn, program)).inputs
            const refused = await second.create(urn, inputs).then(
              () => assert.fail('ordered again, or took the account, although an earlier run handed it over'),
              (error: Error & { details?: string }) => `${error.message}\n${error.details ?? ''}`,
            )
            assert.match(
              refused,
              new RegExp(
                `account ${created.id} was ordered from ${where === 'a directory' ? 'this working directory' : 'the runners sharing this order journal'}`,
              ),
            )
            assert.match(refused, /pulumi import/)
            assert.deepEqual(byKind((await e2e.emulator.orders()).orders.slice(seen)), { [op.kind]: 1 })
          } finally {
            await second.stop()
          }
          {
            const third = await plugin(journal, { PROVIDER_ALLOW_UNRECORDED_MATCH: '1' })
            try {
              const again = await third.create(urn, (await third.check(urn, program)).inputs)
              assert.notEqual(again.id, created.id)
              assert.deepEqual(byKind((await e2e.emulator.orders()).orders.slice(seen)), { [op.kind]: 2 })
            } finally {
              await third.stop()
            }
          }
        } finally {
          await rm(directory, { recursive: true, force: true })
        }
      })
    }
})

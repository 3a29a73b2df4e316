// Issue 8, the Pulumi side of settling: a create whose outcome went back to an engine that was then
// killed (before it saved its checkpoint) is taken back by the next `up` of the same URN and inputs,
// with no second order; after the engine closed the plugin as it does at the end of a run (SIGINT to
// the plugin's process group), the same create stops naming the account (`pulumi state delete`, then
// `up`, looks like a state lost after the close), and orders anew with PROVIDER_ALLOW_UNRECORDED_MATCH=1.
// Both with the journal in a directory and in PostgreSQL (the `orderJournal` setting of runners that
// share no disk), where the close's settling is written to the database before the plugin exits.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/names.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { Emulator } from '../e2e/harness.js'
import { type PostgresServer, startPostgres } from '../postgres.js'
import { Plugin, startFakeEngine, urnOf } from '../pulumi-harness.js'
import { byKind, freshEmulator, OPERATIONS } from './matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create') as (typeof OPERATIONS)[number]
const urn = urnOf(`provider:index:${toPascal(op.resource)}`, 'r')

describe('a Pulumi create handed to an engine that may not have saved it (issue 8)', { concurrency: 1 }, () => {
  let em: Emulator
  let engine: Awaited<ReturnType<typeof startFakeEngine>>
  let postgres: PostgresServer
  before(async () => {
    em = await Emulator.start({ provisioningDelayMs: 200 })
    engine = await startFakeEngine()
    postgres = await startPostgres()
  })
  after(async () => {
    engine?.stop()
    await em?.stop()
    await postgres?.stop()
  })

  /** A directory in the environment, or a database in the provider's configuration. */
  async function plugin(journal: string, env: Record<string, string> = {}): Promise<Plugin> {
    const database = journal.startsWith('postgresql://')
    const launched = await Plugin.launch(engine.address, { ...(database ? {} : { PROVIDER_ORDER_JOURNAL: journal }), ...env })
    await launched.configure({
      apiKey: em.apiKey,
      baseUrl: em.baseUrl,
      pollInterval: '100ms',
      ...(database ? { orderJournal: journal } : {}),
    })
    return launched
  }

  for (const where of ['a directory', 'PostgreSQL'] as const)
    for (const ending of ['SIGKILL', 'SIGINT'] as const) {
      const title =
        ending === 'SIGKILL'
          ? 'the plugin killed after its create returned: the next create of the URN gets the same account, no order'
          : 'the plugin closed by the engine after its run: the next create of the URN stops naming the account; allowed, it orders anew'
      test(`${where}: ${title}`, { timeout: 60_000 }, async () => {
        await freshEmulator(em, 200)
        const directory = await mkdtemp(join(tmpdir(), 'pulumi-settle-'))
        const journal = where === 'a directory' ? directory : await postgres.database()
        try {
          const ids = await op.setup(em)
          const seen = (await em.orders()).orders.length
          const program = Object.fromEntries(Object.entries(op.inputs(ids)).map(([k, v]) => [toCamel(k), v])) as WireMap
          const first = await plugin(journal)
          const created = await first.create(urn, (await first.check(urn, program)).inputs)
          const exited = new Promise((resolve) => first.child.once('exit', resolve))
          first.child.kill(ending)
          await exited
          await first.stop()

          const second = await plugin(journal)
          try {
            const inputs = (await second.check(urn, program)).inputs
            if (ending === 'SIGKILL') {
              const again = await second.create(urn, inputs)
              assert.equal(again.id, created.id)
              assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 1 })
            } else {
              const refused = await second.create(urn, inputs).then(
                () => assert.fail('ordered again although the closed run handed its account over'),
                (error: Error & { details?: string }) => `${error.message}\n${error.details ?? ''}`,
              )
              assert.match(
                refused,
                new RegExp(
                  `account ${created.id} was ordered from ${where === 'a directory' ? 'this working directory' : 'the runners sharing this order journal'}`,
                ),
              )
              assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 1 })
            }
          } finally {
            await second.stop()
          }
          if (ending === 'SIGINT') {
            const third = await plugin(journal, { PROVIDER_ALLOW_UNRECORDED_MATCH: '1' })
            try {
              const again = await third.create(urn, (await third.check(urn, program)).inputs)
              assert.notEqual(again.id, created.id)
              assert.deepEqual(byKind((await em.orders()).orders.slice(seen)), { [op.kind]: 2 })
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

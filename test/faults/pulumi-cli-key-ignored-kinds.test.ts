// pulumi-cli-key-ignored.test.ts for other order kinds. A service that ignores Idempotency-Key
// holds the order; `pulumi up` is stopped (kill -9 or SIGINT) once the journal entry exists; the stack is
// recovered as the guide says and `pulumi up` runs again, then once more. One order of the kind, every
// account in the stack or named. By default a create of each family's kind and an upgrade, killed (each
// cell takes a minute of pulumi runs; tf-key-ignored-held-kinds covers every kind and both stops under
// terraform); HELD_OPS=all, or a list of operations, and HELD_STOPS=SIGKILL,SIGINT widen it.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { toCamel, toPascal } from '../../src/core/index.js'
import { heldRequestDone, journalEntry, keyLines, unaccounted } from '../support/faults/accounted.js'
import { byKind, freshEmulator, OPERATIONS, sleep } from '../support/faults/matrix.js'
import { type CliRun, describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const only = process.env.HELD_OPS?.split(',').filter(Boolean)
const DEFAULT_OPS = ['metal-create', 'snapshot-create', 'disk-upgrade']
const chosen = (key: string) => (only?.includes('all') ? true : (only ?? DEFAULT_OPS).includes(key))
const ops = OPERATIONS.filter((o) => chosen(o.key) && o.key !== 'vm-migrate')
const stops = (process.env.HELD_STOPS ?? 'SIGKILL').split(',')
const holdMs = Number(process.env.HELD_MS ?? 4000)

describe('pulumi: key-ignoring service holds the order of every kind; up stopped and run again', { concurrency: 1 }, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 200 })
  let home: PulumiHome
  let stacks = 0
  before(async () => {
    home = await PulumiHome.create(e2e.emulator)
  })
  for (const op of ops)
    for (const stop of stops)
      test(`pulumi: ${op.key} held ${holdMs} ms, ${stop}, recover and up again`, { timeout: 300_000 }, async (t) => {
        const em = e2e.emulator
        await freshEmulator(em, 200)
        await em.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: true } })
        const ids = await op.setup(em)
        const props = (changing: boolean) =>
          Object.fromEntries(Object.entries({ ...op.inputs(ids), ...(changing ? (op.change ?? {}) : {}) }).map(([k, v]) => [toCamel(k), v]))
        const name = `held-kinds-${++stacks}`
        const program = (changing: boolean) =>
          JSON.stringify(
            {
              name,
              runtime: 'yaml',
              resources: {
                r: {
                  type: `provider:index:${toPascal(op.resource)}`,
                  properties: props(changing),
                  ...(op.existing && !changing ? { options: { import: String(op.existing(ids)) } } : {}),
                },
              },
            },
            null,
            2,
          )
        const stack = await Stack.init(home, name, 'dev', { 'Pulumi.yaml': program(false) })
        await stack.setConfig({ 'provider:pollInterval': '100ms' })
        if (op.existing) {
          const imported = await stack.withEvents(['up', '--yes', '--skip-preview'])
          assert.equal(imported.run.code, 0, describeCli(imported.run))
        }
        await writeFile(join(stack.dir, 'Pulumi.yaml'), program(true))
        const seen = (await em.orders()).orders.length
        const fault = await em.control<{ fault_id: string }>('POST', '/faults', {
          method: op.order.method,
          path: op.order.path,
          mode: 'delay',
          delay_ms: holdMs,
          count: 1,
        })
        const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
        try {
          await journalEntry(join(stack.dir, '.provider-orders'), op.order.method, op.order.path).catch(async (e: Error) => {
            throw new Error(`${e.message}\n${describeCli((await done).run)}`)
          })
          await sleep(200)
          if (stop === 'SIGKILL') child.kill('SIGKILL')
          else if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT')
          const first = (await done).run
          const recovery: CliRun[] = []
          if (stop === 'SIGKILL') recovery.push(await stack.run(['cancel', '--yes']))
          const pending = (await stack.export()).deployment.pending_operations ?? []
          if (pending.length > 0) recovery.push((await stack.refresh(['--clear-pending-creates'])).run)
          const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
          await heldRequestDone(em, fault.fault_id, holdMs + 60_000)
          await sleep(1000)
          const third = await stack.withEvents(['up', '--yes', '--skip-preview'])
          const orders = (await em.orders()).orders.slice(seen)
          const kept = new Set(Object.values(await stack.resources()).flatMap((r) => (r.id ? [r.id] : [])))
          const output = [...recovery.map((r) => r.stdout + r.stderr), again.output, third.output].join('\n')
          const lost = await unaccounted(
            em,
            orders.map((o) => o.account_id),
            [kept],
            output,
          )
          t.diagnostic(
            `first ${first.code ?? first.signal}; pending ${pending.length}; again ${again.run.code}; third ${third.run.code}; orders ${JSON.stringify(byKind(orders))} ${JSON.stringify(orders.map((o) => o.account_id))}; stack ${JSON.stringify([...kept])}; lost ${JSON.stringify(lost)}`,
          )
          for (const line of keyLines(again.output)) t.diagnostic(`  again: ${line}`)
          for (const line of keyLines(third.output)) t.diagnostic(`  third: ${line}`)
          const runs = `${describeCli(first)}\n${recovery.map(describeCli).join('\n')}\n${describeCli(again.run)}\n${describeCli(third.run)}`
          assert.deepEqual(lost, [], `accounts lost\n${runs}`)
          assert.equal(byKind(orders)[op.kind] ?? 0, 1, `orders of ${op.kind}\n${runs}`)
          assert.equal(third.run.code, 0, `third up\n${runs}`)
        } finally {
          if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL')
          await done.catch(() => undefined)
        }
      })
})

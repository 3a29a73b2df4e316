// The case no journal can cover: terraform killed during a create's wait, and the re-run on another
// machine (here: another working directory, with the same state and no order journal), against a
// service that ignores Idempotency-Keys and against one that honours them (the killed run's key went
// with its journal). The re-run must not order a second account: it stops, naming the account and
// the import command; the import then makes it managed.
import assert from 'node:assert/strict'
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, diagnostics } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { providerBlock } from '../support/faults/exactly-once-cells.js'
import { byKind, freshEmulator, OPERATIONS, orderPlaced, sleep } from '../support/faults/matrix.js'

const op = OPERATIONS.find((o) => o.key === 'lite-vm-create')
if (!op) throw new Error('the matrix has no lite-vm-create operation')
const ADDRESS = `provider_${op.resource}.r`

describe('a re-run on another machine after a hard kill', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })

  for (const ignoresKeys of [true, false]) {
    test(`${ignoresKeys ? 'a service that ignores keys' : 'a service that honours keys'}: stops with the account and the import command instead of ordering again; imported, nothing more is ordered`, async () => {
      await freshEmulator(e2e.emulator, 2500)
      await e2e.emulator.control('PATCH', '/config', { quirks: { ignore_idempotency_keys: ignoresKeys } })
      const ids = await op.setup(e2e.emulator)
      const config = [providerBlock(), block('resource', `provider_${op.resource}`, 'r', op.inputs(ids))].join('\n')

      const first = await e2e.workspace()
      await first.write(config)
      await first.init()
      const running = first.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      const accountId = await orderPlaced(e2e.emulator, op.kind, 0)
      await sleep(300)
      running.signal('SIGKILL')
      await running.done

      // Another machine: the same configuration and state (whatever the killed run had saved), no journal.
      const second = await e2e.workspace()
      await second.write(config)
      await copyFile(join(first.dir, 'terraform.tfstate'), join(second.dir, 'terraform.tfstate')).catch(() => undefined)
      await second.init()
      const { value: rerun, orders } = await e2e.emulator.effectsOf(() => second.apply())
      assert.equal(rerun.code, 1, describeRun(rerun))
      assert.deepEqual(orders, [], `a second account was ordered\n${describeRun(rerun)}`)
      const text = diagnostics(rerun.stdout + rerun.stderr).join('\n')
      assert.match(text, /Not ordering POST/)
      assert.match(text, new RegExp(`account ${accountId}`))
      assert.match(text, /terraform\s+import/)

      const imported = await second.import(ADDRESS, accountId)
      assert.equal(imported.code, 0, describeRun(imported))
      const { value: converged, orders: more } = await e2e.emulator.effectsOf(() => second.apply())
      assert.equal(converged.code, 0, describeRun(converged))
      assert.deepEqual(byKind(more), {}, 'nothing is ordered once the account is imported')
      assert.equal(String((await second.stateOf(ADDRESS)).id), accountId)
    })
  }
})

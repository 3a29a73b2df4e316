// Issue 8 case 7 through the real terraform CLI: a one-shot destructive action (the ACTIONS of
// test/support/faults/matrix.ts: rebuild_os of a Lite VM and of a Metal server, a Metal reset) cut short by
// SIGKILL of terraform or of the provider during its wait (a held read for the reset), then applied
// again. The service must have run each action once (its request log: processed, not replayed).
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun } from '../support/e2e/harness.js'
import { childrenOf, exitOf, oneLane, providerBlock } from '../support/faults/exactly-once-cells.js'
import { ACTIONS, actionSent, actionsRun, faultsOf, freshEmulator, sleep } from '../support/faults/matrix.js'
import { Report, recordCell } from '../support/faults/report.js'

const report = new Report('terraform-rebuild-once')

describe('a rebuild or reset runs once through kills (issue 8 case 7)', { concurrency: 1 }, () => {
  const lane = oneLane()

  for (const action of ACTIONS) {
    for (const fault of faultsOf('jk')) {
      test(`${action.title} × ${fault.title}`, { timeout: 120_000 }, async () => {
        const { em, ws } = lane
        await freshEmulator(em, fault.provisioningDelayMs)
        for (const name of ['terraform.tfstate', 'terraform.tfstate.backup']) await rm(join(ws.dir, name), { force: true })
        await rm(join(ws.dir, '.terraform', 'provider-orders'), { recursive: true, force: true })
        const { id, inputs } = await action.setup(em)
        const resource = block('resource', `provider_${action.resource}`, 'r', { ...inputs, [action.input]: action.value })
        await ws.write([providerBlock(), `import {\n  to = provider_${action.resource}.r\n  id = "${id}"\n}\n`, resource].join('\n'))
        await ws.init()
        let args = ['apply', '-no-color', '-input=false', '-auto-approve']
        if (action.hold) {
          // The rules hold the read after the action: the plan's refresh must not meet them.
          const planned = await ws.plan(['-out=fault.tfplan'])
          assert.equal(planned.code, 2, describeRun(planned))
          args = ['apply', '-no-color', '-input=false', 'fault.tfplan']
          for (const rule of action.hold) await em.control('POST', '/faults', rule)
        }

        const running = ws.launch(args)
        await actionSent(em, action)
        await sleep(300)
        const provider = childrenOf(running.pid).find(() => true)
        assert.ok(provider, 'the provider process was found')
        if (fault.trigger === 'kill-engine') running.signal('SIGKILL')
        else process.kill(provider, 'SIGKILL')
        const first = await running.done
        const providerExited = (await exitOf(provider)) >= 0
        await em.control('DELETE', '/faults')

        const again = await ws.apply()
        const final = await ws.plan()
        recordCell(
          report,
          {
            front: 'terraform',
            op: action.key,
            fault: fault.key,
            intended: { [action.key]: 1 },
            placed: { [action.key]: await actionsRun(em, action) },
            lost: [],
            outcome: first.code === -1 ? 'killed' : `rc ${first.code}`,
            converged: final.code === 0,
            rerunOk: again.code === 0,
            also: [[providerExited, 'the provider did not exit']],
          },
          `${describeRun(first)}\n${describeRun(again)}\n${describeRun(final)}`,
        )
      })
    }
  }
})

// Issue 25, case 8, under the real terraform: what the user is told when an order gets no clear
// answer, and what a plan says of an order an earlier run placed. A 500 on every VM order ends with
// the status and the service's text, not "No answer"; a 429 on every one says that nothing was
// processed and the order was not placed, and the next apply orders at once; a re-run after a kill
// that adopts the killed run's order (a create's, or an in-place change's) does not price it as a new one.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { block, describeRun, providerBlocks, type RunResult, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { journalEntries, terraformVersions } from '../support/faults/accounted.js'
import { sleep } from '../support/faults/matrix.js'

const KEYPAIR = block('resource', 'provider_lite_keypair', 'k', { name: 'messages-key' })

/** A Lite VM of product 101 (60000 a month), with its create timeout when given. */
function vm(createTimeout?: string): string {
  const body = block('resource', 'provider_lite_vm', 'vm', {
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    cycle: 'm',
    vm_name: 'messages-vm',
  }).replace(/\n}\n$/, '\n  keypair_id = provider_lite_keypair.k.keypair_id\n')
  return `${body}${createTimeout ? `  timeouts {\n    create = "${createTimeout}"\n  }\n` : ''}}\n`
}

/** A command's output on one line: terraform wraps the detail of a diagnostic at the terminal width. */
function flat(run: RunResult): string {
  return (run.stdout + run.stderr).replace(/\s+/g, ' ')
}

describe('what terraform shows of an order without a clear answer, under every pinned Terraform (issue 25, case 8)', {
  concurrency: 1,
}, () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 0 })
  let ws: Workspace
  after(async () => {
    await ws?.cleanup()
  })

  async function freshWorkspace(client: (typeof clients)[number], provisioningDelayMs: number): Promise<void> {
    await ws?.cleanup()
    await e2e.emulator.reset()
    await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: provisioningDelayMs })
    ws = await Workspace.create(e2e.emulator, undefined, client)
    await ws.write([providerBlocks(), KEYPAIR].join('\n'))
    const keyed = await ws.apply()
    assert.equal(keyed.code, 0, describeRun(keyed))
  }

  const clients = terraformVersions()
  for (const client of clients) {
    test(`${client.key}: 500 on every VM order: the error names the status and the service text, not "No answer"`, async () => {
      await freshWorkspace(client, 0)
      await ws.write([providerBlocks(), KEYPAIR, vm('15s')].join('\n'))
      await e2e.emulator.control('POST', '/faults', {
        method: 'POST',
        path: '/lites',
        mode: 'error',
        status: 500,
        count: -1,
        detail: 'database unavailable',
      })
      const { value: run, orders } = await e2e.emulator.effectsOf(() => ws.apply())
      assert.equal(run.code, 1, describeRun(run))
      const text = flat(run)
      assert.match(text, /500 "database unavailable"/, describeRun(run))
      assert.match(text, /all \d+ attempts over/, describeRun(run))
      assert.doesNotMatch(text, /No answer to POST \/lites/, describeRun(run))
      assert.deepEqual(orders, [])
    })

    test(`${client.key}: 429 on every VM order: nothing was processed, the order was not placed; the next apply orders it at once`, async () => {
      await freshWorkspace(client, 0)
      await ws.write([providerBlocks(), KEYPAIR, vm('15s')].join('\n'))
      const fault = await e2e.emulator.control<{ fault_id: string }>('POST', '/faults', {
        method: 'POST',
        path: '/lites',
        mode: 'error',
        status: 429,
        retry_after_s: 1,
        count: -1,
        detail: 'too many orders',
      })
      const run = await ws.apply()
      assert.equal(run.code, 1, describeRun(run))
      const text = flat(run)
      assert.match(text, /was not placed/, describeRun(run))
      assert.match(text, /429 "too many orders"/, describeRun(run))
      assert.match(text, /nothing was processed/, describeRun(run))
      assert.doesNotMatch(text, /may have been placed/, describeRun(run))
      await e2e.emulator.control('DELETE', `/faults/${fault.fault_id}`)
      const { value: again, orders } = await e2e.emulator.effectsOf(() => ws.apply())
      assert.equal(again.code, 0, describeRun(again))
      assert.deepEqual(
        orders.map((o) => o.kind),
        ['lite.vm.create'],
      )
    })

    test(`${client.key}: a re-run that adopts the order of a killed run does not price it as a new order`, async () => {
      // The VM stays Pending long enough for the kill to come while the create waits.
      await freshWorkspace(client, 60_000)
      await ws.write([providerBlocks(), KEYPAIR, vm()].join('\n'))
      const seen = (await e2e.emulator.orders()).orders.length
      const launched = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      let answered: string | undefined
      for (let round = 0; round < 300 && answered === undefined; round++) {
        answered = (await journalEntries(join(ws.dir, '.terraform', 'provider-orders'))).find((e) => e.state === 'answered')?.accountId
        if (answered === undefined) await sleep(100)
      }
      // terraform and its provider together, as a CI runner's kill takes them.
      launched.signalGroup('SIGKILL')
      await launched.done.catch(() => undefined)
      assert.ok(answered !== undefined, 'the order was answered while the create waited')
      const placed = (await e2e.emulator.orders()).orders.slice(seen)
      assert.deepEqual(
        placed.map((o) => o.account_id),
        [answered],
      )

      const plan = await ws.plan()
      assert.equal(plan.code, 2, describeRun(plan))
      const text = flat(plan)
      assert.doesNotMatch(text, /This plan places paid orders: 60000/, describeRun(plan))
      assert.match(text, new RegExp(`This plan adopts an order placed by an earlier run: account ${answered}`), describeRun(plan))

      await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: 0 })
      const { value: applied, orders } = await e2e.emulator.effectsOf(() => ws.apply())
      assert.equal(applied.code, 0, describeRun(applied))
      assert.deepEqual(orders, [], 'the apply adopted the order, as the plan said')
      assert.equal(String((await ws.stateOf('provider_lite_vm.vm')).id), answered)
    })

    test(`${client.key}: a re-run that takes over the package change of a killed run prices nothing, and max_order_total does not refuse it`, async () => {
      await freshWorkspace(client, 0)
      await ws.write([providerBlocks(), KEYPAIR, vm()].join('\n'))
      const created = await ws.apply()
      assert.equal(created.code, 0, describeRun(created))
      // The change stays Pending long enough for the kill to come while it waits.
      await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: 60_000 })
      const bigger = vm().replace(/product_id(\s+)= 101/, 'product_id$1= 102')
      assert.notEqual(bigger, vm())
      await ws.write([providerBlocks(), KEYPAIR, bigger].join('\n'))
      const seen = (await e2e.emulator.orders()).orders.length
      const launched = ws.launch(['apply', '-no-color', '-input=false', '-auto-approve'])
      let answered = false
      const journal = join(ws.dir, '.terraform', 'provider-orders')
      for (let round = 0; round < 300 && !answered; round++) {
        answered = (await journalEntries(journal)).some((e) => e.state === 'answered' && e.path.includes('change-package'))
        if (!answered) await sleep(100)
      }
      launched.signalGroup('SIGKILL')
      await launched.done.catch(() => undefined)
      assert.ok(answered, 'the package change was answered while it waited')
      assert.deepEqual(
        (await e2e.emulator.orders()).orders.slice(seen).map((o) => o.kind),
        ['lite.vm.change_package'],
      )
      // A limit below the change's price: a plan that priced the order again would be refused.
      await ws.write([providerBlocks({ max_order_total: 1 }), KEYPAIR, bigger].join('\n'))
      const { value: plan, orders: planned } = await e2e.emulator.effectsOf(() => ws.plan())
      assert.equal(plan.code, 2, describeRun(plan))
      assert.deepEqual(planned, [], 'the plan rehearses the change: it orders nothing')
      const text = flat(plan)
      assert.doesNotMatch(text, /This plan places paid orders/, describeRun(plan))
      assert.match(text, /takes over the order an earlier run placed for this change/, describeRun(plan))
      await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: 0 })
      const { value: applied, orders } = await e2e.emulator.effectsOf(() => ws.apply())
      assert.equal(applied.code, 0, describeRun(applied))
      assert.deepEqual(orders, [], 'the apply took the change over, as the plan said')
      assert.equal((await ws.stateOf('provider_lite_vm.vm')).product_id, 102)
    })
  }
})

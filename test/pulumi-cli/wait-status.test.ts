// A create that waits for Active under the real `pulumi up`: the resource's row says what it waits for and
// how long it has waited, the way `terraform apply` says "Still creating...", and how the wait ended; those
// lines are status lines, left out of the diagnostics the CLI prints at the end.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { liteVmProgram } from '../support/pulumi/programs.js'

const PROGRAM = liteVmProgram({ project: 'wait-status', keyName: 'wait-status-key', vmName: 'wait-status' })

describe('pulumi up while a VM is being provisioned', () => {
  let emulator: Emulator
  let stack: Stack
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 2_500 })
    const home = await PulumiHome.create(emulator)
    stack = await Stack.init(home, 'wait-status', 'dev', { 'Pulumi.yaml': PROGRAM })
    await stack.setConfig({ 'provider:pollInterval': '200ms' })
  })
  after(async () => {
    await emulator?.stop()
  })

  test("the VM's row shows the status it waits on and then that it is Active, not among the diagnostics", async () => {
    const up = await stack.withEvents(['up', '--yes', '--skip-preview'], { timeoutMs: 120_000 })
    assert.ok(up.ok, describeCli(up.run))
    const id = String((await stack.resources()).vm?.id ?? '')
    assert.match(id, /^\d+$/)
    const [progress = '', diagnostics = ''] = up.output.split(/^Diagnostics:$/m)
    assert.match(
      progress,
      new RegExp(`LiteVm vm creating \\(\\d+s\\) waiting for Lite VM ${id} to become Active: Pending \\(gives up after 20m0s\\)`),
      up.output,
    )
    assert.match(progress, new RegExp(`LiteVm vm created \\(\\d+s\\) Lite VM ${id} is Active after \\d+s`), up.output)
    assert.doesNotMatch(diagnostics, /waiting for Lite VM|is Active after/, up.output)
  })
})

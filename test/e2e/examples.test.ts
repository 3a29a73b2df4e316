// Every example under examples/terraform/{resources,data-sources,ephemeral-resources} applied with the
// real terraform CLI against the emulator launcher: already as `terraform fmt` writes it (the resources'
// are rendered from their fixtures), then init, apply, a second plan that must be empty, destroy. An
// example that does not run is a broken promise to the user who copies it. Those under actions/ (a
// client with actions only) are also invoked once, as their page says, between the apply and the plan.
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { describeRun, ROOT, terraformClient, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const EXAMPLES = join(ROOT, 'examples', 'terraform')
/** One example: init, apply, plan and destroy, each bounded by the harness's own command timeout. */
const EXAMPLE_TIMEOUT_MS = 240_000

function examples(): { kind: string; type: string; dir: string }[] {
  const found: { kind: string; type: string; dir: string }[] = []
  const client = terraformClient()
  // Actions came with Terraform 1.14; OpenTofu has none.
  const actions = client.key.startsWith('terraform-') && client.tool.version.localeCompare('1.14', 'en', { numeric: true }) >= 0
  for (const kind of ['resources', 'data-sources', 'ephemeral-resources', ...(actions ? ['actions'] : [])]) {
    const folder = join(EXAMPLES, kind)
    if (!existsSync(folder)) continue
    for (const type of readdirSync(folder).sort()) {
      if (existsSync(join(folder, type, 'main.tf'))) found.push({ kind, type, dir: join(folder, type) })
    }
  }
  return found
}

describe('examples apply against the emulator', () => {
  const e2e = useEmulatorWorkspace({ workspace: false, provisioningDelayMs: 100 })

  test("quickstart: its tests/ pass under the client's test command, which leaves no account behind", {
    timeout: EXAMPLE_TIMEOUT_MS,
  }, async () => {
    await e2e.emulator.control('POST', '/reset')
    const quickstart = join(EXAMPLES, 'quickstart')
    const ws = await Workspace.create(e2e.emulator)
    try {
      for (const file of ['main.tf', 'outputs.tf', join('tests', 'quickstart.tftest.hcl')]) {
        await mkdir(dirname(join(ws.dir, file)), { recursive: true })
        await writeFile(join(ws.dir, file), await readFile(join(quickstart, file), 'utf8'))
      }
      await ws.init()
      const run = await ws.run(['test', '-no-color'])
      assert.equal(run.code, 0, describeRun(run))
      assert.match(run.stdout, /run "orders_an_active_vm"\.\.\. pass/, describeRun(run))
      assert.match(run.stdout, /Success! 1 passed, 0 failed\./, describeRun(run))
      const live = (await e2e.emulator.accounts()).filter((a) => a.account.status !== 'Terminated')
      assert.deepEqual(
        live.map((a) => a.account.account_id),
        [],
        'the test destroyed what it made',
      )
      assert.deepEqual(await e2e.emulator.control('GET', '/keypairs'), [], 'its keypair too')
    } finally {
      await ws.cleanup()
    }
  })

  const all = examples()
  test('there are examples to run', () => assert.ok(all.length > 0, `no examples under ${EXAMPLES}`))

  for (const { kind, type, dir } of all) {
    test(`${kind}/${type}: formatted, apply${kind === 'actions' ? ', invoke' : ''}, empty second plan, destroy`, {
      timeout: EXAMPLE_TIMEOUT_MS,
    }, async () => {
      // A fresh service per example, so one that failed cannot leave a keypair name taken for the next.
      await e2e.emulator.control('POST', '/reset')
      // A temp copy: .terraform, the lock file and the state never land in examples/.
      const ws = await Workspace.create(e2e.emulator)
      let applied = false
      try {
        await ws.write(await readFile(join(dir, 'main.tf'), 'utf8'))
        const fmt = await ws.run(['fmt', '-check', '-diff', '-no-color'])
        assert.equal(fmt.code, 0, `not as terraform fmt writes it: ${describeRun(fmt)}`)
        const apply = await ws.apply()
        applied = true
        assert.equal(apply.code, 0, describeRun(apply))
        if (kind === 'actions') {
          const invoked = await ws.apply([`-invoke=action.${type}.example`])
          assert.equal(invoked.code, 0, describeRun(invoked))
          assert.match(invoked.stdout, new RegExp(`Action complete: action\\.${type}\\.example`), describeRun(invoked))
        }
        const plan = await ws.plan()
        assert.equal(plan.code, 0, `the plan after apply is not empty: ${describeRun(plan)}`)
        const destroy = await ws.destroy()
        applied = false
        assert.equal(destroy.code, 0, describeRun(destroy))
      } finally {
        // A failed step still gets a destroy, so one broken example does not leave accounts behind.
        if (applied) await ws.destroy().catch(() => undefined)
        await ws.cleanup()
      }
    })
  }
})

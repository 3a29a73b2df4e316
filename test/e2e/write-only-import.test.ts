// Real terraform against the emulator launcher: a VM made with a console password, imported by an
// `import {}` block into a configuration in the write-only form (console_password_wo from an ephemeral
// variable). The saved plan (every entry of the zip), `terraform show -json` of it, the outputs, the
// state and the generated configuration hold no password; the import replaces nothing and orders
// nothing, and the next plan is empty. Imported into `console_password`, the plan records the password
// given, replacing nothing, and then the VM is as if it had been created with it.
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { before, describe, test } from 'node:test'
import { zipTexts } from '../support/zip.js'
import {
  block,
  changeOf,
  describeRun,
  type HclValue,
  importBlock,
  PROVIDER_BLOCKS,
  type PlanJson,
  ref,
  type Workspace,
} from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const PASSWORD = 'Imp0rtWoSecret9'
const EPHEMERAL_PASSWORD = 'variable "console_password" {\n  type      = string\n  sensitive = true\n  ephemeral = true\n}\n'

/** The VM's inputs as the service returns them, but the password. */
function vm(keypairId: number, password: Record<string, HclValue>): Record<string, HclValue> {
  return {
    ssh_and_console_user: 'deployer',
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    keypair_id: keypairId,
    cycle: 'm',
    vm_name: 'e2e-wo-import',
    ...password,
  }
}

/** Every file of the working directory but the provider binaries, as text. */
async function workingFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (!entry.isFile() || relative(dir, path).startsWith(join('.terraform', 'providers'))) continue
    files.set(relative(dir, path), await readFile(path, 'utf8'))
  }
  return files
}

describe('importing a VM into the write-only console password', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  let vmId = ''
  let keypairId = 0
  before(async () => {
    const origin = await e2e.workspace()
    await origin.write(
      [
        PROVIDER_BLOCKS,
        block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-wo-import-key' }),
        block('resource', 'provider_lite_vm', 'vm', {
          ...vm(0, { console_password: PASSWORD }),
          keypair_id: ref('provider_lite_keypair.k.keypair_id'),
        }),
      ].join('\n'),
    )
    const created = await origin.apply()
    assert.equal(created.code, 0, describeRun(created))
    vmId = String((await origin.stateOf('provider_lite_vm.vm')).id)
    keypairId = Number((await origin.stateOf('provider_lite_keypair.k')).keypair_id)
  })
  async function workspace(config: string): Promise<Workspace> {
    const ws = await e2e.workspace()
    await ws.write(config)
    await ws.init()
    return ws
  }

  test('the saved plan, show -json, the apply, the state and the next plan hold no password; nothing is replaced or ordered', async () => {
    const ws = await workspace(
      [
        PROVIDER_BLOCKS,
        EPHEMERAL_PASSWORD,
        importBlock('provider_lite_vm.vm', vmId),
        block('resource', 'provider_lite_vm', 'vm', {
          ...vm(keypairId, { console_password_wo: ref('var.console_password'), console_password_wo_version: 1 }),
        }),
      ].join('\n'),
    )
    const env = { TF_VAR_console_password: PASSWORD }
    const planned = await ws.plan(['-out=wo.tfplan'], { env })
    assert.equal(planned.code, 2, describeRun(planned))
    const shown = await ws.ok(['show', '-json', 'wo.tfplan'], { env })
    const change = changeOf(JSON.parse(shown.stdout) as PlanJson, 'provider_lite_vm.vm')
    assert.ok(change.importing, 'the VM is imported')
    assert.ok(!change.actions.includes('delete') && !change.actions.includes('create'), `the import replaces: ${change.actions}`)
    const places: [string, string][] = [
      ...[...zipTexts(await readFile(join(ws.dir, 'wo.tfplan')))].map(([name, text]): [string, string] => [
        `saved plan entry ${name}`,
        text,
      ]),
      ['terraform show -json of the plan', shown.stdout],
      ['the plan output', planned.stdout + planned.stderr],
    ]

    const {
      value: applied,
      mutations,
      orders,
    } = await e2e.emulator.effectsOf(() => ws.run(['apply', '-no-color', '-input=false', 'wo.tfplan'], { env }))
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual([mutations, orders], [[], []], 'the import changes nothing at the service')
    const state = await ws.stateOf('provider_lite_vm.vm')
    assert.deepEqual([state.console_password, state.cipassword, state.console_password_wo_version], [null, null, 1])
    const next = await ws.plan([], { env })
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
    places.push(['the apply output', applied.stdout + applied.stderr], ['the next plan output', next.stdout + next.stderr])
    for (const [path, text] of await workingFiles(ws.dir)) places.push([`the file ${path}`, text])

    const leaks = places.filter(([, text]) => text.includes(PASSWORD)).map(([where]) => where)
    assert.deepEqual(leaks, [], 'the password appears in these places')
  })

  test('-generate-config-out writes and prints no password', async () => {
    const ws = await workspace([PROVIDER_BLOCKS, importBlock('provider_lite_vm.vm', vmId)].join('\n'))
    const run = await ws.plan(['-generate-config-out=generated.tf'])
    const generated = await readFile(join(ws.dir, 'generated.tf'), 'utf8')
    assert.match(generated, /resource "provider_lite_vm" "vm"/, describeRun(run))
    assert.ok(!generated.includes(PASSWORD), `the generated configuration holds the password:\n${generated}`)
    assert.ok(!(run.stdout + run.stderr).includes(PASSWORD), 'the plan output holds the password')
  })

  test('imported into console_password: the plan records the password given, replacing nothing, and the next plan is empty', async () => {
    const ws = await workspace(
      [
        PROVIDER_BLOCKS,
        importBlock('provider_lite_vm.vm', vmId),
        block('resource', 'provider_lite_vm', 'vm', vm(keypairId, { console_password: PASSWORD })),
      ].join('\n'),
    )
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Resources: 1 imported, 0 added, [01] changed, 0 destroyed\./)
    assert.deepEqual([mutations, orders], [[], []], 'the import changes nothing at the service')
    const state = await ws.stateOf('provider_lite_vm.vm')
    assert.equal(state.console_password, PASSWORD)
    const next = await ws.plan()
    assert.equal(next.code, 0, `the plan after the import is not empty: ${describeRun(next)}`)
  })
})

// The real `pulumi import` of a Lite VM made with a console password: the code it generates (written
// to a file, or printed) and everything the command prints hold no password, and the program made from
// that code, with the password from a secret config value, previews with no change.
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { emptyProgram, liteVmProgram } from '../support/pulumi/programs.js'

const PASSWORD = 'Imp0rtS3cretPw'
const PROJECT = 'import-secrets'

/** The VM (and its keypair) of the origin stack, its password from a secret config value. */
const ORIGIN = liteVmProgram({
  project: `${PROJECT}-origin`,
  keyName: 'import-secrets-key',
  vmName: 'import-secret',
  consolePassword: `\${consolePassword}`,
  secretPasswordConfig: true,
})

const EMPTY = emptyProgram({ project: PROJECT, secretPasswordConfig: true })

describe('pulumi import of a VM with a console password', () => {
  let emulator: Emulator
  let home: PulumiHome
  let vmId = ''
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 100 })
    home = await PulumiHome.create(emulator)
    const origin = await Stack.init(home, `${PROJECT}-origin`, 'origin', { 'Pulumi.yaml': ORIGIN })
    await origin.setConfig({ consolePassword: PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
    const up = await origin.withEvents(['up', '--yes', '--skip-preview'])
    assert.ok(up.ok, describeCli(up.run))
    vmId = String((await origin.resources()).vm?.id ?? '')
    assert.match(vmId, /^\d+$/)
  })
  after(async () => {
    await emulator?.stop()
  })

  async function target(name: string): Promise<Stack> {
    const stack = await Stack.init(home, PROJECT, name, { 'Pulumi.yaml': EMPTY })
    await stack.setConfig({ consolePassword: PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
    return stack
  }

  test('the code written by --out and the command output hold no password; the program made of it previews no change', async () => {
    const stack = await target('out')
    const out = join(stack.dir, 'generated.yaml')
    const { value: run, mutations } = await emulator.effectsOf(() =>
      stack.run(['import', 'provider:index:LiteVm', 'web', vmId, '--yes', '--protect=false', '--out', out]),
    )
    assert.equal(run.code, 0, describeCli(run))
    assert.deepEqual(mutations, [], 'the import changes nothing at the service')
    const code = await readFile(out, 'utf8')
    assert.match(code, /type: provider:(index:)?LiteVm/, code)
    assert.ok(!code.includes(PASSWORD), `the generated code holds the password:\n${code}`)
    assert.ok(!`${run.stdout}\n${run.stderr}`.includes(PASSWORD), `the output holds the password:\n${describeCli(run)}`)
    assert.match(run.stdout, /consolePassword.*leaves it out of the code it generates/, 'the import says why the password is missing')
    // The code names the password's place, to be given from a secret: the way the guide says to adopt it.
    assert.match(code, /^ *consolePassword:/m, code)
    const program = `${EMPTY}${code.replace(/consolePassword:.*$/m, `consolePassword: \${consolePassword}`)}`
    await writeFile(join(stack.dir, 'Pulumi.yaml'), program)
    const preview = await stack.withEvents(['preview', '--expect-no-changes'])
    assert.ok(preview.ok, `${describeCli(preview.run)}\n--- program ---\n${program}`)
    assert.ok(!preview.output.includes(PASSWORD), 'the preview output holds the password')
  })

  test('the code printed by the command holds no password, nor does any of its output', async () => {
    const stack = await target('printed')
    const run = await stack.run(['import', 'provider:index:LiteVm', 'web', vmId, '--yes', '--protect=false'])
    assert.equal(run.code, 0, describeCli(run))
    assert.match(run.stdout, /type: provider:(index:)?LiteVm/, `the code is printed:\n${describeCli(run)}`)
    assert.ok(!`${run.stdout}\n${run.stderr}`.includes(PASSWORD), `the output holds the password:\n${describeCli(run)}`)
    const exported = JSON.stringify(await stack.export())
    assert.ok(!exported.includes(PASSWORD), 'stack export (secrets encrypted) holds the password')
  })
})

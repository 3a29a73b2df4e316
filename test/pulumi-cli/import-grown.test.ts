// The real `pulumi import` of a Lite disk grown in the portal after its create, then `pulumi up` of the
// program made from the generated code with a smaller size written, or none: the engine sends the
// saved outputs to Check, so the import's mark (the size read from the service) makes that size the
// floor, with a warning, and nothing is ordered; never "Cannot shrink".
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { describeCli, PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { emptyProgram, liteVmProgram } from '../support/pulumi/programs.js'

const PROJECT = 'import-grown'

const ORIGIN = liteVmProgram({
  project: `${PROJECT}-origin`,
  keyName: 'import-grown-key',
  vmName: 'import-grown',
  more: `  disk:
    type: provider:index:LiteDisk
    properties:
      productId: 60
      cycle: m
      liteAccountId: \${vm.accountId}
      serviceName: grown-disk-1
      size: 60
`,
})

const EMPTY = emptyProgram({ project: PROJECT })

describe('pulumi import of a disk grown outside', () => {
  let emulator: Emulator
  let home: PulumiHome
  let diskId = ''
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 100 })
    home = await PulumiHome.create(emulator)
    const origin = await Stack.init(home, `${PROJECT}-origin`, 'origin', { 'Pulumi.yaml': ORIGIN })
    await origin.setConfig({ 'provider:pollInterval': '100ms' })
    const up = await origin.withEvents(['up', '--yes', '--skip-preview'])
    assert.ok(up.ok, describeCli(up.run))
    diskId = String((await origin.resources()).disk?.id ?? '')
    assert.match(diskId, /^\d+$/)
    // Grown to 80 GB in the portal.
    await emulator.control('PATCH', `/accounts/${diskId}`, { extra_details: { size: 80 } })
  })
  after(async () => {
    await emulator?.stop()
  })

  const cases: [string, (code: string) => string][] = [
    ['size 60 written', (code) => code.replace(/^( *)size: 80$/m, '$1size: 60')],
    ['size left out', (code) => code.replace(/^ *size: 80\n/m, '')],
  ]
  for (const [name, write] of cases) {
    test(`${name}: the up records 60 as the floor with a warning and orders nothing; the next preview is empty`, async () => {
      const stack = await Stack.init(home, PROJECT, name.replace(/ /g, '-'), { 'Pulumi.yaml': EMPTY })
      await stack.setConfig({ 'provider:pollInterval': '100ms' })
      const out = join(stack.dir, 'generated.yaml')
      const imported = await stack.run(['import', 'provider:index:LiteDisk', 'disk', diskId, '--yes', '--protect=false', '--out', out])
      assert.equal(imported.code, 0, describeCli(imported))
      const code = await readFile(out, 'utf8')
      assert.match(code, /^ *size: 80$/m, code)
      const program = `${EMPTY}${write(code)}`
      await writeFile(join(stack.dir, 'Pulumi.yaml'), program)
      const { value: up, mutations } = await emulator.effectsOf(() => stack.withEvents(['up', '--yes']))
      assert.ok(up.ok, `${describeCli(up.run)}\n--- program ---\n${program}`)
      assert.doesNotMatch(up.output, /Cannot shrink/)
      assert.match(up.output.replace(/\s+/g, ' '), /size 60 is recorded as the floor of an object of 80/, describeCli(up.run))
      assert.deepEqual(mutations, [], 'nothing is ordered, nothing shrinks')
      assert.equal((await stack.resources()).disk?.outputs?.size, 60)
      const preview = await stack.withEvents(['preview', '--expect-no-changes'])
      assert.ok(preview.ok, describeCli(preview.run))
    })
  }
})

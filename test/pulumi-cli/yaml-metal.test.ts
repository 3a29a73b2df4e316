// The Metal example in Pulumi YAML (examples/pulumi/yaml-metal) under the real CLI and pulumi-language-yaml:
// baremetalProducts returns each product's `raw` as a secret, so its whole invoke result is secret; the
// example takes the product id out with fn::unsecret, so the server's productId is stored in plaintext and
// a product change previews as the numbers it changes.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { PulumiHome, Stack } from '../support/pulumi/cli-harness.js'
import { EXAMPLES } from '../support/pulumi/drivers.js'

const PROGRAM = readFileSync(join(EXAMPLES, 'yaml-metal', 'Pulumi.yaml'), 'utf8')
const SECRET_WRAPPER = '4dabf18193072939515e22adb298388d'

describe('the Metal example in Pulumi YAML: the product id of a lookup holding a secret', () => {
  let emulator: Emulator
  let stack: Stack
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 100 })
    const home = await PulumiHome.create(emulator)
    stack = await Stack.init(home, 'yaml-metal', 'dev', { 'Pulumi.yaml': PROGRAM })
    await stack.setConfig({ 'provider:pollInterval': '100ms' })
  })
  after(async () => {
    await emulator?.stop()
  })

  test('up stores the server productId in plaintext, and a product change previews as its numbers', async () => {
    const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
    assert.ok(up.ok, up.output)
    const server = (await stack.resources()).server
    assert.ok(server, 'the server is in the state')
    for (const [where, value] of [
      ['inputs', server.inputs?.productId],
      ['outputs', server.outputs?.productId],
    ] as const) {
      assert.equal(typeof value, 'number', `the server's ${where}.productId is stored in plaintext: ${JSON.stringify(value)}`)
    }
    assert.ok(!JSON.stringify(server.inputs?.productId).includes(SECRET_WRAPPER))
    writeFileSync(join(stack.dir, 'Pulumi.yaml'), PROGRAM.replace('serverProducts[0].productId', 'serverProducts[1].productId'))
    const preview = await stack.run(['preview', '--diff'])
    assert.equal(preview.code, 0, preview.stderr)
    assert.match(preview.stdout, /productId\s*:\s*301\s*=>\s*302/, preview.stdout)
    assert.doesNotMatch(preview.stdout, /productId\s*:\s*\[secret\]/, preview.stdout)
  })
})

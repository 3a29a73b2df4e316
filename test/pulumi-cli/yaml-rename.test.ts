// A Metal keypair renamed in a Pulumi YAML program without an alias, under the real CLI: the engine
// creates the new resource before it deletes the old one, and the create takes the existing keypair over
// (its name and public key are the configured ones). The delete of the old resource must not delete the
// keypair the new one now holds: it stays in the service and in the stack, under the new name.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { generateEd25519 } from '../../src/emulator/openssh.js'
import { Emulator } from '../support/e2e/harness.js'
import { PulumiHome, Stack } from '../support/pulumi/cli-harness.js'

const PUBLIC_KEY = generateEd25519('rename@test').publicKey

function program(resource: string): string {
  return [
    'name: yaml-rename',
    'runtime: yaml',
    'resources:',
    `  ${resource}:`,
    '    type: provider:index:BaremetalKeypair',
    '    properties:',
    '      name: deploy-key',
    `      publicKey: ${PUBLIC_KEY}`,
    'outputs:',
    `  keypairId: \${${resource}.keypairId}`,
    '',
  ].join('\n')
}

describe('a Metal keypair renamed in the program without an alias', () => {
  let emulator: Emulator
  let stack: Stack
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 0 })
    const home = await PulumiHome.create(emulator)
    stack = await Stack.init(home, 'yaml-rename', 'dev', { 'Pulumi.yaml': program('oldName') })
  })
  after(async () => {
    await emulator?.stop()
  })

  test('the new resource takes the keypair over and the old one leaves the stack without deleting it', async () => {
    const first = await stack.withEvents(['up', '--yes', '--skip-preview'])
    assert.ok(first.ok, first.output)
    const id = (await stack.resources()).oldName?.outputs?.keypairId
    assert.equal(typeof id, 'number')
    writeFileSync(join(stack.dir, 'Pulumi.yaml'), program('newName'))
    const renamed = await stack.withEvents(['up', '--yes', '--skip-preview'])
    assert.ok(renamed.ok, renamed.output)
    assert.match(renamed.output.replace(/\s+/g, ' '), new RegExp(`BaremetalKeypair ${id} is not deleted: \\S*::newName holds it`))
    const resources = await stack.resources()
    assert.equal(resources.oldName, undefined)
    assert.equal(resources.newName?.outputs?.keypairId, id)
    const keys = await emulator.api<{ keypair_id: number; name: string }[]>('GET', '/baremetals/keypairs/')
    assert.deepEqual(
      keys.map((k) => [k.keypair_id, k.name]),
      [[id, 'deploy-key']],
      'the keypair is still there',
    )
    const refreshed = await stack.withEvents(['refresh', '--yes', '--skip-preview'])
    assert.ok(refreshed.ok, refreshed.output)
    assert.equal((await stack.resources()).newName?.outputs?.keypairId, id)
  })
})

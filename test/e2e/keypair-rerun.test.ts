// Issue 15, case 6: a keypair left behind by a killed run (its create answered, its id never saved)
// holds the configured name. The re-run reports it with its id and what to do (a generated key's
// private half cannot be read again), and takes over an imported Metal key whose public key is the
// configured one: nothing to resolve by hand, and nothing created twice.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { generateEd25519 } from '../../src/emulator/openssh.js'
import { block, describeRun, diagnostics, PROVIDER_BLOCKS } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

describe('a keypair name taken by a killed run (issue 15, case 6)', () => {
  const e2e = useEmulatorWorkspace({ provisioningDelayMs: 0 })

  test('a generated Lite keypair: the error names its id, why it is not taken over, and the import; after the import the plan is empty', async () => {
    const left = await e2e.emulator.api<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'left-behind' })
    await e2e.ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'left-behind' })].join('\n'))
    const run = await e2e.ws.apply()
    assert.equal(run.code, 1, describeRun(run))
    const text = diagnostics(run.stdout + run.stderr)
      .join('\n')
      .replace(/\s+/g, ' ')
    assert.match(text, new RegExp(`keypair ${left.keypair_id}`))
    assert.match(text, /private key was returned only once/)
    assert.match(text, new RegExp(`terraform import <address of this provider_lite_keypair> ${left.keypair_id}`))
    assert.doesNotMatch(text, /^Error: .*409/m)
    const imported = await e2e.ws.import('provider_lite_keypair.k', String(left.keypair_id))
    assert.equal(imported.code, 0, describeRun(imported))
    assert.equal((await e2e.ws.plan()).code, 0)
  })

  test('an imported Metal public key under the same name is taken over: the apply succeeds and creates nothing', async () => {
    await e2e.ws.cleanup()
    const ws = await e2e.workspace()
    const publicKey = generateEd25519('left@behind').publicKey
    const left = await e2e.emulator.api<{ keypair_id: number }>('POST', '/baremetals/keypairs/import', {
      name: 'metal-left',
      public_key: publicKey,
    })
    await ws.write(
      [PROVIDER_BLOCKS, block('resource', 'provider_baremetal_keypair', 'm', { name: 'metal-left', public_key: publicKey })].join('\n'),
    )
    const { value: run, mutations } = await e2e.emulator.effectsOf(() => ws.apply())
    assert.equal(run.code, 0, describeRun(run))
    assert.deepEqual(mutations, ['POST /v1/baremetals/keypairs/import'], 'one refused import, nothing else')
    const state = await ws.run(['state', 'show', '-no-color', 'provider_baremetal_keypair.m'])
    assert.match(state.stdout, new RegExp(`keypair_id\\s+=\\s+${left.keypair_id}`))
    assert.equal((await ws.plan()).code, 0)
  })

  test("a keypair renamed to a name another keypair holds is refused at plan, and nothing is deleted; a tainted keypair's replacement keeps its name", async () => {
    await e2e.ws.cleanup()
    const ws = await e2e.workspace()
    await e2e.emulator.api('POST', '/lites/keypairs/', { name: 'someone-elses' })
    const config = (names: string[]) =>
      [PROVIDER_BLOCKS, ...names.map((name, i) => block('resource', 'provider_lite_keypair', `k${i}`, { name }))].join('\n')
    await ws.write(config(['mine-one', 'mine-two']))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    // A rename to a taken name: the replacement would delete the live keypair (its private key with it), then be refused.
    await ws.write(config(['someone-elses', 'mine-two']))
    const { value: refused, mutations } = await e2e.emulator.effectsOf(() => ws.plan())
    assert.equal(refused.code, 1, describeRun(refused))
    assert.match(refused.stdout + refused.stderr, /Invalid name/)
    assert.match(
      diagnostics(refused.stdout + refused.stderr)
        .join(' ')
        .replace(/\s+/g, ' '),
      /this replacement would delete keypair/,
    )
    assert.deepEqual(mutations, [])
    // Tainted: planned as a create of the name its own keypair holds, which is deleted first.
    await ws.write(config(['mine-one', 'mine-two']))
    const before = await ws.run(['state', 'show', '-no-color', 'provider_lite_keypair.k0'])
    const tainted = await ws.run(['taint', 'provider_lite_keypair.k0'])
    assert.equal(tainted.code, 0, describeRun(tainted))
    const replaced = await ws.apply()
    assert.equal(replaced.code, 0, describeRun(replaced))
    const after = await ws.run(['state', 'show', '-no-color', 'provider_lite_keypair.k0'])
    const idOf = (text: string) => /keypair_id\s+=\s+(\d+)/.exec(text)?.[1]
    assert.notEqual(idOf(after.stdout), idOf(before.stdout), 'a new keypair')
    assert.match(after.stdout, /name\s+=\s+"mine-one"/)
    assert.equal((await ws.plan()).code, 0)
  })

  test('a generated keypair replaced under create_before_destroy: the refused create names that setting as the cause, not another owner; the old keypair stays', async () => {
    await e2e.ws.cleanup()
    const ws = await e2e.workspace()
    await ws.write(
      `${PROVIDER_BLOCKS}\nresource "provider_lite_keypair" "k" {\n  name = "cbd-key"\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n`,
    )
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    const idOf = (text: string) => /keypair_id\s+=\s+(\d+)/.exec(text)?.[1]
    const before = idOf((await ws.run(['state', 'show', '-no-color', 'provider_lite_keypair.k'])).stdout)
    // create_before_destroy creates the new keypair while the old one, this resource's, still holds the name.
    const { value: replaced, mutations } = await e2e.emulator.effectsOf(() => ws.apply(['-replace=provider_lite_keypair.k']))
    assert.equal(replaced.code, 1, describeRun(replaced))
    const text = diagnostics(replaced.stdout + replaced.stderr)
      .join(' ')
      .replace(/\s+/g, ' ')
    assert.match(text, /create_before_destroy/, text)
    assert.doesNotMatch(text, /this resource has no keypair in its state/, text)
    assert.deepEqual(mutations, ['POST /v1/lites/keypairs/'], 'one refused create, nothing deleted')
    assert.equal(idOf((await ws.run(['state', 'show', '-no-color', 'provider_lite_keypair.k'])).stdout), before)
  })

  test('a Metal keypair moved to another address without a moved block: the new address keeps a live keypair, and the next plan is empty', async () => {
    await e2e.ws.cleanup()
    const ws = await e2e.workspace()
    const publicKey = generateEd25519('moved@host').publicKey
    const at = (address: string) =>
      [PROVIDER_BLOCKS, block('resource', 'provider_baremetal_keypair', address, { name: 'metal-moved', public_key: publicKey })].join('\n')
    await ws.write(at('old'))
    const created = await ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    // Terraform deletes the old address beside the new one's create. The service is slow to delete, so the
    // create's import meets the name still taken by the very keypair being deleted.
    await e2e.emulator.control('POST', '/faults', {
      method: 'DELETE',
      path: '/baremetals/keypairs/*',
      mode: 'delay',
      delay_ms: 2_000,
      count: 1,
    })
    await ws.write(at('new'))
    const moved = await ws.apply()
    assert.equal(moved.code, 0, describeRun(moved))
    const shown = await ws.run(['state', 'show', '-no-color', 'provider_baremetal_keypair.new'])
    const id = Number(/keypair_id\s+=\s+(\d+)/.exec(shown.stdout)?.[1])
    const live = await e2e.emulator.api<{ keypair_id: number }[]>('GET', '/baremetals/keypairs/')
    assert.ok(
      live.some((k) => k.keypair_id === id),
      `the state's keypair ${id} is live: ${JSON.stringify(live.map((k) => k.keypair_id))}\n${describeRun(moved)}`,
    )
    const plan = await ws.plan()
    assert.equal(plan.code, 0, describeRun(plan))
  })
})

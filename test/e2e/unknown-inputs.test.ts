// Issue 15, case 4, under the real client: an existing VM whose product_id and disk_size are set from
// values unknown at plan time (a terraform_data resource's output, replaced in the same apply). One
// apply succeeds (no "Provider produced inconsistent final plan"), orders the change of package and
// the storage upgrade once each, and the next plan is empty. Every other in-place input of every
// resource is covered in-process by the lifecycle suite's "from values not known at plan" tests.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { block, describeRun, type HclValue, PROVIDER_BLOCKS, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const VM: Record<string, HclValue> = {
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
  vm_name: 'e2e-unknown-1',
}

function config(productId: HclValue, diskSize: HclValue, source?: { product: number; disk: number }): string {
  const blocks = [PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-unknown-key' })]
  if (source)
    blocks.push(block('resource', 'terraform_data', 'sizes', { input: ref(`{ product = ${source.product}, disk = ${source.disk} }`) }))
  blocks.push(block('resource', 'provider_lite_vm', 'vm', { ...VM, product_id: productId, disk_size: diskSize }))
  return blocks.join('\n')
}

describe('in-place inputs from values unknown at plan (issue 15, case 4)', () => {
  const e2e = useEmulatorWorkspace({ provisioningDelayMs: 0 })

  test('product_id and disk_size from a terraform_data output: one apply, each order once, then an empty plan', async () => {
    await e2e.ws.write(config(101, 20))
    const created = await e2e.ws.apply()
    assert.equal(created.code, 0, describeRun(created))
    await e2e.ws.write(
      config(ref('terraform_data.sizes.output.product'), ref('terraform_data.sizes.output.disk'), { product: 102, disk: 60 }),
    )
    const { value: changed, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(changed.code, 0, describeRun(changed))
    assert.doesNotMatch(changed.stdout + changed.stderr, /inconsistent final plan/)
    assert.deepEqual(orders.map((o) => o.kind).sort(), ['lite.vm.change_package', 'lite.vm.storage'].sort(), describeRun(changed))
    const plan = await e2e.ws.plan()
    assert.equal(plan.code, 0, `the next plan is empty\n${describeRun(plan)}`)
  })
})

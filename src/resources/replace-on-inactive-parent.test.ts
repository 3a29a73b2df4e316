// A replacement (delete, then create) of an object ordered on or from another account (a disk on a
// VM, a snapshot of a VM, a VM restored from a snapshot, elastic storage on a Metal server, an IP
// assignment to a server) while that account is not Active (Suspended for an overdue invoice, Pending
// on an unpaid one): the service refuses the create (D1, S1, S4, E1, A1 answer 409), so Terraform's
// replacement would delete the live object and create nothing. The plan refuses it, naming the
// account, its status and what to do.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { baremetalServers, liteVmOn } from '../../test/support/fixtures.js'
import { Harness } from '../../test/support/harness.js'
import { checkPlanOnline, type Diagnostic, hasErrors, planResource, type ValueMap } from '../core/index.js'
import { baremetalAdditionalIp } from './baremetal-additional-ip.js'
import { baremetalAdditionalIpAssignment } from './baremetal-additional-ip-assignment.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'
import { liteDisk } from './lite-disk.js'
import { lite, litePro } from './lite-family.js'
import { liteSnapshot } from './lite-snapshot.js'
import { liteVm } from './lite-vm.js'
import { liteVmFromSnapshot } from './lite-vm-from-snapshot.js'

async function planReplacement(h: Harness, definition: Parameters<typeof planResource>[0], state: ValueMap, config: ValueMap) {
  const plan = planResource(definition, state, config)
  assert.ok(plan.replace.length > 0, 'the edit replaces the object')
  return [...plan.diagnostics, ...(await checkPlanOnline(definition, state, plan, h.session))]
}

/**
 * The plan's error names the attribute, the account's status and the rule, as what the create does:
 * an order, or (an IP assignment, which is not billed) a request that is not sent.
 */
function refusedFor(issues: readonly Diagnostic[], attribute: string, orders = true): void {
  const refusal = issues.find((d) => d.severity === 'error' && d.path?.[0] === attribute)
  assert.ok(refusal, `no error on ${attribute}: ${JSON.stringify(issues)}`)
  const rule = orders
    ? 'the service places this order only on an Active one.*; this order is not placed'
    : 'the service accepts this only for an Active one.*; nothing is sent'
  assert.match(refusal.detail, new RegExp(`^${attribute} is .* that is Suspended \\(account \\d+\\): ${rule}\\.$`))
  if (!orders) assert.doesNotMatch(refusal.detail, /order/, 'an assignment is no order')
}

describe('a replacement whose create the service would refuse (its parent account is not Active) is refused at plan', () => {
  for (const family of [lite, litePro]) {
    test(`${family.prefix}_disk renamed while its VM is Suspended`, async () => {
      const h = new Harness()
      const { vm } = await liteVmOn(h, family)
      const disks = liteDisk(family)
      const config: ValueMap = {
        product_id: family === lite ? 60 : 61,
        cycle: 'm',
        lite_account_id: Number(vm.id),
        service_name: 'disk-aaaa',
      }
      const disk = await h.create(disks, config)
      await h.control('POST', `/accounts/${String(vm.id)}/status`, { status: 'Suspended' })
      const issues = await planReplacement(h, disks, disk, { ...config, service_name: 'disk-bbbb' })
      assert.ok(
        hasErrors(issues),
        `plan passes, and the apply deletes disk ${String(disk.id)} before D1 answers 409: ${JSON.stringify(issues)}`,
      )
      refusedFor(issues, 'lite_account_id')
    })

    test(`${family.prefix}_snapshot renamed while its VM is Suspended`, async () => {
      const h = new Harness()
      const { vm } = await liteVmOn(h, family)
      const snapshots = liteSnapshot(family)
      const config: ValueMap = { lite_account_id: Number(vm.id), cycle: 'm', name: 'backup-aaaa' }
      const snapshot = await h.create(snapshots, config)
      await h.control('POST', `/accounts/${String(vm.id)}/status`, { status: 'Suspended' })
      const issues = await planReplacement(h, snapshots, snapshot, { ...config, name: 'backup-bbbb' })
      assert.ok(
        hasErrors(issues),
        `plan passes, and the apply deletes snapshot ${String(snapshot.id)} before S1 answers 409: ${JSON.stringify(issues)}`,
      )
      refusedFor(issues, 'lite_account_id')
    })
  }

  test('lite_vm_from_snapshot renamed while its snapshot is Suspended', async () => {
    const h = new Harness()
    const { key, vm } = await liteVmOn(h, lite)
    const snapshot = await h.create(liteSnapshot(lite), { lite_account_id: Number(vm.id), cycle: 'm', name: 'backup-aaaa' })
    const restored = liteVmFromSnapshot(lite)
    const config: ValueMap = {
      snapshot_id: Number(snapshot.id),
      product_id: 101,
      cycle: 'm',
      keypair_id: key.keypair_id ?? null,
      name: 'rest-aaaa',
      ssh_and_console_user: 'restorer',
      console_password: 'An0therPass',
    }
    const copy = await h.create(restored, config)
    await h.control('POST', `/accounts/${String(snapshot.id)}/status`, { status: 'Suspended' })
    const issues = await planReplacement(h, restored, copy, { ...config, name: 'rest-bbbb' })
    assert.ok(
      hasErrors(issues),
      `plan passes, and the apply deletes VM ${String(copy.id)} before S4 answers 409: ${JSON.stringify(issues)}`,
    )
    refusedFor(issues, 'snapshot_id')
  })

  test('baremetal_elastic_storage renamed while its server is Suspended', async () => {
    const h = new Harness()
    const { server } = await baremetalServers(h)
    const storages = baremetalElasticStorage
    const config: ValueMap = { product_id: 501, cycle: 'm', storage_name: 'data-a', metal_account_id: server ?? 0, size: 100 }
    const volume = await h.create(storages, config)
    await h.control('POST', `/accounts/${String(server)}/status`, { status: 'Suspended' })
    const issues = await planReplacement(h, storages, volume, { ...config, storage_name: 'data-b' })
    assert.ok(
      hasErrors(issues),
      `plan passes, and the apply deletes volume ${String(volume.id)} before E1 answers 409: ${JSON.stringify(issues)}`,
    )
    refusedFor(issues, 'metal_account_id')
  })

  test('baremetal_additional_ip_assignment moved to a server that is Suspended: the old assignment is deleted first, then A1 answers 409 (the IP routes nowhere)', async () => {
    const h = new Harness()
    const { server, server2 } = await baremetalServers(h)
    const ip = await h.create(baremetalAdditionalIp, { product_id: 401, cycle: 'm' })
    const config: ValueMap = { additional_ip_id: Number(ip.id), metal_account_id: server ?? 0 }
    const assignment = await h.create(baremetalAdditionalIpAssignment, config)
    await h.control('POST', `/accounts/${String(server2)}/status`, { status: 'Suspended' })
    const issues = await planReplacement(h, baremetalAdditionalIpAssignment, assignment, { ...config, metal_account_id: server2 ?? 0 })
    assert.ok(
      hasErrors(issues),
      `plan passes, and the apply unassigns ${String(assignment.id)} before A1 answers 409: ${JSON.stringify(issues)}`,
    )
    refusedFor(issues, 'metal_account_id', false)
  })

  test('an additional IP whose invoice is unpaid is not assigned: the plan says so without calling the assignment an order', async () => {
    const h = new Harness()
    const { server } = await baremetalServers(h)
    const ip = (await h.tryCreate(baremetalAdditionalIp, { product_id: 401, cycle: 'm', pay_with_credit_card: false })).state as ValueMap
    const plan = planResource(baremetalAdditionalIpAssignment, null, { additional_ip_id: Number(ip.id), metal_account_id: server ?? 0 })
    const issues = await checkPlanOnline(baremetalAdditionalIpAssignment, null, plan, h.session)
    const refusal = issues.find((d) => d.severity === 'error' && d.path?.[0] === 'additional_ip_id')
    assert.match(
      refusal?.detail ?? JSON.stringify(issues),
      /^additional_ip_id is an additional IP that is Pending until invoice \d+ is paid \(account \d+\): the service accepts this only for an Active one.* Pay the invoice in the portal, then plan again; nothing is sent\.$/,
    )
    assert.doesNotMatch(refusal?.detail ?? '', /order/)
  })
})

describe('an account the service is still making (Pending, its invoice paid) is no refusal: the order waits for it', () => {
  test('a disk on a VM whose package change is being made: the plan warns, the create waits for Active and orders once', async () => {
    const h = new Harness()
    const { vm, config: vmConfig } = await liteVmOn(h, lite)
    // A paid package change: the VM is Pending while the service makes it.
    await h.update(liteVm(lite), vm, { ...vmConfig, product_id: 102, pay_with_credit_card: false })
    await h.control('POST', `/accounts/${String(vm.id)}/pay`)
    const disks = liteDisk(lite)
    const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: Number(vm.id), service_name: 'disk-aaaa' }
    const issues = await checkPlanOnline(disks, null, planResource(disks, null, config), h.session)
    assert.deepEqual(
      issues.map((d) => [d.severity, d.summary]),
      [['warning', 'lite_account_id is Pending: the order waits for it']],
    )
    await h.requests()
    const disk = await h.create(disks, config)
    assert.equal(disk.status, 'Active')
    const sent = (await h.requests()).filter((r) => r.method !== 'GET')
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path} ${r.status}`),
      ['POST /v1/lites/disks 200'],
      'one order, sent once the VM is Active: no 409',
    )
  })

  test('unpaid, the create places no order and says to pay', async () => {
    const h = new Harness()
    const { vm, config: vmConfig } = await liteVmOn(h, lite)
    await h.update(liteVm(lite), vm, { ...vmConfig, product_id: 102, pay_with_credit_card: false })
    const disks = liteDisk(lite)
    await h.requests()
    const outcome = await h.tryCreate(disks, { product_id: 60, cycle: 'm', lite_account_id: Number(vm.id), service_name: 'disk-aaaa' })
    assert.equal(outcome.state, null)
    assert.match(outcome.diagnostics.map((d) => d.detail).join('\n'), /Pending until invoice \d+ is paid .*this order is not placed/)
    assert.deepEqual(await h.mutations(), [])
  })
})

test('a create whose wait for its account leaves under a tenth of the create timeout places no order: it would only time out', async () => {
  const h = new Harness()
  const { vm, config: vmConfig } = await liteVmOn(h, lite)
  await h.update(liteVm(lite), vm, { ...vmConfig, product_id: 102, pay_with_credit_card: false })
  await h.control('PATCH', '/config', { provisioning_delay_ms: 95_000 })
  await h.control('POST', `/accounts/${String(vm.id)}/pay`)
  await h.requests()
  const disks = liteDisk(lite)
  const config: ValueMap = { product_id: 60, cycle: 'm', lite_account_id: Number(vm.id), timeouts: { create: '100s' } }
  const outcome = await h.tryCreate(disks, config)
  assert.equal(outcome.state, null)
  assert.match(outcome.diagnostics.map((d) => `${d.summary}: ${d.detail}`).join('\n'), /nothing was ordered.*less than a tenth of it left/s)
  assert.deepEqual(await h.mutations(), [])
})

// In-process tests of a Lite VM's lifecycle (orders, power, rebuild, changes, cancellation) and of the
// Lite Pro family.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import { type AccountView, DELAY, TestClient, VM_BODY } from '../../test/support/emulator-client.js'

const START = Date.UTC(2025, 0, 31, 9, 15, 2)
const setup = () => new TestClient(createEmulator({ clock: 'manual', startTime: START }))

interface VmDetails {
  vmid: number
  name: string
  status: string
  uptime: number
  maxdisk: number
  maxmem: number
  mem: number
  cpus: number
}

describe('Lite VM lifecycle', () => {
  test('a paid order is Pending, then Active after the delay, with the Lite VM account shape', async () => {
    const c = setup()
    const keypair = await c.keypair()
    const order = await c.ok<{ order_id: string; account_id: string }>('POST', '/lites', {
      ...VM_BODY,
      product_id: 101,
      keypair_id: keypair,
      description: 'web tier',
    })
    assert.deepEqual(order, { order_id: '500001', account_id: '100001' })
    const pending = await c.ok<AccountView>('GET', '/lites/accounts/100001')
    assert.equal(pending.status, 'Pending')
    await c.fails(409, 'GET', '/lites/accounts/100001/vm-details')
    await c.advance(DELAY - 1)
    assert.equal((await c.ok<AccountView>('GET', '/lites/accounts/100001')).status, 'Pending')
    await c.advance(1)
    const active = await c.ok<AccountView>('GET', '/lites/accounts/100001')
    assert.deepEqual(active, {
      account_id: 100001,
      status: 'Active',
      billingcycle: 'Monthly',
      date_created: '2025-01-31',
      next_due: '2025-02-28',
      recurring_amount: 60000,
      product_id: 101,
      product_name: 'XS 1.1',
      description: 'web tier',
      order_id: '500001',
      last_invoice: {
        id: 700001,
        paid_id: 880001,
        status: 'Paid',
        date: '2025-01-31',
        duedate: '2025-01-31',
        paybefore: '2025-02-03',
        datepaid: '2025-01-31 09:15:02',
        invoice_type: 'new',
        amount: 60000,
      },
      extra_details: {
        region: 'wjv-1',
        region_label: 'West Java 1',
        name: 'web-server-01',
        ciuser: 'deployer',
        cipassword: 'S3cretPass9',
        keypair_id: keypair,
        osname: 'Ubuntu-22.04',
        disk_size: '20',
        snapshot_id: null,
      },
    })
    const details = await c.ok<VmDetails>('GET', '/lites/accounts/100001/vm-details')
    assert.deepEqual(details, {
      vmid: 1001,
      name: 'web-server-01',
      status: 'running',
      uptime: 0,
      maxdisk: 20 * 1024 ** 3,
      maxmem: 1024 ** 3,
      mem: 1024 ** 3 / 4,
      cpus: 1,
    })
    await c.advance(60_000)
    assert.equal((await c.ok<VmDetails>('GET', '/lites/accounts/100001/vm-details')).uptime, 60)
  })

  test('an unpaid order stays Pending until paid; the delay starts at payment', async () => {
    const c = setup()
    const vm = await c.vm({ pay: false })
    await c.advance(DELAY * 10)
    const unpaid = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.equal(unpaid.status, 'Pending')
    assert.deepEqual([unpaid.last_invoice.status, unpaid.last_invoice.paid_id, unpaid.last_invoice.datepaid], ['Unpaid', null, null])
    const invoice = await c.control<{ status: string; paid_id: number }>('POST', `/invoices/${unpaid.last_invoice.id}/pay`)
    assert.equal(invoice.status, 'Paid')
    assert.equal(invoice.paid_id, 880001)
    await c.advance(DELAY - 1)
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Pending')
    await c.advance(1)
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Active')
    await c.request('POST', `/_emulator/invoices/${unpaid.last_invoice.id}/pay`).then((r) => assert.equal(r.status, 409))
  })

  test('the provisioning delay is fixed when it starts', async () => {
    const c = setup()
    const keypair = await c.keypair()
    await c.ok('POST', '/lites', { ...VM_BODY, product_id: 101, keypair_id: keypair })
    await c.control('PATCH', '/config', { provisioning_delay_ms: 60_000 })
    await c.advance(DELAY)
    assert.equal((await c.ok<AccountView>('GET', '/lites/accounts/100001')).status, 'Active')
  })

  test('status preconditions (the status model) answer 409 on Pending, Suspended and Terminated accounts', async () => {
    const c = setup()
    const vm = await c.vm({ active: false })
    const mutations: [string, string, unknown][] = [
      ['PUT', `/lites/accounts/${vm}/vm-state/stop`, undefined],
      ['PUT', `/lites/accounts/${vm}/rebuild`, { select_os: 'Debian-12' }],
      ['PUT', `/lites/accounts/${vm}/storage`, { disk_size: 30 }],
      ['POST', `/lites/accounts/${vm}/change-package`, { new_product_id: 102 }],
      ['POST', `/lites/accounts/${vm}/snapshot`, { cycle: 'm' }],
      ['POST', `/lites/accounts/${vm}/migrate-to-pro`, { lite_pro_product_id: 201 }],
    ]
    for (const [method, path, body] of mutations) await c.fails(409, method, path, body)
    // Cosmetic rename works while Pending.
    await c.ok('PUT', `/lites/accounts/${vm}/change-vm-name`, { name: 'renamed-vm' })
    await c.advance(DELAY)
    await c.control('POST', `/accounts/${vm}/status`, { status: 'Suspended' })
    assert.equal((await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).status, 'stopped')
    for (const [method, path, body] of mutations) await c.fails(409, method, path, body)
    await c.ok('PUT', `/lites/accounts/${vm}/change-vm-name`, { name: 'suspended-vm' })
    await c.control('POST', `/accounts/${vm}/status`, { status: 'Active' })
    assert.equal((await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).status, 'running')
    await c.ok('DELETE', `/lites/${vm}`)
    await c.fails(409, 'PUT', `/lites/accounts/${vm}/change-vm-name`, { name: 'too-late-vm' })
    await c.fails(409, 'GET', `/lites/accounts/${vm}/vm-details`)
    // Validation (step 6) comes before the status check (step 7).
    await c.fails(422, 'PUT', `/lites/accounts/${vm}/change-vm-name`, { name: 'x' })
    assert.equal(await c.ok('DELETE', `/lites/${vm}`), 'cancellation scheduled')
  })

  test('length rules count characters, as the API states them, not UTF-16 units', async () => {
    const c = setup()
    const keypair = await c.keypair()
    const order = { ...VM_BODY, product_id: 101, keypair_id: keypair }
    // 16 characters outside the BMP are 32 UTF-16 units: still 16 characters.
    await c.ok('POST', '/lites', { ...order, vm_name: '😀'.repeat(16) })
    await c.fails(422, 'POST', '/lites', { ...order, vm_name: '😀'.repeat(17) })
    await c.ok('POST', '/lites', { ...order, vm_name: 'café-übergröße', description: 'é'.repeat(255) })
    await c.fails(422, 'POST', '/lites', { ...order, description: '😀'.repeat(256) })
  })

  test('a change-package is applied at Active; options follow allow_downgrade', async () => {
    const c = setup()
    const vm = await c.vm()
    const options = await c.ok<{ packages: { product_id: number; amount_due: number; price: number }[] }>(
      'GET',
      `/lites/accounts/${vm}/change-package`,
    )
    assert.deepEqual(
      options.packages.map((p) => [p.product_id, p.price, p.amount_due]),
      [
        [102, 120000, 60000],
        [103, 240000, 180000],
      ],
    )
    const refused = await c.fails(422, 'POST', `/lites/accounts/${vm}/change-package`, { new_product_id: 101 })
    // The error names what would be accepted (the console's resize shows it as is).
    assert.match(JSON.stringify(refused), /product 101 is not offered for this account \(offered: 102, 103\)/)
    const order = await c.ok<{ account_id: string; order_id: string }>('POST', `/lites/accounts/${vm}/change-package`, {
      new_product_id: 103,
    })
    assert.equal(order.account_id, String(vm))
    assert.notEqual(order.order_id, '500001')
    const pending = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual([pending.status, pending.product_id, pending.last_invoice.invoice_type], ['Pending', 101, 'change_package'])
    assert.equal(pending.order_id, '500001', 'order_id is the creating order, forever')
    await c.advance(DELAY)
    const applied = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual(
      [applied.status, applied.product_id, applied.extra_details.disk_size, applied.recurring_amount],
      ['Active', 103, '80', 240000],
    )
    // 103 has allow_downgrade 0: nothing cheaper is offered.
    const after = await c.ok<{ packages: unknown[] }>('GET', `/lites/accounts/${vm}/change-package`)
    assert.deepEqual(after.packages, [])
  })

  test('storage upgrades are absolute, grow-only, bounded, and priced per tier', async () => {
    const c = setup()
    const vm = await c.vm()
    const options = await c.ok('GET', `/lites/accounts/${vm}/storage`)
    assert.deepEqual(options, {
      account_id: String(vm),
      disk_size: 20,
      max_disk_size: 500,
      unit: 'GB',
      billingcycle: 'Monthly',
      price_per_gb: 1000,
    })
    const smaller = (await c.fails(422, 'PUT', `/lites/accounts/${vm}/storage`, { disk_size: 20 })) as { msg: string }[]
    assert.match(smaller[0]?.msg ?? '', /greater than current size 20/)
    await c.fails(422, 'PUT', `/lites/accounts/${vm}/storage`, { disk_size: 501 })
    await c.ok('PUT', `/lites/accounts/${vm}/storage`, { disk_size: 150 })
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).extra_details.disk_size, '20')
    await c.advance(DELAY)
    const grown = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.equal(grown.extra_details.disk_size, '150')
    // 130 GB above the 20 GB base: 100 at 1000, 30 at 800.
    assert.equal(grown.recurring_amount, 60000 + 100 * 1000 + 30 * 800)
    assert.equal((await c.ok<{ price_per_gb: number }>('GET', `/lites/accounts/${vm}/storage`)).price_per_gb, 800)
  })

  test('rename and keypair change are immediate; the keypair must be in the family pool', async () => {
    const c = setup()
    const vm = await c.vm()
    const other = await c.keypair('/lites', 'second-key')
    const pro = await c.keypair('/lite-pros', 'pro-key')
    assert.equal(await c.ok('PUT', `/lites/accounts/${vm}/change-vm-name`, { name: 'new-name-01' }), true)
    assert.equal(await c.ok('PUT', `/lites/accounts/${vm}/keypair`, { keypair_id: other }), true)
    const account = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual([account.status, account.extra_details.name, account.extra_details.keypair_id], ['Active', 'new-name-01', other])
    await c.fails(422, 'PUT', `/lites/accounts/${vm}/keypair`, { keypair_id: pro })
  })

  test('power actions set the vm-details status and never the account status', async () => {
    const c = setup()
    const vm = await c.vm()
    const state = async () => (await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).status
    const steps: [string, string][] = [
      ['stop', 'stopped'],
      ['stop', 'stopped'],
      ['start', 'running'],
      ['suspend', 'paused'],
      ['resume', 'running'],
      ['shutdown', 'stopped'],
      ['reset', 'running'],
    ]
    for (const [action, expected] of steps) {
      assert.equal(await c.ok('PUT', `/lites/accounts/${vm}/vm-state/${action}`), `${action} accepted`)
      assert.equal(await state(), expected, action)
    }
    await c.ok('PUT', `/lites/accounts/${vm}/vm-state/stop`)
    const stopped = await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)
    assert.deepEqual([stopped.uptime, stopped.mem], [0, 0])
    await c.advance(5000)
    await c.ok('PUT', `/lites/accounts/${vm}/vm-state/start`)
    await c.advance(7000)
    assert.equal((await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).uptime, 7)
    await c.ok('PUT', `/lites/accounts/${vm}/vm-state/reset`)
    assert.equal((await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).uptime, 0)
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Active')
  })

  test('a rebuild goes Pending without an order, then shows the new OS and a running VM', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.ok('PUT', `/lites/accounts/${vm}/vm-state/stop`)
    await c.fails(422, 'PUT', `/lites/accounts/${vm}/rebuild`, { select_os: 'Windows-11' })
    assert.equal(await c.ok('PUT', `/lites/accounts/${vm}/rebuild`, { select_os: 'Debian-12' }), 'rebuild scheduled')
    const pending = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual([pending.status, pending.extra_details.osname], ['Pending', 'Ubuntu-22.04'])
    await c.advance(DELAY)
    const rebuilt = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual([rebuilt.status, rebuilt.extra_details.osname, rebuilt.last_invoice.id], ['Active', 'Debian-12', 700001])
    assert.equal((await c.ok<VmDetails>('GET', `/lites/accounts/${vm}/vm-details`)).status, 'running')
    assert.equal((await c.control<{ total: number }>('GET', '/orders')).total, 1)
  })

  test('migrate to pro moves the account to /lite-pros at once with the Pro product', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.ok('PUT', `/lites/accounts/${vm}/storage`, { disk_size: 120 })
    await c.advance(DELAY)
    const targets = await c.ok<{ product_id: number; category_name: string }[]>('GET', `/lites/accounts/${vm}/migrate-to-pro/products`)
    assert.deepEqual(
      targets.map((t) => [t.product_id, t.category_name]),
      [[203, 'Lite Pro']],
      'only Pro products whose base disk holds the VM disk',
    )
    await c.fails(422, 'POST', `/lites/accounts/${vm}/migrate-to-pro`, { lite_pro_product_id: 201 })
    const order = await c.ok<{ account_id: string }>('POST', `/lites/accounts/${vm}/migrate-to-pro`, {
      lite_pro_product_id: 203,
      pay_invoice_with_cc: false,
    })
    assert.equal(order.account_id, String(vm))
    await c.fails(404, 'GET', `/lites/accounts/${vm}`)
    await c.fails(404, 'DELETE', `/lites/${vm}`)
    const moved = await c.ok<AccountView>('GET', `/lite-pros/accounts/${vm}`)
    assert.deepEqual(
      [moved.status, moved.product_id, moved.extra_details.disk_size, moved.last_invoice.invoice_type, moved.recurring_amount],
      ['Pending', 203, '200', 'migrate', 800000],
    )
    assert.deepEqual([moved.extra_details.ciuser, moved.extra_details.osname], ['deployer', 'Ubuntu-22.04'])
    await c.control('POST', `/accounts/${vm}/pay`)
    await c.advance(DELAY)
    assert.equal((await c.ok<VmDetails>('GET', `/lite-pros/accounts/${vm}/vm-details`)).status, 'running')
    const proKey = await c.keypair('/lite-pros', 'pro-key')
    await c.ok('PUT', `/lite-pros/accounts/${vm}/keypair`, { keypair_id: proKey })
    const orders = await c.control<{ by_kind: Record<string, number> }>('GET', '/orders')
    assert.equal(orders.by_kind['lite.vm.migrate'], 1)
    await c.ok('DELETE', `/lite-pros/${vm}`)
  })

  test('a delete terminates at once, cancels an unpaid invoice, and reads 404 after retention', async () => {
    const c = setup()
    const vm = await c.vm({ pay: false })
    await c.ok('DELETE', `/lites/${vm}`)
    const gone = await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)
    assert.deepEqual([gone.status, gone.last_invoice.status], ['Terminated', 'Cancelled'])
    assert.deepEqual(await c.ok('GET', '/lites/accounts'), [])
    const listed = await c.ok<AccountView[]>('GET', '/lites/accounts?status=terminated')
    assert.deepEqual(
      listed.map((a) => a.account_id),
      [vm],
    )
    await c.advance(300_000)
    await c.fails(404, 'GET', `/lites/accounts/${vm}`)
    await c.fails(404, 'DELETE', `/lites/${vm}`)
  })

  test('lists are sorted by id and filter by status', async () => {
    const c = setup()
    const first = await c.vm()
    const second = await c.vm({ active: false })
    const all = await c.ok<AccountView[]>('GET', '/lites/accounts')
    assert.deepEqual(
      all.map((a) => a.account_id),
      [first, second],
    )
    const pending = await c.ok<AccountView[]>('GET', '/lites/accounts?status=PENDING')
    assert.deepEqual(
      pending.map((a) => a.account_id),
      [second],
    )
  })

  test('no IP available for a product: C4 says so and L1 answers 409', async () => {
    const c = setup()
    const keypair = await c.keypair()
    await c.control('PATCH', '/config', { ip_unavailable_product_ids: [102] })
    assert.deepEqual(await c.ok('GET', '/lites/products/102/ip-availability'), { available: false })
    assert.deepEqual(await c.ok('GET', '/lites/products/101/ip-availability'), { available: true })
    await c.fails(409, 'POST', '/lites', { ...VM_BODY, product_id: 102, keypair_id: keypair })
  })
})

describe('Lite Pro family', () => {
  test('has its own catalog, pools and disk minimum, and no migrate paths', async () => {
    const c = setup()
    const products = await c.ok<{ product_id: number; category_name: string; options: { type: string } }[]>('GET', '/lite-pros/products')
    assert.deepEqual(
      products.map((p) => [p.product_id, p.category_name, p.options.type]),
      [
        [201, 'Lite Pro', 'vps-pro'],
        [202, 'Lite Pro', 'vps-pro'],
        [203, 'Lite Pro', 'vps-pro'],
      ],
    )
    await c.fails(404, 'GET', '/lite-pros/products/101')
    const liteKey = await c.keypair('/lites', 'lite-key')
    await c.fails(422, 'POST', '/lite-pros', { ...VM_BODY, product_id: 201, keypair_id: liteKey })
    await c.fails(422, 'POST', '/lite-pros', { ...VM_BODY, product_id: 101, keypair_id: await c.keypair('/lite-pros') })
    const vm = await c.vm({ prefix: '/lite-pros' })
    await c.fails(404, 'GET', `/lite-pros/accounts/${vm}/migrate-to-pro/products`)
    const disk = await c.ok<{ account_id: string }>('POST', '/lite-pros/disks', { product_id: 61, cycle: 'm', lite_account_id: vm })
    await c.advance(DELAY)
    const view = await c.ok<AccountView>('GET', `/lite-pros/disks/accounts/${disk.account_id}`)
    assert.deepEqual([view.extra_details.size, view.recurring_amount], [30, 30 * 900])
    const storage = await c.ok<{ max_disk_size: number; price_per_gb: number }>('GET', `/lite-pros/accounts/${vm}/storage`)
    assert.deepEqual([storage.max_disk_size, storage.price_per_gb], [1000, 2000])
  })
})

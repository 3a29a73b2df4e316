// Real terraform against the emulator launcher: the price of a plan (issue 18). A plan that orders
// shows each resource's orders priced from the catalog, as one warning per resource with the running
// total; the apply is billed exactly that; the next plan shows nothing; `max_order_total` below the
// total fails the plan, naming the orders, and nothing is ordered.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { block, describeRun, providerBlocks, type RunResult, ref } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

/** A keypair and a VM of product 101 (20 GB base disk) with a 30 GB disk, both named `name`. */
function keyAndVm(name: string): string[] {
  return [
    block('resource', 'provider_lite_keypair', 'k', { name }),
    block('resource', 'provider_lite_vm', 'vm', {
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      vm_name: name,
      disk_size: 30,
    }),
  ]
}

function config(limit?: number): string {
  return [
    providerBlocks({ max_order_total: limit }),
    ...keyAndVm('e2e-prices'),
    block('resource', 'provider_lite_disk', 'data', {
      product_id: 60,
      cycle: 'm',
      lite_account_id: ref('provider_lite_vm.vm.id'),
      service_name: 'e2e-prices',
    }),
  ].join('\n')
}

/** The amounts of the price warnings a command printed, one per resource that orders. */
function shownPrices(output: string): number[] {
  return [...output.matchAll(/Warning: This plan places paid orders: (\d+)/g)].map((m) => Number(m[1]))
}

/** A command's output on one line: terraform wraps the detail of a diagnostic at the terminal width. */
function flat(run: RunResult): string {
  return (run.stdout + run.stderr).replace(/\s+/g, ' ')
}

describe('the price of a plan under terraform', () => {
  const e2e = useEmulatorWorkspace()

  test('max_order_total below the total fails the plan and the apply, naming the orders; nothing is ordered', async () => {
    // The VM: 60000 for product 101 and 10000 for 10 GB above its 20 GB base; the disk: 60 GB at 500.
    await e2e.ws.write(config(99_999))
    const { value: runs, orders } = await e2e.emulator.effectsOf(async () => [await e2e.ws.plan(), await e2e.ws.apply()])
    for (const run of runs) {
      assert.equal(run.code, 1, describeRun(run))
      const output = flat(run)
      assert.match(output, /The plan's orders exceed max_order_total/)
      assert.match(output, /provider_lite_vm: new product 101 "XS 1.1": 60000 per Monthly cycle/)
      assert.match(output, /provider_lite_disk: new product 60 "Lite Extra Disk", 60 GB: 30000 per Monthly cycle/)
      assert.match(output, /more than max_order_total = 99999/)
    }
    assert.deepEqual(orders, [])
  })

  test('the plan shows the price of each order and the total; the apply is billed exactly that; the next plan shows none', async () => {
    await e2e.ws.write(config(100_000))
    const planned = await e2e.ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    const shown = shownPrices(planned.stdout + planned.stderr)
    assert.deepEqual(shown, [70_000, 30_000], describeRun(planned))
    assert.match(flat(planned), /all orders of the plan so far: 100000\)/)
    assert.match(flat(planned), /provider_lite_vm: storage of 10 GB above the base disk: 10000 per Monthly cycle/)

    const { value: applied, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual(orders.map((o) => o.kind).sort(), ['lite.disk.create', 'lite.vm.create', 'lite.vm.storage'])
    const billed = (await e2e.emulator.orders()).orders.reduce((sum, order) => sum + order.invoice_amount, 0)
    assert.equal(billed, 100_000, 'the emulator billed what the plan showed')

    const again = await e2e.ws.plan()
    assert.equal(again.code, 0, describeRun(again))
    assert.deepEqual(shownPrices(again.stdout + again.stderr), [], describeRun(again))
  })

  test('-replace is priced at plan time: under max_order_total it fails the plan and the apply, and nothing is deleted or ordered', async () => {
    await e2e.ws.write(config(100_000))
    const created = await e2e.ws.apply()
    assert.equal(created.code, 0, describeRun(created))

    await e2e.ws.write(config(100_000))
    const priced = await e2e.ws.plan(['-replace=provider_lite_vm.vm'])
    assert.equal(priced.code, 2, describeRun(priced))
    // The disk on the VM is replaced with it (its lite_account_id forces it). The VM's new object is priced
    // by the plan Terraform makes without its prior state, whose warnings Terraform does not show (only its
    // errors): its 70000 shows in the running total of the disk's warning.
    assert.deepEqual(shownPrices(priced.stdout + priced.stderr), [30_000], describeRun(priced))
    assert.match(flat(priced), /all orders of the plan so far: 100000\)/)

    await e2e.ws.write(config(69_999))
    const { value: runs, mutations } = await e2e.emulator.effectsOf(async () => [
      await e2e.ws.plan(['-replace=provider_lite_vm.vm']),
      await e2e.ws.apply(['-replace=provider_lite_vm.vm']),
    ])
    for (const run of runs) {
      assert.equal(run.code, 1, describeRun(run))
      assert.match(flat(run), /The plan's orders exceed max_order_total/)
      assert.match(flat(run), /more than max_order_total = 69999/)
    }
    assert.deepEqual(mutations, [], 'the VM is neither deleted nor ordered again')
  })
})

describe('the price of a resize and a change of product of an elastic storage in one apply, under terraform', () => {
  const e2e = useEmulatorWorkspace()

  const storage = (size: number, productId: number, limit?: number) =>
    [
      providerBlocks({ max_order_total: limit }),
      block('resource', 'provider_baremetal_keypair', 'k', { name: 'e2e-prices-metal' }),
      block('resource', 'provider_baremetal', 'server', {
        product_id: 301,
        cycle: 'm',
        keypair_id: ref('provider_baremetal_keypair.k.keypair_id'),
        label: 'e2e-prices-metal',
      }),
      block('resource', 'provider_baremetal_elastic_storage', 'vol', {
        product_id: productId,
        cycle: 'm',
        storage_name: 'e2e-prices-volume',
        metal_account_id: ref('provider_baremetal.server.id'),
        size,
      }),
    ].join('\n')

  test('150 GB on 501 to 300 GB on 502: the plan shows what the resize and the change of product bill', async () => {
    await e2e.ws.write(storage(150, 501))
    const created = await e2e.ws.apply()
    assert.equal(created.code, 0, describeRun(created))

    await e2e.ws.write(storage(300, 502))
    const planned = await e2e.ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    const [shown] = shownPrices(planned.stdout + planned.stderr)
    const { value: applied, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['elastic_storage.resize', 'elastic_storage.change_package'],
    )
    const billed = orders.reduce((sum, order) => sum + order.invoice_amount, 0)
    assert.equal(shown, billed, `the plan showed what the orders billed: ${describeRun(planned)}`)
  })
})

describe('the price of a VM restored from a snapshot under terraform', () => {
  const e2e = useEmulatorWorkspace()
  // A VM of product 101 (20 GB base disk) grown to 30 GB, and a snapshot of it: a restore into 101 gets 30 GB.
  const source = [
    providerBlocks({}),
    ...keyAndVm('e2e-restore'),
    block('resource', 'provider_lite_snapshot', 'snap', {
      lite_account_id: ref('provider_lite_vm.vm.id'),
      cycle: 'm',
      name: 'e2e-restore',
    }),
  ]
  const restored = block('resource', 'provider_lite_vm_from_snapshot', 'restored', {
    snapshot_id: ref('provider_lite_snapshot.snap.id'),
    product_id: 101,
    cycle: 'm',
    keypair_id: ref('provider_lite_keypair.k.keypair_id'),
    name: 'e2e-restored',
    ssh_and_console_user: 'deployer',
    console_password: 'S3cretPass9',
  })

  test('a snapshot larger than the base disk: priced with its storage once it exists, the least it costs before', async () => {
    await e2e.ws.write([...source, restored].join('\n'))
    const together = await e2e.ws.plan()
    assert.equal(together.code, 2, describeRun(together))
    assert.match(
      flat(together),
      /provider_lite_vm_from_snapshot: new product 101 "XS 1.1": 60000 per Monthly cycle, or more: the snapshot is known only after apply/,
    )
    assert.match(flat(together), /This plan places paid orders: 60000 or more/)

    await e2e.ws.write(source.join('\n'))
    const made = await e2e.ws.apply()
    assert.equal(made.code, 0, describeRun(made))

    await e2e.ws.write([...source, restored].join('\n'))
    const planned = await e2e.ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    assert.deepEqual(shownPrices(planned.stdout + planned.stderr), [70_000], describeRun(planned))
    assert.match(flat(planned), /provider_lite_vm_from_snapshot: storage of 10 GB above the base disk: 10000 per Monthly cycle/)
    const { value: applied, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.deepEqual(
      orders.map((o) => o.kind),
      ['lite.snapshot.restore_vm'],
    )
    const billed = (await e2e.emulator.orders()).orders.find((o) => o.kind === 'lite.snapshot.restore_vm')?.invoice_amount
    assert.equal(billed, 70_000, 'the emulator billed the restore what the plan showed')
  })
})

// In-process tests of the Lite family's snapshots, extra disks, keypair pools and catalog.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { createEmulator } from './index.js'
import { generateEd25519, publicKeyProblem } from './openssh.js'
import { type AccountView, DELAY, TestClient, VM_BODY } from '../../test/support/emulator-client.js'

const setup = () => new TestClient(createEmulator({ clock: 'manual', startTime: Date.UTC(2025, 2, 2, 11, 0, 40) }))

interface Plan {
  product_id: number
  name: string
  category_name: string
  options: Record<string, unknown>
  billing: { label: string; cycle: string; price: number; components: unknown }[]
}

describe('snapshots', () => {
  test('S1-S3: a snapshot is its own Pending then Active account capturing the VM', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.fails(422, 'POST', `/lites/accounts/${vm}/snapshot`, { name: 'short' })
    const order = await c.ok<{ account_id: string }>('POST', `/lites/accounts/${vm}/snapshot`, {
      cycle: 'm',
      name: 'snap-before-up',
      description: 'before upgrade',
    })
    const id = Number(order.account_id)
    assert.notEqual(id, vm)
    assert.equal((await c.ok<AccountView>('GET', `/lites/snapshots/accounts/${id}`)).status, 'Pending')
    await c.advance(DELAY)
    const snap = await c.ok<AccountView>('GET', `/lites/snapshots/accounts/${id}`)
    assert.deepEqual(
      [snap.status, snap.product_id, snap.product_name, snap.recurring_amount, snap.description],
      ['Active', 70, 'Lite Snapshot', 25000, 'before upgrade'],
    )
    assert.deepEqual(snap.extra_details, { name: 'snap-before-up', lite_account_id: vm, region: 'wjv-1', region_label: 'West Java 1' })
    const list = await c.ok<AccountView[]>('GET', '/lites/snapshots/accounts')
    assert.deepEqual(
      list.map((s) => s.account_id),
      [id],
    )
    await c.fails(404, 'GET', `/lite-pros/snapshots/accounts/${id}`)
  })

  test('S4: a VM restored from a snapshot takes its OS and at least its disk size', async () => {
    const c = setup()
    const vm = await c.vm()
    await c.ok('PUT', `/lites/accounts/${vm}/rebuild`, { select_os: 'Rocky-9' })
    await c.advance(DELAY)
    await c.ok('PUT', `/lites/accounts/${vm}/storage`, { disk_size: 30 })
    await c.advance(DELAY)
    const snap = Number((await c.ok<{ account_id: string }>('POST', `/lites/accounts/${vm}/snapshot`, { cycle: 'a' })).account_id)
    const keypair = await c.keypair('/lites', 'restore-key')
    const body = {
      product_id: 101,
      cycle: 'm',
      keypair_id: keypair,
      name: 'restored-01',
      ssh_and_console_user: 'restorer',
      console_password: 'Passw0rdOk',
    }
    await c.fails(409, 'POST', `/lites/snapshots/accounts/${snap}/create`, body)
    await c.advance(DELAY)
    const order = await c.ok<{ account_id: string }>('POST', `/lites/snapshots/accounts/${snap}/create`, body)
    await c.advance(DELAY)
    const restored = await c.ok<AccountView>('GET', `/lites/accounts/${order.account_id}`)
    assert.deepEqual(
      [
        restored.status,
        restored.extra_details.snapshot_id,
        restored.extra_details.osname,
        restored.extra_details.disk_size,
        restored.extra_details.name,
      ],
      ['Active', snap, 'Rocky-9', '30', 'restored-01'],
    )
    const orders = await c.control<{ by_kind: Record<string, number> }>('GET', '/orders')
    assert.equal(orders.by_kind['lite.snapshot.restore_vm'], 1)
    assert.equal(orders.by_kind['lite.snapshot.create'], 1)
  })

  test('S5-S7: in-place restore, delete, and the snapshot catalog', async () => {
    const c = setup()
    const vm = await c.vm()
    const snap = Number((await c.ok<{ account_id: string }>('POST', `/lites/accounts/${vm}/snapshot`, { cycle: 'm' })).account_id)
    await c.advance(DELAY)
    await c.ok('PUT', `/lites/accounts/${vm}/rebuild`, { select_os: 'Debian-12' })
    await c.fails(409, 'PUT', `/lites/snapshots/accounts/${snap}/restore`)
    await c.advance(DELAY)
    assert.equal(await c.ok('PUT', `/lites/snapshots/accounts/${snap}/restore`), 'restore scheduled')
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Pending')
    await c.advance(DELAY)
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).extra_details.osname, 'Ubuntu-22.04')
    assert.equal(await c.ok('DELETE', `/lites/snapshots/${snap}`), 'cancellation scheduled')
    assert.equal((await c.ok<AccountView>('GET', `/lites/snapshots/accounts/${snap}`)).status, 'Terminated')
    assert.equal((await c.ok<AccountView>('GET', `/lites/accounts/${vm}`)).status, 'Active')
    const plans = await c.ok<Plan[]>('GET', '/lite-pros/snapshots/products')
    assert.deepEqual(
      plans.map((p) => [p.product_id, p.name, p.options.type]),
      [[71, 'Pro Snapshot', 'snapshot']],
    )
    assert.equal((await c.ok<Plan>('GET', '/lites/snapshots/products/70')).billing.length, 8)
    await c.fails(404, 'GET', '/lites/snapshots/products/71')
  })
})

describe('extra disks', () => {
  test('D1-D5: create on an Active VM, grow by increments, delete', async () => {
    const c = setup()
    const vm = await c.vm({ active: false })
    await c.fails(409, 'POST', '/lites/disks', { product_id: 60, cycle: 'm', lite_account_id: vm })
    await c.advance(DELAY)
    const bad = (await c.fails(422, 'POST', '/lites/disks', {
      product_id: 61,
      cycle: 'm',
      lite_account_id: 999999,
      size: 59,
      service_name: 'x',
    })) as { loc: string[] }[]
    assert.deepEqual(
      bad.map((d) => d.loc[1]),
      ['product_id', 'lite_account_id', 'service_name', 'size'],
    )
    const order = await c.ok<{ account_id: string }>('POST', '/lites/disks', {
      product_id: 60,
      cycle: 'm',
      lite_account_id: vm,
      service_name: 'data-disk-01',
    })
    const disk = order.account_id
    await c.advance(DELAY)
    const view = await c.ok<AccountView>('GET', `/lites/disks/accounts/${disk}`)
    assert.deepEqual(view.extra_details, {
      service_name: 'data-disk-01',
      size: 60,
      lite_account_id: vm,
      region: 'wjv-1',
      region_label: 'West Java 1',
    })
    assert.equal(view.recurring_amount, 30000)
    await c.fails(422, 'PUT', `/lites/disks/accounts/${disk}`, { additional_size: 0 })
    await c.fails(422, 'PUT', `/lites/disks/accounts/${disk}`, { additional_size: 1941 })
    const up = await c.ok<{ account_id: string }>('PUT', `/lites/disks/accounts/${disk}`, { additional_size: 40 })
    assert.equal(up.account_id, disk)
    assert.equal((await c.ok<AccountView>('GET', `/lites/disks/accounts/${disk}`)).extra_details.size, 60)
    await c.advance(DELAY)
    const grown = await c.ok<AccountView>('GET', `/lites/disks/accounts/${disk}`)
    assert.deepEqual([grown.extra_details.size, grown.recurring_amount, grown.last_invoice.invoice_type], [100, 50000, 'upgrade'])
    await c.ok('DELETE', `/lites/disks/${disk}`)
    assert.equal((await c.ok<AccountView>('GET', `/lites/disks/accounts/${disk}`)).status, 'Terminated')
    assert.deepEqual(
      (await c.ok<Plan[]>('GET', '/lites/disks/products')).map((p) => [p.product_id, p.options.min_size]),
      [[60, 60]],
    )
  })
})

describe('keypairs', () => {
  test('K1-K4 in three separate pools sharing one id sequence', async () => {
    const c = setup()
    const a = await c.ok<{ keypair_id: number; private_key: string; public_key: string; origin: string }>('POST', '/lites/keypairs/', {
      name: 'deploy-key',
    })
    assert.equal(a.keypair_id, 1)
    assert.equal(a.origin, 'generated')
    assert.match(a.public_key, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/=]+ deploy-key$/)
    assert.match(a.private_key, /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/)
    await c.fails(409, 'POST', '/lites/keypairs/', { name: 'deploy-key' })
    const pro = await c.ok<{ keypair_id: number }>('POST', '/lite-pros/keypairs/', { name: 'deploy-key' })
    const metal = await c.ok<{ keypair_id: number }>('POST', '/baremetals/keypairs', { name: 'deploy-key' })
    assert.deepEqual([pro.keypair_id, metal.keypair_id], [2, 3])
    const list = await c.ok<Record<string, unknown>[]>('GET', '/lites/keypairs/')
    assert.deepEqual(list, [{ keypair_id: 1, name: 'deploy-key', public_key: a.public_key, origin: 'generated' }])
    await c.fails(404, 'DELETE', '/lites/keypairs/2')
    assert.equal(await c.ok('DELETE', '/lite-pros/keypairs/2'), true)
    assert.deepEqual(await c.ok('GET', '/lite-pros/keypairs/'), [])
  })

  test('K3 imports trimmed OpenSSH lines and rejects malformed ones', async () => {
    const c = setup()
    const line = generateEd25519('laptop').publicKey
    const imported = await c.ok<Record<string, unknown>>('POST', '/baremetals/keypairs/import', {
      name: 'laptop',
      public_key: `  ${line}\n`,
    })
    assert.deepEqual(imported, { keypair_id: 1, name: 'laptop', public_key: line, origin: 'imported' })
    await c.fails(409, 'POST', '/baremetals/keypairs/import', { name: 'laptop', public_key: line })
    const mismatched = line.replace('ssh-ed25519', 'ssh-rsa')
    for (const bad of ['not a key', 'ssh-dss AAAAB3NzaC1kc3M=', 'ssh-ed25519 !!!', mismatched, `${line}\n${line}`]) {
      const detail = (await c.fails(422, 'POST', '/baremetals/keypairs/import', { name: 'other', public_key: bad })) as { loc: string[] }[]
      assert.deepEqual(detail[0]?.loc, ['body', 'public_key'], bad)
    }
  })

  test('public key validation knows every accepted type', () => {
    const blob = (...parts: (string | Buffer)[]) =>
      Buffer.concat(
        parts.map((p) => {
          const bytes = typeof p === 'string' ? Buffer.from(p) : p
          const length = Buffer.alloc(4)
          length.writeUInt32BE(bytes.length)
          return Buffer.concat([length, bytes])
        }),
      ).toString('base64')
    assert.equal(publicKeyProblem(`ssh-rsa ${blob('ssh-rsa', Buffer.from([1, 0, 1]), Buffer.alloc(256, 7))} me@host`), null)
    assert.equal(publicKeyProblem(`ecdsa-sha2-nistp256 ${blob('ecdsa-sha2-nistp256', 'nistp256', Buffer.alloc(65, 4))}`), null)
    assert.notEqual(publicKeyProblem(`ecdsa-sha2-nistp384 ${blob('ecdsa-sha2-nistp384', 'nistp256', Buffer.alloc(65, 4))}`), null)
    assert.notEqual(publicKeyProblem(`ssh-ed25519 ${blob('ssh-ed25519', Buffer.alloc(31))}`), null)
  })

  test('a generated private key is a valid OpenSSH key for its public key', (t) => {
    const probe = spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' })
    const key = generateEd25519('check-me')
    const container = Buffer.from(key.privateKey.split('\n').slice(1, -2).join(''), 'base64')
    assert.equal(container.subarray(0, 15).toString(), 'openssh-key-v1\0')
    if (probe.error) {
      t.skip('ssh-keygen is not installed')
      return
    }
    const dir = mkdtempSync(join(tmpdir(), 'emulator-key-'))
    try {
      const file = join(dir, 'id_ed25519')
      writeFileSync(file, key.privateKey, { mode: 0o600 })
      const derived = spawnSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' })
      assert.equal(derived.status, 0, derived.stderr)
      assert.equal(derived.stdout.trim().split(' ').slice(0, 2).join(' '), key.publicKey.split(' ').slice(0, 2).join(' '))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('catalog', () => {
  test('C1-C4: plan objects with every cycle, tiered storage components and OS templates', async () => {
    const c = setup()
    const plans = await c.ok<Plan[]>('GET', '/lites/products')
    assert.deepEqual(
      plans.map((p) => [p.product_id, p.name, p.options.allow_downgrade]),
      [
        [101, 'XS 1.1', 1],
        [102, 'S 2.2', 1],
        [103, 'M 4.4', 0],
      ],
    )
    const xs = await c.ok<Plan>('GET', '/lites/products/101')
    assert.deepEqual(xs.options, { type: 'vps', cores: 1, memory: 1024, disk: 20, allow_downgrade: 1 })
    assert.deepEqual(
      xs.billing.map((b) => [b.cycle, b.label, b.price]),
      [
        ['m', 'Monthly', 60000],
        ['q', 'Quarterly', 180000],
        ['s', 'Semi-Annually', 360000],
        ['a', 'Annually', 720000],
        ['b', 'Biennially', 1440000],
        ['t', 'Triennially', 2160000],
        ['p4', 'Quadrennially', 2880000],
        ['p5', 'Quinquennially', 3600000],
      ],
    )
    assert.deepEqual(xs.billing[3]?.components, [
      {
        label: 'Additional storage',
        field: 'disk_size',
        prices: [
          { qty_min: 1, qty_max: 100, price: 12000 },
          { qty_min: 101, qty_max: null, price: 9600 },
        ],
      },
    ])
    const oss = await c.ok<{ vmid: number; name: string; node: string; maxmem: number; maxcpu: number }[]>('GET', '/lites/products/102/oss')
    assert.deepEqual(
      oss.map((o) => [o.vmid, o.name, o.node, o.maxmem, o.maxcpu]),
      [
        [9001, 'Ubuntu-22.04', 'node-01', 2048 * 1024 * 1024, 2],
        [9002, 'Ubuntu-24.04', 'node-01', 2048 * 1024 * 1024, 2],
        [9003, 'Debian-12', 'node-01', 2048 * 1024 * 1024, 2],
        [9004, 'Rocky-9', 'node-01', 2048 * 1024 * 1024, 2],
      ],
    )
    await c.fails(404, 'GET', '/lites/products/201/oss')
  })

  test('a promocode discounts the first invoice only, never recurring_amount', async () => {
    const c = setup()
    const keypair = await c.keypair()
    await c.ok('POST', '/lites', { ...VM_BODY, product_id: 101, keypair_id: keypair, promocode: 'PROMO10' })
    const view = await c.ok<AccountView & { last_invoice: { amount: number } }>('GET', '/lites/accounts/100001')
    assert.deepEqual([view.recurring_amount, view.last_invoice.amount], [60000, 54000])
    await c.ok('POST', '/lites', { ...VM_BODY, product_id: 101, keypair_id: keypair, promocode: '' })
  })
})

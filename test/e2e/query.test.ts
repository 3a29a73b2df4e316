// List resources under a real client that has them (Terraform 1.14 and later): objects ordered through
// the emulator's API, outside Terraform, are found by `terraform query` with filters, written as
// configuration with import blocks by `-generate-config-out`, imported by an apply that orders nothing,
// and the next plan is empty. Skipped under a client without `terraform query`.
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { describeRun, type Emulator, PROVIDER_BLOCKS, terraformClient, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const client = terraformClient()
const hasQuery = client.key.startsWith('terraform-') && client.tool.version.localeCompare('1.14', 'en', { numeric: true }) >= 0

interface Made {
  keys: number[]
  server: number
  ip: number
  storage: number
  snapshot: number
}

const VM = {
  cycle: 'm',
  select_os: 'Ubuntu-22.04',
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  vm_name: 'hand-made-vm',
  product_id: 101,
  pay_invoice_with_cc: true,
}

/** Orders made by hand: two keypairs to adopt and one not, a server, an IP, a volume, a VM's snapshot. */
async function makeOutsideTerraform(emulator: Emulator): Promise<Made> {
  const key = async (pool: string, name: string) =>
    (await emulator.api<{ keypair_id: number }>('POST', `${pool}/keypairs/`, { name })).keypair_id
  const order = async (path: string, body: unknown) => Number((await emulator.api<{ account_id: string }>('POST', path, body)).account_id)
  const active = (account: number) => emulator.control('POST', `/accounts/${account}/status`, { status: 'Active' })
  const keys = [await key('/lites', 'adopt-me-1'), await key('/lites', 'adopt-me-2')]
  const vmKey = await key('/lites', 'not-adopted')
  const server = await order('/baremetals', {
    product_id: 301,
    cycle: 'm',
    keypair_id: await key('/baremetals', 'hand-metal-key'),
    label: 'hand-made',
    pay_invoice_with_cc: true,
  })
  const ip = await order('/baremetal-additional-ips', { product_id: 401, cycle: 'm', region: 'wjv-1', pay_invoice_with_cc: true })
  const vm = await order('/lites', { ...VM, keypair_id: vmKey })
  for (const account of [server, ip, vm]) await active(account)
  const storage = await order('/baremetal-elastic-storages', {
    product_id: 501,
    cycle: 'm',
    storage_name: 'hand-volume',
    metal_account_id: server,
    size: 100,
    pay_invoice_with_cc: true,
  })
  const snapshot = await order(`/lites/accounts/${vm}/snapshot`, { cycle: 'm', name: 'hand-snapshot', pay_invoice_with_cc: true })
  for (const account of [storage, snapshot]) await active(account)
  return { keys, server, ip, storage, snapshot }
}

const QUERY = `
list "provider_lite_keypair" "keys" {
  provider = provider
  config {
    name_prefix = "adopt-me"
  }
}

list "provider_baremetal" "servers" {
  provider = provider
  config {
    label_prefix = "hand"
    status       = "Active"
  }
}

list "provider_baremetal_additional_ip" "ips" {
  provider = provider
}

list "provider_baremetal_elastic_storage" "volumes" {
  provider = provider
}

list "provider_lite_snapshot" "snapshots" {
  provider = provider
  config {
    name_prefix = "hand"
  }
}
`

describe('terraform query', { skip: hasQuery ? false : `${client.key} has no terraform query` }, () => {
  const e2e = useEmulatorWorkspace()
  let made: Made
  before(async () => {
    made = await makeOutsideTerraform(e2e.emulator)
  })

  test('query with filters, -generate-config-out, apply the imports (no order), then the plan is empty', async () => {
    await e2e.ws.write(PROVIDER_BLOCKS)
    await writeFile(join(e2e.ws.dir, 'adopt.tfquery.hcl'), QUERY)
    await e2e.ws.init()

    const { value: queried, mutations } = await e2e.emulator.effectsOf(() =>
      e2e.ws.run(['query', '-no-color', '-generate-config-out=generated.tf']),
    )
    assert.equal(queried.code, 0, describeRun(queried))
    assert.deepEqual(mutations, [], 'a query changes nothing at the service')
    // The filters: the third keypair is left out.
    assert.match(queried.stdout, /adopt-me-1/)
    assert.match(queried.stdout, /adopt-me-2/)
    assert.doesNotMatch(queried.stdout, /not-adopted/)

    const generated = await readFile(join(e2e.ws.dir, 'generated.tf'), 'utf8')
    const imports = [...generated.matchAll(/import \{[^}]*to\s*=\s*(\S+)/g)].map((m) => m[1])
    assert.deepEqual(imports.sort(), [
      'provider_baremetal.servers_0',
      'provider_baremetal_additional_ip.ips_0',
      'provider_baremetal_elastic_storage.volumes_0',
      'provider_lite_keypair.keys_0',
      'provider_lite_keypair.keys_1',
      'provider_lite_snapshot.snapshots_0',
    ])
    for (const id of [...made.keys, made.server, made.ip, made.storage, made.snapshot]) {
      assert.match(generated, new RegExp(`= ${id}\\b`), `the import blocks name ${id} by identity`)
    }

    const { value: applied, mutations: applyMutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Resources: 6 imported, 0 added, 0 changed, 0 destroyed\./)
    assert.deepEqual(applyMutations, [], 'adopting orders nothing')
    assert.deepEqual(orders, [])

    const plan = await e2e.ws.plan()
    assert.equal(plan.code, 0, `the plan after adopting is not empty: ${describeRun(plan)}`)
  })

  test('a limit: Terraform stops reading after it and the provider stops listing; the query still succeeds', async () => {
    const other = await Workspace.create(e2e.emulator)
    try {
      await other.write(PROVIDER_BLOCKS)
      await writeFile(
        join(other.dir, 'one.tfquery.hcl'),
        'list "provider_lite_keypair" "one" {\n  provider = provider\n  limit    = 1\n}\n',
      )
      await other.init()
      const run = await other.run(['query', '-no-color'])
      assert.equal(run.code, 0, describeRun(run))
      const found = run.stdout.split('\n').filter((line) => line.startsWith('list.provider_lite_keypair.one'))
      assert.equal(found.length, 1, `one keypair of three: ${run.stdout}`)
    } finally {
      await other.cleanup()
    }
  })

  test('a status filter matches as the service compares statuses (case aside); a status never reported is refused naming the allowed ones', async () => {
    const other = await Workspace.create(e2e.emulator)
    try {
      await other.write(PROVIDER_BLOCKS)
      const list = (status: string) =>
        `list "provider_baremetal" "servers" {\n  provider = provider\n  config {\n    status = "${status}"\n  }\n}\n`
      await other.init()
      // The service compares status values case-insensitively (its status model): `active` is Active.
      await writeFile(join(other.dir, 'status.tfquery.hcl'), list('active'))
      const found = await other.run(['query', '-no-color'])
      assert.equal(found.code, 0, describeRun(found))
      assert.match(found.stdout, new RegExp(`list\\.provider_baremetal\\.servers .*${made.server}`), describeRun(found))
      // `running` is a power state, never an account status: an error, not an empty list.
      await writeFile(join(other.dir, 'status.tfquery.hcl'), list('running'))
      const { value: refused, log } = await e2e.emulator.effectsOf(() => other.run(['query', '-no-color']))
      assert.equal(refused.code, 1, describeRun(refused))
      assert.match(refused.stderr.replace(/\s+/g, ' '), /Error: Invalid status .*status must be one of "Active", "Pending", "Suspended"/)
      // It points at the filter's own line in the config block, not at the list block's header.
      assert.match(refused.stderr, /on status\.tfquery\.hcl line 4, in list "provider_baremetal" "servers":\n\s*4:\s+status = "running"/)
      assert.deepEqual(
        log.filter((e) => e.path.includes('/baremetals/accounts')).map((e) => `${e.method} ${e.path}`),
        [],
        'nothing is listed',
      )
    } finally {
      await other.cleanup()
    }
  })

  test('a filter the type does not have is refused naming it', async () => {
    const other = await Workspace.create(e2e.emulator)
    try {
      await other.write(PROVIDER_BLOCKS)
      await writeFile(
        join(other.dir, 'bad.tfquery.hcl'),
        'list "provider_lite_keypair" "keys" {\n  provider = provider\n  config {\n    owner = "me"\n  }\n}\n',
      )
      await other.init()
      const run = await other.run(['query', '-no-color'])
      assert.equal(run.code, 1, describeRun(run))
      assert.match(run.stderr, /owner/)
    } finally {
      await other.cleanup()
    }
  })
})

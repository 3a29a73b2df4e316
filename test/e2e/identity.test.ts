// Resource identity under a real client that keeps one (Terraform 1.12 and later): objects made outside
// Terraform, through the emulator's API, are imported with `import { identity = { ... } }` (a keypair id,
// an account id, and the composite id of an assignment); the next plan is empty, `terraform show -json`
// shows each identity, and `apply -refresh-only` keeps it. Skipped under a client without identity.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { block, describeRun, type Emulator, PROVIDER_BLOCKS, terraformClient, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const client = terraformClient()
/** Identity came with Terraform 1.12; OpenTofu has none yet. */
const keepsIdentity = client.key.startsWith('terraform-') && client.tool.version.localeCompare('1.12', 'en', { numeric: true }) >= 0

interface Made {
  keypair: number
  server: number
  ip: number
}

/** What a user ordered by hand: a Lite keypair, and an additional IP routed to a Metal server. */
async function makeOutsideTerraform(emulator: Emulator): Promise<Made> {
  const keypair = (await emulator.api<{ keypair_id: number }>('POST', '/lites/keypairs/', { name: 'hand-made-key' })).keypair_id
  const baremetalKey = (await emulator.api<{ keypair_id: number }>('POST', '/baremetals/keypairs/', { name: 'hand-made-metal-key' }))
    .keypair_id
  const server = Number(
    (
      await emulator.api<{ account_id: string }>('POST', '/baremetals', {
        product_id: 301,
        cycle: 'm',
        keypair_id: baremetalKey,
        label: 'hand-made',
        pay_invoice_with_cc: true,
      })
    ).account_id,
  )
  const ip = Number(
    (
      await emulator.api<{ account_id: string }>('POST', '/baremetal-additional-ips', {
        product_id: 401,
        cycle: 'm',
        region: 'wjv-1',
        pay_invoice_with_cc: true,
      })
    ).account_id,
  )
  // Finishes the provisioning now rather than waiting for the emulator's delay.
  for (const account of [server, ip]) await emulator.control('POST', `/accounts/${account}/status`, { status: 'Active' })
  await emulator.api('PUT', `/baremetal-additional-ips/${ip}/assigns`, { metal_account_id: server })
  return { keypair, server, ip }
}

function configuration(made: Made, imports: boolean): string {
  const identity = (to: string, values: Record<string, number>) =>
    `import {\n  to = ${to}\n  identity = {\n${Object.entries(values)
      .map(([k, v]) => `    ${k} = ${v}`)
      .join('\n')}\n  }\n}\n`
  return [
    PROVIDER_BLOCKS,
    ...(imports
      ? [
          identity('provider_lite_keypair.k', { keypair_id: made.keypair }),
          identity('provider_baremetal_additional_ip.ip', { account_id: made.ip }),
          identity('provider_baremetal_additional_ip_assignment.a', { metal_account_id: made.server, additional_ip_id: made.ip }),
        ]
      : []),
    block('resource', 'provider_lite_keypair', 'k', { name: 'hand-made-key' }),
    block('resource', 'provider_baremetal_additional_ip', 'ip', { product_id: 401, cycle: 'm' }),
    block('resource', 'provider_baremetal_additional_ip_assignment', 'a', { additional_ip_id: made.ip, metal_account_id: made.server }),
  ].join('\n')
}

interface ShownResource {
  address: string
  identity?: Record<string, unknown>
  identity_schema_version?: number
}

async function identities(ws: Workspace): Promise<Record<string, Record<string, unknown> | undefined>> {
  const shown = await ws.ok(['show', '-json'])
  const state = JSON.parse(shown.stdout) as { values?: { root_module?: { resources?: ShownResource[] } } }
  const resources = state.values?.root_module?.resources ?? []
  return Object.fromEntries(resources.map((r) => [r.address, r.identity]))
}

describe('resource identity', { skip: keepsIdentity ? false : `${client.key} keeps no resource identity` }, () => {
  const e2e = useEmulatorWorkspace()
  let made: Made
  before(async () => {
    made = await makeOutsideTerraform(e2e.emulator)
  })

  test('import by identity: no order, an empty plan after, the identity in show -json, kept by apply -refresh-only', async () => {
    await e2e.ws.write(configuration(made, true))
    const { value: applied, mutations, orders } = await e2e.emulator.effectsOf(() => e2e.ws.apply())
    assert.equal(applied.code, 0, describeRun(applied))
    assert.match(applied.stdout, /Resources: 3 imported, 0 added, 0 changed, 0 destroyed\./)
    assert.deepEqual(mutations, [], 'an import changes nothing at the service')
    assert.deepEqual(orders, [])

    const expected = {
      'provider_lite_keypair.k': { keypair_id: made.keypair },
      'provider_baremetal_additional_ip.ip': { account_id: made.ip },
      'provider_baremetal_additional_ip_assignment.a': { metal_account_id: made.server, additional_ip_id: made.ip },
    }
    assert.deepEqual(await identities(e2e.ws), expected, 'terraform show -json shows each identity')
    const ids = {
      'provider_lite_keypair.k': String(made.keypair),
      'provider_baremetal_additional_ip.ip': String(made.ip),
      'provider_baremetal_additional_ip_assignment.a': `${made.server}:${made.ip}`,
    }
    for (const [address, id] of Object.entries(ids))
      assert.equal((await e2e.ws.stateOf(address)).id, id, `${address} is the object made by hand`)

    // The import blocks stay or go: either way nothing is left to do.
    const plan = await e2e.ws.plan()
    assert.equal(plan.code, 0, `the plan after import is not empty: ${describeRun(plan)}`)
    await e2e.ws.write(configuration(made, false))
    const without = await e2e.ws.plan()
    assert.equal(without.code, 0, `the plan without the import blocks is not empty: ${describeRun(without)}`)

    const refreshed = await e2e.ws.apply(['-refresh-only'])
    assert.equal(refreshed.code, 0, describeRun(refreshed))
    assert.deepEqual(await identities(e2e.ws), expected, 'apply -refresh-only keeps every identity')
    const raw = JSON.parse(await readFile(join(e2e.ws.dir, 'terraform.tfstate'), 'utf8')) as {
      resources: { instances: { identity_schema_version?: number; identity?: unknown }[] }[]
    }
    for (const resource of raw.resources) assert.equal(resource.instances[0]?.identity_schema_version, 0)
  })

  test('an identity that names no object, or lacks a part, fails the plan naming it', async () => {
    const other = await Workspace.create(e2e.emulator)
    try {
      await other.write(
        [
          PROVIDER_BLOCKS,
          'import {\n  to = provider_lite_keypair.k\n  identity = {\n    keypair_id = 999999\n  }\n}\n',
          block('resource', 'provider_lite_keypair', 'k', { name: 'hand-made-key' }),
        ].join('\n'),
      )
      const missing = await other.plan()
      assert.equal(missing.code, 1, describeRun(missing))
      assert.match(missing.stderr, /Cannot import a missing object/)
      assert.match(missing.stderr, /999999/)
      await other.write(
        [
          PROVIDER_BLOCKS,
          `import {\n  to = provider_baremetal_additional_ip_assignment.a\n  identity = {\n    additional_ip_id = ${made.ip}\n  }\n}\n`,
          block('resource', 'provider_baremetal_additional_ip_assignment', 'a', {
            additional_ip_id: made.ip,
            metal_account_id: made.server,
          }),
        ].join('\n'),
      )
      const partial = await other.plan()
      assert.equal(partial.code, 1, describeRun(partial))
      // Terraform itself refuses an identity without a required_for_import attribute.
      assert.match(partial.stderr, /metal_account_id/)
    } finally {
      await other.cleanup()
    }
  })
})

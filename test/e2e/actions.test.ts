// Real terraform against the emulator launcher: a resource's methods as Terraform actions. Under a
// client with actions (Terraform 1.14 and later): `terraform apply -invoke=action...` powers a Lite VM
// off with its progress shown and the state untouched, an `action_trigger` runs after a create, and a
// rebuild interrupted (SIGINT) while it waits ends promptly having sent one rebuild. Under every client,
// the provider's schema (which lists the actions) still serves a plan and an apply.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  block,
  describeRun,
  type HclValue,
  mutating,
  PROVIDER_BLOCKS,
  ref,
  terraformClient,
  type Workspace,
} from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const CLIENT = terraformClient()
/** Actions came with Terraform 1.14; OpenTofu has none. */
const HAS_ACTIONS = CLIENT.key.startsWith('terraform-') && CLIENT.tool.version.localeCompare('1.14', 'en', { numeric: true }) >= 0

const vm = (name: string, extra: Record<string, HclValue> = {}): Record<string, HclValue> => ({
  ssh_and_console_user: 'deployer',
  console_password: 'S3cretPass9',
  product_id: 101,
  select_os: 'Ubuntu-22.04',
  keypair_id: ref('provider_lite_keypair.k.keypair_id'),
  cycle: 'm',
  vm_name: name,
  ...extra,
})

/** An `action` block: its type, name and `config` arguments. */
function action(type: string, name: string, config: Record<string, string>): string {
  const lines = Object.entries(config).map(([key, value]) => `    ${key} = ${value}`)
  return `action "${type}" "${name}" {\n  config {\n${lines.join('\n')}\n  }\n}\n`
}

/** A resource block whose lifecycle runs `actions` after the given events. */
function triggered(type: string, name: string, attributes: Record<string, HclValue>, events: string[], actions: string[]): string {
  const body = block('resource', type, name, attributes).replace(/}\n$/, '')
  return `${body}  lifecycle {\n    action_trigger {\n      events  = [${events.join(', ')}]\n      actions = [${actions.join(', ')}]\n    }\n  }\n}\n`
}

const BASE = [
  PROVIDER_BLOCKS,
  block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-actions-key' }),
  block('resource', 'provider_lite_vm', 'web', vm('e2e-web')),
]

const ACTIONS = [
  action('provider_lite_vm_power', 'stop', { id: 'provider_lite_vm.web.id', state: '"stop"' }),
  action('provider_lite_vm_rebuild', 'debian', { id: 'provider_lite_vm.web.id', os: '"Debian-12"' }),
]

/** The managed resources of the state file, without its serial or lineage. */
async function resourcesOf(ws: Workspace): Promise<unknown> {
  return (JSON.parse(await readFile(join(ws.dir, 'terraform.tfstate'), 'utf8')) as { resources: unknown }).resources
}

describe(`actions under ${CLIENT.key}`, () => {
  const e2e = useEmulatorWorkspace()

  test('the provider schema, actions included, serves a plan and an apply of a Lite VM', async () => {
    await e2e.ws.write(BASE.join('\n'))
    const planned = await e2e.ws.plan()
    assert.equal(planned.code, 2, describeRun(planned))
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
    const again = await e2e.ws.plan()
    assert.equal(again.code, 0, describeRun(again))
    const schema = JSON.parse((await e2e.ws.ok(['providers', 'schema', '-json'])).stdout) as {
      provider_schemas: Record<string, { resource_schemas: Record<string, unknown>; action_schemas?: Record<string, unknown> }>
    }
    const provider = Object.values(schema.provider_schemas)[0]
    assert.ok(provider?.resource_schemas.provider_lite_vm, 'the resources are served as before')
    if (HAS_ACTIONS)
      assert.ok(provider?.action_schemas?.provider_lite_vm_power, `action schemas: ${Object.keys(provider?.action_schemas ?? {})}`)
  })

  describe('actions', { skip: HAS_ACTIONS ? false : `${CLIENT.key} has no actions` }, () => {
    test('apply -invoke stops the VM: its progress is shown, nothing but the power call is made, the state is unchanged', async () => {
      await e2e.ws.write([...BASE, ...ACTIONS].join('\n'))
      const before = await resourcesOf(e2e.ws)
      const id = String((await e2e.ws.stateOf('provider_lite_vm.web')).id)
      assert.equal((await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)).status, 'running')

      const seq = await e2e.emulator.lastSeq()
      const invoked = await e2e.ws.apply(['-invoke=action.provider_lite_vm_power.stop'])
      assert.equal(invoked.code, 0, describeRun(invoked))
      assert.match(invoked.stdout, new RegExp(`power action stop sent to Lite VM ${id}`))
      assert.match(invoked.stdout, /Action complete: action\.provider_lite_vm_power\.stop/)
      assert.deepEqual(mutating(await e2e.emulator.requests(seq)), [`PUT /v1/lites/accounts/${id}/vm-state/stop`])
      assert.equal((await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)).status, 'stopped')
      assert.deepEqual(await resourcesOf(e2e.ws), before, 'the state is unchanged')
      const next = await e2e.ws.plan()
      assert.equal(next.code, 0, `power_state is unset, so a stopped VM is no drift: ${describeRun(next)}`)
    })

    test('a destructive action warns at plan', async () => {
      const planned = await e2e.ws.plan(['-invoke=action.provider_lite_vm_rebuild.debian'])
      assert.equal(planned.code, 2, describeRun(planned))
      assert.match(planned.stdout + planned.stderr, /provider_lite_vm_rebuild is destructive/)
    })

    test('a rebuild whose os the VM cannot take fails at plan, naming os and the rule; nothing is called', async () => {
      const id = String((await e2e.ws.stateOf('provider_lite_vm.web')).id)
      const cases: [string, string, RegExp][] = [
        // The VM's product offers these OS names only (its OS list); the service refuses any other with 422.
        [
          'windows',
          '"Windows-11"',
          /Error: Invalid os .*os must be an OS of product 101: "Ubuntu-22\.04", "Ubuntu-24\.04", "Debian-12", "Rocky-9"/,
        ],
        ['newline', '"Debian\\n12"', /Error: Invalid os .*os must not contain control characters/],
      ]
      for (const [name, os, rule] of cases) {
        await e2e.ws.write([...BASE, action('provider_lite_vm_rebuild', name, { id: 'provider_lite_vm.web.id', os })].join('\n'))
        const { value: planned, mutations } = await e2e.emulator.effectsOf(() =>
          e2e.ws.plan([`-invoke=action.provider_lite_vm_rebuild.${name}`]),
        )
        assert.equal(planned.code, 1, describeRun(planned))
        assert.match(planned.stderr.replace(/\s+/g, ' '), rule, describeRun(planned))
        assert.deepEqual(mutations, [])
      }
      assert.equal((await e2e.emulator.account(id))?.extra_details.osname, 'Ubuntu-22.04')
    })

    test('an action_trigger after_create runs the action on the VM just created, with its id', async () => {
      const config = [
        ...BASE,
        ...ACTIONS,
        // `caller` is the triggering resource; its address would do too, with a warning about graph cycles.
        action('provider_lite_vm_power', 'stop_worker', { id: 'caller.id', state: '"stop"' }),
        triggered('provider_lite_vm', 'worker', vm('e2e-worker'), ['after_create'], ['action.provider_lite_vm_power.stop_worker']),
      ]
      await e2e.ws.write(config.join('\n'))
      const seq = await e2e.emulator.lastSeq()
      const applied = await e2e.ws.apply()
      assert.equal(applied.code, 0, describeRun(applied))
      assert.doesNotMatch(applied.stdout + applied.stderr, /Reference to triggering resource/, describeRun(applied))
      const id = String((await e2e.ws.stateOf('provider_lite_vm.worker')).id)
      assert.match(applied.stdout, new RegExp(`power action stop sent to Lite VM ${id}`))
      const calls = mutating(await e2e.emulator.requests(seq))
      assert.deepEqual(
        calls.filter((c) => c.includes('vm-state')),
        [`PUT /v1/lites/accounts/${id}/vm-state/stop`],
      )
      assert.ok(calls.indexOf(`PUT /v1/lites/accounts/${id}/vm-state/stop`) > calls.indexOf('POST /v1/lites'), calls.join('\n'))
      assert.equal((await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)).status, 'stopped')
      const next = await e2e.ws.plan()
      assert.equal(next.code, 0, `an action_trigger runs on its events only: ${describeRun(next)}`)
    })

    test('an action_trigger after_create on a VM ordered unpaid: the error names the unpaid invoice, says to pay it and how to run the action again; paid, -invoke runs it', async () => {
      const ws = await e2e.workspace()
      const config = [
        PROVIDER_BLOCKS,
        block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-unpaid-action-key' }),
        action('provider_lite_vm_power', 'stop_unpaid', { id: 'caller.id', state: '"stop"' }),
        triggered(
          'provider_lite_vm',
          'unpaid',
          vm('e2e-unpaid-act', { pay_with_credit_card: false }),
          ['after_create'],
          ['action.provider_lite_vm_power.stop_unpaid'],
        ),
      ]
      await ws.write(config.join('\n'))
      const applied = await ws.apply()
      assert.equal(applied.code, 1, describeRun(applied))
      const id = String((await ws.stateOf('provider_lite_vm.unpaid')).id)
      const invoice = (await e2e.emulator.account(id))?.last_invoice?.id
      const said = applied.stderr.replace(/[\s│]+/g, ' ')
      assert.match(said, /is Pending; this action needs Active/, describeRun(applied))
      assert.match(
        said,
        new RegExp(
          `Lite VM ${id} is Pending until invoice ${String(invoice)} is paid, .*pay the invoice in the portal, then run the action again: ` +
            '`terraform apply -invoke=action\\.provider_lite_vm_power\\.<name>`',
        ),
        describeRun(applied),
      )
      await e2e.emulator.control('POST', `/accounts/${id}/pay`)
      const deadline = Date.now() + 10_000
      while ((await e2e.emulator.account(id))?.status !== 'Active') {
        assert.ok(Date.now() < deadline, `account ${id} did not become Active after payment`)
        await sleep(100)
      }
      const invoked = await ws.apply(['-invoke=action.provider_lite_vm_power.stop_unpaid'])
      assert.equal(invoked.code, 0, describeRun(invoked))
      assert.equal((await e2e.emulator.api<{ status: string }>('GET', `/lites/accounts/${id}/vm-details`)).status, 'stopped')
    })

    test('a rebuild interrupted (SIGINT) while it waits ends promptly, having sent exactly one rebuild', async () => {
      const id = String((await e2e.ws.stateOf('provider_lite_vm.web')).id)
      await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: 120_000 })
      try {
        const seq = await e2e.emulator.lastSeq()
        await e2e.ws.init()
        const running = e2e.ws.launch([
          'apply',
          '-no-color',
          '-input=false',
          '-auto-approve',
          '-invoke=action.provider_lite_vm_rebuild.debian',
        ])
        const rebuild = `PUT /v1/lites/accounts/${id}/rebuild`
        let sent = false
        for (let i = 0; i < 300 && !sent; i++) {
          sent = mutating(await e2e.emulator.requests(seq)).includes(rebuild)
          if (!sent) await sleep(100)
        }
        assert.ok(sent, 'the rebuild was sent within 30s')
        await sleep(300) // into the wait for Active
        const interrupted = performance.now()
        running.signal('SIGINT')
        const result = await running.done
        const seconds = (performance.now() - interrupted) / 1000
        assert.ok(seconds < 15, `terraform ended ${seconds.toFixed(1)}s after the interrupt: ${describeRun(result)}`)
        assert.notEqual(result.code, 0, describeRun(result))
        assert.match(result.stdout + result.stderr, /Interrupt received/)
        assert.match(result.stdout + result.stderr, /lite_vm rebuild of \d+ failed/)
        assert.deepEqual(
          mutating(await e2e.emulator.requests(seq)).filter((c) => c.includes('rebuild')),
          [rebuild],
        )
      } finally {
        await e2e.emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 })
      }
    })
  })
})

// What only the real engine decides, run in Pulumi YAML: the CLI is then this test's direct child, so it
// can be signalled (SIGINT, SIGKILL) like a user's terminal or a CI runner does, and `--parallel` is the
// CLI's own flag. Which language the program is written in does not change these: the engine, its state
// file and the plugin are the same. Each test is one stack; the emulator's orders are counted throughout.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Emulator } from '../support/e2e/harness.js'
import { CONSOLE_PASSWORD } from '../support/pulumi/chains.js'
import { type CliRun, type Deployment, describeCli, PulumiHome, Stack, until } from '../support/pulumi/cli-harness.js'

let emulator: Emulator
let home: PulumiHome

before(async () => {
  emulator = await Emulator.start({ provisioningDelayMs: 100 })
  home = await PulumiHome.create(emulator)
})
after(async () => {
  await emulator?.stop()
})

const ref = (path: string) => `\${${path}}`

/** A YAML project (JSON is YAML) with `resources`; the stack has the console password and a short poll. */
async function yamlStack(name: string, resources: Record<string, unknown>, outputs: Record<string, string> = {}): Promise<Stack> {
  const program = { name, runtime: 'yaml', config: { consolePassword: { type: 'string', secret: true } }, resources, outputs }
  const stack = await Stack.init(home, name, 'dev', { 'Pulumi.yaml': JSON.stringify(program, null, 2) })
  await stack.setConfig({ consolePassword: CONSOLE_PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
  return stack
}

const liteVm = (name: string, key: string) => ({
  type: 'provider:index:LiteVm',
  properties: {
    productId: 101,
    selectOs: 'Ubuntu-22.04',
    keypairId: ref(`${key}.keypairId`),
    cycle: 'm',
    vmName: name,
    sshAndConsoleUser: 'deployer',
    consolePassword: ref('consolePassword'),
  },
})

async function ordersOfKind(kind: string): Promise<number> {
  return (await emulator.orders()).orders.filter((o) => o.kind === kind).length
}

function ok(run: CliRun, what: string): void {
  assert.equal(run.code, 0, `${what}: ${describeCli(run)}`)
}

describe('a service failure half-way through up', () => {
  test('the service refuses VM orders (503) during up: the rest is created and kept; the next up orders the VM once', async () => {
    const stack = await yamlStack('half-way', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'half-way-key' } },
      ip: { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm' } },
      // The provider retries a refused order with its key until the create's timeout: keep it short.
      vm: { ...liteVm('half-way-vm', 'key'), options: { customTimeouts: { create: '6s' } } },
    })
    const fault = await emulator.control<{ fault_id: string }>('POST', '/faults', {
      method: 'POST',
      path: '/lites',
      mode: 'error',
      status: 503,
      count: -1,
    })
    let first: CliRun
    try {
      first = (await stack.withEvents(['up', '--yes', '--skip-preview'])).run
    } finally {
      await emulator.control('DELETE', `/faults/${fault.fault_id}`)
    }
    assert.notEqual(first.code, 0, `an up whose VM order was refused succeeded: ${describeCli(first)}`)
    // The VM's messages (its retry warnings and log lines, then the error) are grouped under it.
    assert.match(
      first.stdout,
      /LiteVm \(vm\):\n(?: {4}.*\n)*? {4}error: Creating LiteVm failed: POST \/lites: no clear answer/,
      "the failure is the VM's",
    )
    assert.match(
      first.stdout.replace(/\s+/g, ' '),
      /answered 503 \(the last: 503 "Service Unavailable"\)/,
      'it names what the service answered',
    )
    // While it retries, each retry is a warning the user sees during the up, with the attempt and the answer.
    assert.match(first.stdout, /warning: POST \/lites: attempt 1 was answered 503 "Service Unavailable"; trying again/, describeCli(first))
    const kept = await stack.resources()
    assert.deepEqual(Object.keys(kept).sort(), ['ip', 'key'], 'the resources that were created are kept')
    assert.equal(await ordersOfKind('lite.vm.create'), 0)

    const second = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(second.run, 'the second up')
    assert.equal(await ordersOfKind('lite.vm.create'), 1, 'the VM was ordered once in the end')
    assert.equal(await ordersOfKind('additional_ip.create'), 1, 'the IP was ordered again')
    const state = await stack.resources()
    assert.equal((await emulator.account(state.vm?.id ?? ''))?.status, 'Active')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'preview after the second up')
    ok((await stack.destroy()).run, 'destroy')
  })

  test('the answer to the VM order is lost once (503 after processing): the same up retries with its key and adopts it', async () => {
    const stack = await yamlStack('lost-answer', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'lost-answer-key' } },
      vm: liteVm('lost-answer-vm', 'key'),
    })
    const before = await ordersOfKind('lite.vm.create')
    await emulator.control('POST', '/faults', { method: 'POST', path: '/lites', mode: 'error_after', status: 503, count: 1 })
    const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(up.run, 'up with a lost answer')
    assert.equal((await ordersOfKind('lite.vm.create')) - before, 1, 'the retry ordered a second VM')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'preview after up')
    ok((await stack.destroy()).run, 'destroy')
  })
})

/** Starts `pulumi up`, waits until the VM order is placed, then signals; answers the finished run. */
async function interruptedUp(stack: Stack, signal: 'SIGINT' | 'SIGKILL', target: 'group' | 'cli'): Promise<CliRun> {
  const before = await ordersOfKind('lite.vm.create')
  const { child, done } = stack.launchWithEvents(['up', '--yes', '--skip-preview'])
  await until('the VM order', async () => (await ordersOfKind('lite.vm.create')) > before, 60_000)
  if (target === 'group' && child.pid !== undefined) process.kill(-child.pid, signal)
  else child.kill(signal)
  return (await done).run
}

describe('interrupting pulumi up during a create', () => {
  test('SIGINT (Ctrl-C): the engine cancels, the VM is kept with its id, and the next up orders nothing more', async () => {
    const stack = await yamlStack('sigint', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'sigint-key' } },
      vm: liteVm('sigint-vm-01', 'key'),
    })
    const before = await ordersOfKind('lite.vm.create')
    await emulator.control('PATCH', '/config', { provisioning_delay_ms: 5000 })
    let run: CliRun
    try {
      run = await interruptedUp(stack, 'SIGINT', 'group')
    } finally {
      await emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 })
    }
    assert.notEqual(run.code, 0, `an interrupted up succeeded: ${describeCli(run)}`)
    const state = await stack.export()
    const vm = state.deployment.resources?.find((r) => r.type === 'provider:index:LiteVm')
    assert.match(
      vm?.id ?? '',
      /^\d+$/,
      `the VM is in the state with its id after Ctrl-C: ${JSON.stringify(state.deployment.pending_operations)}`,
    )
    assert.deepEqual(state.deployment.pending_operations ?? [], [], 'a Ctrl-C leaves no pending operation')
    const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(again.run, 'the up after Ctrl-C')
    assert.equal(await ordersOfKind('lite.vm.create'), before + 1, 'the VM was ordered again')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'preview after the second up')
    ok((await stack.destroy()).run, 'destroy')
  })

  test('SIGKILL of the CLI: the state keeps a pending create; refresh --clear-pending-creates drops it and the next up adopts the same VM', async () => {
    const stack = await yamlStack('sigkill', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'sigkill-key' } },
      vm: liteVm('sigkill-vm-01', 'key'),
    })
    await emulator.control('PATCH', '/config', { provisioning_delay_ms: 3000 })
    let run: CliRun
    try {
      run = await interruptedUp(stack, 'SIGKILL', 'cli')
    } finally {
      await emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 })
    }
    assert.equal(run.signal, 'SIGKILL')
    const state: Deployment = await stack.export()
    const pending = state.deployment.pending_operations ?? []
    assert.deepEqual(
      pending.map((p) => `${p.type} ${p.resource.type}`),
      ['creating provider:index:LiteVm'],
      'the killed up left the VM as a pending create',
    )
    // What the engine asks next. First the file backend's lock of the killed process:
    const locked = await stack.run(['up', '--yes', '--skip-preview'])
    assert.notEqual(locked.code, 0)
    assert.match(locked.stderr, /the stack is currently locked by 1 lock\(s\).*`pulumi cancel`/s)
    ok(await stack.run(['cancel', '--yes']), 'pulumi cancel')
    // Then the pending create, which refresh can drop (or import by id with --import-pending-creates).
    const refreshed = await stack.withEvents(['refresh', '--yes', '--skip-preview', '--clear-pending-creates'])
    ok(refreshed.run, 'refresh --clear-pending-creates')
    assert.deepEqual((await stack.export()).deployment.pending_operations ?? [], [])
    const placed = await ordersOfKind('lite.vm.create')
    // The preview says the create adopts the killed run's order instead of pricing a new one.
    const previewed = await stack.run(['preview'])
    ok(previewed, 'preview after the kill')
    const shown = (previewed.stdout + previewed.stderr).replace(/\s+/g, ' ')
    assert.match(shown, /This plan adopts an order placed by an earlier run: account \d+/, describeCli(previewed))
    assert.doesNotMatch(shown, /This plan places paid orders/, describeCli(previewed))
    const again = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(again.run, 'the up after the kill')
    assert.equal(await ordersOfKind('lite.vm.create'), placed, 'the up after the kill ordered a second VM')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'preview after the second up')
    ok((await stack.destroy()).run, 'destroy')
  })
})

describe('parallelism', () => {
  test('up --parallel 10 over 20 VMs: at most 10 creates in flight, 10 at the peak, one order each', async () => {
    const resources: Record<string, unknown> = { key: { type: 'provider:index:LiteKeypair', properties: { name: 'parallel-key' } } }
    for (let i = 1; i <= 20; i++) resources[`vm-${String(i).padStart(2, '0')}`] = liteVm(`parallel-vm-${String(i).padStart(2, '0')}`, 'key')
    const stack = await yamlStack('parallel', resources)
    const before = await ordersOfKind('lite.vm.create')
    await emulator.control('PATCH', '/config', { provisioning_delay_ms: 1500 })
    let result: Awaited<ReturnType<Stack['withEvents']>>
    try {
      result = await stack.withEvents(['up', '--yes', '--skip-preview', '--parallel', '10'])
    } finally {
      await emulator.control('PATCH', '/config', { provisioning_delay_ms: 100 })
    }
    ok(result.run, 'up --parallel 10')
    let inFlight = 0
    let peak = 0
    for (const event of result.events) {
      if ((event.kind === 'pre' || event.kind === 'outputs') && event.type === 'provider:index:LiteVm' && event.op === 'create') {
        inFlight += event.kind === 'pre' ? 1 : -1
        peak = Math.max(peak, inFlight)
      }
    }
    assert.equal(peak, 10, `the engine ran ${peak} creates at once`)
    assert.equal((await ordersOfKind('lite.vm.create')) - before, 20)
    assert.equal(Object.keys(await stack.resources()).length, 21)
    ok((await stack.destroy()).run, 'destroy')
  })
})

describe('references and identical resources under the real engine', () => {
  test('YAML: the server and the IP feed their integer accountId to an assignment; up, no changes, destroy', async () => {
    const stack = await yamlStack('yaml-ids', {
      key: { type: 'provider:index:BaremetalKeypair', properties: { name: 'yaml-ids-key' } },
      server: {
        type: 'provider:index:Baremetal',
        properties: { productId: 301, cycle: 'm', keypairId: ref('key.keypairId'), label: 'yaml-ids' },
      },
      ip: { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm' } },
      assignment: {
        type: 'provider:index:BaremetalAdditionalIpAssignment',
        properties: { additionalIpId: ref('ip.accountId'), metalAccountId: ref('server.accountId') },
      },
    })
    const preview = await stack.withEvents(['preview'])
    assert.equal(preview.run.code, 0, describeCli(preview.run))
    ok((await stack.withEvents(['up', '--yes', '--skip-preview'])).run, 'up')
    const state = await stack.resources()
    assert.equal(state.assignment?.id, `${state.server?.id}:${state.ip?.id}`, 'the assignment joins the server and the IP')
    ok((await stack.withEvents(['preview', '--expect-no-changes'])).run, 'preview --expect-no-changes after up')
    ok((await stack.destroy()).run, 'destroy')
  })

  test('three identical additional IPs in one up are all created, one order each', async () => {
    // An emulator of its own: no account of another test can match these orders.
    const own = await Emulator.start({ provisioningDelayMs: 100 })
    try {
      const ownHome = await PulumiHome.create(own)
      const resources: Record<string, unknown> = {}
      for (const name of ['ip-a', 'ip-b', 'ip-c'])
        resources[name] = { type: 'provider:index:BaremetalAdditionalIp', properties: { productId: 401, cycle: 'm' } }
      const stack = await Stack.init(ownHome, 'same-ips', 'dev', {
        'Pulumi.yaml': JSON.stringify({ name: 'same-ips', runtime: 'yaml', resources }),
      })
      await stack.setConfig({ 'provider:pollInterval': '100ms' })
      const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
      ok(up.run, 'up of three identical IPs')
      assert.equal((await own.orders()).orders.filter((o) => o.kind === 'additional_ip.create').length, 3)
    } finally {
      await own.stop()
    }
  })

  test('a successful up shows no cancel message and no warning for its orders', {}, async () => {
    const stack = await yamlStack('quiet', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'quiet-key' } },
      vm: liteVm('quiet-vm-01', 'key'),
    })
    const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(up.run, 'up')
    ok((await stack.destroy()).run, 'destroy')
    // Debug diagnostics are not shown to the user (only with --debug).
    const noise = up.events.filter(
      (e) =>
        e.kind === 'diag' &&
        e.severity !== 'debug' &&
        (/cancel requested/.test(e.message) || (e.severity === 'warning' && !/pulumi-language-yaml/.test(e.message))),
    )
    assert.deepEqual(noise, [])
  })
})

describe('refresh before update (the engine handshakes with the plugin)', () => {
  test('a VM renamed at the service is renamed back by the next up without --refresh; a later up changes nothing', async () => {
    const stack = await yamlStack('drift', {
      key: { type: 'provider:index:LiteKeypair', properties: { name: 'drift-key' } },
      vm: liteVm('drift-vm', 'key'),
    })
    ok((await stack.withEvents(['up', '--yes', '--skip-preview'])).run, 'first up')
    const vmId = String((await stack.resources()).vm?.id ?? '')
    assert.match(vmId, /^\d+$/, 'the VM has an id')
    // Someone renames it in the portal: the stack's state still says drift-vm.
    await emulator.api('PUT', `/lites/accounts/${vmId}/change-vm-name`, { name: 'renamedbyhand' })
    assert.equal((await emulator.account(vmId))?.extra_details.name, 'renamedbyhand')

    const up = await stack.withEvents(['up', '--yes', '--skip-preview'])
    ok(up.run, 'up after the rename')
    assert.equal((await emulator.account(vmId))?.extra_details.name, 'drift-vm', `the up planned from the service's name: ${up.output}`)
    const renames = (await emulator.requests()).filter((e) => e.method === 'PUT' && e.path.endsWith(`/${vmId}/change-vm-name`))
    assert.equal(renames.length, 2, 'the hand rename, then the up that put the name back')

    const quiet = await stack.withEvents(['preview', '--expect-no-changes'])
    ok(quiet.run, 'a preview after it finds nothing to change')
  })
})

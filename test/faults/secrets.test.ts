// Secret hygiene: the API key, console passwords (and cipasswords, which equal them), private keys and
// the OpenVPN profile never reach a log, through a whole lifecycle under TF_LOG=trace and through the
// Pulumi plugin with every Engine.Log call captured; and `raw` redaction works by key pattern at any depth.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REDACTED, redact, redactedJson } from '../../src/api/redact.js'
import { raw } from '../../src/resources/billing.js'
import { block, describeRun, Emulator, PROVIDER_BLOCKS, ref, type RunResult, Workspace } from '../e2e/harness.js'
import { Plugin, startFakeEngine, urnOf } from '../pulumi-harness.js'
import { Report } from './report.js'

const API_KEY = 'Fault-Secret-Key-777'
const PASSWORDS = ['Zq8FaultPassOne', 'Zq9FaultPassTwo']
const report = new Report('secrets')

describe('raw redaction', () => {
  test('covers nested objects, arrays and key patterns, not only exact names', () => {
    const value = {
      account_id: 1,
      extra_details: { cipassword: 'p1', Console_Password: 'p2', name: 'keep' },
      list: [{ clientSecret: 's1', ok: 'keep' }, [{ 'x-token': 't1' }], 'plain'],
      deep: { a: { b: { private_key: 'k1', privateIp: 'k2', apiToken: 't2', db_password_hash: 'h' } } },
      secrets: ['whole', 'array'],
    }
    const out = redact(value) as typeof value
    assert.equal(out.extra_details.cipassword, REDACTED)
    assert.equal(out.extra_details.Console_Password, REDACTED)
    assert.equal(out.extra_details.name, 'keep')
    assert.equal((out.list[0] as Record<string, string>).clientSecret, REDACTED)
    assert.equal((out.list[0] as Record<string, string>).ok, 'keep')
    assert.equal(((out.list[1] as unknown[])[0] as Record<string, string>)['x-token'], REDACTED)
    assert.equal(out.list[2], 'plain')
    for (const key of ['private_key', 'privateIp', 'apiToken', 'db_password_hash'] as const) assert.equal(out.deep.a.b[key], REDACTED, key)
    assert.equal(out.secrets as unknown, REDACTED, 'a key matching the pattern hides its whole value, arrays included')
    assert.equal(value.extra_details.cipassword, 'p1', 'the input is not modified')
    const text = redactedJson(value)
    for (const secret of ['p1', 'p2', 's1', 't1', 'k1', 'k2', 't2', 'whole']) assert.ok(!text.includes(`"${secret}"`), secret)
    // The OpenVPN profile is a secret only in its own answer: `raw` of that lookup hides `config` too.
    assert.equal(JSON.parse(raw({ config: 'client\ndev tun' }, ['config'])).config, REDACTED)
  })
})

describe('no secret in any log', () => {
  let emulator: Emulator
  before(async () => {
    emulator = await Emulator.start({ apiKey: API_KEY, provisioningDelayMs: 100 })
  })
  after(async () => {
    await emulator?.stop()
  })

  /** Every secret the service holds for this key, read back from the emulator (state files may hold them; logs may not). */
  async function secrets(extra: string[]): Promise<[string, string][]> {
    const out: [string, string][] = [['API key', API_KEY], ...PASSWORDS.map((p, i): [string, string] => [`console password ${i + 1}`, p])]
    const vpn = await emulator.api<{ config: string }>('GET', '/baremetals/openvpn')
    out.push(['OpenVPN config', vpn.config])
    for (const line of vpn.config.split('\n').filter((l) => l.length >= 20)) out.push(['an OpenVPN config line', line])
    for (const key of extra) {
      out.push(['a private key', key])
      for (const line of key.split('\n').filter((l) => l.length >= 20 && !l.startsWith('-----'))) out.push(['a private key line', line])
    }
    return out
  }

  function check(where: string, text: string, list: [string, string][]): void {
    const leaks = list.filter(([, secret]) => text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1)))
    report.add({ kind: 'secret', where, lines: text.split('\n').length, leaks: leaks.length })
    assert.deepEqual(
      leaks.map(([what]) => what),
      [],
      `secrets in the ${where}`,
    )
  }

  test('terraform: create, refresh, update, destroy under TF_LOG=trace', { timeout: 120_000 }, async () => {
    const ws = await Workspace.create(emulator)
    try {
      const config = (vmName: string) =>
        [
          PROVIDER_BLOCKS,
          block('resource', 'provider_lite_keypair', 'k', { name: 'secret-lite-key' }),
          block('resource', 'provider_lite_vm', 'vm', {
            ssh_and_console_user: 'deployer',
            console_password: PASSWORDS[0],
            product_id: 101,
            select_os: 'Ubuntu-22.04',
            keypair_id: ref('provider_lite_keypair.k.keypair_id'),
            cycle: 'm',
            vm_name: vmName,
          }),
          block('resource', 'provider_baremetal_keypair', 'mk', { name: 'secret-metal-key' }),
          block('data', 'provider_baremetal_openvpn', 'vpn', {}),
          'output "vpn" {\n  value     = data.provider_baremetal_openvpn.vpn.config\n  sensitive = true\n}\n',
        ].join('\n')
      const runs: [string, RunResult, string][] = []
      const traced = async (name: string, command: (env: Record<string, string>) => Promise<RunResult>) => {
        const path = join(ws.dir, `${name}.log`)
        const run = await command({ TF_LOG: 'trace', TF_LOG_PATH: path, PROVIDER_API_KEY: API_KEY })
        assert.ok(run.code === 0 || run.code === 2, describeRun(run))
        runs.push([name, run, await readFile(path, 'utf8')])
      }
      await ws.write(config('secret-vm-one'))
      await traced('apply', (env) => ws.apply([], { env }))
      await traced('plan', (env) => ws.plan([], { env }))
      await ws.write(config('secret-vm-two'))
      await traced('update', (env) => ws.apply([], { env }))
      const keys = [String((await ws.stateOf('provider_lite_keypair.k')).private_key), String((await ws.stateOf('provider_baremetal_keypair.mk')).private_key)]
      assert.match(keys[0] ?? '', /PRIVATE KEY/)
      await traced('destroy', (env) => ws.run(['destroy', '-no-color', '-input=false', '-auto-approve'], { env }))
      const list = await secrets(keys)
      for (const [name, run, log] of runs) {
        assert.match(log, /provider\.terraform-provider-provider/, `${name}: the provider's own lines are in the trace`)
        check(`terraform ${name} trace log`, log, list)
        check(`terraform ${name} output`, run.stdout + run.stderr, list)
      }
    } finally {
      await ws.cleanup()
    }
  })

  test('Pulumi: every Engine.Log call and the plugin stderr through a lifecycle', { timeout: 60_000 }, async () => {
    const engine = await startFakeEngine()
    const plugin = await Plugin.launch(engine.address, { PULUMI_DEBUG: '1' })
    try {
      const secret = (value: string) => ({ '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', value })
      await plugin.configure({ apiKey: secret(API_KEY), baseUrl: emulator.baseUrl, pollInterval: '100ms' })
      const kUrn = urnOf('provider:index:LiteProKeypair', 'k')
      const key = await plugin.create(kUrn, (await plugin.check(kUrn, { name: 'secret-pro-key' })).inputs)
      const vmUrn = urnOf('provider:index:LiteProVm', 'vm')
      const program = {
        sshAndConsoleUser: 'deployer',
        consolePassword: PASSWORDS[1] ?? '',
        productId: 201,
        selectOs: 'Ubuntu-22.04',
        keypairId: Number(key.properties.keypairId),
        cycle: 'm',
        vmName: 'secret-pro-vm',
      }
      const inputs = (await plugin.check(vmUrn, program)).inputs
      const vm = await plugin.create(vmUrn, inputs)
      const read = await plugin.read(vmUrn, vm.id, vm.properties, inputs)
      const renamed = (await plugin.check(vmUrn, { ...program, vmName: 'secret-pro-vm2' }, inputs)).inputs
      await plugin.diff(vmUrn, vm.id, read.properties, inputs, renamed)
      const updated = await plugin.update(vmUrn, vm.id, read.properties, inputs, renamed)
      const vpn = await plugin.invoke('provider:index:baremetalOpenvpn', {})
      assert.ok(vpn.return.config !== undefined)
      await plugin.delete(vmUrn, vm.id, updated.properties, renamed)
      await plugin.delete(kUrn, key.id, key.properties)
      const privateKey = key.properties.privateKey as { value?: string } | string
      const keyText = typeof privateKey === 'string' ? privateKey : String(privateKey?.value ?? '')
      assert.match(keyText, /PRIVATE KEY/)
      assert.ok(engine.logs.length > 5, `the plugin logged ${engine.logs.length} lines`)
      const list = await secrets([keyText])
      check('Pulumi Engine.Log', engine.logs.map((l) => l.message).join('\n'), list)
      check('Pulumi plugin stderr', plugin.stderr(), list)
    } finally {
      await plugin.stop()
      engine.stop()
    }
  })
})

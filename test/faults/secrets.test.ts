// Secret hygiene: the API key, console passwords (and cipasswords, which equal them), private keys and
// the OpenVPN profile never reach a log, through a whole lifecycle under TF_LOG=trace and through the
// Pulumi plugin with every Engine.Log call captured; and `raw` redaction works by key pattern at any depth.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { REDACTED, redact, redactedJson } from '../../src/api/redact.js'
import { raw } from '../../src/resources/billing.js'
import { block, describeRun, PROVIDER_BLOCKS, providerBlocks, ref, type RunResult, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { Plugin, startFakeEngine, urnOf } from '../support/pulumi/plugin-harness.js'
import { Report } from '../support/faults/report.js'

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
  const e2e = useEmulatorWorkspace({ workspace: false, apiKey: API_KEY, provisioningDelayMs: 100 })

  /** Every secret the service holds for this key, read back from the emulator (state files may hold them; logs may not). */
  async function secrets(extra: string[]): Promise<[string, string][]> {
    const out: [string, string][] = [['API key', API_KEY], ...PASSWORDS.map((p, i): [string, string] => [`console password ${i + 1}`, p])]
    const vpn = await e2e.emulator.api<{ config: string }>('GET', '/baremetals/openvpn')
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
    const ws = await Workspace.create(e2e.emulator)
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
      const keys = [
        String((await ws.stateOf('provider_lite_keypair.k')).private_key),
        String((await ws.stateOf('provider_baremetal_keypair.mk')).private_key),
      ]
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
      await plugin.configure({ apiKey: secret(API_KEY), baseUrl: e2e.emulator.baseUrl, pollInterval: '100ms' })
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

/** A stand-in for the API on 127.0.0.1 that answers every request with `answer`, recording what it got. */
async function fakeApi(answer: (request: IncomingMessage, body: string, res: ServerResponse) => void) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = []
  const server = createServer((request, res) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      answer(request, body, res)
    })
  })
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const port = (server.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((done) => server.close(() => done())) }
}

describe('secrets never leave their origin (issue 8, cases 8 to 10)', () => {
  const e2e = useEmulatorWorkspace({ workspace: false, apiKey: API_KEY, provisioningDelayMs: 100 })
  const password = PASSWORDS[0] ?? ''
  const vm = block('resource', 'provider_lite_vm', 'vm', {
    ssh_and_console_user: 'deployer',
    console_password: password,
    product_id: 101,
    select_os: 'Ubuntu-22.04',
    keypair_id: 1,
    cycle: 'm',
    vm_name: 'leak-vm',
  })
  const secretsIn = (text: string) => [API_KEY, password].filter((s) => text.includes(s)).length

  test('8: a 302 or 307 to another origin is refused; nothing reaches that origin', { timeout: 60_000 }, async () => {
    const elsewhere = await fakeApi((_q, _b, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    for (const status of [302, 307]) {
      const redirector = await fakeApi((request, _b, res) => res.writeHead(status, { location: `${elsewhere.url}${request.url}` }).end())
      const ws = await Workspace.create(e2e.emulator)
      try {
        await ws.write([PROVIDER_BLOCKS, vm].join('\n'))
        const run = await ws.apply([], { env: { PROVIDER_API_KEY: API_KEY, PROVIDER_BASE_URL: `${redirector.url}/v1` } })
        const text = run.stdout + run.stderr
        assert.notEqual(run.code, 0, describeRun(run))
        assert.match(text, /redirect/, describeRun(run))
        assert.ok(redirector.seen.length > 0, 'the provider reached the API')
        report.add({
          kind: 'secret',
          where: `terraform output, API answering ${status} to another origin`,
          lines: text.split('\n').length,
          leaks: secretsIn(text) + elsewhere.seen.length,
        })
        assert.equal(elsewhere.seen.length, 0, 'a request followed the redirect')
        assert.equal(secretsIn(text), 0)
      } finally {
        await ws.cleanup()
        await redirector.close()
      }
    }
    await elsewhere.close()
  })

  test('9: a 500 echoing the request leaks neither the key nor the password, through terraform and Pulumi', {
    timeout: 60_000,
  }, async () => {
    let ordered = false
    const echo = await fakeApi((request, body, res) => {
      // Before a new create the provider asks whether keys are echoed and lists the accounts of that
      // kind (a killed run's order on another machine): an empty list lets the order go out. After
      // it, every request fails, so that finding out whether the order was processed fails too.
      if (request.method === 'POST') ordered = true
      if (!ordered && request.method === 'GET' && /^\/v1\/lites(\/accounts)?(\?|$)/.test(request.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, code: 200, data: [] }))
        return
      }
      const message = `debug: ${JSON.stringify({ headers: request.headers, body })}`
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message }))
    })
    const ws = await Workspace.create(e2e.emulator)
    try {
      await ws.write([PROVIDER_BLOCKS, vm].join('\n'))
      const run = await ws.apply([], { env: { PROVIDER_API_KEY: API_KEY, PROVIDER_BASE_URL: `${echo.url}/v1` } })
      const text = run.stdout + run.stderr
      assert.notEqual(run.code, 0, describeRun(run))
      assert.ok(
        echo.seen.some((s) => s.body.includes(password)),
        'the server did get (and echo) the password',
      )
      report.add({
        kind: 'secret',
        where: 'terraform output, a 500 echoing the request',
        lines: text.split('\n').length,
        leaks: secretsIn(text),
      })
      assert.equal(secretsIn(text), 0, text)
    } finally {
      await ws.cleanup()
    }
    const engine = await startFakeEngine()
    const plugin = await Plugin.launch(engine.address)
    try {
      const secret = (value: string) => ({ '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', value })
      await plugin.configure({ apiKey: secret(API_KEY), baseUrl: `${echo.url}/v1`, pollInterval: '100ms' })
      const urn = urnOf('provider:index:LiteVm', 'vm')
      const program = {
        sshAndConsoleUser: 'deployer',
        consolePassword: password,
        productId: 101,
        selectOs: 'Ubuntu-22.04',
        keypairId: 1,
        cycle: 'm',
        vmName: 'leak-vm',
      }
      const failed = await plugin.create(urn, (await plugin.check(urn, program)).inputs).then(
        () => assert.fail('the create succeeded'),
        (error: Error & { details?: string }) => `${error.message}\n${error.details ?? ''}`,
      )
      const text = `${failed}\n${engine.logs.map((l) => l.message).join('\n')}\n${plugin.stderr()}`
      report.add({
        kind: 'secret',
        where: 'Pulumi error and Engine.Log, a 500 echoing the request',
        lines: text.split('\n').length,
        leaks: secretsIn(text),
      })
      assert.equal(secretsIn(text), 0, text)
    } finally {
      await plugin.stop()
      engine.stop()
      await echo.close()
    }
  })

  test('10: an api_key with a newline or NUL and a base_url with user:password@ or a query string are refused at plan, naming the attribute', {
    timeout: 60_000,
  }, async () => {
    const ws = await Workspace.create(e2e.emulator)
    try {
      const keypair = block('resource', 'provider_lite_keypair', 'k', { name: 'leak-key' })
      // A NUL cannot travel in an environment variable: the bad keys come from a sensitive variable (HCL
      // escapes), as a careful user would pass a key, so that Terraform's own source snippet shows none.
      const withKey = (hcl: string) =>
        `${providerBlocks({ api_key: ref('var.key') })}\n` +
        `variable "key" {\n  type      = string\n  sensitive = true\n  default   = "${hcl}"\n}\n`
      for (const [attribute, config, env, secret] of [
        ['api_key', withKey(`${API_KEY}\\nX-Injected: 1`), {}, API_KEY],
        ['api_key', withKey(`${API_KEY}\\u0000`), {}, API_KEY],
        [
          'base_url',
          PROVIDER_BLOCKS,
          { PROVIDER_API_KEY: API_KEY, PROVIDER_BASE_URL: e2e.emulator.baseUrl.replace('http://', 'http://admin:Hunter2Secret@') },
          'Hunter2Secret',
        ],
        [
          'base_url',
          PROVIDER_BLOCKS,
          { PROVIDER_API_KEY: API_KEY, PROVIDER_BASE_URL: `${e2e.emulator.baseUrl}?token=Qu3rySecretTok` },
          'Qu3rySecretTok',
        ],
      ] as const) {
        await ws.write([config, keypair].join('\n'))
        const before = (await e2e.emulator.orders()).total
        const run = await ws.plan([], { env })
        const text = run.stdout + run.stderr
        assert.equal(run.code, 1, describeRun(run))
        assert.match(text, new RegExp(attribute), describeRun(run))
        assert.doesNotMatch(text, /Provider bug|invalid header/)
        report.add({
          kind: 'secret',
          where: `terraform plan output, bad ${attribute}`,
          lines: text.split('\n').length,
          leaks: text.includes(secret) ? 1 : 0,
        })
        assert.ok(!text.includes(secret), `the ${attribute} value is printed:\n${text}`)
        assert.equal((await e2e.emulator.orders()).total, before)
      }
    } finally {
      await ws.cleanup()
    }
  })
})

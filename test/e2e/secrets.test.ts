// Real terraform against the emulator launcher: secrets are shown as (sensitive value) and never reach
// terraform's output or its TF_LOG=trace log (which carries the provider's own log lines), in an apply and a plan.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, type HclValue, PROVIDER_BLOCKS, providerBlocks, ref, type RunResult } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const API_KEY = 'e2e-Secret-Key-123'
const PASSWORD = 'Zq8TraceSecretPw'

function config(vm: Record<string, HclValue>, provider = PROVIDER_BLOCKS): string {
  return [
    provider,
    block('resource', 'provider_lite_keypair', 'k', { name: 'e2e-secrets-key' }),
    block('resource', 'provider_lite_vm', 'vm', {
      ssh_and_console_user: 'deployer',
      console_password: PASSWORD,
      product_id: 101,
      select_os: 'Ubuntu-22.04',
      keypair_id: ref('provider_lite_keypair.k.keypair_id'),
      cycle: 'm',
      ...vm,
    }),
  ].join('\n')
}

/** The API key given as a sensitive variable in the provider block instead of the environment. */
const PROVIDER_WITH_KEY_ATTRIBUTE = providerBlocks({ api_key: ref('var.api_key') }).concat(
  '\nvariable "api_key" {\n  type      = string\n  sensitive = true\n}\n',
)

const SENSITIVE = ['console_password', 'cipassword', 'raw', 'private_key']

describe('secrets', () => {
  const e2e = useEmulatorWorkspace({ apiKey: API_KEY })

  /** Runs `command` with TF_LOG=trace into a file of its own; returns the run and the log. */
  async function traced(name: string, command: (env: Record<string, string>) => Promise<RunResult>) {
    const path = join(e2e.ws.dir, `${name}.log`)
    const run = await command({ TF_LOG: 'trace', TF_LOG_PATH: path })
    assert.equal(run.code === 0 || run.code === 2, true, describeRun(run))
    const log = await readFile(path, 'utf8')
    // The log is the real thing: terraform's trace, and the provider's own lines with its API calls.
    assert.ok(log.length > 10_000, `the ${name} trace log is only ${log.length} bytes`)
    assert.match(log, /provider\.terraform-provider-provider/)
    return { run, log }
  }

  test('secrets show as (sensitive value) and appear in no output nor trace log of an apply and a plan', async () => {
    await e2e.ws.write(config({ vm_name: 'e2e-secrets-1' }))
    await e2e.ws.init()
    const created = await traced('apply', (env) => e2e.ws.apply([], { env }))
    assert.match(created.log, /POST \/lites/, "the provider's API calls are in the trace log")
    for (const name of SENSITIVE) {
      assert.match(created.run.stdout, new RegExp(`^\\s*\\+ ${name}\\s+= \\(sensitive value\\)$`, 'm'), `${name} in the plan of the apply`)
    }

    const vm = await e2e.ws.stateOf('provider_lite_vm.vm')
    const keypair = await e2e.ws.stateOf('provider_lite_keypair.k')
    // The state legitimately holds the secrets: they are what must not leak anywhere else.
    assert.equal(vm.console_password, PASSWORD)
    assert.equal(vm.cipassword, PASSWORD)
    const privateKey = String(keypair.private_key)
    assert.match(privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/)
    // `raw` is the API's account, with the cloud-init password redacted.
    assert.match(String(vm.raw), /"account_id"/)
    assert.ok(!String(vm.raw).includes(PASSWORD), 'raw carries the password')

    // The rendered state shows every secret as (sensitive value), values now known.
    const shown = await e2e.ws.ok(['show', '-no-color'])
    for (const name of SENSITIVE)
      assert.match(shown.stdout, new RegExp(`^\\s*${name}\\s+= \\(sensitive value\\)$`, 'm'), `${name} in terraform show`)

    // A plan that refreshes everything and changes the VM, with the key given as a provider attribute.
    await e2e.ws.write(config({ vm_name: 'e2e-secrets-2' }, PROVIDER_WITH_KEY_ATTRIBUTE))
    const planned = await traced('plan', (env) => e2e.ws.plan([], { env: { ...env, PROVIDER_API_KEY: '', TF_VAR_api_key: API_KEY } }))
    assert.equal(planned.run.code, 2, describeRun(planned.run))
    assert.match(planned.log, /GET \/lites\/accounts/)
    // The in-place update, applied with the key from the environment again.
    await e2e.ws.write(config({ vm_name: 'e2e-secrets-2' }))
    const updated = await traced('update', (env) => e2e.ws.apply([], { env }))
    assert.match(updated.run.stdout, /Resources: 0 added, 1 changed, 0 destroyed\./)

    // The body lines of the key, so that a key logged with escaped newlines is caught too.
    const keyLines = privateKey.split('\n').filter((line) => line.length >= 20 && !line.startsWith('-----'))
    assert.ok(keyLines.length > 0)
    const secrets: [string, string][] = [
      ['the console password (and cipassword, which equals it)', PASSWORD],
      ['the API key', API_KEY],
      ['the private key', privateKey],
      ...keyLines.map((line, i): [string, string] => [`line ${i + 1} of the private key`, line]),
    ]
    const places: [string, string][] = [
      ['apply trace log', created.log],
      ['apply output', created.run.stdout + created.run.stderr],
      ['plan trace log', planned.log],
      ['plan output', planned.run.stdout + planned.run.stderr],
      ['update trace log', updated.log],
      ['update output', updated.run.stdout + updated.run.stderr],
      ['terraform show output', shown.stdout],
    ]
    for (const [where, text] of places) {
      for (const [what, secret] of secrets) assert.ok(!text.includes(secret), `${what} appears in the ${where}`)
    }
  })
})

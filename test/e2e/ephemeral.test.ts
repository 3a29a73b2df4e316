// An ephemeral resource under the real client against the emulator launcher: the OpenVPN profile is
// opened in the plan and again in the apply, handed to a local-exec provisioner through its environment
// (the command writes the profile's sha256 to a file), and never reaches the state, `show -json` of the
// state or of the saved plan, any entry of the saved plan file, the TF_LOG=trace logs nor the output.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { zipEntries } from '../support/zip.js'
import { describeRun, PROVIDER_BLOCKS, type RunResult } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const OPENVPN = 'provider_baremetal_openvpn'
const PROFILE_HASH_FILE = 'profile.sha256'

// The command hashes the profile with the Node.js the provider itself runs on, so no platform tool is assumed.
const HASH_COMMAND =
  "node -e \"process.stdout.write(require('node:crypto').createHash('sha256').update(process.env.OPENVPN_PROFILE).digest('hex'))\"" +
  ` > ${PROFILE_HASH_FILE}`

const CONFIG = `${PROVIDER_BLOCKS}
ephemeral "${OPENVPN}" "vpn" {}

resource "terraform_data" "vpn_profile" {
  provisioner "local-exec" {
    command = ${JSON.stringify(HASH_COMMAND)}
    environment = {
      OPENVPN_PROFILE = ephemeral.${OPENVPN}.vpn.config
    }
  }
}
`

describe('ephemeral resources', () => {
  const e2e = useEmulatorWorkspace({ destroy: true })

  /** Runs `command` with TF_LOG=trace into a file of its own; returns the run and the log. */
  async function traced(name: string, command: (env: Record<string, string>) => Promise<RunResult>) {
    const path = join(e2e.ws.dir, `${name}.log`)
    const run = await command({ TF_LOG: 'trace', TF_LOG_PATH: path })
    const log = await readFile(path, 'utf8')
    // The log is the real thing: the client's trace, and the provider's own lines.
    assert.ok(log.length > 10_000, `the ${name} trace log is only ${log.length} bytes`)
    assert.match(log, /provider\.terraform-provider-provider/)
    return { run, log }
  }

  /** How many times the profile was read from the service while `action` ran. */
  async function reads<T>(action: () => Promise<T>): Promise<{ value: T; reads: number }> {
    const { value, log } = await e2e.emulator.effectsOf(action)
    return { value, reads: log.filter((entry) => entry.method === 'GET' && entry.path === '/v1/baremetals/openvpn').length }
  }

  test('the OpenVPN profile reaches a provisioner and nothing stores or logs it', async () => {
    const { config: profile } = await e2e.emulator.api<{ config: string }>('GET', '/baremetals/openvpn')
    assert.match(profile, /^client\n/)
    await e2e.ws.write(CONFIG)
    await e2e.ws.init()

    const planned = await reads(() => traced('plan', (env) => e2e.ws.plan(['-out=eph.tfplan'], { env })))
    assert.equal(planned.value.run.code, 2, describeRun(planned.value.run))
    assert.ok(planned.reads >= 1, 'the plan opens the ephemeral resource')
    const shownPlan = await e2e.ws.ok(['show', '-json', 'eph.tfplan'])

    const applied = await reads(() => traced('apply', (env) => e2e.ws.run(['apply', '-no-color', '-input=false', 'eph.tfplan'], { env })))
    assert.equal(applied.value.run.code, 0, describeRun(applied.value.run))
    assert.ok(applied.reads >= 1, 'the apply opens it again')
    assert.match(applied.value.run.stdout, /Resources: 1 added, 0 changed, 0 destroyed\./)

    // The provisioner got the profile, whole.
    const hash = (await readFile(join(e2e.ws.dir, PROFILE_HASH_FILE), 'utf8')).trim()
    assert.equal(hash, createHash('sha256').update(profile).digest('hex'))

    // Opened again by the next plan, which finds nothing to change.
    const replanned = await traced('replan', (env) => e2e.ws.plan([], { env }))
    assert.equal(replanned.run.code, 0, describeRun(replanned.run))

    const stateText = await readFile(join(e2e.ws.dir, 'terraform.tfstate'), 'utf8')
    const state = JSON.parse(stateText) as { resources: { mode: string; type: string }[] }
    assert.deepEqual(
      state.resources.map((r) => `${r.mode} ${r.type}`),
      ['managed terraform_data'],
      'only the managed resource is in state',
    )
    const shownState = await e2e.ws.ok(['show', '-json'])
    const planFile = zipEntries(await readFile(join(e2e.ws.dir, 'eph.tfplan')))
    assert.ok(planFile.size >= 3, `the saved plan holds ${[...planFile.keys()].join(', ')}`)

    // The whole profile, and each of its long lines, so that one written with escaped newlines is caught too.
    const lines = profile.split('\n').filter((line) => line.length >= 20 && !line.startsWith('-----'))
    assert.ok(lines.length > 0)
    const secrets: [string, string][] = [
      ['the profile', profile],
      ...lines.map((line, i): [string, string] => [`line ${i + 1} of the profile`, line]),
    ]
    const places: [string, string][] = [
      ['state file', stateText],
      ['terraform show -json (state)', shownState.stdout],
      ['terraform show -json (saved plan)', shownPlan.stdout],
      ...[...planFile].map(([name, data]): [string, string] => [`saved plan entry ${name}`, data.toString('latin1')]),
      ['plan trace log', planned.value.log],
      ['plan output', planned.value.run.stdout + planned.value.run.stderr],
      ['apply trace log', applied.value.log],
      ['apply output', applied.value.run.stdout + applied.value.run.stderr],
      ['second plan trace log', replanned.log],
      ['second plan output', replanned.run.stdout + replanned.run.stderr],
    ]
    for (const [where, text] of places) {
      for (const [what, secret] of secrets) assert.ok(!text.includes(secret), `${what} appears in the ${where}`)
    }
    // The logs did see the ephemeral resource being opened and closed, just never its value.
    assert.match(applied.value.log, /OpenEphemeralResource/)
    assert.match(applied.value.log, /CloseEphemeralResource/)
  })
})

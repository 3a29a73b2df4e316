// The bench's reading of Terraform's log (bench/terraform-trace.ts), on lines as Terraform 1.11 writes them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parsePlanTrace } from './terraform-trace.js'

const PLUGIN = '.terraform/providers/registry.terraform.io/provider/provider/0.1.0/linux_amd64/terraform-provider-provider_v0.1.0'

/** One launch's lines, from Terraform's mTLS set-up to the plugin's exit, at the given offsets in ms. */
function launch(base: number, at: { starting: number; handshake: number; close: number; exited: number }, serviceMs?: number): string[] {
  const t = (offset: number) => new Date(Date.UTC(2026, 10, 24, 17, 20, 37) + base + offset).toISOString()
  return [
    `${t(0)} [INFO]  provider: configuring client automatic mTLS`,
    `${t(at.starting)} [DEBUG] provider: starting plugin: path=${PLUGIN} args=[${PLUGIN}]`,
    `${t(at.starting)} [DEBUG] provider: plugin started: path=${PLUGIN} pid=11644`,
    `${t(at.starting)} [DEBUG] provider: waiting for RPC address: plugin=${PLUGIN}`,
    `${t(at.handshake)} [DEBUG] provider: using plugin: version=6`,
    `${t(at.handshake + 1)} [TRACE] GRPCProvider.v6: ValidateResourceConfig`,
    ...(serviceMs === undefined
      ? []
      : [
          `${t(at.handshake + serviceMs + 2)} [DEBUG] provider.terraform-provider-provider_v0.1.0: service loaded: @module=provider service=tfplugin6.Provider ms=${serviceMs} timestamp=x`,
        ]),
    `${t(at.close)} [TRACE] GRPCProvider.v6: Close`,
    `${t(at.exited)} [INFO]  provider: plugin process exited: plugin=${PLUGIN} id=11644`,
  ]
}

test('reads the package hash check and each launch phase by phase', () => {
  const t = (offset: number) => new Date(Date.UTC(2026, 10, 24, 17, 20, 37) + offset).toISOString()
  const log = [
    `${t(0)} [INFO]  Terraform version: 1.11.4`,
    `${t(1)} [TRACE] providercache.fillMetaCache: including .terraform/providers/registry.terraform.io/provider/provider/0.1.0/linux_amd64 as a candidate package`,
    `${t(74)} [DEBUG] checking for provisioner in "."`,
    ...launch(75, { starting: 14, handshake: 88, close: 99, exited: 103 }),
    '  provider_lite_keypair.item - *terraform.NodeValidatableResource',
    ...launch(190, { starting: 6, handshake: 80, close: 121, exited: 125 }, 27),
    `${t(400)} [INFO]  backend/local: plan operation completed`,
  ].join('\n')
  const trace = parsePlanTrace(log)
  assert.equal(trace.total, 400)
  assert.equal(trace.packageHash, 73)
  assert.deepEqual(trace.launches, [
    { mtls: 14, startToHandshake: 74, calls: 11, serviceLoad: 0, closeToExit: 4 },
    { mtls: 6, startToHandshake: 74, calls: 41, serviceLoad: 27, closeToExit: 4 },
  ])
})

test('a launch whose lines are missing is an error, not a silent zero', () => {
  const log = launch(0, { starting: 14, handshake: 88, close: 99, exited: 103 })
    .filter((line) => !line.includes('using plugin'))
    .join('\n')
  assert.throws(() => parsePlanTrace(log), /lacks one of its lines/)
})

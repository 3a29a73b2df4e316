// Real terraform against the emulator launcher with the `remote` profile (issue 28, latency and chaos):
// 150 ms on every call shows in the request log's latency_ms and in the time a `terraform plan` takes.
// The seed is set, so the profile's 1 % of 502s falls on the same requests in every run.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { block, describeRun, PROVIDER_BLOCKS } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

describe('the remote profile under terraform', () => {
  const e2e = useEmulatorWorkspace({ provisioningDelayMs: 0 })

  test('a plan against a remote-like service takes the added 150 ms a call, and the log shows it', async () => {
    await e2e.ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'remote-key' })].join('\n'))
    const applied = await e2e.ws.apply()
    assert.equal(applied.code, 0, describeRun(applied))
    await e2e.emulator.control('POST', '/seed', { seed: 28 })
    await e2e.emulator.control('POST', '/profiles/remote')
    const started = performance.now()
    const { value: plan, log } = await e2e.emulator.effectsOf(() => e2e.ws.plan())
    const elapsed = performance.now() - started
    assert.equal(plan.code, 0, describeRun(plan))
    assert.ok(log.length >= 1, 'the plan read the keypair')
    for (const entry of log) assert.ok(entry.latency_ms >= 150, JSON.stringify(entry))
    assert.ok(elapsed >= 150, `the plan took ${elapsed} ms`)
  })
})

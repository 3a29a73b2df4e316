// Operation timeouts through both front ends: Terraform's `timeouts` block and Pulumi's customTimeouts
// (which the engine sends with each Create and Update) follow one rule, core's. A timeout longer than
// the runtime's timers take is refused at plan or preview, before any order, naming where it is set;
// a long one within the limit bounds the wait it asks for (never a fallback shorter than the default).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { pulumiService, resourceToken } from '../../src/pulumi/provider.js'
import type { WireMap } from '../../src/pulumi/wire.js'
import { dataSources, providerDefinition, resources } from '../../src/resources/index.js'
import { fixtures } from '../fixtures/index.js'
import { type Config, terraformDriver } from '../support/conformance.js'
import { Harness } from '../support/harness.js'

const definition = resources.find((r) => r.name === 'baremetal')!
const example = fixtures.find((f) => f.name === 'baremetal')!.lifecycle
const HOUR = 3600

/** A Pulumi plugin over the harness's emulator, configured as the engine does; the warnings it logs are kept. */
function pulumiOver(harness: Harness) {
  const registry = { provider: { ...providerDefinition, configure: () => harness.client }, resources, dataSources }
  const provider = pulumiService(registry, { version: '0.0.0-test', log: () => undefined })
  const checked = provider.checkConfig({ news: { apiKey: harness.emulator.apiKey, baseUrl: 'http://emulator.invalid/v1' } })
  provider.configure({ args: checked.inputs, variables: {} })
  return provider
}

function news(config: Config): WireMap {
  return Object.fromEntries(
    Object.entries(config)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), v as WireMap[string]]),
  )
}

describe('operation timeouts, one rule for both front ends', () => {
  test('Terraform: timeouts.create above 596h is refused at plan, nothing ordered', async () => {
    const harness = new Harness()
    const deps = await example.setup(harness)
    const session = await terraformDriver.open(definition, harness)
    try {
      const config = { ...example.create(deps), timeouts: { create: '700h' } }
      await assert.rejects(session.plan(null, config), /Invalid timeouts\.create[\s\S]*at most 596h/)
      assert.equal((await harness.orders()).total, 0)
    } finally {
      await session.close()
    }
  })

  test('Pulumi: customTimeouts.create above 596h is refused at preview and at up, nothing ordered', async () => {
    const harness = new Harness({ provisioningDelayMs: 30 * 60_000 })
    const deps = await example.setup(harness)
    const provider = pulumiOver(harness)
    const urn = `urn:pulumi:test::timeouts::${resourceToken(definition)}::server`
    const checked = provider.check({ urn, news: news(example.create(deps)), olds: {} })
    assert.deepEqual(checked.failures, [])
    const before = (await harness.orders()).total
    for (const preview of [true, false]) {
      await assert.rejects(
        provider.create({ urn, properties: checked.inputs, preview, timeout: 700 * HOUR }),
        (e: Error) => /customTimeouts\.create/.test(e.message) && /at most 596h/.test(e.message),
        `${preview ? 'the preview' : 'the up'} refuses the timeout`,
      )
    }
    assert.equal((await harness.orders()).total, before, 'nothing is ordered')
  })

  test('Pulumi: a long customTimeouts.create within the limit bounds the wait it asks for', async () => {
    const harness = new Harness({ provisioningDelayMs: 30 * 60_000 })
    const deps = await example.setup(harness)
    const provider = pulumiOver(harness)
    const urn = `urn:pulumi:test::timeouts::${resourceToken(definition)}::server`
    const checked = provider.check({ urn, news: news(example.create(deps)), olds: {} })
    const created = await provider.create({ urn, properties: checked.inputs, preview: false, timeout: 500 * HOUR })
    assert.notEqual(created.id, '')
  })
})

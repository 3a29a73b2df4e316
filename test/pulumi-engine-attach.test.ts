// The plugin attached to by the engine (PULUMI_DEBUG_PROVIDERS): the engine connects to the one running
// plugin once per provider, the default one and each explicit one, and configures each connection with
// that provider's settings. Each provider's resources are ordered with its own API key, whichever was
// configured last; before, the configuration received last served every provider (seen with the
// Pulumi CLI 3.274.1 and a YAML program: an explicit provider's keypair went to the default one's customer).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Emulator } from './support/e2e/harness.js'
import { Plugin, startFakeEngine, urnOf } from './support/pulumi/plugin-harness.js'

const BOB_KEY = 'bob-attach-key-0002'
const KEYPAIR = 'provider:index:LiteKeypair'

describe('Pulumi: one plugin process, two providers connected to it', () => {
  let emulator: Emulator
  let engine: Awaited<ReturnType<typeof startFakeEngine>>
  let plugin: Plugin
  before(async () => {
    emulator = await Emulator.start({ provisioningDelayMs: 0 })
    await emulator.control('PATCH', '/config', {
      api_keys: [
        { key: emulator.apiKey, scope: 'rw', customer: 'alice' },
        { key: BOB_KEY, scope: 'rw', customer: 'bob' },
      ],
    })
    engine = await startFakeEngine()
    plugin = await Plugin.launch(engine.address)
  })
  after(async () => {
    await plugin?.stop()
    engine?.stop()
    await emulator?.stop()
  })

  test("each provider's keypair is ordered with its own key, though the other was configured after it", async () => {
    const other = plugin.connectAgain()
    await plugin.configure({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, pollInterval: '100ms' })
    await other.configure({ apiKey: BOB_KEY, baseUrl: emulator.baseUrl, pollInterval: '100ms' })
    await plugin.create(urnOf(KEYPAIR, 'first'), { name: 'attached-alice' })
    await other.create(urnOf(KEYPAIR, 'second'), { name: 'attached-bob' })
    const owners = (await emulator.control<{ name: string; customer: string }[]>('GET', '/keypairs'))
      .map((k) => `${k.name}:${k.customer}`)
      .sort()
    assert.deepEqual(owners, ['attached-alice:alice', 'attached-bob:bob'])
  })
})

// The serve mode under the real client with two `provider` blocks (an alias) holding two customers'
// API keys: the client reattaches to the one served process and configures it once per block. Each
// block's keypair is ordered on its own customer's account, the plan after is empty, and the destroy
// removes both. (Before, the configuration received last served both blocks: both keypairs went to
// the second customer, and the destroy then found neither.)
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { describeRun, providerBlocks } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'
import { serveProvider } from '../support/terraform/served.js'

const BOB_KEY = 'bob-e2e-key-0002'

describe('the serve mode with two provider blocks', () => {
  const e2e = useEmulatorWorkspace({ provisioningDelayMs: 0 })

  test("each block's keypair is ordered with its own block's key, whichever block was configured last", async () => {
    const { emulator, ws } = e2e
    await emulator.control('PATCH', '/config', {
      api_keys: [
        { key: emulator.apiKey, scope: 'rw', customer: 'alice' },
        { key: BOB_KEY, scope: 'rw', customer: 'bob' },
      ],
    })
    const served = await serveProvider(ws.dir, emulator)
    try {
      await ws.write(
        [
          providerBlocks({ api_key: emulator.apiKey, base_url: emulator.baseUrl }),
          `provider "provider" {\n  alias    = "bob"\n  api_key  = "${BOB_KEY}"\n  base_url = "${emulator.baseUrl}"\n}\n`,
          'resource "provider_lite_keypair" "alice" {\n  name = "served-alice"\n}\n',
          'resource "provider_lite_keypair" "bob" {\n  provider = provider.bob\n  name     = "served-bob"\n}\n',
        ].join('\n'),
      )
      const env = { TF_REATTACH_PROVIDERS: served.reattach }
      const owners = async () =>
        (await emulator.control<{ name: string; customer: string }[]>('GET', '/keypairs')).map((k) => `${k.name}:${k.customer}`).sort()

      const applied = await ws.run(['apply', '-auto-approve', '-input=false'], { env })
      assert.equal(applied.code, 0, describeRun(applied))
      assert.deepEqual(await owners(), ['served-alice:alice', 'served-bob:bob'])

      const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false'], { env })
      assert.equal(plan.code, 0, `the plan is not empty: ${describeRun(plan)}`)

      const destroyed = await ws.run(['destroy', '-auto-approve', '-input=false'], { env })
      assert.equal(destroyed.code, 0, describeRun(destroyed))
      assert.match(destroyed.stdout, /Resources: 2 destroyed/)
      assert.deepEqual(await owners(), [])
      assert.equal(served.child.exitCode, null, 'the served provider outlives the commands')
    } finally {
      await served.stop()
    }
  })
})

// The serve mode under the real client with two `provider` blocks (an alias) holding two customers'
// API keys: the client reattaches to the one served process and configures it once per block. Each
// block's keypair is ordered on its own customer's account, the plan after is empty, and the destroy
// removes both. (Before, the configuration received last served both blocks: both keypairs went to
// the second customer, and the destroy then found neither.)
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { describe, test } from 'node:test'
import { BUNDLES } from '../support/artifacts.js'
import { describeRun, providerBlocks, stop } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const BOB_KEY = 'bob-e2e-key-0002'

/**
 * The provider in serve mode, started in the workspace `dir` (its order journal is found from there)
 * with the workspace's state home, and the TF_REATTACH_PROVIDERS value it prints.
 */
async function served(dir: string, stateHome: string): Promise<{ readonly child: ChildProcess; readonly reattach: string }> {
  const child = spawn(process.execPath, [BUNDLES.terraform as string], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', PROVIDER_DEBUG_REATTACH: '1', XDG_STATE_HOME: stateHome },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const reattach = await new Promise<string>((resolve, reject) => {
    let stderr = ''
    const timer = setTimeout(() => reject(new Error(`no TF_REATTACH_PROVIDERS within 30 s: ${stderr}`)), 30_000)
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(stderr)
      if (found) {
        clearTimeout(timer)
        resolve(found[1] as string)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the served provider exited with ${code}: ${stderr}`))
    })
  })
  return { child, reattach }
}

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
    const { child, reattach } = await served(ws.dir, emulator.stateHome)
    try {
      await ws.write(
        [
          providerBlocks({ api_key: emulator.apiKey, base_url: emulator.baseUrl }),
          `provider "provider" {\n  alias    = "bob"\n  api_key  = "${BOB_KEY}"\n  base_url = "${emulator.baseUrl}"\n}\n`,
          'resource "provider_lite_keypair" "alice" {\n  name = "served-alice"\n}\n',
          'resource "provider_lite_keypair" "bob" {\n  provider = provider.bob\n  name     = "served-bob"\n}\n',
        ].join('\n'),
      )
      const env = { TF_REATTACH_PROVIDERS: reattach }
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
      assert.equal(child.exitCode, null, 'the served provider outlives the commands')
    } finally {
      await stop(child, false)
    }
  })
})

// Real terraform with a provider configuration that cannot work: each error says which setting to
// fix (api_key / PROVIDER_API_KEY, base_url / PROVIDER_BASE_URL) and says nothing misleading.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { describe, test } from 'node:test'
import { block, describeRun, diagnostics, PROVIDER_BLOCKS } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const address = server.address()
  await new Promise<void>((ok) => server.close(() => ok()))
  return typeof address === 'object' && address ? address.port : 0
}

describe('configuration errors name what to fix', () => {
  const e2e = useEmulatorWorkspace()

  test('a wrong API key names api_key and PROVIDER_API_KEY', async () => {
    await e2e.ws.write([PROVIDER_BLOCKS, block('data', 'provider_lite_products', 'all', {})].join('\n'))
    const run = await e2e.ws.plan([], { env: { PROVIDER_API_KEY: 'not-the-key' } })
    assert.equal(run.code, 1, describeRun(run))
    const [error] = diagnostics(run.stdout + run.stderr)
    assert.match(error ?? '', /401/)
    assert.match(error ?? '', /api_key/)
    assert.match(error ?? '', /PROVIDER_API_KEY/)
    assert.doesNotMatch(error ?? '', /not-the-key/)
  })

  test('a wrong API key with a new VM to plan: the 401 comes first, once, and no "could not check" warning before it', async () => {
    const vm = {
      product_id: 101,
      cycle: 'm',
      select_os: 'Ubuntu-22.04',
      keypair_id: 1,
      ssh_and_console_user: 'deployer',
      console_password: 'S3cretPass9',
    }
    await e2e.ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_vm', 'vm', vm)].join('\n'))
    const run = await e2e.ws.plan([], { env: { PROVIDER_API_KEY: 'not-the-key' } })
    assert.equal(run.code, 1, describeRun(run))
    const errors = diagnostics(run.stdout + run.stderr)
    assert.equal(errors.length, 1, describeRun(run))
    assert.match(errors[0] ?? '', /401/)
    assert.match(errors[0] ?? '', /PROVIDER_API_KEY/)
    assert.deepEqual(
      diagnostics(run.stdout + run.stderr, 'Warning').filter((w) => /Could not check/.test(w)),
      [],
    )
  })

  test('nothing listening at base_url: the error names base_url and does not say the order may have been processed', async () => {
    await e2e.ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'never-sent' })].join('\n'))
    const base = `http://127.0.0.1:${await closedPort()}/v1`
    const run = await e2e.ws.apply([], { env: { PROVIDER_BASE_URL: base } })
    assert.equal(run.code, 1, describeRun(run))
    const text = diagnostics(run.stdout + run.stderr).join('\n')
    assert.match(text, /base_url/)
    assert.ok(text.includes(base), describeRun(run))
    assert.doesNotMatch(text, /may have been processed/)
  })

  test('a base URL without the API version is refused before any call, naming base_url and /v1', async () => {
    const before = (await e2e.emulator.requests()).length
    const run = await e2e.ws.plan([], { env: { PROVIDER_BASE_URL: e2e.emulator.origin } })
    assert.equal(run.code, 1, describeRun(run))
    const text = diagnostics(run.stdout + run.stderr).join('\n')
    assert.match(text, /base_url/)
    assert.ok(text.includes(`${e2e.emulator.origin}/v1`), describeRun(run))
    assert.equal((await e2e.emulator.requests()).length, before)
  })
})

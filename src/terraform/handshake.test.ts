// The plugin start-up: the magic cookie, the handshake line, mutual TLS, and the reattach instructions.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createCertificate, pemFromHandshake } from './certificate.js'
import { GRPCController } from './gen/grpc_controller_pb.js'
import { Health, HealthCheckResponse_ServingStatus } from './gen/health_pb.js'
import { MAGIC_COOKIE_VALUE } from './handshake.js'
import { connectGrpcTestClient } from '../../test/support/terraform/grpc-client.js'
import { launchPlugin } from '../../test/support/terraform/launch.js'

const plugin = join(dirname(fileURLToPath(import.meta.url)), '../../test/support/terraform/echo-plugin.js')

/** Starts the echo plugin the way Terraform does: cookie, protocol versions, client cert, captured stdio. */
function launch(env: Record<string, string>) {
  return launchPlugin([plugin], env)
}

function kill(child: ChildProcess) {
  if (child.exitCode === null) child.kill('SIGKILL')
}

describe('plugin start-up, end to end', () => {
  test('handshake over mutual TLS, Health, then Shutdown exits 0 quickly', async () => {
    const client = createCertificate() // stands in for Terraform's P-521 client CA
    const run = launch({
      TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '6,5',
      PLUGIN_CLIENT_CERT: client.cert,
      PLUGIN_MIN_PORT: '10000',
      PLUGIN_MAX_PORT: '25000',
      TF_LOG_PROVIDER: 'TRACE',
    })
    try {
      const line = await run.firstLine
      const match = /^1\|6\|tcp\|(127\.0\.0\.1:\d+)\|grpc\|([A-Za-z0-9+/]+)$/.exec(line)
      assert.ok(match, line)
      const [, address = '', cert = ''] = match
      const grpc = connectGrpcTestClient({ address, tls: { ca: pemFromHandshake(cert), cert: client.cert, key: client.key } })
      const health = await grpc.call(Health.method.check, {})
      assert.equal(health.status, HealthCheckResponse_ServingStatus.SERVING)

      // SIGINT reaches the provider with Ctrl-C; it must survive it.
      run.child.kill('SIGINT')
      assert.equal((await grpc.call(Health.method.check, {})).status, HealthCheckResponse_ServingStatus.SERVING)

      const started = performance.now()
      await grpc.call(GRPCController.method.shutdown, {})
      await grpc.close().catch(() => {})
      assert.equal(await run.exited, 0)
      const elapsed = performance.now() - started
      assert.ok(elapsed < 1500, `exit took ${elapsed} ms; Terraform kills after 2 s`)
      assert.equal(run.output().stdout, `${line}\n`, 'nothing but the handshake line on stdout')
      // Logs are hclog JSON on stderr.
      const logs = run
        .output()
        .stderr.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.ok(logs.some((l) => l['@message'] === 'shutdown requested'))
    } finally {
      kill(run.child)
    }
  })

  test('a wrong magic cookie exits 1 with a message for a human', async () => {
    const run = launch({ TF_PLUGIN_MAGIC_COOKIE: 'nope', PLUGIN_PROTOCOL_VERSIONS: '6' })
    try {
      assert.equal(await run.exited, 1)
      assert.equal(run.output().stdout, '')
      assert.match(run.output().stderr, /This binary is a plugin/)
    } finally {
      kill(run.child)
    }
  })

  test('a Terraform offering only protocol 5 gets one stdout line and exit 1', async () => {
    const run = launch({
      TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '5',
      PLUGIN_CLIENT_CERT: createCertificate().cert,
    })
    try {
      assert.equal(await run.exited, 1)
      const lines = run
        .output()
        .stdout.split('\n')
        .filter((l) => l !== '')
      assert.equal(lines.length, 1)
      assert.match(lines[0] ?? '', /failed to start: .*protocol 6.*only 5/)
    } finally {
      kill(run.child)
    }
  })

  test('reattach mode serves plaintext and prints TF_REATTACH_PROVIDERS on stderr', async () => {
    const run = launch({ PROVIDER_DEBUG_REATTACH: '1' })
    try {
      const line = await run.firstLine
      const match = /^1\|6\|tcp\|(127\.0\.0\.1:\d+)\|grpc\|$/.exec(line)
      assert.ok(match, line)
      const address = match[1] ?? ''
      await waitFor(() => run.output().stderr.includes('TF_REATTACH_PROVIDERS'))
      const json = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(run.output().stderr)?.[1] ?? '{}'
      const attach = { Protocol: 'grpc', ProtocolVersion: 6, Pid: run.child.pid, Test: true, Addr: { Network: 'tcp', String: address } }
      // Terraform's address and OpenTofu's, so that the one line serves both clients.
      assert.deepEqual(JSON.parse(json), {
        'registry.terraform.io/provider/provider': attach,
        'registry.opentofu.org/provider/provider': attach,
      })
      const grpc = connectGrpcTestClient({ address })
      assert.equal((await grpc.call(Health.method.check, {})).status, HealthCheckResponse_ServingStatus.SERVING)
      await grpc.call(GRPCController.method.shutdown, {})
      await grpc.close().catch(() => {})
      assert.equal(await run.exited, 0)
    } finally {
      kill(run.child)
    }
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10))
}

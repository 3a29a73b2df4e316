// The Terraform provider's bundle (dist/mirror, from `npm run build`) answers GetProviderSchema (and
// GetResourceIdentitySchemas) with the bytes stamped into it at build time, identical to what its
// definitions encode to, and loads no definition for that: the first launch of every Terraform command
// only fetches the schemas.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { equals, fromBinary } from '@bufbuild/protobuf'
import { dataSources, providerDefinition, resources } from '../src/resources/index.js'
import { GRPCController } from '../src/terraform/gen/grpc_controller_pb.js'
import {
  GetProviderSchema_ResponseSchema,
  GetResourceIdentitySchemas_ResponseSchema,
  Provider,
} from '../src/terraform/gen/tfplugin6.10_pb.js'
import { providerIdentitySchemasResponse, providerSchemaResponse } from '../src/terraform/provider-service.js'
import { connectGrpcTestClient } from './support/terraform/grpc-client.js'
import { BUNDLES } from './support/artifacts.js'
import { launchPlugin } from './support/terraform/launch.js'

const bundle = BUNDLES.terraform as string

describe('terraform provider bundle start-up', () => {
  test('GetProviderSchema is answered from build-time bytes without loading the definitions, and equals what they encode to', async () => {
    const run = launchPlugin([bundle], { PROVIDER_DEBUG_REATTACH: '1', TF_LOG_PROVIDER: 'DEBUG' })
    const stderr = () => run.output().stderr
    try {
      const line = await run.firstLine
      const address = /^1\|6\|tcp\|(127\.0\.0\.1:\d+)\|grpc\|$/.exec(line)?.[1]
      assert.ok(address, `handshake line: ${line}`)
      const grpc = connectGrpcTestClient({ address })
      const expected = fromBinary(
        GetProviderSchema_ResponseSchema,
        providerSchemaResponse({ provider: providerDefinition, resources, dataSources }),
      )
      assert.ok(Object.keys(expected.resourceSchemas).length > 0)

      const precomputed = await grpc.call(Provider.method.getProviderSchema, {})
      assert.ok(equals(GetProviderSchema_ResponseSchema, precomputed, expected), 'the stamped schema differs from the definitions')
      assert.ok(!stderr().includes('service loaded'), 'GetProviderSchema loaded the provider service')
      // Terraform 1.12+ asks for the identity schemas next, in the same launch: stamped too.
      const identities = fromBinary(
        GetResourceIdentitySchemas_ResponseSchema,
        providerIdentitySchemasResponse({ provider: providerDefinition, resources, dataSources }),
      )
      assert.deepEqual(Object.keys(identities.identitySchemas).sort(), Object.keys(expected.resourceSchemas).sort())
      const stamped = await grpc.call(Provider.method.getResourceIdentitySchemas, {})
      assert.ok(equals(GetResourceIdentitySchemas_ResponseSchema, stamped, identities), 'the stamped identity schemas differ')
      assert.ok(!stderr().includes('service loaded'), 'GetResourceIdentitySchemas loaded the provider service')

      // Any other call loads the service; the schema it answers from then on is the same.
      const metadata = await grpc.call(Provider.method.getMetadata, {})
      assert.ok(metadata.resources.length > 0)
      assert.match(stderr(), /service loaded/)
      assert.ok(equals(GetProviderSchema_ResponseSchema, await grpc.call(Provider.method.getProviderSchema, {}), expected))
      assert.ok(
        equals(GetResourceIdentitySchemas_ResponseSchema, await grpc.call(Provider.method.getResourceIdentitySchemas, {}), identities),
      )

      await grpc.call(GRPCController.method.shutdown, {})
      await grpc.close().catch(() => {})
      assert.equal(await run.exited, 0)
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })

  test("the serve mode stops on SIGINT even when started with SIGINT ignored, as a script's background job is", async () => {
    // `provider &` in a non-interactive shell (a pipeline's script) starts the job with SIGINT ignored; the
    // `kill -INT` that ci.md gives must stop it all the same. `trap '' INT` plays that shell here.
    const child = spawn('sh', ['-c', `trap '' INT; exec "$0" "$@"`, process.execPath, bundle], {
      env: { PATH: process.env.PATH ?? '', PROVIDER_DEBUG_REATTACH: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = once(child, 'exit')
    try {
      let stdout = ''
      child.stdout.setEncoding('utf8')
      child.stderr.resume()
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk
          if (stdout.includes('\n')) resolve()
        })
        child.once('exit', () => reject(new Error(`exited before its handshake; stdout: ${stdout}`)))
      })
      assert.match(stdout, /^1\|6\|tcp\|/)
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      const [code, signal] = await exited
      clearTimeout(timer)
      assert.deepEqual({ code, signal }, { code: 130, signal: null }, 'the serve mode ignored SIGINT')
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })
})

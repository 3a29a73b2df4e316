import assert from 'node:assert/strict'
import { create, toBinary } from '@bufbuild/protobuf'
import { connect } from 'node:http2'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createCertificate } from './certificate.js'
import { GRPCController } from './gen/grpc_controller_pb.js'
import { Health, HealthCheckResponse_ServingStatus } from './gen/health_pb.js'
import { GetMetadata_ResponseSchema, Provider } from './gen/tfplugin6.10_pb.js'
import { createGrpcServer, decodeGrpcMessage, encodeGrpcMessage, GrpcError, type GrpcServer, GrpcStatus } from '../grpc/index.js'
import { connectGrpcTestClient, type GrpcTestClient } from '../../test/support/terraform/grpc-client.js'

function isGrpcError(code: number, message?: RegExp) {
  return (error: unknown) => error instanceof GrpcError && error.code === code && (!message || message.test(error.message))
}

describe('gRPC server, graceful drain', () => {
  test('drain refuses new calls, lets the call in flight send its answer, then closes the connections', async () => {
    let entered = () => {}
    let release = () => {}
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const server = createGrpcServer()
    server.register(Health, {
      check: async ({ service }) => {
        if (service === 'held') {
          entered()
          await gate
        }
        return { status: HealthCheckResponse_ServingStatus.SERVING }
      },
    })
    const client = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen()}` })
    try {
      const held = client.call(Health.method.check, { service: 'held' })
      await inside
      let drained = false
      const draining = server.drain().then(() => {
        drained = true
      })
      await assert.rejects(client.call(Health.method.check, {}), isGrpcError(GrpcStatus.UNAVAILABLE, /shutting down/))
      assert.equal(drained, false, 'a call is still in flight')
      release()
      assert.equal((await held).status, HealthCheckResponse_ServingStatus.SERVING)
      await draining
    } finally {
      await client.close()
      await server.close()
    }
  })
})

describe('gRPC server, plaintext', () => {
  let server: GrpcServer
  let client: GrpcTestClient
  let port = 0
  before(async () => {
    server = createGrpcServer()
    server.register(Health, {
      // The requested service name drives the behaviour, so one handler covers every case below.
      check: async ({ service }) => {
        if (service.startsWith('sleep:')) await sleep(Number(service.slice(6)))
        if (service === 'grpc-error') throw new GrpcError(GrpcStatus.FAILED_PRECONDITION, 'not ready: 100% sure ✓\nline 2')
        if (service === 'crash') throw new Error('handler bug')
        return { status: service === '' ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.NOT_SERVING }
      },
    })
    server.register(Provider, {
      getMetadata: () => ({ resources: [{ typeName: 'provider_thing' }] }),
    })
    port = await server.listen()
    client = connectGrpcTestClient({ address: `127.0.0.1:${port}` })
  })
  after(async () => {
    await client.close()
    await server.close()
  })

  test('answers a unary call', async () => {
    const response = await client.call(Health.method.check, {})
    assert.equal(response.status, HealthCheckResponse_ServingStatus.SERVING)
    const metadata = await client.call(Provider.method.getMetadata, {})
    assert.equal(metadata.resources[0]?.typeName, 'provider_thing')
  })

  test('unregistered methods, unknown paths and streaming methods are UNIMPLEMENTED', async () => {
    await assert.rejects(client.call(Provider.method.getProviderSchema, {}), isGrpcError(GrpcStatus.UNIMPLEMENTED))
    await assert.rejects(client.call(GRPCController.method.shutdown, {}), isGrpcError(GrpcStatus.UNIMPLEMENTED))
    await assert.rejects(client.call(Health.method.watch, {}), isGrpcError(GrpcStatus.UNIMPLEMENTED))
  })

  test('a GrpcError chooses the status; the message survives percent-encoding', async () => {
    await assert.rejects(
      client.call(Health.method.check, { service: 'grpc-error' }),
      isGrpcError(GrpcStatus.FAILED_PRECONDITION, /^not ready: 100% sure ✓\nline 2$/),
    )
  })

  test('any other error is UNKNOWN with its message', async () => {
    await assert.rejects(client.call(Health.method.check, { service: 'crash' }), isGrpcError(GrpcStatus.UNKNOWN, /^handler bug$/))
  })

  test('concurrent calls interleave and each gets its own answer', async () => {
    const services = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? '' : `sleep:${(i * 7) % 25}`))
    const results = await Promise.all(services.map((service) => client.call(Health.method.check, { service })))
    results.forEach((result, i) => {
      const expected = services[i] === '' ? HealthCheckResponse_ServingStatus.SERVING : HealthCheckResponse_ServingStatus.NOT_SERVING
      assert.equal(result.status, expected)
    })
  })

  test('a malformed frame is INTERNAL, a compressed one UNIMPLEMENTED', async () => {
    for (const [body, code] of [
      [Buffer.from([0, 0, 0, 0, 9, 1]), '13'], // length says 9, one byte follows
      [Buffer.from([1, 0, 0, 0, 0]), '12'], // compressed flag
      [Buffer.from([0, 0]), '13'], // truncated prefix
    ] as const) {
      assert.equal(await rawCall(port, '/grpc.health.v1.Health/Check', body), code)
    }
  })

  test('percent-encoding follows the gRPC spec', () => {
    assert.equal(encodeGrpcMessage('a b%c\n'), 'a b%25c%0A')
    assert.equal(encodeGrpcMessage('é'), '%C3%A9')
    assert.equal(decodeGrpcMessage(encodeGrpcMessage('x ✓ 50%')), 'x ✓ 50%')
  })
})

/** Sends raw bytes as a gRPC request and returns the grpc-status it gets. */
function rawCall(port: number, path: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`)
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' })
    let status = ''
    stream.on('response', (headers) => {
      status = String(headers['grpc-status'] ?? status)
    })
    stream.on('trailers', (headers) => {
      status = String(headers['grpc-status'] ?? status)
    })
    stream.on('error', reject)
    stream.resume()
    stream.on('close', () => {
      session.close()
      resolve(status)
    })
    stream.end(body)
  })
}

describe('gRPC server, fixed responses and lazy services', () => {
  test('a fixed response answers without loading its lazy service, and keeps answering after the service loads', async () => {
    const server = createGrpcServer()
    let loads = 0
    const fixed = toBinary(GetMetadata_ResponseSchema, create(GetMetadata_ResponseSchema, { resources: [{ typeName: 'provider_fixed' }] }))
    server.registerRaw('/tfplugin6.Provider/GetMetadata', () => fixed)
    server.registerLazy('tfplugin6.Provider', async () => {
      loads++
      server.register(Provider, {
        getMetadata: () => ({ resources: [{ typeName: 'provider_computed' }] }),
        validateProviderConfig: () => ({}),
      })
    })
    const port = await server.listen()
    const client = connectGrpcTestClient({ address: `127.0.0.1:${port}` })
    try {
      assert.equal((await client.call(Provider.method.getMetadata, {})).resources[0]?.typeName, 'provider_fixed')
      assert.equal(loads, 0)
      await client.call(Provider.method.validateProviderConfig, {})
      assert.equal(loads, 1)
      assert.equal((await client.call(Provider.method.getMetadata, {})).resources[0]?.typeName, 'provider_fixed')
    } finally {
      await client.close()
      await server.close()
    }
  })
})

describe('gRPC server, mutual TLS', () => {
  test('serves a client holding the trusted cert and refuses one without it', async () => {
    const serverCert = createCertificate()
    const clientCert = createCertificate()
    const server = createGrpcServer({ tls: { cert: serverCert.cert, key: serverCert.key, clientCa: clientCert.cert } })
    server.register(Health, { check: () => ({ status: HealthCheckResponse_ServingStatus.SERVING }) })
    const port = await server.listen()
    try {
      const trusted = connectGrpcTestClient({
        address: `127.0.0.1:${port}`,
        tls: { ca: serverCert.cert, cert: clientCert.cert, key: clientCert.key },
      })
      assert.equal((await trusted.call(Health.method.check, {})).status, HealthCheckResponse_ServingStatus.SERVING)
      await trusted.close()

      const stranger = createCertificate()
      for (const identity of [{}, { cert: stranger.cert, key: stranger.key }]) {
        const refused = connectGrpcTestClient({ address: `127.0.0.1:${port}`, tls: { ca: serverCert.cert, ...identity } })
        await assert.rejects(refused.call(Health.method.check, {}))
        await refused.close().catch(() => {})
      }
    } finally {
      await server.close()
    }
  })
})

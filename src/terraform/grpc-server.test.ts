// The shared gRPC server (src/grpc) as Terraform's client calls it: the graceful drain, unary and streaming
// calls over plaintext, and the statuses of unknown methods.
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

describe('gRPC server, server streaming', () => {
  const { SERVING, NOT_SERVING, SERVICE_UNKNOWN } = HealthCheckResponse_ServingStatus
  const cycle = [SERVING, NOT_SERVING, SERVICE_UNKNOWN]
  /** What the `wait` handler saw after the client cancelled. */
  let cancelled: Promise<{ reason: unknown; sendAfter: unknown }> = Promise.resolve({ reason: undefined, sendAfter: undefined })
  let server: GrpcServer
  let client: GrpcTestClient
  before(async () => {
    server = createGrpcServer()
    server.register(Health, {
      // `count:N` sends N messages, `fail:N` N then an error, `crash:N` N then a bug, `wait` one then waits for the cancel.
      watch: async ({ service }, send, call) => {
        const [kind, count] = service.split(':')
        for (let i = 0; i < Number(count ?? 1); i++) await send({ status: cycle[i % 3] })
        if (kind === 'fail') throw new GrpcError(GrpcStatus.FAILED_PRECONDITION, 'gave up after 2 ✓')
        if (kind === 'crash') throw new Error('handler bug mid-stream')
        if (kind === 'wait') {
          let seen = (_: { reason: unknown; sendAfter: unknown }) => {}
          cancelled = new Promise((resolve) => {
            seen = resolve
          })
          await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }))
          const sendAfter = await send({ status: SERVING }).then(
            () => 'sent',
            (error: unknown) => error,
          )
          seen({ reason: call.signal.reason, sendAfter })
        }
      },
    })
    client = connectGrpcTestClient({ address: `127.0.0.1:${await server.listen()}` })
  })
  after(async () => {
    await client.close()
    await server.close()
  })

  test('several messages arrive in order, then the OK status; none is a stream that still ends OK', async () => {
    const messages = await client.stream(Health.method.watch, { service: 'count:7' })
    assert.deepEqual(
      messages.map((m) => m.status),
      Array.from({ length: 7 }, (_, i) => cycle[i % 3]),
    )
    assert.deepEqual(await client.stream(Health.method.watch, { service: 'count:0' }), [])
  })

  test('an error after some messages ends the stream with its status, the messages before it delivered', async () => {
    const seen: number[] = []
    await assert.rejects(
      client.stream(Health.method.watch, { service: 'fail:2' }, { onMessage: (m) => seen.push(m.status) }),
      isGrpcError(GrpcStatus.FAILED_PRECONDITION, /^gave up after 2 ✓$/),
    )
    assert.deepEqual(seen, [SERVING, NOT_SERVING])
    await assert.rejects(
      client.stream(Health.method.watch, { service: 'crash:3' }),
      isGrpcError(GrpcStatus.UNKNOWN, /handler bug mid-stream/),
    )
  })

  test('a client cancelling mid-stream aborts the handler signal, and a later send is refused as CANCELLED', async () => {
    const cancel = new AbortController()
    const seen: number[] = []
    await assert.rejects(
      client.stream(
        Health.method.watch,
        { service: 'wait:1' },
        {
          signal: cancel.signal,
          onMessage: (m) => {
            seen.push(m.status)
            cancel.abort()
          },
        },
      ),
      isGrpcError(GrpcStatus.CANCELLED),
    )
    const { reason, sendAfter } = await cancelled
    assert.ok(reason instanceof GrpcError && reason.code === GrpcStatus.CANCELLED, 'the signal carries a CANCELLED reason')
    assert.ok(sendAfter instanceof GrpcError && sendAfter.code === GrpcStatus.CANCELLED, `send after the cancel: ${String(sendAfter)}`)
    assert.deepEqual(seen, [SERVING])
    // The connection serves the next call as before.
    assert.equal((await client.stream(Health.method.watch, { service: 'count:1' })).length, 1)
  })

  test('a handler that keeps sending stops when the client cancels: its send rejects', async () => {
    const local = createGrpcServer()
    let sent = 0
    let outcome: unknown
    let ended = () => {}
    const handlerEnded = new Promise<void>((resolve) => {
      ended = resolve
    })
    local.register(Health, {
      watch: async (_request, send) => {
        try {
          // Bounded: without the refusal it would go on writing into a cancelled stream.
          for (; sent < 1_000_000; sent++) await send({ status: SERVING })
          outcome = 'sent everything'
        } catch (error) {
          outcome = error
        } finally {
          ended()
        }
      },
    })
    const localClient = connectGrpcTestClient({ address: `127.0.0.1:${await local.listen()}` })
    try {
      const cancel = new AbortController()
      let received = 0
      await assert.rejects(
        localClient.stream(
          Health.method.watch,
          {},
          {
            signal: cancel.signal,
            onMessage: () => {
              if (++received === 3) cancel.abort()
            },
          },
        ),
        isGrpcError(GrpcStatus.CANCELLED),
      )
      await handlerEnded
      assert.ok(outcome instanceof GrpcError && outcome.code === GrpcStatus.CANCELLED, `the handler ended with ${String(outcome)}`)
      assert.ok(sent < 1_000_000, `the handler stopped after ${sent} messages`)
    } finally {
      await localClient.close()
      await local.close()
    }
  })
})

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

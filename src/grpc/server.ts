// A unary and server-streaming gRPC server over node:http2, shared by both front ends: typed services
// (protobuf-es) and raw routes (bytes in, bytes out), services loaded lazily on their first call, gRPC
// framing, status codes and messages, and a graceful drain at shutdown.
import {
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2'
import type { AddressInfo } from 'node:net'
import { create, type DescMessage, fromBinary, type MessageInitShape, type MessageShape, toBinary } from '@bufbuild/protobuf'
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2'

/** What the server logs: the front ends' loggers fit it as they are. */
export interface GrpcLogger {
  debug(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}
const silentLogger: GrpcLogger = { debug() {}, error() {} }

/** gRPC status codes (grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const
export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus]

/** Throw this from a handler to choose the status; any other error is answered with UNKNOWN. */
export class GrpcError extends Error {
  constructor(
    readonly code: GrpcStatusCode,
    message: string,
    /** A serialized google.rpc.Status, sent as the `grpc-status-details-bin` trailer (rich error details). */
    readonly details?: Uint8Array,
  ) {
    super(message)
    this.name = 'GrpcError'
  }
}

/** Per-call facts a handler may need. */
export interface CallContext {
  /** The full path, e.g. `/tfplugin6.Provider/PlanResourceChange`. */
  readonly method: string
  /** Aborted when the client cancels the call or goes away before the answer (the last message of a stream) is sent. */
  readonly signal: AbortSignal
  /**
   * The client connection the call came on, the same object for every call of it: Terraform connects
   * once per provider instance (each `provider` block, each walk), also to a process it reattaches to.
   */
  readonly connection: object
  /** Runs once the call's connection has closed (at once if it has): the client closed it, exited or was killed; callable after the call ended. */
  onConnectionClosed(callback: () => void): void
  /** Runs once the response (trailers included) has been handed to the connection, or the call has died. */
  onFinished(callback: () => void): void
}

export type UnaryHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  call: CallContext,
) => Promise<MessageInitShape<O>> | MessageInitShape<O>

/**
 * A server-streaming method: `send` writes one message and resolves once the connection took it (so a
 * slow client holds the handler back); it rejects with CANCELLED once the client cancelled or went away,
 * when `call.signal` is aborted too. The status trailers follow when the handler returns; a throw after
 * some messages ends the stream with its status (as for a unary handler).
 */
export type ServerStreamingHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  send: (message: MessageInitShape<O>) => Promise<void>,
  call: CallContext,
) => Promise<void>

/** An implementation of a generated service: any subset of its unary and server-streaming methods (the rest answer UNIMPLEMENTED). */
export type ServiceImpl<S extends GenServiceMethods> = {
  [K in keyof S as S[K]['methodKind'] extends 'unary' | 'server_streaming' ? K : never]?: S[K]['methodKind'] extends 'unary'
    ? UnaryHandler<S[K]['input'], S[K]['output']>
    : ServerStreamingHandler<S[K]['input'], S[K]['output']>
}

export interface GrpcServerOptions {
  /** Mutual TLS as go-plugin's AutoMTLS wants it; omit for plaintext (reattach mode, tests). */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCa: string }
  readonly log?: GrpcLogger
  /** Runs when a client connection has closed, with the number of calls it carried (a client's probe carries none). */
  readonly onConnectionClosed?: (calls: number) => void
}

export interface GrpcServer {
  register<S extends GenServiceMethods>(service: GenService<S>, impl: ServiceImpl<S>): void
  /**
   * Routes calls of the service `typeName` to handlers that `load` registers on first use, so the
   * code and descriptors behind them need not be loaded before the handshake. `load` runs once.
   */
  registerLazy(typeName: string, load: () => Promise<void>): void
  /** Starts every lazy load now, e.g. right after the handshake line, while the client connects. */
  warm(): void
  /**
   * A method answered from raw protobuf bytes, for messages too small to be worth a descriptor at start-up
   * or built ahead of time. It keeps precedence over a service registered later with the same method.
   */
  registerRaw(path: string, handler: (payload: Uint8Array, call: CallContext) => Uint8Array | Promise<Uint8Array>): void
  /** Starts listening (127.0.0.1, a free port by default) and resolves to the bound port. */
  listen(host?: string, port?: number): Promise<number>
  /**
   * A graceful stop: new calls are refused (UNAVAILABLE), calls in flight run to their answer, and
   * once the last has been sent (or lost its client) the connections close after flushing it.
   */
  drain(): Promise<void>
  close(): Promise<void>
}

/** Sends one serialized message of the answer; a unary route sends exactly one. */
type Send = (message: Uint8Array) => Promise<void>
type Route = (payload: Uint8Array, call: CallContext, send: Send) => Promise<void>

/**
 * Unary and server-streaming gRPC over node:http2, which is all Terraform and the Pulumi engine call on
 * a provider: it starts tens of milliseconds faster than grpc-js and is no dependency. No compression, no
 * client or bidirectional streaming (both hosts tolerate UNIMPLEMENTED for those), `grpc-timeout` ignored
 * (the hosts cancel with StopProvider, Cancel or by cancelling the call, not deadlines).
 */
export function createGrpcServer(options: GrpcServerOptions = {}): GrpcServer {
  const log = options.log ?? silentLogger
  const routes = new Map<string, Route>()
  const lazy = new Map<string, () => Promise<void>>()
  const lookup = (path: string): Route | undefined => {
    const found = routes.get(path)
    if (found) return found
    const load = lazy.get(path.split('/')[1] ?? '')
    if (!load) return undefined
    return async (payload, call, send) => {
      await load()
      const route = routes.get(path)
      if (!route) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`)
      return route(payload, call, send)
    }
  }
  const sessions = new Set<ServerHttp2Session>()
  let server: Http2Server | Http2SecureServer | undefined
  /** Calls routed and not yet closed; `draining` once drain() was called. */
  let inFlight = 0
  let draining = false
  const idle: (() => void)[] = []
  const calls: Calls = {
    admit: () => !draining,
    started: () => {
      inFlight++
    },
    ended: () => {
      inFlight--
      if (inFlight === 0) for (const resolve of idle.splice(0)) resolve()
    },
  }

  return {
    register(service, impl) {
      for (const method of service.methods) {
        const handler = (impl as Record<string, ((...args: never[]) => unknown) | undefined>)[method.localName]
        if (handler === undefined || (method.methodKind !== 'unary' && method.methodKind !== 'server_streaming')) continue
        // A route registered first (a fixed response from registerRaw) stays: a lazy service loaded
        // later must not replace bytes built ahead of time with the same answer computed per call.
        if (routes.has(`/${service.typeName}/${method.name}`)) continue
        const decode = (payload: Uint8Array): MessageShape<DescMessage> => {
          try {
            return fromBinary(method.input, payload)
          } catch (error) {
            throw new GrpcError(GrpcStatus.INTERNAL, `cannot decode ${method.input.typeName}: ${String(error)}`)
          }
        }
        const encode = (message: MessageInitShape<DescMessage>) => toBinary(method.output, create(method.output, message))
        if (method.methodKind === 'unary') {
          const unary = handler as UnaryHandler<DescMessage, DescMessage>
          routes.set(`/${service.typeName}/${method.name}`, async (payload, call, send) => {
            await send(encode(await unary(decode(payload), call)))
          })
        } else {
          const streaming = handler as ServerStreamingHandler<DescMessage, DescMessage>
          routes.set(`/${service.typeName}/${method.name}`, async (payload, call, send) => {
            await streaming(decode(payload), (message) => send(encode(message)), call)
          })
        }
      }
    },

    registerLazy(typeName, load) {
      let loading: Promise<void> | undefined
      lazy.set(typeName, () => {
        loading ??= (async () => {
          const started = performance.now()
          await load()
          log.debug('service loaded', { service: typeName, ms: Math.round(performance.now() - started) })
        })()
        return loading
      })
    },

    registerRaw(path, handler) {
      routes.set(path, async (payload, call, send) => send(await handler(payload, call)))
    },

    warm() {
      for (const load of lazy.values()) load().catch((error: unknown) => log.error('loading a service failed', { error }))
    },

    async listen(host = '127.0.0.1', port = 0) {
      server = options.tls
        ? createSecureServer({
            cert: options.tls.cert,
            key: options.tls.key,
            ca: options.tls.clientCa,
            requestCert: true, // go-plugin's client always presents PLUGIN_CLIENT_CERT; nobody else may call
            rejectUnauthorized: true,
            minVersion: 'TLSv1.2',
            ALPNProtocols: ['h2'], // grpc-go ≥ 1.67 refuses servers without ALPN h2
          })
        : createServer()
      server.on('session', (session: ServerHttp2Session) => {
        sessions.add(session)
        let calls = 0
        session.on('stream', () => {
          calls++
        })
        session.on('close', () => {
          sessions.delete(session)
          options.onConnectionClosed?.(calls)
        })
        session.on('error', (error) => log.debug('gRPC connection error', { error }))
      })
      server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
        handleStream(stream, headers, lookup, calls, log)
      })
      const listening = server
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject)
        listening.listen(port, host, () => {
          listening.off('error', reject)
          resolve()
        })
      })
      listening.on('error', (error) => log.error('gRPC server error', { error }))
      return (listening.address() as AddressInfo).port
    },

    async drain() {
      draining = true
      if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve))
      await Promise.all(
        [...sessions].map(
          (session) =>
            new Promise<void>((resolve) => {
              session.once('close', () => resolve())
              session.close()
            }),
        ),
      )
    },

    async close() {
      const closing = server
      if (!closing) return
      server = undefined
      for (const session of sessions) session.destroy()
      await new Promise<void>((resolve) => closing.close(() => resolve()))
    },
  }
}

/** What a stream tells the server about the calls it carries, so that drain() knows when to close. */
interface Calls {
  admit(): boolean
  started(): void
  ended(): void
}

function handleStream(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  lookup: (path: string) => Route | undefined,
  calls: Calls,
  log: GrpcLogger,
): void {
  // A client reset must not become an uncaught 'error' event; the close handler below covers cleanup.
  stream.on('error', (error) => log.debug('gRPC stream error', { error }))
  const path = String(headers[':path'] ?? '')
  if (!calls.admit()) {
    stream.resume()
    sendStatus(stream, GrpcStatus.UNAVAILABLE, 'the provider is shutting down')
    return
  }
  const route = lookup(path)
  if (!route) {
    stream.resume() // drain the request so the stream can close
    sendStatus(stream, GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`)
    log.debug('gRPC method not implemented', { method: path })
    return
  }

  const aborter = new AbortController()
  const finished: (() => void)[] = []
  let done = false
  let answered = false
  calls.started()
  stream.on('close', () => {
    done = true
    calls.ended()
    // A call that closes before it was answered was cancelled (or its client went away). One that was
    // answered has nothing left to stop, and the reason, an error with its stack, was a few per cent of
    // the provider's CPU in a destroy of 2,000.
    if (!answered) aborter.abort(cancelled(path))
    for (const callback of finished.splice(0)) callback()
  })
  // Taken now: a stream that has finished no longer names its session.
  const session = stream.session
  const call: CallContext = {
    method: path,
    signal: aborter.signal,
    connection: session ?? stream,
    onConnectionClosed(callback) {
      if (session === undefined || session.destroyed) callback()
      else session.once('close', callback)
    },
    onFinished(callback) {
      if (done) callback()
      else finished.push(callback)
    },
  }

  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  stream.on('end', () => {
    void answer(stream, path, route, Buffer.concat(chunks), call, log).then(() => {
      answered = true
    })
  })
}

async function answer(
  stream: ServerHttp2Stream,
  path: string,
  route: Route,
  body: Buffer,
  call: CallContext,
  log: GrpcLogger,
): Promise<void> {
  const gone = () => stream.destroyed || stream.closed
  const send: Send = (message) => {
    if (call.signal.aborted || gone()) return Promise.reject(call.signal.reason ?? cancelled(path))
    if (!stream.headersSent) stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true })
    return new Promise<void>((resolve, reject) => {
      // A reset stream may never call the write back: its abort settles the promise instead.
      const onAbort = () => reject(call.signal.reason ?? cancelled(path))
      call.signal.addEventListener('abort', onAbort, { once: true })
      stream.write(frame(message), (error) => {
        call.signal.removeEventListener('abort', onAbort)
        if (error) reject(call.signal.reason ?? error)
        else resolve()
      })
    })
  }
  let status: { code: GrpcStatusCode; message: string; details?: Uint8Array } = { code: GrpcStatus.OK, message: '' }
  try {
    await route(unframe(body), call, send)
  } catch (error) {
    if (error instanceof GrpcError) {
      status = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }
    } else {
      log.error('gRPC handler failed', { method: path, error })
      status = { code: GrpcStatus.UNKNOWN, message: error instanceof Error ? error.message : String(error) }
    }
  }
  if (gone()) return
  if (!stream.headersSent) {
    if (status.code !== GrpcStatus.OK) {
      sendStatus(stream, status.code, status.message, status.details)
      return
    }
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true })
  }
  stream.once('wantTrailers', () => stream.sendTrailers(statusHeaders(status.code, status.message, status.details)))
  stream.end()
}

function cancelled(path: string): GrpcError {
  return new GrpcError(GrpcStatus.CANCELLED, `${path}: the client cancelled the call or went away`)
}

function statusHeaders(code: GrpcStatusCode, message: string, details?: Uint8Array): Record<string, string> {
  return {
    'grpc-status': String(code),
    ...(message ? { 'grpc-message': encodeGrpcMessage(message) } : {}),
    ...(details ? { 'grpc-status-details-bin': Buffer.from(details).toString('base64') } : {}),
  }
}

/** One length-prefixed message: flag byte (0 = uncompressed), big-endian uint32 length, bytes. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length)
  out[0] = 0
  out.writeUInt32BE(message.length, 1)
  out.set(message, 5)
  return out
}

/** The single message of a unary request body. */
export function unframe(body: Uint8Array): Uint8Array {
  if (body.length < 5) throw new GrpcError(GrpcStatus.INTERNAL, 'request has no complete gRPC message')
  if (body[0] !== 0) throw new GrpcError(GrpcStatus.UNIMPLEMENTED, 'compressed messages are not supported')
  const length = Buffer.from(body.buffer, body.byteOffset, body.byteLength).readUInt32BE(1)
  if (body.length !== 5 + length) throw new GrpcError(GrpcStatus.INTERNAL, 'request must hold exactly one gRPC message')
  return body.subarray(5)
}

/** A trailers-only response: the status rides in the one HEADERS frame. */
function sendStatus(stream: ServerHttp2Stream, code: GrpcStatusCode, message: string, details?: Uint8Array): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...statusHeaders(code, message, details) }, { endStream: true })
}

/** gRPC's percent-encoding: UTF-8 bytes outside printable ASCII, and '%' itself, become %XX. */
export function encodeGrpcMessage(message: string): string {
  let out = ''
  for (const byte of Buffer.from(message, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** The inverse of encodeGrpcMessage, for clients and tests. */
export function decodeGrpcMessage(encoded: string): string {
  const bytes: number[] = []
  for (let i = 0; i < encoded.length; i++) {
    const hex = encoded[i] === '%' ? encoded.slice(i + 1, i + 3) : ''
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(encoded.charCodeAt(i))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

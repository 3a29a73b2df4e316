// A gRPC client over node:http2 standing in for Terraform in the front end's tests: unary and
// server-streaming calls with the generated message descriptors, plaintext or mutual TLS. Nothing
// the executables run imports it.
import { connect, type ClientHttp2Session, constants } from 'node:http2'
import {
  create,
  type DescMessage,
  type DescMethod,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf'
import { decodeGrpcMessage, frame, GrpcError, type GrpcStatusCode, unframe } from '../../../src/grpc/index.js'

/** A gRPC client over node:http2 (unary and server-streaming calls), standing in for Terraform in tests. */
export interface GrpcTestClient {
  call<I extends DescMessage, O extends DescMessage>(
    method: Pick<DescMethod, 'name' | 'parent'> & { input: I; output: O },
    request: MessageInitShape<I>,
  ): Promise<MessageShape<O>>
  /**
   * A server-streaming call: resolves to every message once the status is OK, rejects with the
   * GrpcError of any other status (the messages before it went to `onMessage`). Aborting `signal`
   * cancels the call (RST_STREAM CANCEL), as a Go client does when its context is cancelled.
   */
  stream<I extends DescMessage, O extends DescMessage>(
    method: Pick<DescMethod, 'name' | 'parent'> & { input: I; output: O },
    request: MessageInitShape<I>,
    options?: { readonly onMessage?: (message: MessageShape<O>) => void; readonly signal?: AbortSignal },
  ): Promise<MessageShape<O>[]>
  close(): Promise<void>
}

export interface GrpcTestClientOptions {
  readonly address: string // host:port
  /** Omit for plaintext. `ca` is the server cert to trust; cert/key are the client's identity. */
  readonly tls?: { readonly ca: string; readonly cert?: string; readonly key?: string }
}

export function connectGrpcTestClient(options: GrpcTestClientOptions): GrpcTestClient {
  const session: ClientHttp2Session = options.tls
    ? connect(`https://${options.address}`, {
        ca: options.tls.ca,
        cert: options.tls.cert,
        key: options.tls.key,
        servername: 'localhost', // as go-plugin's client dials
      })
    : connect(`http://${options.address}`)
  session.on('error', () => {}) // surfaced per call instead
  const client: GrpcTestClient = {
    async call(method, request) {
      // A unary answer is a stream of exactly one message.
      const messages = await client.stream(method, request)
      if (messages.length !== 1) throw new Error(`a unary call answered ${messages.length} messages`)
      return messages[0] as MessageShape<typeof method.output>
    },
    stream(method, request, options = {}) {
      return new Promise((resolve, reject) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': `/${method.parent.typeName}/${method.name}`,
          'content-type': 'application/grpc',
          te: 'trailers',
        })
        const messages: MessageShape<typeof method.output>[] = []
        let pending = Buffer.alloc(0)
        let status: string | undefined
        let message = ''
        let failure: unknown
        const readStatus = (headers: Record<string, unknown>) => {
          if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status'])
          if (headers['grpc-message'] !== undefined) message = decodeGrpcMessage(String(headers['grpc-message']))
        }
        stream.on('response', readStatus)
        stream.on('trailers', readStatus)
        stream.on('data', (chunk: Buffer) => {
          pending = Buffer.concat([pending, chunk])
          // Each message is length-prefixed; one chunk may hold several, or part of one.
          while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
            const end = 5 + pending.readUInt32BE(1)
            try {
              const decoded = fromBinary(method.output, unframe(pending.subarray(0, end)))
              messages.push(decoded)
              options.onMessage?.(decoded)
            } catch (error) {
              failure ??= error
            }
            pending = pending.subarray(end)
          }
        })
        stream.on('error', (error) => {
          failure ??= error
        })
        const onAbort = () => stream.close(constants.NGHTTP2_CANCEL)
        options.signal?.addEventListener('abort', onAbort, { once: true })
        stream.on('close', () => {
          options.signal?.removeEventListener('abort', onAbort)
          if (options.signal?.aborted) reject(new GrpcError(1, 'cancelled by the client'))
          else if (failure !== undefined) reject(failure)
          else if (status === undefined)
            reject(new Error(`call ended without grpc-status (rst ${stream.rstCode ?? constants.NGHTTP2_NO_ERROR})`))
          else if (status !== '0') reject(new GrpcError(Number(status) as GrpcStatusCode, message))
          else if (pending.length > 0) reject(new Error('the stream ended inside a message'))
          else resolve(messages)
        })
        stream.end(frame(toBinary(method.input, create(method.input, request))))
      })
    },
    close() {
      // A session the server refused is already destroyed and would never call a close callback.
      if (session.destroyed) return Promise.resolve()
      return new Promise((resolve) => {
        session.once('close', resolve)
        session.close()
      })
    },
  }
  return client
}

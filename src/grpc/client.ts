// A unary gRPC client over plaintext node:http2: the calls a provider makes back to its host (Pulumi's
// Engine.Log).
import { type ClientHttp2Session, connect } from 'node:http2'
import { decodeGrpcMessage, frame, GrpcError, GrpcStatus, type GrpcStatusCode, unframe } from './server.js'

/** A unary gRPC client over plaintext node:http2, for the calls a provider makes back to its host. */
export interface GrpcClient {
  /** Sends one serialized request to `path` (`/package.Service/Method`) and resolves to the serialized response. */
  call(path: string, request: Uint8Array): Promise<Uint8Array>
  close(): void
}

/** Connects on the first call and again after the connection is lost; `address` is `host:port`. */
export function createGrpcClient(address: string): GrpcClient {
  let session: ClientHttp2Session | undefined
  const open = (): ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session
    const opened = connect(`http://${address}`)
    opened.on('error', () => {}) // each call reports its own failure
    opened.unref() // a pending log call never keeps the process alive
    session = opened
    return opened
  }
  return {
    call(path, request) {
      return new Promise((resolve, reject) => {
        const stream = open().request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' })
        const chunks: Buffer[] = []
        let status: string | undefined
        let message = ''
        const read = (headers: Record<string, unknown>) => {
          if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status'])
          if (headers['grpc-message'] !== undefined) message = decodeGrpcMessage(String(headers['grpc-message']))
        }
        stream.on('response', read)
        stream.on('trailers', read)
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('error', reject)
        stream.on('close', () => {
          if (status === undefined) reject(new GrpcError(GrpcStatus.UNAVAILABLE, `${path}: the call ended without a status`))
          else if (status !== '0') reject(new GrpcError(Number(status) as GrpcStatusCode, message))
          else {
            try {
              resolve(unframe(Buffer.concat(chunks)))
            } catch (error) {
              reject(error)
            }
          }
        })
        stream.end(frame(request))
      })
    },
    close() {
      session?.close()
      session = undefined
    },
  }
}

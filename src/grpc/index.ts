// Unary and server-streaming gRPC over node:http2, shared by both front ends: a server with raw and lazily loaded routes, and
// a client for calls back to the host. It knows gRPC framing and status codes only; it must not know
// Terraform, Pulumi or any protobuf schema, and imports nothing else of the project.
export { createGrpcClient, type GrpcClient } from './client.js'
export {
  type CallContext,
  createGrpcServer,
  decodeGrpcMessage,
  encodeGrpcMessage,
  frame,
  GrpcError,
  type GrpcLogger,
  type GrpcServer,
  type GrpcServerOptions,
  GrpcStatus,
  type GrpcStatusCode,
  type ServerStreamingHandler,
  type ServiceImpl,
  type UnaryHandler,
  unframe,
} from './server.js'

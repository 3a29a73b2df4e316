// The Terraform front end: plugin protocol 6 start-up (handshake, mutual TLS, gRPC over node:http2), the
// cty/msgpack codec and logging, plus the thin RPC handlers (handlers/<rpc>.ts: decode -> one call into
// the provider server -> encode) built on them. Nothing here may import api/, emulator/ or pulumi/;
// provider semantics live in core/ and the provider runtime in server/, not here.
export { type Certificate, createCertificate, pemFromHandshake } from './certificate.js'
export {
  BigNum,
  type CtyNumber,
  type CtyObject,
  type CtyType,
  type CtyTypeJson,
  type CtyValue,
  cty,
  encodeTypeJson,
  isCtyNumber,
  isExactDouble,
  isUnknown,
  numberEquals,
  numberFromBigInt,
  numberFromText,
  numberToText,
  parseTypeJson,
  typeEquals,
  typeToJson,
  Unknown,
} from './cty.js'
export {
  bindService,
  MAGIC_COOKIE_VALUE,
  PROVIDER_ADDRESS,
  type RunningPlugin,
  type ServeOptions,
  type ServiceBinding,
  servePlugin,
} from './handshake.js'
export { decodeJsonState } from './json-state.js'
export { createLogger, type LogFields, type Logger, type LoggerOptions, type LogLevel, logLevelFromEnv, silentLogger } from './log.js'
export { CtyCodecError, decodeMsgpack, encodeMsgpack } from './msgpack.js'
export { providerService, type ProviderServiceOptions, type Registry } from './provider-service.js'

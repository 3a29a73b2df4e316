/**
 * The pulumirpc.ResourceProvider service on @grpc/grpc-js with the generated google-protobuf stubs:
 * protobuf messages <-> wire maps, one handler per RPC, one catch per RPC (errors to gRPC statuses
 * with ErrorResourceInitFailed details), Engine.Log, and the plugin start-up (port line on stdout).
 */
import * as grpc from '@grpc/grpc-js'
import enginePb from '@pulumi/pulumi/proto/engine_pb.js'
import engineGrpc from '@pulumi/pulumi/proto/engine_grpc_pb.js'
import pluginPb from '@pulumi/pulumi/proto/plugin_pb.js'
import providerPb from '@pulumi/pulumi/proto/provider_pb.js'
import providerGrpc from '@pulumi/pulumi/proto/provider_grpc_pb.js'
import statusPb from '@pulumi/pulumi/proto/status_pb.js'
import anyPb from 'google-protobuf/google/protobuf/any_pb.js'
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js'
import structPb from 'google-protobuf/google/protobuf/struct_pb.js'
import { abandonDeliveries, guardProcess, messageOf } from '../core/index.js'
import { Code, PulumiError } from './errors.js'
import type { CheckFailure, DiffKind, DiffResult, EngineLog, PulumiProvider, Severity } from './provider.js'
import { dropUndefined, type WireMap } from './wire.js'

const { Struct } = structPb
type StructMessage = InstanceType<typeof Struct>
const MAX_MESSAGE = 400 * 1024 * 1024

function fromStruct(value: StructMessage | undefined): WireMap {
  return (value?.toJavaScript() ?? {}) as WireMap
}
function toStruct(map: WireMap): StructMessage {
  return Struct.fromJavaScript(dropUndefined(map) as Record<string, never>)
}
function failures(list: readonly CheckFailure[]) {
  return list.map((f) => new providerPb.CheckFailure().setProperty(f.property).setReason(f.reason))
}

const KIND: Record<DiffKind, number> = {
  ADD: providerPb.PropertyDiff.Kind.ADD,
  ADD_REPLACE: providerPb.PropertyDiff.Kind.ADD_REPLACE,
  DELETE: providerPb.PropertyDiff.Kind.DELETE,
  DELETE_REPLACE: providerPb.PropertyDiff.Kind.DELETE_REPLACE,
  UPDATE: providerPb.PropertyDiff.Kind.UPDATE,
  UPDATE_REPLACE: providerPb.PropertyDiff.Kind.UPDATE_REPLACE,
}

function diffResponse(result: DiffResult) {
  const response = new providerPb.DiffResponse()
    .setChanges(result.changes === 'some' ? providerPb.DiffResponse.DiffChanges.DIFF_SOME : providerPb.DiffResponse.DiffChanges.DIFF_NONE)
    .setReplacesList([...result.replaces])
    .setDiffsList([...result.diffs])
    .setDeletebeforereplace(result.deleteBeforeReplace)
    .setHasdetaileddiff(true)
  const detailed = response.getDetaileddiffMap()
  for (const [path, { kind, inputDiff }] of Object.entries(result.detailedDiff)) {
    detailed.set(path, new providerPb.PropertyDiff().setKind(KIND[kind] as never).setInputdiff(inputDiff))
  }
  return response
}

/** The status the engine reads; a partial failure travels as an ErrorResourceInitFailed detail. */
function serviceError(rpc: string, thrown: unknown, log: EngineLog): Partial<grpc.ServiceError> {
  if (!(thrown instanceof PulumiError)) {
    log('error', `${rpc} failed: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}`)
    return { code: Code.INTERNAL, details: `${rpc} failed: ${messageOf(thrown)}. This is a bug in the provider; please report it.` }
  }
  const error: Partial<grpc.ServiceError> = { code: thrown.code, details: thrown.message }
  const failure = thrown.initFailure
  if (failure) {
    const detail = new providerPb.ErrorResourceInitFailed()
      .setId(failure.id)
      .setProperties(toStruct(failure.properties))
      .setInputs(toStruct(failure.inputs))
      .setReasonsList([...failure.reasons])
    const any = new anyPb.Any()
    any.pack(detail.serializeBinary(), 'pulumirpc.ErrorResourceInitFailed')
    const status = new statusPb.Status().setCode(thrown.code).setMessage(thrown.message).setDetailsList([any])
    const metadata = new grpc.Metadata()
    metadata.set('grpc-status-details-bin', Buffer.from(status.serializeBinary()))
    error.metadata = metadata
  }
  return error
}

type Handler = (call: { request: unknown }, callback: (error: Partial<grpc.ServiceError> | null, value?: unknown) => void) => void

export function resourceProviderService(provider: PulumiProvider, schema: () => string, log: EngineLog, attach: (address: string) => void) {
  /** One catch per RPC: whatever escapes is translated, never thrown into grpc-js. */
  function unary<Req>(rpc: string, body: (request: Req) => unknown): Handler {
    return (call, callback) => {
      Promise.resolve()
        .then(() => body(call.request as Req))
        .then(
          (response) => callback(null, response),
          (thrown: unknown) => callback(serviceError(rpc, thrown, log)),
        )
    }
  }
  type P = typeof providerPb
  const implementation: Record<string, Handler> = {
    getPluginInfo: unary('GetPluginInfo', () => new pluginPb.PluginInfo().setVersion(provider.version)),
    getSchema: unary('GetSchema', () => new providerPb.GetSchemaResponse().setSchema(schema())),
    attach: unary<InstanceType<typeof pluginPb.PluginAttach>>('Attach', (r) => {
      attach(r.getAddress())
      return new emptyPb.Empty()
    }),
    cancel: unary('Cancel', () => {
      provider.cancel()
      return new emptyPb.Empty()
    }),
    checkConfig: unary<InstanceType<P['CheckRequest']>>('CheckConfig', (r) => {
      const result = provider.checkConfig({ news: fromStruct(r.getNews()) })
      return new providerPb.CheckResponse().setInputs(toStruct(result.inputs)).setFailuresList(failures(result.failures))
    }),
    diffConfig: unary<InstanceType<P['DiffRequest']>>('DiffConfig', (r) =>
      diffResponse(provider.diffConfig({ olds: fromStruct(r.getOlds()), oldInputs: fromStruct(r.getOldInputs()), news: fromStruct(r.getNews()) })),
    ),
    configure: unary<InstanceType<P['ConfigureRequest']>>('Configure', (r) => {
      const variables = Object.fromEntries(r.getVariablesMap().getEntryList() as [string, string][])
      const result = provider.configure({ args: r.hasArgs() ? fromStruct(r.getArgs()) : null, variables })
      return new providerPb.ConfigureResponse()
        .setAcceptsecrets(result.acceptSecrets)
        .setSupportspreview(result.supportsPreview)
        .setAcceptresources(result.acceptResources)
        .setAcceptoutputs(result.acceptOutputs)
    }),
    check: unary<InstanceType<P['CheckRequest']>>('Check', (r) => {
      const result = provider.check({ urn: r.getUrn(), type: r.getType(), news: fromStruct(r.getNews()) })
      return new providerPb.CheckResponse().setInputs(toStruct(result.inputs)).setFailuresList(failures(result.failures))
    }),
    diff: unary<InstanceType<P['DiffRequest']>>('Diff', async (r) =>
      diffResponse(
        await provider.diff({
          urn: r.getUrn(),
          type: r.getType(),
          id: r.getId(),
          olds: fromStruct(r.getOlds()),
          oldInputs: fromStruct(r.getOldInputs()),
          news: fromStruct(r.getNews()),
          ignoreChanges: r.getIgnorechangesList(),
        }),
      ),
    ),
    create: unary<InstanceType<P['CreateRequest']>>('Create', async (r) => {
      const result = await provider.create({
        urn: r.getUrn(),
        type: r.getType(),
        properties: fromStruct(r.getProperties()),
        timeout: r.getTimeout(),
        preview: r.getPreview(),
      })
      return new providerPb.CreateResponse().setId(result.id).setProperties(toStruct(result.properties))
    }),
    read: unary<InstanceType<P['ReadRequest']>>('Read', async (r) => {
      const result = await provider.read({
        urn: r.getUrn(),
        type: r.getType(),
        id: r.getId(),
        properties: fromStruct(r.getProperties()),
        inputs: fromStruct(r.getInputs()),
      })
      return new providerPb.ReadResponse().setId(result.id).setProperties(toStruct(result.properties)).setInputs(toStruct(result.inputs))
    }),
    update: unary<InstanceType<P['UpdateRequest']>>('Update', async (r) => {
      const result = await provider.update({
        urn: r.getUrn(),
        type: r.getType(),
        id: r.getId(),
        olds: fromStruct(r.getOlds()),
        oldInputs: fromStruct(r.getOldInputs()),
        news: fromStruct(r.getNews()),
        timeout: r.getTimeout(),
        ignoreChanges: r.getIgnorechangesList(),
        preview: r.getPreview(),
      })
      return new providerPb.UpdateResponse().setProperties(toStruct(result.properties))
    }),
    delete: unary<InstanceType<P['DeleteRequest']>>('Delete', async (r) => {
      await provider.delete({ urn: r.getUrn(), type: r.getType(), id: r.getId(), properties: fromStruct(r.getProperties()), timeout: r.getTimeout() })
      return new emptyPb.Empty()
    }),
    invoke: unary<InstanceType<P['InvokeRequest']>>('Invoke', async (r) => {
      const result = await provider.invoke({ tok: r.getTok(), args: fromStruct(r.getArgs()) })
      return new providerPb.InvokeResponse().setReturn(toStruct(result.return)).setFailuresList(failures(result.failures))
    }),
  }
  return implementation
}

const SEVERITY: Record<Severity, number> = {
  debug: enginePb.LogSeverity.DEBUG,
  info: enginePb.LogSeverity.INFO,
  warning: enginePb.LogSeverity.WARNING,
  error: enginePb.LogSeverity.ERROR,
}

/** Engine.Log when an engine address is known; stderr (an info-err line to the user) when not, or when it fails. */
export class EngineLogger {
  private client: InstanceType<typeof engineGrpc.EngineClient> | undefined

  connect(address: string): void {
    this.client?.close()
    this.client = address
      ? new engineGrpc.EngineClient(address, grpc.credentials.createInsecure(), {
          'grpc.max_receive_message_length': MAX_MESSAGE,
          'grpc.max_send_message_length': MAX_MESSAGE,
        })
      : undefined
  }

  readonly log: EngineLog = (severity, message, urn) => {
    const client = this.client
    if (!client) {
      if (severity !== 'debug') process.stderr.write(`${severity}: ${message}\n`)
      return
    }
    const request = new enginePb.LogRequest()
      .setSeverity(SEVERITY[severity] as never)
      .setMessage(message)
      .setUrn(urn ?? '')
    client.log(request, (error) => {
      if (error && severity !== 'debug') process.stderr.write(`${severity}: ${message}\n`)
    })
  }

  close(): void {
    this.client?.close()
  }
}

/** `[--logtostderr] [-v=N] [--tracing URL] <engineAddress>`: flags are dropped, the first other argument is the engine. */
export function engineAddressOf(argv: readonly string[]): string {
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '--tracing') i++
    else if (!arg.startsWith('-')) rest.push(arg)
  }
  return rest[0] ?? ''
}

export interface RunningPlugin {
  readonly port: number
  shutdown(): Promise<void>
}

/**
 * Starts the plugin as the engine expects: binds 127.0.0.1:0, writes the port and a newline to
 * stdout (nothing else may ever go there: console.log is sent to stderr), logs through Engine.Log.
 */
export async function servePlugin(options: {
  argv: readonly string[]
  /** Computed on the first GetSchema, not at start-up (the engine starts plugins often). */
  schema: () => string
  build: (log: EngineLog) => PulumiProvider
}): Promise<RunningPlugin> {
  console.log = console.error
  console.info = console.error
  const logger = new EngineLogger()
  logger.connect(engineAddressOf(options.argv))
  const provider = options.build(logger.log)
  let schema: string | undefined
  const schemaOnce = () => {
    schema ??= options.schema()
    return schema
  }
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_MESSAGE, 'grpc.max_send_message_length': MAX_MESSAGE })
  server.addService(
    providerGrpc.ResourceProviderService,
    resourceProviderService(provider, schemaOnce, logger.log, (address) => logger.connect(address)) as grpc.UntypedServiceImplementation,
  )
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  )
  process.stdout.write(`${port}\n`)
  const shutdown = () =>
    new Promise<void>((resolve) => {
      server.tryShutdown(() => {
        logger.close()
        resolve()
      })
    })
  // SIGTERM is an interrupt: in-flight operations stop waiting and return what they ordered; as the
  // engine may be going down too, none of those outcomes counts as delivered (the journal keeps them).
  guardProcess({
    log: { warn: (message) => logger.log('warning', message) },
    onTerminate: () => {
      abandonDeliveries()
      provider.cancel()
      void shutdown().then(() => process.exit(0))
    },
  })
  process.once('SIGINT', () => void shutdown().then(() => process.exit(0)))
  return { port, shutdown }
}

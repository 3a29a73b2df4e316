/**
 * The pulumirpc.ResourceProvider service with the generated google-protobuf messages, as raw routes of
 * the shared gRPC server: each route reads its protobuf request into the service's request (wire
 * maps, see protocol.ts), calls the RPC's handler through the service binding (provider.ts), and
 * writes its answer back; one catch per RPC (errors to gRPC statuses with ErrorResourceInitFailed
 * details), and Engine.Log. Loaded after the port line (see serve.ts); grpc-js and the *_grpc_pb stubs
 * are not used, so they are not loaded at all.
 */
import enginePb from '@pulumi/pulumi/proto/engine_pb.js'
import pluginPb from '@pulumi/pulumi/proto/plugin_pb.js'
import providerPb from '@pulumi/pulumi/proto/provider_pb.js'
import statusPb from '@pulumi/pulumi/proto/status_pb.js'
import anyPb from 'google-protobuf/google/protobuf/any_pb.js'
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js'
import structPb from 'google-protobuf/google/protobuf/struct_pb.js'
import { messageOf } from '../core/index.js'
import { createGrpcClient, type GrpcClient, GrpcError } from '../grpc/index.js'
import { Code, PulumiError } from './errors.js'
import type { CheckFailure, DiffKind, DiffResult, EngineLog, PulumiService, Severity } from './provider.js'
import { dropUndefined, type WireMap } from './wire.js'

const { Struct } = structPb
type StructMessage = InstanceType<typeof Struct>

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

/**
 * The status the engine reads; a partial failure travels as an ErrorResourceInitFailed detail, which
 * carries `refreshBeforeUpdate` like a success (the resource left unfinished is read first next time).
 */
function serviceError(rpc: string, thrown: unknown, log: EngineLog, refreshBeforeUpdate: boolean): GrpcError {
  if (!(thrown instanceof PulumiError)) {
    log('error', `${rpc} failed: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}`)
    return new GrpcError(Code.INTERNAL, `${rpc} failed: ${messageOf(thrown)}. This is a bug in the provider; please report it.`)
  }
  const code = thrown.code
  const failure = thrown.initFailure
  if (failure) {
    const detail = new providerPb.ErrorResourceInitFailed()
      .setId(failure.id)
      .setProperties(toStruct(failure.properties))
      .setInputs(toStruct(failure.inputs))
      .setReasonsList([...failure.reasons])
      .setRefreshBeforeUpdate(refreshBeforeUpdate)
    const any = new anyPb.Any()
    any.pack(detail.serializeBinary(), 'pulumirpc.ErrorResourceInitFailed')
    const status = new statusPb.Status().setCode(thrown.code).setMessage(thrown.message).setDetailsList([any])
    return new GrpcError(code, thrown.message, status.serializeBinary())
  }
  return new GrpcError(code, thrown.message)
}

/** A message of the generated stubs, as a response is encoded. */
interface Msg {
  serializeBinary(): Uint8Array
}
/** A protobuf message class of the generated stubs: what a request is decoded with. */
interface MessageType<M> {
  deserializeBinary(bytes: Uint8Array): M
}
export type RawHandler = (payload: Uint8Array) => Promise<Uint8Array>

/** The service as raw routes (`/pulumirpc.ResourceProvider/<Method>` → protobuf bytes in, bytes out). */
export function resourceProviderService(
  provider: PulumiService,
  schema: () => string,
  log: EngineLog,
  attach: (address: string) => void,
): Map<string, RawHandler> {
  const routes = new Map<string, RawHandler>()
  /** One catch per RPC: whatever escapes is translated into a status, never thrown into the server. */
  function unary<Req>(rpc: string, type: MessageType<Req>, body: (request: Req) => Msg | Promise<Msg>): void {
    routes.set(`/pulumirpc.ResourceProvider/${rpc}`, async (payload) => {
      try {
        return (await body(type.deserializeBinary(payload))).serializeBinary()
      } catch (thrown) {
        throw serviceError(rpc, thrown, log, provider.refreshBeforeUpdate)
      }
    })
  }
  type P = typeof providerPb
  const empty = emptyPb.Empty
  unary('GetPluginInfo', empty, () => new pluginPb.PluginInfo().setVersion(provider.version))
  unary('GetSchema', providerPb.GetSchemaRequest, () => new providerPb.GetSchemaResponse().setSchema(schema()))
  unary<InstanceType<typeof pluginPb.PluginAttach>>('Attach', pluginPb.PluginAttach, (r) => {
    attach(r.getAddress())
    return new emptyPb.Empty()
  })
  unary<InstanceType<P['ProviderHandshakeRequest']>>('Handshake', providerPb.ProviderHandshakeRequest, (r) => {
    // The engine's address came as the command line's argument; an attached plugin gets it by Attach, which follows.
    const result = provider.handshake({ supportsRefreshBeforeUpdate: r.getSupportsRefreshBeforeUpdate() })
    return new providerPb.ProviderHandshakeResponse()
      .setAcceptSecrets(result.acceptSecrets)
      .setAcceptResources(result.acceptResources)
      .setAcceptOutputs(result.acceptOutputs)
      .setSupportsAutonamingConfiguration(result.supportsAutonamingConfiguration)
  })
  unary('Cancel', empty, () => {
    provider.cancel()
    return new emptyPb.Empty()
  })
  unary<InstanceType<P['CheckRequest']>>('CheckConfig', providerPb.CheckRequest, (r) => {
    const result = provider.checkConfig({ news: fromStruct(r.getNews()) })
    return new providerPb.CheckResponse().setInputs(toStruct(result.inputs)).setFailuresList(failures(result.failures))
  })
  unary<InstanceType<P['DiffRequest']>>('DiffConfig', providerPb.DiffRequest, (r) =>
    diffResponse(
      provider.diffConfig({ olds: fromStruct(r.getOlds()), oldInputs: fromStruct(r.getOldInputs()), news: fromStruct(r.getNews()) }),
    ),
  )
  unary<InstanceType<P['ConfigureRequest']>>('Configure', providerPb.ConfigureRequest, (r) => {
    const variables = Object.fromEntries(r.getVariablesMap().getEntryList() as [string, string][])
    const result = provider.configure({ args: r.hasArgs() ? fromStruct(r.getArgs()) : null, variables })
    return new providerPb.ConfigureResponse()
      .setAcceptsecrets(result.acceptSecrets)
      .setSupportspreview(result.supportsPreview)
      .setAcceptresources(result.acceptResources)
      .setAcceptoutputs(result.acceptOutputs)
  })
  unary<InstanceType<P['CheckRequest']>>('Check', providerPb.CheckRequest, (r) => {
    const result = provider.check({
      urn: r.getUrn(),
      type: r.getType(),
      news: fromStruct(r.getNews()),
      olds: fromStruct(r.getOlds()),
      ...(r.hasOldOutputs() ? { oldOutputs: fromStruct(r.getOldOutputs()) } : {}),
    })
    return new providerPb.CheckResponse().setInputs(toStruct(result.inputs)).setFailuresList(failures(result.failures))
  })
  unary<InstanceType<P['DiffRequest']>>('Diff', providerPb.DiffRequest, async (r) =>
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
  )
  unary<InstanceType<P['CreateRequest']>>('Create', providerPb.CreateRequest, async (r) => {
    const result = await provider.create({
      urn: r.getUrn(),
      type: r.getType(),
      properties: fromStruct(r.getProperties()),
      timeout: r.getTimeout(),
      preview: r.getPreview(),
    })
    return new providerPb.CreateResponse()
      .setId(result.id)
      .setProperties(toStruct(result.properties))
      .setRefreshBeforeUpdate(provider.refreshBeforeUpdate)
  })
  unary<InstanceType<P['ReadRequest']>>('Read', providerPb.ReadRequest, async (r) => {
    const result = await provider.read({
      urn: r.getUrn(),
      type: r.getType(),
      id: r.getId(),
      properties: fromStruct(r.getProperties()),
      inputs: fromStruct(r.getInputs()),
    })
    const response = new providerPb.ReadResponse().setId(result.id).setRefreshBeforeUpdate(provider.refreshBeforeUpdate)
    // An object that is gone has an empty id and no properties at all: the engine's existence check
    // (ExistsResource) takes empty but present properties for "unknown", and `get` and import test for none.
    if (result.id === '') return response
    return response.setProperties(toStruct(result.properties)).setInputs(toStruct(result.inputs))
  })
  unary<InstanceType<P['UpdateRequest']>>('Update', providerPb.UpdateRequest, async (r) => {
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
    return new providerPb.UpdateResponse().setProperties(toStruct(result.properties)).setRefreshBeforeUpdate(provider.refreshBeforeUpdate)
  })
  unary<InstanceType<P['DeleteRequest']>>('Delete', providerPb.DeleteRequest, async (r) => {
    await provider.delete({
      urn: r.getUrn(),
      type: r.getType(),
      id: r.getId(),
      properties: fromStruct(r.getProperties()),
      timeout: r.getTimeout(),
    })
    return new emptyPb.Empty()
  })
  unary<InstanceType<P['InvokeRequest']>>('Invoke', providerPb.InvokeRequest, async (r) => {
    const result = await provider.invoke({ tok: r.getTok(), args: fromStruct(r.getArgs()) })
    return new providerPb.InvokeResponse().setReturn(toStruct(result.return)).setFailuresList(failures(result.failures))
  })
  unary<InstanceType<P['CallRequest']>>('Call', providerPb.CallRequest, async (r) => {
    const result = await provider.call({ tok: r.getTok(), args: fromStruct(r.getArgs()), dryRun: r.getDryrun() })
    return new providerPb.CallResponse().setReturn(toStruct(result.return))
  })
  return routes
}

const SEVERITY: Record<Severity, number> = {
  debug: enginePb.LogSeverity.DEBUG,
  info: enginePb.LogSeverity.INFO,
  warning: enginePb.LogSeverity.WARNING,
  error: enginePb.LogSeverity.ERROR,
}

/** Engine.Log when an engine address is known; stderr (an info-err line to the user) when not, or when it fails. */
export class EngineLogger {
  private client: GrpcClient | undefined

  connect(address: string): void {
    this.client?.close()
    this.client = address ? createGrpcClient(address) : undefined
  }

  readonly log: EngineLog = (severity, message, urn, ephemeral = false) => {
    // A status line is worth showing only where it replaces the one before: not on stderr.
    const fallback = () => {
      if (severity !== 'debug' && !ephemeral) process.stderr.write(`${severity}: ${message}\n`)
    }
    const client = this.client
    if (!client) return fallback()
    const request = new enginePb.LogRequest()
      .setSeverity(SEVERITY[severity] as never)
      .setMessage(message)
      .setUrn(urn ?? '')
      .setEphemeral(ephemeral)
    client.call('/pulumirpc.Engine/Log', request.serializeBinary()).catch(fallback)
  }

  close(): void {
    this.client?.close()
  }
}

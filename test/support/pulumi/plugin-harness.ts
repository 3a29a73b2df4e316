// Drives the Pulumi plugin under test (the build's, or the release's: see PLUGIN) as the engine does: a
// fake Engine service (recording Log calls), `pulumi-resource-provider <engineAddress>`, the port line, then ResourceProvider RPCs
// built with the generated message classes. Values go in and out as wire maps (sentinels included).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import engineGrpc from '@pulumi/pulumi/proto/engine_grpc_pb.js'
import pluginPb from '@pulumi/pulumi/proto/plugin_pb.js'
import providerPb from '@pulumi/pulumi/proto/provider_pb.js'
import providerGrpc from '@pulumi/pulumi/proto/provider_grpc_pb.js'
import statusPb from '@pulumi/pulumi/proto/status_pb.js'
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js'
import structPb from 'google-protobuf/google/protobuf/struct_pb.js'
import { dropUndefined, type WireMap } from '../../../src/pulumi/wire.js'
import { PULUMI_TARBALL, releaseFile, runsRelease } from '../artifacts.js'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
/**
 * The plugin executable: the release's for this machine when the suites run the release (unpacked once per
 * process from its tarball, see test/support/artifacts.ts), otherwise the build's launcher.
 */
export const PLUGIN = runsRelease() ? unpackReleasePlugin() : join(ROOT, 'dist', 'pulumi', 'pulumi-resource-provider')

function unpackReleasePlugin(): string {
  const tarball = releaseFile(PULUMI_TARBALL)
  const dir = mkdtempSync(join(tmpdir(), 'provider-release-plugin-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  execFileSync('tar', ['-xzf', tarball, '-C', dir, 'pulumi-resource-provider'])
  return join(dir, 'pulumi-resource-provider')
}

const { Struct } = structPb
type Msg = { serializeBinary(): Uint8Array }

export interface LogCall {
  severity: number
  message: string
  urn: string
}

/** A grpc-js server implementing pulumirpc.Engine enough for a provider: Log is recorded. */
export async function startFakeEngine(): Promise<{ address: string; logs: LogCall[]; stop(): void }> {
  const logs: LogCall[] = []
  const server = new grpc.Server()
  const empty = (_: unknown, cb: (e: null, v: unknown) => void) => cb(null, new emptyPb.Empty())
  server.addService(engineGrpc.EngineService, {
    log: (call: { request: { getSeverity(): number; getMessage(): string; getUrn(): string } }, cb: (e: null, v: unknown) => void) => {
      logs.push({ severity: call.request.getSeverity(), message: call.request.getMessage(), urn: call.request.getUrn() })
      cb(null, new emptyPb.Empty())
    },
    getRootResource: empty,
    setRootResource: empty,
    startDebugging: empty,
    requirePulumiVersion: empty,
  } as unknown as grpc.UntypedServiceImplementation)
  const port = await new Promise<number>((ok, fail) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? fail(e) : ok(p))),
  )
  return { address: `127.0.0.1:${port}`, logs, stop: () => server.forceShutdown() }
}

export interface RpcError extends Error {
  code: number
  details: string
  metadata: grpc.Metadata
}

/** The ErrorResourceInitFailed detail of a failed call, decoded from grpc-status-details-bin. */
export function initFailure(
  error: RpcError,
): { id: string; properties: WireMap; inputs: WireMap; reasons: string[]; refreshBeforeUpdate: boolean } | null {
  const bytes = error.metadata?.get('grpc-status-details-bin')[0]
  if (!bytes) return null
  const status = statusPb.Status.deserializeBinary(new Uint8Array(bytes as Buffer))
  for (const any of status.getDetailsList()) {
    if (any.getTypeUrl() !== 'type.googleapis.com/pulumirpc.ErrorResourceInitFailed') continue
    const detail = providerPb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8())
    return {
      id: detail.getId(),
      properties: (detail.getProperties()?.toJavaScript() ?? {}) as WireMap,
      inputs: (detail.getInputs()?.toJavaScript() ?? {}) as WireMap,
      reasons: detail.getReasonsList(),
      refreshBeforeUpdate: detail.getRefreshBeforeUpdate(),
    }
  }
  return null
}

/** A client on a connection of its own (grpc-js shares one between clients of the same address by default). */
function connectTo(port: number): grpc.Client {
  const Client = providerGrpc.ResourceProviderClient as unknown as new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options: grpc.ChannelOptions,
  ) => grpc.Client
  return new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
}

const struct = (map: WireMap) => Struct.fromJavaScript(dropUndefined(map) as Record<string, never>)
const js = (s: { toJavaScript(): unknown } | undefined) => (s?.toJavaScript() ?? {}) as WireMap

export class Plugin {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly startupMs: number,
    private readonly client: grpc.Client,
    readonly stderr: () => string,
  ) {}

  /**
   * `executable`: what to start (the built launcher by default; a symlink to it, or a release's single
   * executable). `viaShell` starts the plugin under a `sh` that waits for it, standing in for the engine
   * process: killing `child` then leaves the plugin orphaned, as a SIGKILLed engine does.
   */
  static async launch(
    engineAddress: string,
    env: Record<string, string> = {},
    options: { viaShell?: boolean; executable?: string } = {},
  ): Promise<Plugin> {
    const started = performance.now()
    const executable = options.executable ?? PLUGIN
    // The order journal goes where the test runner says (a temp dir), never into the repository.
    const journal = process.env.PROVIDER_ORDER_JOURNAL ? { PROVIDER_ORDER_JOURNAL: process.env.PROVIDER_ORDER_JOURNAL } : {}
    // So does the per-user index of accounts handed over (XDG_STATE_HOME: a temp dir of the test runner).
    const state = process.env.XDG_STATE_HOME ? { XDG_STATE_HOME: process.env.XDG_STATE_HOME } : {}
    const spawnEnv = { PATH: process.env.PATH ?? '', ...journal, ...state, ...env }
    const child = options.viaShell
      ? spawn('sh', ['-c', '"$0" "$@"; exit $?', executable, engineAddress], { env: spawnEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(executable, [engineAddress], { env: spawnEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const line = await new Promise<string>((ok, fail) => {
      let out = ''
      const timer = setTimeout(() => fail(new Error(`no port line within 15s; stderr: ${stderr}`)), 15_000)
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString()
        const nl = out.indexOf('\n')
        if (nl >= 0) {
          clearTimeout(timer)
          ok(out.slice(0, nl))
        }
      })
      child.once('exit', (code) => fail(new Error(`the plugin exited with ${code}; stderr: ${stderr}`)))
    })
    const startupMs = performance.now() - started
    if (!/^\d+$/.test(line)) throw new Error(`the first stdout line is not a port: ${JSON.stringify(line)}`)
    return new Plugin(child, Number(line), startupMs, connectTo(Number(line)), () => stderr)
  }

  /**
   * The same plugin process over a connection of its own, as the engine connects once per provider to a
   * plugin it attaches to (PULUMI_DEBUG_PROVIDERS); `child` stays this one's.
   */
  connectAgain(): Plugin {
    return new Plugin(this.child, this.port, this.startupMs, connectTo(this.port), this.stderr)
  }

  private call<T>(method: string, request: Msg): Promise<T> {
    const fn = (this.client as unknown as Record<string, (r: Msg, cb: (e: RpcError | null, v: T) => void) => void>)[method]!
    return new Promise((ok, fail) => fn.call(this.client, request, (error, value) => (error ? fail(error) : ok(value))))
  }

  async pluginInfo(): Promise<string> {
    return (await this.call<{ getVersion(): string }>('getPluginInfo', new emptyPb.Empty())).getVersion()
  }
  async schema(): Promise<string> {
    return (await this.call<{ getSchema(): string }>('getSchema', new providerPb.GetSchemaRequest())).getSchema()
  }
  async checkConfig(news: WireMap, olds: WireMap = {}) {
    const r = await this.call<InstanceType<typeof providerPb.CheckResponse>>(
      'checkConfig',
      new providerPb.CheckRequest()
        .setUrn('urn:pulumi:s::p::pulumi:providers:provider::default')
        .setOlds(struct(olds))
        .setNews(struct(news)),
    )
    return { inputs: js(r.getInputs()), failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) }
  }
  async diffConfig(oldInputs: WireMap, news: WireMap) {
    return diffOf(
      await this.call(
        'diffConfig',
        new providerPb.DiffRequest().setOlds(struct(oldInputs)).setOldInputs(struct(oldInputs)).setNews(struct(news)),
      ),
    )
  }
  async configure(args: WireMap) {
    const r = await this.call<InstanceType<typeof providerPb.ConfigureResponse>>(
      'configure',
      new providerPb.ConfigureRequest().setArgs(struct(args)).setAcceptsecrets(true).setAcceptresources(true),
    )
    return {
      acceptSecrets: r.getAcceptsecrets(),
      supportsPreview: r.getSupportspreview(),
      acceptResources: r.getAcceptresources(),
      acceptOutputs: r.getAcceptoutputs(),
    }
  }
  /** `oldOutputs`: the saved outputs, which the engine sends beside the old inputs of a resource it has in state (the pinned CLI does). */
  async check(urn: string, news: WireMap, olds: WireMap = {}, oldOutputs?: WireMap) {
    const request = new providerPb.CheckRequest()
      .setUrn(urn)
      .setType(typeOf(urn))
      .setName(nameOf(urn))
      .setOlds(struct(olds))
      .setNews(struct(news))
    if (oldOutputs !== undefined) request.setOldOutputs(struct(oldOutputs))
    const r = await this.call<InstanceType<typeof providerPb.CheckResponse>>('check', request)
    return { inputs: js(r.getInputs()), failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) }
  }
  async diff(urn: string, id: string, olds: WireMap, oldInputs: WireMap, news: WireMap, ignoreChanges: string[] = []) {
    return diffOf(
      await this.call(
        'diff',
        new providerPb.DiffRequest()
          .setUrn(urn)
          .setType(typeOf(urn))
          .setId(id)
          .setOlds(struct(olds))
          .setOldInputs(struct(oldInputs))
          .setNews(struct(news))
          .setIgnorechangesList(ignoreChanges),
      ),
    )
  }
  async create(urn: string, properties: WireMap, options: { preview?: boolean; timeout?: number } = {}) {
    const r = await this.call<InstanceType<typeof providerPb.CreateResponse>>(
      'create',
      new providerPb.CreateRequest()
        .setUrn(urn)
        .setType(typeOf(urn))
        .setProperties(struct(properties))
        .setPreview(options.preview ?? false)
        .setTimeout(options.timeout ?? 0),
    )
    return { id: r.getId(), properties: js(r.getProperties()), refreshBeforeUpdate: r.getRefreshBeforeUpdate() }
  }
  async read(urn: string, id: string, properties: WireMap = {}, inputs: WireMap = {}) {
    const r = await this.call<InstanceType<typeof providerPb.ReadResponse>>(
      'read',
      new providerPb.ReadRequest().setUrn(urn).setType(typeOf(urn)).setId(id).setProperties(struct(properties)).setInputs(struct(inputs)),
    )
    return {
      id: r.getId(),
      properties: js(r.getProperties()),
      inputs: js(r.getInputs()),
      refreshBeforeUpdate: r.getRefreshBeforeUpdate(),
      /** False when the answer has no properties at all (not even an empty map): the engine's "does not exist". */
      hasProperties: r.hasProperties(),
    }
  }
  async update(
    urn: string,
    id: string,
    olds: WireMap,
    oldInputs: WireMap,
    news: WireMap,
    options: { preview?: boolean; timeout?: number } = {},
  ) {
    const r = await this.call<InstanceType<typeof providerPb.UpdateResponse>>(
      'update',
      new providerPb.UpdateRequest()
        .setUrn(urn)
        .setType(typeOf(urn))
        .setId(id)
        .setOlds(struct(olds))
        .setOldInputs(struct(oldInputs))
        .setNews(struct(news))
        .setPreview(options.preview ?? false)
        .setTimeout(options.timeout ?? 0),
    )
    return { properties: js(r.getProperties()), refreshBeforeUpdate: r.getRefreshBeforeUpdate() }
  }
  async delete(urn: string, id: string, properties: WireMap, oldInputs: WireMap = {}) {
    await this.call(
      'delete',
      new providerPb.DeleteRequest()
        .setUrn(urn)
        .setType(typeOf(urn))
        .setId(id)
        .setProperties(struct(properties))
        .setOldInputs(struct(oldInputs)),
    )
  }
  async invoke(tok: string, args: WireMap) {
    const r = await this.call<InstanceType<typeof providerPb.InvokeResponse>>(
      'invoke',
      new providerPb.InvokeRequest().setTok(tok).setArgs(struct(args)),
    )
    return { return: js(r.getReturn()), failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) }
  }
  /** Call: a method of a resource as the engine forwards it; `__self__` is a resource reference, `dryRun` is a preview. */
  async callMethod(tok: string, args: WireMap, options: { dryRun?: boolean } = {}) {
    const r = await this.call<InstanceType<typeof providerPb.CallResponse>>(
      'call',
      new providerPb.CallRequest()
        .setTok(tok)
        .setArgs(struct(args))
        .setDryrun(options.dryRun ?? false)
        .setAcceptsOutputValues(true),
    )
    return { return: js(r.getReturn()), failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })) }
  }
  async cancel(): Promise<void> {
    await this.call('cancel', new emptyPb.Empty())
  }
  /** Handshake as the CLI sends it (engine address, directories, the capabilities it supports). */
  async handshake(engineAddress: string, options: { supportsRefreshBeforeUpdate?: boolean } = {}) {
    const r = await this.call<InstanceType<typeof providerPb.ProviderHandshakeResponse>>(
      'handshake',
      new providerPb.ProviderHandshakeRequest()
        .setEngineAddress(engineAddress)
        .setRootDirectory(process.cwd())
        .setProgramDirectory(process.cwd())
        .setConfigureWithUrn(true)
        .setSupportsViews(true)
        .setSupportsRefreshBeforeUpdate(options.supportsRefreshBeforeUpdate ?? true)
        .setInvokeWithPreview(true),
    )
    return {
      acceptSecrets: r.getAcceptSecrets(),
      acceptResources: r.getAcceptResources(),
      acceptOutputs: r.getAcceptOutputs(),
      supportsAutonamingConfiguration: r.getSupportsAutonamingConfiguration(),
    }
  }

  async stop(): Promise<number | null> {
    this.client.close()
    // A child already ended by a signal (a test's SIGKILL) has no exit code and emits no second exit.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode
    const exited = new Promise<number | null>((ok) => this.child.once('exit', (code) => ok(code)))
    this.child.kill('SIGTERM')
    return exited
  }
}

export function urnOf(type: string, name: string): string {
  return `urn:pulumi:test::proj::${type}::${name}`
}
function typeOf(urn: string): string {
  return urn.split('::')[2] ?? ''
}
function nameOf(urn: string): string {
  return urn.split('::')[3] ?? ''
}

export interface Diff {
  changes: 'unknown' | 'none' | 'some'
  replaces: string[]
  diffs: string[]
  detailedDiff: Record<string, { kind: string; inputDiff: boolean }>
  deleteBeforeReplace: boolean
  hasDetailedDiff: boolean
}

const KINDS = ['ADD', 'ADD_REPLACE', 'DELETE', 'DELETE_REPLACE', 'UPDATE', 'UPDATE_REPLACE']

function diffOf(value: unknown): Diff {
  const r = value as InstanceType<typeof providerPb.DiffResponse>
  const detailedDiff: Diff['detailedDiff'] = {}
  r.getDetaileddiffMap().forEach((d, key) => {
    detailedDiff[key] = { kind: KINDS[d.getKind()] ?? String(d.getKind()), inputDiff: d.getInputdiff() }
  })
  return {
    changes: (['unknown', 'none', 'some'] as const)[r.getChanges()] ?? 'unknown',
    replaces: r.getReplacesList(),
    diffs: r.getDiffsList(),
    detailedDiff,
    deleteBeforeReplace: r.getDeletebeforereplace(),
    hasDetailedDiff: r.getHasdetaileddiff(),
  }
}

export { pluginPb }

// ---- the engine's rules, as its source states them ----------------------------------------------
// A model of what `pulumi up`, `pulumi refresh` and `pulumi import` do with each answer of the plugin
// and what they save (pkg/resource/deploy/step_generator.go, step.go, pkg/engine/update.go):
// - replaceOnChanges: any key the Diff lists as changed that the resource's replaceOnChanges names
//   becomes a replacement, whatever the Diff's own `replaces` say;
// - Diff NONE and no init errors: a Same step, saving the NEW inputs with the OLD outputs, no call;
//   init errors and no change: an Update anyway ("continue awaiting initialization");
// - a partially failed Create saves the checked inputs with the returned outputs and the reasons as
//   init errors; a partially failed Update saves the OLD inputs with the NEW outputs (OnResourceStepPost);
// - a refresh saves the Read's inputs and outputs, and its init errors are only the Read's own
//   (the earlier ones are cleared); its diff is a Diff with old and new swapped, whose error fails it;
// - `pulumi import` saves the Read's inputs and outputs, then Checks them.

/** What the engine keeps in the stack's state for one resource. */
export interface Saved {
  readonly id: string
  readonly inputs: WireMap
  readonly outputs: WireMap
  readonly initErrors: readonly string[]
}

export type StepOp = 'create' | 'update' | 'same' | 'replace'

export interface UpResult {
  readonly op: StepOp
  /** The state saved after the step (unchanged on a plain failure). */
  readonly saved: Saved | null
  readonly diff?: Diff
  /** The failure of the step, if any; a partial failure still saves what the plugin returned. */
  readonly error?: RpcError
}

/** replaceOnChanges per resource token, as the generated SDK registers them (from the package schema). */
export function replaceOnChangesOf(schemaText: string): Map<string, string[]> {
  const schema = JSON.parse(schemaText) as {
    resources: Record<string, { inputProperties?: Record<string, { replaceOnChanges?: boolean }> }>
  }
  const out = new Map<string, string[]>()
  for (const [token, spec] of Object.entries(schema.resources)) {
    out.set(
      token,
      Object.entries(spec.inputProperties ?? {})
        .filter(([, p]) => p.replaceOnChanges === true)
        .map(([key]) => key)
        .sort(),
    )
  }
  return out
}

/** The part of a Diff answer the engine's replaceOnChanges rule reads and rewrites. */
interface DiffLike {
  readonly changes: string
  readonly replaces: readonly string[]
  readonly diffs: readonly string[]
  readonly detailedDiff: Readonly<Record<string, { kind: string; inputDiff: boolean }>>
}

/** The engine's applyReplaceOnChanges on top-level keys (every replaceOnChanges path here is one key). */
export function applyReplaceOnChanges<D extends DiffLike>(diff: D, replaceOnChanges: readonly string[]): D {
  if (diff.changes !== 'some') return diff
  const replaces = new Set(diff.replaces)
  for (const key of diff.diffs) if (replaceOnChanges.includes(key)) replaces.add(key)
  const detailedDiff: Record<string, { kind: string; inputDiff: boolean }> = {}
  for (const [key, d] of Object.entries(diff.detailedDiff)) {
    detailedDiff[key] = replaceOnChanges.includes(key) && !d.kind.endsWith('_REPLACE') ? { ...d, kind: `${d.kind}_REPLACE` } : d
  }
  return { ...diff, replaces: [...replaces], detailedDiff }
}

export class EngineModel {
  constructor(
    readonly plugin: Plugin,
    private readonly replaceOnChanges: ReadonlyMap<string, readonly string[]>,
  ) {}

  /** The engine's Check, then Create / Diff and Update, Same or Replace, saving what the engine saves. */
  async up(urn: string, program: WireMap, saved: Saved | null, options: { timeout?: number; preview?: boolean } = {}): Promise<UpResult> {
    const checked = await this.plugin.check(urn, program, saved?.inputs ?? {}, saved?.outputs)
    if (checked.failures.length > 0) throw new Error(`Check failed: ${JSON.stringify(checked.failures)}`)
    if (saved === null) return this.create(urn, checked.inputs, 'create', options)
    const diff = applyReplaceOnChanges(
      await this.plugin.diff(urn, saved.id, saved.outputs, saved.inputs, checked.inputs),
      this.replaceOnChanges.get(typeOf(urn)) ?? [],
    )
    if (diff.changes === 'some' && diff.replaces.length > 0) {
      // deleteBeforeReplace: the engine deletes the old object first, then creates (a preview deletes nothing).
      if (diff.deleteBeforeReplace && !options.preview) {
        await this.plugin.delete(urn, saved.id, saved.outputs, saved.inputs)
        const created = await this.create(urn, checked.inputs, 'replace', options)
        return { ...created, diff }
      }
      const created = await this.create(urn, checked.inputs, 'replace', options)
      if (created.error || options.preview) return { ...created, diff, saved: created.error ? saved : created.saved }
      await this.plugin.delete(urn, saved.id, saved.outputs, saved.inputs)
      return { ...created, diff }
    }
    if (diff.changes !== 'some' && saved.initErrors.length === 0) {
      return { op: 'same', diff, saved: options.preview ? saved : { ...saved, inputs: checked.inputs, initErrors: [] } }
    }
    try {
      const updated = await this.plugin.update(urn, saved.id, saved.outputs, saved.inputs, checked.inputs, options)
      if (options.preview) return { op: 'update', diff, saved }
      return { op: 'update', diff, saved: { id: saved.id, inputs: checked.inputs, outputs: updated.properties, initErrors: [] } }
    } catch (thrown) {
      const error = thrown as RpcError
      const failure = initFailure(error)
      // OnResourceStepPost: a partially failed update keeps the OLD inputs with the new outputs.
      if (failure)
        return {
          op: 'update',
          diff,
          error,
          saved: { id: saved.id, inputs: saved.inputs, outputs: failure.properties, initErrors: failure.reasons },
        }
      return { op: 'update', diff, error, saved }
    }
  }

  private async create(urn: string, inputs: WireMap, op: StepOp, options: { timeout?: number; preview?: boolean }): Promise<UpResult> {
    try {
      const created = await this.plugin.create(urn, inputs, options)
      return { op, saved: options.preview ? null : { id: created.id, inputs, outputs: created.properties, initErrors: [] } }
    } catch (thrown) {
      const error = thrown as RpcError
      const failure = initFailure(error)
      if (failure) return { op, error, saved: { id: failure.id, inputs, outputs: failure.properties, initErrors: failure.reasons } }
      return { op, error, saved: null }
    }
  }

  /** `pulumi refresh`: Read, save its answer with only its own init errors, then the inverted diff (whose error fails the refresh). */
  async refresh(urn: string, saved: Saved): Promise<{ saved: Saved | null; diff: Diff | null }> {
    let read: { id: string; properties: WireMap; inputs: WireMap }
    let initErrors: string[] = []
    try {
      read = await this.plugin.read(urn, saved.id, saved.outputs, saved.inputs)
    } catch (thrown) {
      const failure = initFailure(thrown as RpcError)
      if (!failure) throw thrown
      read = { id: failure.id || saved.id, properties: failure.properties, inputs: failure.inputs }
      initErrors = failure.reasons
    }
    if (read.id === '') return { saved: null, diff: null }
    const inputs = Object.keys(read.inputs).length > 0 ? read.inputs : saved.inputs
    const next: Saved = { id: read.id, inputs, outputs: read.properties, initErrors }
    const diff = await this.plugin.diff(urn, next.id, next.outputs, next.inputs, saved.inputs)
    return { saved: next, diff }
  }

  /**
   * `pulumi import`: Read with only the id, save its inputs and outputs, Check them (failures only
   * warn). `program` is what a user adopts it with: the generated code (the imported inputs), with
   * each secret input it leaves out given from a secret of the program, as the state holds it.
   */
  async import(urn: string, id: string): Promise<Saved & { readonly program: WireMap }> {
    const read = await this.plugin.read(urn, id)
    if (read.id === '') throw new Error(`resource '${id}' does not exist`)
    await this.plugin.check(urn, read.inputs, read.inputs)
    const program: WireMap = { ...read.inputs }
    for (const key of await this.secretInputs(typeOf(urn))) {
      const value = read.properties[key]
      if (!(key in program) && value !== undefined && value !== null) program[key] = value
    }
    return { id: read.id, inputs: read.inputs, outputs: read.properties, initErrors: [], program }
  }

  private secretInputsOf: Promise<Map<string, string[]>> | undefined

  /** The secret input properties of a resource token, from the package schema. */
  private async secretInputs(token: string): Promise<readonly string[]> {
    this.secretInputsOf ??= this.plugin.schema().then((text) => {
      const schema = JSON.parse(text) as { resources: Record<string, { inputProperties?: Record<string, { secret?: boolean }> }> }
      const out = new Map<string, string[]>()
      for (const [type, spec] of Object.entries(schema.resources)) {
        out.set(
          type,
          Object.entries(spec.inputProperties ?? {})
            .filter(([, p]) => p.secret === true)
            .map(([key]) => key),
        )
      }
      return out
    })
    return (await this.secretInputsOf).get(token) ?? []
  }

  async destroy(urn: string, saved: Saved): Promise<void> {
    await this.plugin.delete(urn, saved.id, saved.outputs, saved.inputs)
  }
}

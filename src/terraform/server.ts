/**
 * The Terraform provider server: what lives as long as one connection of Terraform, one provider
 * instance (see providerService), and every handler works with. It holds the provider server
 * (src/server) with its configuration, the schema views that decode and encode values, Terraform's
 * wording of diagnostics, and what it learnt across calls (objects whose create failed after its
 * order, the Terraform state it serves).
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { type AnyDataSource, type AnyResource, type Diagnostic, messageOf, type Session, toDiagnostics } from '../core/index.js'
import { ProviderServer, type Registry, UnknownTypeError } from '../server/index.js'
import { Diagnostic_Severity, type ResourceIdentityDataSchema, type Diagnostic as TfDiagnostic } from './gen/tfplugin6.10_pb.js'
import { encodeIdentity, type TfIdentity } from './identity.js'
import type { Logger } from './log.js'
import { type TfView, toTfDiagnostic } from './schema.js'
import { stateScope } from './state-scope.js'
import { type ActionEntry, TERRAFORM_NAMING, type Views, viewsOf } from './views.js'

/** A resource type as a handler works with it. */
export interface TfResource {
  readonly definition: AnyResource
  readonly view: TfView
  readonly identity: TfIdentity
}

export class TerraformServer {
  readonly server: ProviderServer
  readonly views: Views
  /** Objects marked `failedStep` that this process refreshed (see TfPrivate.guarded). */
  readonly failedSteps = new Set<string>()
  /**
   * Objects whose create or update ended with an error in this process, by `<resource name>:<id>`, with
   * that error's summary. Terraform runs the actions of an `after_create` or `after_update` trigger
   * after a failed update too (only a tainted object skips them), so InvokeAction refuses to act on
   * one of these: the next apply makes the change again, and its trigger runs the action then.
   */
  private readonly failedApplies = new Map<string, string>()
  /** The Terraform state this process serves, read on the first session (a launch that only validates reads nothing). */
  private state: string | undefined

  constructor(
    registry: Registry,
    readonly log: Logger,
    /** e.g. `provider-terraform/0.1.0`; Terraform's version is appended at configure time. */
    readonly userAgent: string,
    /** The Terraform command this connection serves, the same object for all its connections (see ConfigureOptions.run). */
    readonly run: object = {},
    /** Runs a callback once this connection has closed (see ConfigureOptions.onLeft). */
    readonly onLeft: (callback: () => void) => void = () => undefined,
  ) {
    this.server = new ProviderServer(registry, {
      naming: TERRAFORM_NAMING,
      notConfigured: 'The provider is not configured: Terraform did not call ConfigureProvider.',
    })
    this.views = viewsOf(this.server.types, registry.provider)
  }

  resource(typeName: string): TfResource {
    const definition = this.server.types.resource(typeName)
    return {
      definition,
      view: this.views.resources.get(typeName) as TfView,
      identity: this.views.identities.get(typeName) as TfIdentity,
    }
  }

  /** A listable resource type and its list schema. */
  listed(typeName: string): { resource: TfResource; list: TfView } {
    const list = this.views.lists.get(typeName)
    if (!list) throw new UnknownTypeError('list resource type', typeName)
    return { resource: this.resource(typeName), list }
  }

  /** The identity Terraform keeps beside the object with this id; absent for no object or an id the type's import id does not describe. */
  identity(resource: TfResource, id: unknown): MessageInitShape<typeof ResourceIdentityDataSchema> | undefined {
    const values = this.server.identity(resource.definition, id)
    if (values === null) {
      if (typeof id === 'string')
        this.log.warn('no resource identity: the id does not fit the import id', { type: resource.view.typeName, id })
      return undefined
    }
    return encodeIdentity(resource.identity, values)
  }

  dataSource(typeName: string): { definition: AnyDataSource; view: TfView } {
    const definition = this.server.types.dataSource(typeName)
    return { definition, view: this.views.dataSources.get(typeName) as TfView }
  }

  ephemeral(typeName: string): { definition: AnyDataSource; view: TfView } {
    const definition = this.server.types.ephemeral(typeName)
    return { definition, view: this.views.ephemerals.get(typeName) as TfView }
  }

  /**
   * Terraform configures the provider at the start of every walk (a plan, an apply): what was learnt
   * of an earlier one (failed steps and applies, the state it served) is forgotten, as a launched
   * provider, new for each walk, never knew it (Terraform connects anew for each walk, so this clears
   * only what a connection configured twice would keep).
   */
  newWalk(): void {
    this.failedSteps.clear()
    this.failedApplies.clear()
    this.state = undefined
  }

  /** Records how an apply of the object `id` of `definition` ended: an error is remembered, a success forgets it. */
  applied(definition: AnyResource, id: unknown, diagnostics: readonly { severity?: Diagnostic_Severity; summary?: string }[]): void {
    if (typeof id !== 'string' || id === '') return
    const failed = diagnostics.find((d) => d.severity === Diagnostic_Severity.ERROR)
    if (failed) this.failedApplies.set(failedKey(definition, id), failed.summary ?? 'an error')
    else this.failedApplies.delete(failedKey(definition, id))
  }

  /** The summary of the error the last create or update of object `id` ended with in this walk, if it failed (see failedApplies). */
  failedChange(definition: AnyResource, id: string): string | undefined {
    return this.failedApplies.get(failedKey(definition, id))
  }

  action(typeName: string): ActionEntry {
    const found = this.views.actions.get(typeName)
    if (!found) throw new UnknownTypeError('action', typeName)
    return found
  }

  /**
   * The session of one call (opened when the server needs it); orders are told apart by the Terraform
   * state (workspace and backend). A streaming call (an action, a listing) also stops when Terraform
   * cancels the call itself.
   */
  session(call?: AbortSignal): Session<unknown> {
    this.state ??= stateScope()
    const session = this.server.session(this.state, this.log)
    return call === undefined ? session : { ...session, signal: AbortSignal.any([session.signal, call]) }
  }

  /** Diagnostics in Terraform's names (provider_lite_vm, power_state), as users write them. */
  diagnostics(list: readonly Diagnostic[]): TfDiagnostic[] {
    return this.server.types.render(list).map(toTfDiagnostic)
  }

  /**
   * The diagnostics of a `list` block's filters: the block writes them in a nested `config` block, so
   * each path starts there, and Terraform shows the filter's own line rather than the block's header.
   */
  listDiagnostics(list: readonly Diagnostic[]): TfDiagnostic[] {
    return this.diagnostics(list.map((d) => (d.path === undefined || d.path.length === 0 ? d : { ...d, path: ['config', ...d.path] })))
  }

  /** The one catch of each RPC: whatever escaped the server is translated, never thrown at Terraform. */
  failed(rpc: string, thrown: unknown): TfDiagnostic[] {
    this.log.error(`${rpc} failed`, { error: messageOf(thrown) })
    return this.diagnostics(toDiagnostics(thrown, `${rpc} failed`, []))
  }
}

/** The key of an object in TerraformServer.failedApplies. */
function failedKey(definition: AnyResource, id: string): string {
  return `${definition.name}:${id}`
}

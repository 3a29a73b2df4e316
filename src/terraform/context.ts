/**
 * What every Terraform RPC handler works with: the provider server, the schema views that decode and
 * encode its values, and Terraform's wording of diagnostics. Built once per provider process.
 */
import {
  type AnyDataSource,
  type AnyMethod,
  type AnyResource,
  type Diagnostic,
  messageOf,
  type Session,
  toDiagnostics,
  toSnake,
} from '../core/index.js'
import { type Naming, ProviderServer, type Registry, type TypeIndex, UnknownTypeError } from '../server/index.js'
import type { MessageInitShape } from '@bufbuild/protobuf'
import type { ResourceIdentityDataSchema, Diagnostic as TfDiagnostic } from './gen/tfplugin6.10_pb.js'
import { encodeIdentity, identityOf, type TfIdentity } from './identity.js'
import { listView } from './list-resource.js'
import type { Logger } from './log.js'
import { actionView, dataSourceView, providerView, resourceView, TYPE_PREFIX, type TfView, toTfDiagnostic } from './schema.js'
import { stateScope } from './state-scope.js'

/** Terraform's names: `provider_lite_vm`, `provider_lite_products`, `power_state`, settings as written. */
export const TERRAFORM_NAMING: Naming = {
  resourceType: (name) => `${TYPE_PREFIX}${name}`,
  dataSourceType: (name) => `${TYPE_PREFIX}${name}`,
  lookup: 'data source',
  words: {
    resource: (name) => `${TYPE_PREFIX}${name}`,
    dataSource: (name) => `${TYPE_PREFIX}${name}`,
    attribute: toSnake,
    setting: toSnake,
  },
}

/** A resource's method as a Terraform action: the resource's type and the method's name, `provider_lite_vm_power`. */
export function actionType(resourceType: string, method: AnyMethod): string {
  return `${resourceType}_${method.name}`
}

/** A Terraform action: the method of a resource it runs, and the view of its configuration. */
export interface ActionEntry {
  readonly definition: AnyResource
  readonly method: AnyMethod
  readonly view: TfView
}

/**
 * Every schema view, by Terraform type name. Each view is built on first use and kept: a launch builds
 * only those its calls need (a plan of keypairs builds the keypair's), and GetProviderSchema, which
 * iterates them all, builds every one (scripts/build.mjs does so at every build, so a declaration no
 * view can be built from fails the build).
 */
export interface Views {
  readonly provider: TfView
  readonly resources: ReadonlyMap<string, TfView>
  readonly dataSources: ReadonlyMap<string, TfView>
  readonly identities: ReadonlyMap<string, TfIdentity>
  /** The list schemas of the listable resource types. */
  readonly lists: ReadonlyMap<string, TfView>
  /** The lookups also served as ephemeral resources: the same schema as their data source. */
  readonly ephemerals: ReadonlyMap<string, TfView>
  readonly actions: ReadonlyMap<string, ActionEntry>
}

/** A read-only map of fixed keys whose values are built on first access, each once. */
export class LazyMap<V> implements ReadonlyMap<string, V> {
  private readonly built = new Map<string, V>()
  private readonly order: readonly string[]
  private readonly known: ReadonlySet<string>

  constructor(
    keys: Iterable<string>,
    private readonly build: (key: string) => V,
  ) {
    this.order = [...keys]
    this.known = new Set(this.order)
  }

  get size(): number {
    return this.order.length
  }

  has(key: string): boolean {
    return this.known.has(key)
  }

  get(key: string): V | undefined {
    if (!this.known.has(key)) return undefined
    if (this.built.has(key)) return this.built.get(key)
    const value = this.build(key)
    this.built.set(key, value)
    return value
  }

  *keys(): MapIterator<string> {
    yield* this.order
  }

  *values(): MapIterator<V> {
    for (const key of this.order) yield this.get(key) as V
  }

  *entries(): MapIterator<[string, V]> {
    for (const key of this.order) yield [key, this.get(key) as V]
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries()
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this)
  }
}

export function viewsOf(types: TypeIndex, provider: Registry['provider']): Views {
  // The action names are checked here, at once: two methods that would share a type name are a
  // declaration error whichever action is used. Only their views wait for first use.
  const methods = new Map<string, { definition: AnyResource; method: AnyMethod }>()
  for (const resourceType of types.resourceTypes()) {
    const definition = types.resource(resourceType)
    for (const method of definition.methods ?? []) {
      const type = actionType(resourceType, method)
      const taken = methods.get(type)
      if (taken)
        throw new Error(
          `two actions would be named ${type}: ${taken.definition.name} ${taken.method.name} and ${definition.name} ${method.name}`,
        )
      methods.set(type, { definition, method })
    }
  }
  const dataSources = new LazyMap(types.dataSourceTypes(), (type) => dataSourceView(types.dataSource(type)))
  let providerSchema: TfView | undefined
  return {
    get provider() {
      providerSchema ??= providerView(provider)
      return providerSchema
    },
    resources: new LazyMap(types.resourceTypes(), (type) => resourceView(types.resource(type))),
    dataSources,
    identities: new LazyMap(types.resourceTypes(), (type) => identityOf(types.resource(type), type)),
    lists: new LazyMap(types.listResourceTypes(), (type) => listView(types.resource(type), type)),
    // An ephemeral resource serves its lookup, under the lookup's type name: the same view.
    ephemerals: new LazyMap(types.ephemeralTypes(), (type) => dataSources.get(type) as TfView),
    actions: new LazyMap(methods.keys(), (type) => {
      const { definition, method } = methods.get(type) as { definition: AnyResource; method: AnyMethod }
      return { definition, method, view: actionView(type, definition, method) }
    }),
  }
}

/** A resource type as a handler works with it. */
export interface TfResource {
  readonly definition: AnyResource
  readonly view: TfView
  readonly identity: TfIdentity
}

export class TfContext {
  readonly server: ProviderServer
  readonly views: Views
  /** Objects marked `failedStep` that this process refreshed (see TfPrivate.guarded). */
  readonly failedSteps = new Set<string>()
  /** The Terraform state this process serves, read on the first session (a launch that only validates reads nothing). */
  private state: string | undefined

  constructor(
    registry: Registry,
    readonly log: Logger,
    /** e.g. `provider-terraform/0.1.0`; Terraform's version is appended at configure time. */
    readonly userAgent: string,
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

  action(typeName: string): ActionEntry {
    const found = this.views.actions.get(typeName)
    if (!found) throw new UnknownTypeError('action', typeName)
    return found
  }

  /** The session of an operation; orders are told apart by the Terraform state (workspace and backend). */
  session(call?: AbortSignal): Session<unknown> {
    this.state ??= stateScope()
    const session = this.server.session(this.state, this.log)
    // A streaming call (an action, a listing) also stops when Terraform cancels the call itself.
    return call === undefined ? session : { ...session, signal: AbortSignal.any([session.signal, call]) }
  }

  /** Diagnostics in Terraform's names (provider_lite_vm, power_state), as users write them. */
  diagnostics(list: readonly Diagnostic[]): TfDiagnostic[] {
    return this.server.types.render(list).map(toTfDiagnostic)
  }

  /** The one catch of each RPC: whatever escaped the server is translated, never thrown at Terraform. */
  failed(rpc: string, thrown: unknown): TfDiagnostic[] {
    this.log.error(`${rpc} failed`, { error: messageOf(thrown) })
    return this.diagnostics(toDiagnostics(thrown, `${rpc} failed`, []))
  }
}

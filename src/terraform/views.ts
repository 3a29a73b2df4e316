/**
 * The Terraform schema views of a registry, by Terraform type name: the provider's, each resource's,
 * data source's, identity's, list's, ephemeral resource's and action's, built on first use; Terraform's
 * names for the registry; and the schema responses made from the views.
 */
import type { MessageInitShape } from '@bufbuild/protobuf'
import { type AnyMethod, type AnyResource, listFilterAttributes, toSnake } from '../core/index.js'
import type { Naming, Registry, TypeIndex } from '../server/index.js'
import type { GetProviderSchema_ResponseSchema, GetResourceIdentitySchemas_ResponseSchema } from './gen/tfplugin6.10_pb.js'
import { identityOf, type TfIdentity } from './identity.js'
import { actionView, dataSourceView, providerView, resourceView, TYPE_PREFIX, type TfView, view } from './schema.js'

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
    timeout: (name) => `timeouts.${name}`,
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

/** The list schema of a listable resource type: every filter an optional string, with its rules. */
export function listView(definition: AnyResource, typeName: string): TfView {
  const filters = listFilterAttributes(definition)
  const description =
    `Lists the ${definition.name} objects the API key can see, each with its identity, to import them ` +
    '(`terraform query`, `-generate-config-out`). Every filter is optional; those set must all match.'
  return view(typeName, filters, description, false, [])
}

/** `moved` blocks between resource types need MoveResourceState, which Terraform calls only when advertised. */
// planDestroy: Terraform asks before a delete it plans (destroy, removal from the configuration), so a
// delete that would be refused (see refusedDelete) fails at plan time, before anything is applied.
export const CAPABILITIES = { getProviderSchemaOptional: true, planDestroy: true, moveResourceState: true } as const

/** GetProviderSchema's answer: every view's schema, and the capabilities. */
export function schemaResponse(views: Views): MessageInitShape<typeof GetProviderSchema_ResponseSchema> {
  return {
    provider: views.provider.schema,
    resourceSchemas: Object.fromEntries([...views.resources].map(([name, view]) => [name, view.schema])),
    dataSourceSchemas: Object.fromEntries([...views.dataSources].map(([name, view]) => [name, view.schema])),
    listResourceSchemas: Object.fromEntries([...views.lists].map(([name, view]) => [name, view.schema])),
    ephemeralResourceSchemas: Object.fromEntries([...views.ephemerals].map(([name, view]) => [name, view.schema])),
    actionSchemas: Object.fromEntries([...views.actions].map(([name, action]) => [name, { schema: action.view.schema }])),
    serverCapabilities: CAPABILITIES,
  }
}

/** GetResourceIdentitySchemas' answer. */
export function identitySchemasResponse(views: Views): MessageInitShape<typeof GetResourceIdentitySchemas_ResponseSchema> {
  return { identitySchemas: Object.fromEntries([...views.identities].map(([name, identity]) => [name, identity.schema])) }
}

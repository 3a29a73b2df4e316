/** What a provider serves, found by the names a protocol addresses it with, and those names in messages. */
import {
  type AnyDataSource,
  type AnyProvider,
  type AnyResource,
  attributeNames,
  type Diagnostic,
  InputError,
  renderNames,
  TIMEOUT_NAMES,
  type TimeoutName,
  resourceIdentity,
} from '../core/index.js'

/** The provider configuration and every resource and lookup: src/resources' registry, or a test's. */
export interface Registry {
  readonly provider: AnyProvider
  readonly resources: readonly AnyResource[]
  readonly dataSources: readonly AnyDataSource[]
}

/**
 * How one protocol spells the canonical names. The server derives its lookups and the wording of
 * its diagnostics from it, so it never knows a protocol's spelling itself.
 */
export interface Naming {
  /** The type a protocol addresses a resource by (a Terraform type name, a Pulumi type token). */
  resourceType(name: string): string
  /** The type a protocol addresses a lookup by. */
  dataSourceType(name: string): string
  /** What the protocol calls a lookup, in messages: a data source, a function. */
  readonly lookup: string
  /** How messages to users spell each kind of canonical name, as users write it. */
  readonly words: {
    resource(name: string): string
    dataSource(name: string): string
    attribute(name: string): string
    /** A provider setting, as it is configured. */
    setting(name: string): string
    /** Where a user sets an operation's timeout (core writes `timeouts.create`). */
    timeout(name: TimeoutName): string
  }
}

/** A type the registry does not hold (a newer configuration, a typo in a token). */
export class UnknownTypeError extends InputError {
  constructor(kind: string, type: string) {
    super([], `This provider has no ${kind} ${type}.`)
  }
}

export class TypeIndex {
  private readonly resources: ReadonlyMap<string, AnyResource>
  private readonly dataSources: ReadonlyMap<string, AnyDataSource>
  /** The lookups also served as ephemeral resources (AnyDataSource.ephemeral), under the lookup's own type name. */
  private readonly ephemerals: ReadonlyMap<string, AnyDataSource>
  /** Canonical name → the protocol's spelling; built on the first diagnostic rendered (see spellings). */
  private words: Map<string, string> | undefined

  constructor(
    private readonly registry: Registry,
    private readonly naming: Naming,
  ) {
    this.resources = new Map(registry.resources.map((r) => [naming.resourceType(r.name), r]))
    this.dataSources = new Map(registry.dataSources.map((d) => [naming.dataSourceType(d.name), d]))
    this.ephemerals = new Map([...this.dataSources].filter(([, d]) => d.ephemeral === true))
  }

  /** Every canonical name's spelling, walked once, when a call first has a diagnostic to render. */
  private spellings(): Map<string, string> {
    if (this.words) return this.words
    const { registry, naming } = this
    const words = new Map<string, string>()
    // Later spellings win: a resource's attribute named like a provider setting reads as the attribute.
    for (const name of attributeNames(registry.provider.attributes)) words.set(name, naming.words.setting(name))
    for (const name of TIMEOUT_NAMES) words.set(`timeouts.${name}`, naming.words.timeout(name))
    const add = (definition: AnyResource | AnyDataSource, spell: (name: string) => string) => {
      words.set(definition.name, spell(definition.name))
      for (const name of attributeNames(definition.attributes)) words.set(name, naming.words.attribute(name))
    }
    for (const r of registry.resources) {
      for (const part of resourceIdentity(r).parts) words.set(part.name, naming.words.attribute(part.name))
      add(r, naming.words.resource)
    }
    for (const d of registry.dataSources) add(d, naming.words.dataSource)
    this.words = words
    return words
  }

  /** Every resource type, in the registry's order. */
  resourceTypes(): string[] {
    return [...this.resources.keys()]
  }

  /** The resource types whose objects can be listed (see core's listResources). */
  listResourceTypes(): string[] {
    return [...this.resources].filter(([, definition]) => definition.list !== undefined).map(([type]) => type)
  }

  dataSourceTypes(): string[] {
    return [...this.dataSources.keys()]
  }

  /** Every ephemeral resource type, in the registry's order; a protocol without them never asks. */
  ephemeralTypes(): string[] {
    return [...this.ephemerals.keys()]
  }

  findResource(type: string): AnyResource | undefined {
    return this.resources.get(type)
  }

  resource(type: string): AnyResource {
    const found = this.resources.get(type)
    if (!found) throw new UnknownTypeError('resource type', type)
    return found
  }

  dataSource(type: string): AnyDataSource {
    const found = this.dataSources.get(type)
    if (!found) throw new UnknownTypeError(this.naming.lookup, type)
    return found
  }

  /** The lookup an ephemeral resource type opens. */
  ephemeral(type: string): AnyDataSource {
    const found = this.ephemerals.get(type)
    if (!found) throw new UnknownTypeError('ephemeral resource type', type)
    return found
  }

  /** Diagnostics in the protocol's names (provider_lite_vm or LiteVm, power_state or powerState). */
  render(list: readonly Diagnostic[]): Diagnostic[] {
    if (list.length === 0) return []
    const words = this.spellings()
    return list.map((d) => renderNames(d, words))
  }
}

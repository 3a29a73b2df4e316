/** Resource, data source and provider definitions: plain data plus handlers, checked once at load. */
import { type Attributes, isComputed, isInput, type ObjectOf } from './attributes.js'
import { identityProblems } from './identity.js'
import { attributeNames, nonRoundTripping } from './names.js'
import { parseDuration } from './timeouts.js'
import type { Validator } from './validators.js'
import { writeOnlyProblems, writeOnlyRefused } from './write-only.js'

export interface Logger {
  trace(message: string, fields?: Record<string, unknown>): void
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

export const silentLogger: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} }

export interface OperationContext<C> {
  readonly client: C
  readonly signal: AbortSignal
  readonly log: Logger
  /** A warning shown to the user with the result of the operation. */
  warn(summary: string, detail: string): void
  /**
   * Says that an order placed by this update takes effect later with no further call (its invoice
   * waits for payment), `why` naming the invoice: the state keeps the ordered values, reads do not
   * undo them while the service still shows the old ones, and plans warn instead of ordering again.
   */
  readonly waitingFor?: (why: string) => void
}

/** What the service returned, by canonical attribute name; keys left out keep what core already has. */
export type Observed<A extends Attributes> = Partial<ObjectOf<A>>
export type State<A extends Attributes> = ObjectOf<A> & { readonly id: string }

export interface CreateContext<C, A extends Attributes> extends OperationContext<C> {
  /** The planned inputs, defaults applied; computed attributes are null. */
  readonly input: ObjectOf<A>
  readonly timeoutMs: number
  /**
   * Records what an order answered (its id above all) the moment it answers, so that a failure
   * later in the operation keeps the resource in state instead of losing a paid order.
   */
  checkpoint(reached: Observed<A> & { id: string }): void
  /**
   * Says that part of what was asked was skipped without failing (e.g. a power state while the
   * order waits for payment): the next apply calls `resume` to finish it.
   */
  resumeLater(): void
}

export interface ResumeContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  readonly input: ObjectOf<A>
  readonly prior: State<A>
  readonly timeoutMs: number
  /** As in CreateContext: something requested is still not done, so the next apply resumes again. */
  resumeLater(): void
}

export interface ReadContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  /** The state before this read; null during an import. */
  readonly prior: State<A> | null
  readonly importing: boolean
}

export interface StepContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  /** The state as it stands, including the steps already done in this apply. */
  readonly prior: State<A>
  /** The planned values. */
  readonly input: ObjectOf<A>
  readonly timeoutMs: number
  /** Records that this step's order was placed: its attributes are then never sent again. */
  checkpoint(reached?: Observed<A>): void
}

export interface DeleteContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  readonly prior: State<A>
  readonly timeoutMs: number
}

export interface PlanCheckContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  readonly prior: State<A>
  /** The planned values; the checked attribute is known and non-empty. */
  readonly input: ObjectOf<A>
}

/**
 * A rule only the service can tell, checked while planning a change of an existing object (e.g.
 * the OS list a server can be rebuilt with), so the error comes before any call that changes it.
 */
export interface PlanCheck<C, A extends Attributes> {
  readonly attribute: keyof A & string
  /** What is wrong with the planned value (completing "<attribute> ..."), or null when it is fine. */
  check(ctx: PlanCheckContext<C, A>): Promise<string | null>
}

export interface CreateCheckContext<C, A extends Attributes> extends OperationContext<C> {
  /** The planned values of the object to create; the checked attribute is known and non-empty. */
  readonly input: ObjectOf<A>
}

/**
 * A rule of the service's catalog (a product id, the OS names of a product, the cycles it offers, a
 * region, stock) checked while planning a new object: a create, or the new half of a replacement. An
 * error here stops the plan, so no order is placed and, in a replacement, nothing is deleted for a
 * create that is known to fail. Other inputs the check reads may be unknown at plan time (null in
 * `input`); it then answers null and the service checks them when the order is placed.
 */
export interface CreateCheck<C, A extends Attributes> {
  readonly attribute: keyof A & string
  /** What is wrong with the planned value (completing "<attribute> ..."), or null when it is fine. */
  check(ctx: CreateCheckContext<C, A>): Promise<string | null>
}

/**
 * One paid order a plan places, priced from the service's own catalog: what the service bills when
 * the order is placed (before any promocode), for one cycle of the object.
 */
export interface Quote {
  /** What is ordered, completing "<resource>: ...", e.g. `new product 101 "XS 1.1"`; canonical names. */
  readonly what: string
  /** The amount billed when the order is placed, in the catalog's money unit (its smallest currency unit). */
  readonly amount: number
  /** The cycle the amount is for, as the catalog labels it (`Monthly`). */
  readonly cycle: string
}

/**
 * How a plan's orders are priced: the orders a create places, or the order an in-place step places,
 * from the catalog (a read-only call). Answers the quotes (none when nothing is ordered), or null
 * when an input the price depends on is unknown until apply.
 */
export type Pricing<X> = (ctx: X) => Promise<readonly Quote[] | null>

export interface MoveContext<C> extends OperationContext<C> {
  readonly id: string
}

/**
 * Another resource type of the provider whose objects can become this type's (a Terraform `moved`
 * block between types), e.g. a Lite VM managed as `lite_vm` that migrated to Lite Pro.
 */
export interface MoveFrom<C> {
  /** The other type's canonical name. */
  readonly from: string
  /** When an object can move, for the docs (completing "An object of <from> can move ..."). */
  readonly when: string
  /**
   * This type's values for the other type's state, or a message saying why this object cannot move.
   * `ctx` is null when the provider is not configured yet: then only the state can be checked.
   */
  move(source: Readonly<Record<string, unknown>>, ctx: MoveContext<C> | null): Promise<Record<string, unknown> | string>
}

export interface UpdateStep<C, A extends Attributes> {
  readonly attributes: readonly (keyof A & string)[]
  /**
   * The read-only attributes this step can change (and inputs that `follows` the service); plans
   * keep the prior value of every other one. Required of every step that calls the service (the
   * load-time check refuses one without it), so no step is planned as changing nothing by
   * omission; a `recordOnly` step changes nothing and declares nothing.
   */
  readonly affects?: readonly (keyof A & string)[]
  /** What the step orders when it is a paid upgrade, priced at plan time (`max_order_total`, the plan's price). */
  readonly price?: Pricing<PlanCheckContext<C, A>>
  apply(ctx: StepContext<C, A>): Promise<Observed<A> | undefined>
}

/** The step of an input that changes nothing remotely: its new value is only recorded. */
export async function recordOnly(): Promise<undefined> {
  return undefined
}

export interface ImportId {
  /** How the id is written, for docs and errors, e.g. "<account_id>". */
  readonly format: string
  /** An example id for docs. */
  readonly example: string
  /** The resource id, or a message saying what is wrong with the given text. */
  parse(text: string): { id: string } | { error: string }
  /**
   * The id's parts in the order the format writes them, joined by `separator`: the resource identity
   * (see identity.ts). Absent, each `<name>` of the format is a string part and the text between them
   * the separator.
   */
  readonly parts?: readonly IdentityPart[]
  readonly separator?: string
}

/** One part of an import id, and so one attribute of the resource identity. */
export interface IdentityPart {
  /** Canonical name, as attributes are named. */
  readonly name: string
  readonly type: 'string' | 'int64'
  readonly description: string
}

export interface MethodContext<C, I extends Attributes> extends OperationContext<C> {
  /** The id of the object the method acts on. */
  readonly id: string
  /** The method's arguments, validated against its `inputs`. */
  readonly input: ObjectOf<I>
  readonly timeoutMs: number
  /** Tells the user how a long method is getting on (Terraform streams it as an action's progress). */
  progress(message: string): void
}

/**
 * A one-shot operation on an existing object (power, reset, rebuild): it changes nothing the
 * configuration says, so it is run on demand rather than planned. Terraform serves each as an action
 * (`<provider>_<resource>_<name>`, its configuration the object's id and the inputs), Pulumi as a
 * method of the resource (`vm.<name>(...)`). The trigger attributes that did the same by a change of
 * value stay; a method only calls the service, and the next refresh reads what it changed.
 */
export interface ResourceMethod<C, I extends Attributes> {
  /** Canonical snake_case name, e.g. `power`. */
  readonly name: string
  /** What it does, for the docs and the schema; a destructive method says so first. */
  readonly description: string
  /** Its arguments besides the object it acts on; none may be named `id`. */
  readonly inputs: I
  /** The default time it may take, e.g. "20m". */
  readonly timeout: string
  /** Wipes data (a reinstall): the docs and the Terraform action warn. */
  readonly destructive?: boolean
  /**
   * Rules of an argument only the service can tell (the OS names the object can be reinstalled
   * with), checked with read-only calls before the method runs and, where a front end plans the
   * method (a Terraform action), while planning: a value the service would refuse is an error naming
   * the argument before anything is called.
   */
  readonly checks?: readonly MethodCheck<C, I>[]
  run(ctx: MethodContext<C, I>): Promise<void>
}

export interface MethodCheckContext<C, I extends Attributes> extends OperationContext<C> {
  /** The id of the object the method would act on. */
  readonly id: string
  /** The method's arguments; the checked one is known and non-empty. */
  readonly input: ObjectOf<I>
}

export interface MethodCheck<C, I extends Attributes> {
  readonly attribute: keyof I & string
  /** What is wrong with the argument (completing "<argument> ..."), or null when it is fine. */
  check(ctx: MethodCheckContext<C, I>): Promise<string | null>
}

/** A method typed against its own inputs, held erased in the resource's list. */
export function defineMethod<C, I extends Attributes>(method: ResourceMethod<C, I>): AnyMethod {
  return method as unknown as AnyMethod
}

/**
 * One filter of a listing: keeps the objects whose attribute (canonical name) matches the given text,
 * as a whole (`equals`) or at its start (`prefix`). Unset, it keeps everything.
 */
export interface ListFilter {
  readonly attribute: string
  readonly match: 'equals' | 'prefix'
  readonly description: string
  /**
   * Every value the attribute can have on a listed object (the account statuses a listing shows).
   * The filter then matches them case-insensitively, as the service compares them, and any other
   * value is refused at validation naming these: a filter that can match nothing is a mistake, not
   * an empty list.
   */
  readonly values?: readonly string[]
  /** Rules the filter's text must follow (an account id in digits), checked at validation. */
  readonly validate?: readonly Validator[]
}

/**
 * How a resource type lists the objects the API key can see (see list.ts): one listing call for their
 * ids; core reads each as an import would and applies the filters, declared here, on what it read.
 */
export interface ListDeclaration<C, A extends Attributes> {
  /** The ids of every object of this type the key can see, in the service's order. */
  ids(ctx: OperationContext<C>): Promise<readonly (string | number)[]>
  /** The filters a list may set, by canonical filter name. */
  readonly filters: Readonly<Record<string, ListFilter & { readonly attribute: keyof A & string }>>
  /** The attribute a listed object is shown by (a name, a label); the id when absent or empty. */
  readonly displayName?: keyof A & string
}

export type TimeoutName = 'create' | 'update' | 'delete'
export type TimeoutDefaults = Partial<Record<TimeoutName, string>>

export interface ResourceDefinition<C, A extends Attributes> {
  readonly kind: 'resource'
  /** Canonical snake_case type name without the provider prefix, e.g. `lite_vm`. */
  readonly name: string
  readonly description: string
  readonly attributes: A
  readonly importId: ImportId
  /** Default durations ("20m"); the names given are the configurable timeouts. */
  readonly timeouts: TimeoutDefaults
  /** Ordered in-place steps; an input no step names is create-only or order-time. */
  readonly updates: readonly UpdateStep<C, A>[]
  /** A replacement must delete the old object first (unique names, single assignments). */
  readonly deleteBeforeReplace?: boolean
  /** Checks against the service run at plan time when the attribute changes on an existing object. */
  readonly planChecks?: readonly PlanCheck<C, A>[]
  /** Checks against the service's catalog run at plan time for a new object (create or replacement). */
  readonly createChecks?: readonly CreateCheck<C, A>[]
  /** Other types whose objects can move to this one. */
  readonly movesFrom?: readonly MoveFrom<C>[]
  /** What a create (or the new half of a replacement) orders, priced at plan time; absent when it orders nothing paid. */
  readonly priceCreate?: Pricing<CreateCheckContext<C, A>>
  create(ctx: CreateContext<C, A>): Promise<Observed<A> & { id: string }>
  /** Finishes a create or step whose order was placed but whose wait did not end; absent when nothing waits. */
  resume?(ctx: ResumeContext<C, A>): Promise<Observed<A> | undefined>
  /** Null when the object is gone. */
  read(ctx: ReadContext<C, A>): Promise<Observed<A> | null>
  delete(ctx: DeleteContext<C, A>): Promise<void>
  /** Inputs the service cannot return; listed in the docs for import. */
  readonly unrecoverable?: readonly (keyof A & string)[]
  /** How the objects of this type are listed, for adopting them; absent when they are not. */
  readonly list?: ListDeclaration<C, A>
  /** One-shot operations on an existing object (see ResourceMethod), built with `defineMethod`. */
  readonly methods?: readonly AnyMethod[]
}

export interface DataContext<C, A extends Attributes> extends OperationContext<C> {
  readonly input: ObjectOf<A>
}

export interface DataSourceDefinition<C, A extends Attributes> {
  readonly kind: 'dataSource'
  readonly name: string
  readonly description: string
  readonly attributes: A
  read(ctx: DataContext<C, A>): Promise<Observed<A>>
  /**
   * Also served as an ephemeral resource of the same name (Terraform 1.10 and later, OpenTofu 1.11
   * and later), for a lookup whose answer is a secret: the client opens it on every plan and every
   * apply, which runs this same `read`, and hands the answer to the configuration for that run only,
   * never writing it to a state or a plan. The lookup itself stays for clients without ephemeral
   * resources, and Pulumi, which has none, serves only the lookup.
   *
   * Only a lookup can be one, so opening never creates anything: the client may be killed between
   * opening and closing, and opens again on the next run, so an open that created an object at the
   * service (a generated keypair, say) would leave one behind each time. A read has nothing to close.
   */
  readonly ephemeral?: boolean
}

/**
 * What tells the order journal that an outcome handed to the engine is kept. The provider runtime
 * (src/server) calls it; whoever builds the API client hands it over through ConfigureMeta.
 */
export interface Settlement {
  /** A state names this id: the order that made it is kept. */
  account(id: string): void | Promise<void>
  /** The engine closed this process gracefully after its run: every outcome handed over is kept. */
  delivered(): void | Promise<void>
  /**
   * What the user must hear of at every run until it is settled, whatever the configuration has
   * become: accounts ordered by a run that was stopped and that no state holds.
   */
  notices?(): Promise<readonly { readonly summary: string; readonly detail: string }[]>
}

/**
 * What the provider runtime hands a provider's configure besides the configuration. `F` is the frame
 * of the operation a call runs in: its shape is declared where it is read (the API client), and the
 * runtime that produces it checks it there; core only passes it on.
 */
export interface ConfigureMeta<F = unknown> {
  readonly userAgent: string
  readonly log: Logger
  /** The frame of the operation the caller runs in, if any. */
  readonly operation: () => F | undefined
  /** Registers what settles the journal's orders, under a key; configuring again with the same key replaces it. */
  registerSettlement(key: string, settlement: Settlement): () => void
  /** A value that lives as long as the process: made by `create` at the first ask under `key`, the same for every configure after. */
  perProcess<T>(key: string, create: () => T): T
}

export interface ProviderDefinition<C, A extends Attributes, F = unknown> {
  readonly description: string
  readonly attributes: A
  /** Environment variables read when an attribute is unset, by attribute name. */
  readonly environment: Partial<Record<keyof A & string, string>>
  /** Throws an error naming the attribute when the configuration cannot work. */
  configure(config: ObjectOf<A>, meta: ConfigureMeta<F>): C
  /**
   * When an operation failed because of the configuration (a refused key, nothing listening at the
   * URL): what to fix, naming the attribute in canonical names; null otherwise.
   */
  advise?(thrown: unknown, config: ObjectOf<A>): string | null
  /** A bool setting that, when true, makes an order left unfinished fail the operation (Session.unfinishedIsError). */
  readonly unfinishedSetting?: keyof A & string
  /** A number setting: the most a plan may order, per process, in the catalog's money unit (see pricePlan). */
  readonly orderLimitSetting?: keyof A & string
}

/**
 * A definition of any client and attribute type, as a registry and the engine hold it: handler
 * contexts are erased here because each definition was type-checked against its own attributes
 * when it was written.
 */
export interface AnyResource {
  readonly kind: 'resource'
  readonly name: string
  readonly description: string
  readonly attributes: Attributes
  readonly importId: ImportId
  readonly timeouts: TimeoutDefaults
  readonly updates: readonly {
    readonly attributes: readonly string[]
    readonly affects?: readonly string[]
    readonly price?: Pricing<Erased>
    apply(ctx: Erased): Promise<unknown>
  }[]
  readonly deleteBeforeReplace?: boolean
  readonly planChecks?: readonly { readonly attribute: string; check(ctx: Erased): Promise<string | null> }[]
  readonly createChecks?: readonly { readonly attribute: string; check(ctx: Erased): Promise<string | null> }[]
  readonly movesFrom?: readonly {
    readonly from: string
    readonly when: string
    move(source: Readonly<Record<string, unknown>>, ctx: Erased): Promise<Record<string, unknown> | string>
  }[]
  readonly priceCreate?: Pricing<Erased>
  create(ctx: Erased): Promise<Record<string, unknown>>
  resume?(ctx: Erased): Promise<Record<string, unknown> | undefined>
  read(ctx: Erased): Promise<Record<string, unknown> | null>
  delete(ctx: Erased): Promise<void>
  readonly unrecoverable?: readonly string[]
  readonly methods?: readonly AnyMethod[]
  readonly list?: {
    ids(ctx: Erased): Promise<readonly (string | number)[]>
    readonly filters: Readonly<Record<string, ListFilter>>
    readonly displayName?: string
  }
}

export interface AnyMethod {
  readonly name: string
  readonly description: string
  readonly inputs: Attributes
  readonly timeout: string
  readonly destructive?: boolean
  readonly checks?: readonly { readonly attribute: string; check(ctx: Erased): Promise<string | null> }[]
  run(ctx: Erased): Promise<void>
}

export interface AnyDataSource {
  readonly kind: 'dataSource'
  readonly name: string
  readonly description: string
  readonly attributes: Attributes
  read(ctx: Erased): Promise<Record<string, unknown>>
  readonly ephemeral?: boolean
}

export interface AnyProvider {
  readonly description: string
  readonly attributes: Attributes
  readonly environment: Partial<Record<string, string>>
  configure(config: Erased, meta: ConfigureMeta<Erased>): unknown
  advise?(thrown: unknown, config: Erased): string | null
  readonly unfinishedSetting?: string
  readonly orderLimitSetting?: string
}

// biome-ignore lint/suspicious/noExplicitAny: see AnyResource; contexts are built by the engine.
type Erased = any

/** The names core adds to every resource; a definition may not declare them. */
export const RESERVED = ['id', 'timeouts'] as const

export class DefinitionError extends Error {}

/**
 * True (an esbuild define) only in the release bundles, whose build has run every check below over the
 * same sources: scripts/build.mjs first bundles the definitions with the checks on and evaluates them
 * (scripts/check-definitions.mjs), and a DefinitionError stops the build before any bundle is written.
 * Those bundles skip the checks at each launch; everything else that loads core (the tsc output the
 * tests run, the emulator, the docs generator) runs them when a definition is made.
 */
declare const PROVIDER_DEFINITIONS_CHECKED: boolean | undefined
const CHECKED_AT_BUILD = typeof PROVIDER_DEFINITIONS_CHECKED === 'boolean' && PROVIDER_DEFINITIONS_CHECKED

export function defineResource<C, A extends Attributes>(definition: Omit<ResourceDefinition<C, A>, 'kind'>): ResourceDefinition<C, A> {
  const resource: ResourceDefinition<C, A> = { kind: 'resource', ...definition }
  if (!CHECKED_AT_BUILD) checkResource(resource as unknown as AnyResource)
  return resource
}

export function defineDataSource<C, A extends Attributes>(
  definition: Omit<DataSourceDefinition<C, A>, 'kind'>,
): DataSourceDefinition<C, A> {
  const dataSource: DataSourceDefinition<C, A> = { kind: 'dataSource', ...definition }
  if (CHECKED_AT_BUILD) return dataSource
  checkNames(dataSource.name, dataSource.attributes)
  const refused = writeOnlyRefused(dataSource.name, dataSource.attributes)
  if (refused.length > 0) throw new DefinitionError(`${dataSource.name}: ${refused.join('; ')}`)
  return dataSource
}

export function defineProvider<C, A extends Attributes, F = unknown>(definition: ProviderDefinition<C, A, F>): ProviderDefinition<C, A, F> {
  if (CHECKED_AT_BUILD) return definition
  checkNames('provider', definition.attributes)
  const refused = writeOnlyRefused('the provider', definition.attributes)
  if (refused.length > 0) throw new DefinitionError(`provider: ${refused.join('; ')}`)
  return definition
}

/** The Session.unfinishedIsError of a provider configuration: the setting's name when it is on. */
export function unfinishedIsError(provider: AnyProvider, config: Readonly<Record<string, unknown>>): string | undefined {
  const setting = provider.unfinishedSetting
  return setting !== undefined && config[setting] === true ? setting : undefined
}

/** The order-time inputs (AttributeFlags.orderTime): a change on an existing object is only recorded. */
export function orderTimeInputs(definition: AnyResource): string[] {
  return Object.entries(definition.attributes)
    .filter(([, a]) => isInput(a) && a.orderTime === true)
    .map(([name]) => name)
}

/** The inputs a change of which replaces the resource. */
export function createOnlyInputs(definition: AnyResource): string[] {
  return Object.entries(definition.attributes)
    .filter(([, a]) => isInput(a) && a.createOnly === true)
    .map(([name]) => name)
}

/**
 * The load-time check: every input is create-only or named by exactly one update step, so no
 * change is ever silently dropped; every step that calls the service says what it affects; flags
 * that contradict each other are refused.
 */
export function checkResource(definition: AnyResource): void {
  const { name, attributes, updates } = definition
  checkNames(name, attributes)
  const problems: string[] = []
  const stepOf = new Map<string, number>()
  updates.forEach((step, index) => {
    for (const attribute of step.attributes) {
      const declared = attributes[attribute]
      if (!declared) problems.push(`update step ${index} names unknown attribute ${attribute}`)
      else if (!isInput(declared)) problems.push(`update step ${index} names ${attribute}, which is not an input`)
      else if (declared.createOnly) problems.push(`${attribute} is create-only but update step ${index} names it`)
      else if (declared.orderTime)
        problems.push(`${attribute} is an order-time input: core records its changes, so update step ${index} cannot name it`)
      if (stepOf.has(attribute)) problems.push(`${attribute} is named by two update steps`)
      stepOf.set(attribute, index)
    }
    if (step.affects === undefined && step.apply !== recordOnly) {
      problems.push(`update step ${index} (${step.attributes.join(', ')}) calls the service but does not declare what it affects`)
    }
    for (const attribute of step.affects ?? []) {
      const declared = attributes[attribute]
      if (!declared || !((!isInput(declared) && isComputed(declared)) || declared.follows === true)) {
        problems.push(`update step ${index} affects ${attribute}, which is not a read-only attribute or an input that follows the service`)
      }
    }
  })
  for (const [attribute, declared] of Object.entries(attributes)) {
    // A write-only input's changes are carried by its version (write-only.ts).
    if (isInput(declared) && !declared.createOnly && !declared.orderTime && !declared.writeOnly && !stepOf.has(attribute)) {
      problems.push(`${attribute} is neither create-only nor covered by an update step, so its changes would be dropped`)
    }
    if (declared.required && (declared.optional || declared.computed || declared.default !== undefined)) {
      problems.push(`${attribute} is required, so it cannot also be optional, computed or defaulted`)
    }
    if (declared.action && (declared.createOnly || declared.growOnly)) {
      problems.push(`${attribute} is an action, so it cannot be create-only or grow-only`)
    }
    if (declared.orderTime && (!isInput(declared) || declared.createOnly || declared.action || declared.growOnly || declared.writeOnly)) {
      problems.push(`${attribute} is an order-time input, so it cannot be create-only, an action, grow-only, write-only or read-only`)
    }
    if (declared.growOnly && declared.type.kind !== 'int64' && declared.type.kind !== 'float') {
      problems.push(`${attribute} is grow-only but not a number`)
    }
    if (!isInput(declared) && !isComputed(declared)) problems.push(`${attribute} is neither an input nor computed`)
    if (declared.stable && isInput(declared)) problems.push(`${attribute} is an input, so it cannot be marked stable`)
    if (declared.follows && !(declared.optional && declared.computed))
      problems.push(`${attribute} follows the service, so it must be optional and computed`)
  }
  problems.push(...writeOnlyProblems(definition, stepOf))
  for (const attribute of definition.unrecoverable ?? []) {
    if (!attributes[attribute]) problems.push(`unrecoverable names unknown attribute ${attribute}`)
  }
  const methodNames = new Set<string>()
  for (const method of definition.methods ?? []) {
    if (methodNames.has(method.name)) problems.push(`two methods are named ${method.name}`)
    methodNames.add(method.name)
    if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(method.name)) problems.push(`method ${method.name} is not a snake_case name`)
    if (!method.description) problems.push(`method ${method.name} has no description`)
    if (parseDuration(method.timeout) === null) problems.push(`method ${method.name} has a timeout that is not a duration`)
    try {
      checkNames(`method ${method.name}`, method.inputs)
    } catch (thrown) {
      problems.push((thrown as Error).message)
    }
    for (const [input, declared] of Object.entries(method.inputs)) {
      if (!isInput(declared) || isComputed(declared) || declared.createOnly || declared.action || declared.growOnly) {
        problems.push(`method ${method.name}: ${input} must be a plain required or optional argument`)
      }
    }
    for (const { attribute } of method.checks ?? []) {
      if (!method.inputs[attribute]) problems.push(`method ${method.name}: a check names ${attribute}, which is not an argument`)
    }
  }
  for (const { attribute } of [...(definition.planChecks ?? []), ...(definition.createChecks ?? [])]) {
    if (!attributes[attribute] || !isInput(attributes[attribute])) problems.push(`a plan check names ${attribute}, which is not an input`)
  }
  problems.push(...identityProblems(definition))
  problems.push(...listProblems(definition))
  if (problems.length > 0) throw new DefinitionError(`${name}: ${problems.join('; ')}`)
}

/** What is wrong with a resource's list declaration; empty when it is sound or absent. */
export function listProblems(definition: AnyResource): string[] {
  const list = definition.list
  if (!list) return []
  const problems: string[] = []
  for (const [name, filter] of Object.entries(list.filters)) {
    if (!definition.attributes[filter.attribute]) problems.push(`list filter ${name} reads unknown attribute ${filter.attribute}`)
    if (!filter.description) problems.push(`list filter ${name} has no description`)
    if (filter.values !== undefined && (filter.values.length === 0 || filter.match !== 'equals'))
      problems.push(`list filter ${name} lists its values but does not match a whole value`)
  }
  for (const bad of nonRoundTripping(Object.keys(list.filters)))
    problems.push(`list filter ${bad} does not survive the snake/camel round trip`)
  if (list.displayName !== undefined && !definition.attributes[list.displayName])
    problems.push(`list displayName names unknown attribute ${list.displayName}`)
  return problems
}

function checkNames(owner: string, attributes: Attributes): void {
  const names = Object.keys(attributes)
  const problems: string[] = []
  for (const reserved of RESERVED) if (names.includes(reserved)) problems.push(`${reserved} is reserved for core`)
  for (const bad of nonRoundTripping(attributeNames(attributes))) problems.push(`${bad} does not survive the snake/camel round trip`)
  for (const [attribute, declared] of Object.entries(attributes)) {
    if (!declared.description) problems.push(`${attribute} has no description`)
  }
  if (problems.length > 0) throw new DefinitionError(`${owner}: ${problems.join('; ')}`)
}

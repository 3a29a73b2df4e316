/**
 * The shape of a definition: the resource, data source and provider definitions a resource module
 * writes, the contexts core hands their handlers, and the erased forms registries hold. Types only;
 * making a definition and its load-time checks are in definition.ts.
 */
import type { Attributes, ObjectOf } from './attributes.js'
import type { Validator } from './validators.js'

export interface Logger {
  trace(message: string, fields?: Record<string, unknown>): void
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
  /** What a long operation is doing now, replacing the last such line; a logger without it logs the line as `info` (logAt). */
  status?(message: string, fields?: Record<string, unknown>): void
}

/** Logs at `level`; `status` falls back to `info` on a logger that shows no status line. */
export function logAt(log: Logger, level: keyof Logger, message: string, fields?: Record<string, unknown>): void {
  if (level === 'status' && log.status === undefined) log.info(message, fields)
  else log[level]?.(message, fields)
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
  /**
   * Asked before the create ends with an object that existed before it, taken over rather than made
   * (a keypair whose name and public key are the configured ones). False when this same run deletes,
   * or has deleted, that object: the old half of a renamed or replaced resource, whose delete runs
   * beside this create. The create must then make its own object. True records the object as this
   * resource's, so that a delete of it later in the run (that old half again) leaves it alone.
   */
  takeOver(id: string): Promise<boolean>
}

export interface ResumeContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  readonly input: ObjectOf<A>
  /**
   * Steps of this update follow: only wait for the order in progress. What else the earlier apply
   * left (work it does once Active: a disk to grow, a power state) comes after them in the update's
   * order (a package change may include that disk), so core calls resume again after the steps, with
   * this false, to do it.
   */
  readonly waitOnly: boolean
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
  /** What the handlers noted about the object (PrivateState.notes): empty at import and before any note. */
  readonly notes: Readonly<Record<string, string>>
  /** Notes a name (a string) or drops it (null), for later reads. */
  note(name: string, value: string | null): void
  /**
   * An earlier apply left work on the object for the next apply (the resume mark: a create's power
   * state, say, still to set), which that apply does: what the read finds may be that work not done yet.
   */
  readonly resuming: boolean
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
  /** Notes a name (a string) or drops it (null) for the object's later reads (ReadContext.notes). */
  note(name: string, value: string | null): void
}

export interface DeleteContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  readonly prior: State<A>
  readonly timeoutMs: number
}

export interface ChangesRefusedContext<C, A extends Attributes> extends OperationContext<C> {
  readonly id: string
  /**
   * The state recorded, which says whether a read is worth making; null when there is none to go by
   * (a method the service refused, run on an object named by its id): the read decides.
   */
  readonly prior: State<A> | null
  /**
   * The inputs of the definition's `cosmetic` steps (a rename, a label), which the service takes
   * anyway: what the reason may name as still taken; empty when there are none.
   */
  readonly cosmetic: readonly (keyof A & string)[]
  /** What the user does once the object takes changes, which the reason ends with: "plan again", or how to run a method again. */
  readonly afterwards: string
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
  /**
   * Whether the create places a paid order (the definition prices it: `priceCreate`), so that a check
   * shared by several resources calls what it stops an order only where it is one (an assignment is
   * not). Core sets it for create checks and their `ready`; unset elsewhere (a price asked of an order).
   */
  readonly orders?: boolean
  /**
   * In a replacement, the id of the object the new one replaces, when the front end knows it: what
   * that object holds in the service (an IP routed to its server) is free for the new one once the
   * old one is deleted first. Undefined for a new object.
   */
  readonly replacing?: string
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
  /**
   * Run by the create just before its order: waits, up to `timeoutMs`, for what the check let pass
   * while the service was still making it (an account Pending with its invoice paid) to be ready for
   * the order; throws, and nothing is ordered, when it does not become so.
   */
  ready?(ctx: CreateCheckContext<C, A> & { readonly timeoutMs: number }): Promise<void>
  /**
   * The value names another object (an account, a keypair): unknown at plan only while that object is
   * made or replaced in the same apply, which then makes it what the order needs. A replacement is not
   * warned about it (uncheckedReplacement), unlike a catalog value known only at apply.
   */
  readonly references?: boolean
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
  /**
   * Set when the amount is only the least the order can cost: why the service may bill more (what the
   * plan cannot know before apply). The plan shows it and counts the amount as it is.
   */
  readonly atLeast?: string
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
  /**
   * The order-time inputs (AttributeFlags.orderTime) this step's order is sent with (the payment flag
   * of a paid upgrade); only a step with a `price` places an order. A plan that runs the step says the
   * new value of each is used by its order, and the state records the value sent once the order is
   * placed, even when the update stops after it.
   */
  readonly placedWith?: readonly (keyof A & string)[]
  /**
   * A change the service takes even while it refuses every other one (see ResourceDefinition.changesRefused):
   * a rename or a label, which the service's status rules allow on a Pending account.
   */
  readonly cosmetic?: boolean
  apply(ctx: StepContext<C, A>): Promise<Observed<A> | undefined>
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

/**
 * One filter of a listing: keeps the objects whose attribute (canonical name) matches the given text,
 * as a whole (`equals`) or at its start (`prefix`). Unset, it keeps everything.
 */
export interface ListFilter {
  readonly attribute: string
  readonly match: 'equals' | 'prefix'
  readonly description: string
  /**
   * A value the filter takes, written in the `list` block of the generated reference page so that the
   * block runs as written (`terraform query`); the definition check refuses one the filter's rules refuse.
   */
  readonly example: string
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
  /**
   * What `resume` still orders once the create's account is Active (work a create left for after it, a
   * disk grown beyond the package's), priced at plan time when the plan resumes (`private.resume`):
   * `prior` is the state, `input` the plan, whose own steps run first and are priced apart. Absent
   * when a resume orders nothing.
   */
  readonly priceResume?: Pricing<PlanCheckContext<C, A>>
  /** Finishes a create or step whose order was placed but whose wait did not end; absent when nothing waits. */
  resume?(ctx: ResumeContext<C, A>): Promise<Observed<A> | undefined>
  /**
   * Whether what a read observes leaves nothing for `resume` to do (the order it waits for is done):
   * a refresh that finds it so, with every input as recorded, ends the resume mark, and the next plan
   * shows no change. Absent where `resume` does more than wait (work a create left for after Active,
   * which a read cannot see done): only an apply ends the mark.
   */
  finished?(observed: Observed<A>): boolean
  /**
   * Null when the object is gone. The call that reads the object itself goes through `ownCall`, so
   * that its 404 or 410 says gone; a not-found of any other call fails the read and keeps the object.
   */
  read(ctx: ReadContext<C, A>): Promise<Observed<A> | null>
  /**
   * Asked only when an import finds no object with this id: where such an id is instead (another
   * family's pool, the parts of a composite id swapped), said as what to import it as; undefined when
   * nowhere. A failure of its own leaves the plain "missing" message.
   */
  elsewhere?(ctx: OperationContext<C> & { readonly id: string }): Promise<string | undefined>
  /**
   * Why the service refuses changes to the object now (an account that stays Pending until its invoice
   * is paid, or is Suspended), as a read of it shows it, ending with what to do; undefined when it takes them. Asked at plan for an in-place step
   * that calls the service and is not `cosmetic`; it reads only where the recorded state suggests so,
   * and a plan that read the object already (Terraform's refresh) or not (Pulumi's saved outputs, an
   * invoice paid since) ends the same: it refuses only what the service refuses.
   */
  changesRefused?(ctx: ChangesRefusedContext<C, A>): Promise<string | undefined>
  /**
   * Run by an update just before its first step that the service takes only from an object ready for
   * it (an order, an action; not a `cosmetic` one): waits, up to `timeoutMs`, while the service is still
   * making an order or change of it (an account Pending with its invoice paid: it takes no other order
   * before it is Active, and would answer 409), and reports through `waitingFor` an unpaid invoice that
   * keeps it Pending (the steps are then not sent). Throws when it will not become ready (Suspended).
   */
  readyForChanges?(ctx: OperationContext<C> & { readonly id: string; readonly prior: State<A>; readonly timeoutMs: number }): Promise<void>
  /** Its own call goes through `ownCall`: only that call's 404 or 410 means the object was already deleted. */
  delete(ctx: DeleteContext<C, A>): Promise<void>
  /** Inputs the service cannot return; listed in the docs for import. */
  readonly unrecoverable?: readonly (keyof A & string)[]
  /**
   * Create-only inputs an import reads from what the object is now, which an in-place action may have
   * moved away from what its create was given (the OS, after a rebuild). A configuration that still
   * gives the create's value differs from it, which replaces the object as any change of a create-only
   * input does; the plan after the import warns then, naming the value to set to keep the object.
   */
  readonly importReadsCurrent?: readonly (keyof A & string)[]
  /** How the objects of this type are listed, for adopting them; absent when they are not. */
  readonly list?: ListDeclaration<C, A>
  /** One-shot operations on an existing object (see ResourceMethod), built with `defineMethod`. */
  readonly methods?: readonly AnyMethod[]
}

/**
 * Whether the objects of a resource type are accounts that its create orders and the service bills (it
 * prices what its create orders): only their ids name the order journal's entries. A keypair's or an
 * assignment's id may equal some account's id, and a state naming it says nothing of that account.
 */
export function ordersAccounts(definition: { readonly priceCreate?: unknown }): boolean {
  return definition.priceCreate !== undefined
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
   * The input whose object a "not found" answer of `read` is about (the product whose OS list is
   * read), and what it must be, completing "<attribute> must be ...": such an answer is reported on
   * that attribute, as a resource's check of the same input reports it, not as a failed call.
   */
  readonly notFound?: { readonly attribute: keyof A & string; readonly what: string }
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
  /**
   * The engine closed this process gracefully after its run: every outcome handed over is kept.
   * `saved`, when the front end can read it, gives the ids that a state the engine already saved names.
   */
  delivered(saved?: () => ReadonlySet<string>): void | Promise<void>
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
  /**
   * A value that lives as long as the engine's run this configure belongs to: made by `create` at the
   * first ask under `key`, the same for every configure of that run. A process Terraform reattaches
   * to (the serve mode) serves one command after another, each configuring it once per `provider`
   * block and per walk; any other process serves one run.
   */
  perRun<T>(key: string, create: () => T): T
  /**
   * Runs once this configure's connection to the engine has closed (never, where none can close before
   * the process ends): its command has exited, or was killed. A run's record of what this configure
   * did (see perRun) ends there, whatever other commands another open connection still serves.
   */
  onLeft(callback: () => void): void
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

// biome-ignore lint/suspicious/noExplicitAny: the client and attribute types of an erased definition; its contexts are built by the engine.
type Erased = any

/**
 * The erased form of a definition, as a registry and the engine hold it: the one declaration above
 * with its client and attribute types erased (each definition was type-checked against its own
 * attributes where it was written), and its attribute map `K` (`attributes`, a method's `inputs`)
 * typed as Attributes, which the engine reads. defineResource, defineDataSource, defineMethod and
 * defineProvider return these, so a registry is a plain list of them.
 */
type Erase<D, K extends keyof D> = Omit<D, K> & { readonly [P in K]: Attributes }

export type AnyResource = Erase<ResourceDefinition<Erased, Erased>, 'attributes'>
export type AnyMethod = Erase<ResourceMethod<Erased, Erased>, 'inputs'>
export type AnyDataSource = Erase<DataSourceDefinition<Erased, Erased>, 'attributes'>
export type AnyProvider = Erase<ProviderDefinition<Erased, Erased, Erased>, 'attributes'>

// The lifecycle suite's view of a front end: one interface, two drivers. Each driver runs its front end
// in-process against the emulator of a test/support/harness.ts Harness (manual clock, client on emulator.fetch),
// speaking the front end's own wire format: msgpack DynamicValues over gRPC for Terraform, wire property
// maps with secret and unknown sentinels for Pulumi. The suite sees values under canonical names only.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decode, ExtData, encode } from '@msgpack/msgpack'
import { type AnyResource, resourceIdentity, toCamel, toSnake, UNKNOWN, valuesEqual } from '../../src/core/index.js'
import { pulumiService, resourceToken } from '../../src/pulumi/provider.js'
import { isSecret, plain, UNKNOWN_WIRE, type Wire, type WireMap } from '../../src/pulumi/wire.js'
import { dataSources, providerDefinition, resources } from '../../src/resources/index.js'
import { createGrpcServer } from '../../src/grpc/index.js'
import { silentLogger as tfSilentLogger } from '../../src/terraform/index.js'
import { type Diagnostic as TfDiagnostic, Diagnostic_Severity, Provider, type Schema } from '../../src/terraform/gen/tfplugin6.10_pb.js'
import { providerService } from '../../src/terraform/provider-service.js'
import { connectGrpcTestClient } from './terraform/grpc-client.js'
import type { Harness } from './harness.js'
import { applyReplaceOnChanges, ROOT, replaceOnChangesOf } from './pulumi/plugin-harness.js'

/** A configuration under canonical attribute names; null or absent means unset. */
export type Config = Readonly<Record<string, unknown>>

/** A resource's state as the suite compares it: canonical names, secrets unwrapped, `UNKNOWN` for unknowns. */
export interface DriverState {
  readonly id: string
  readonly values: Readonly<Record<string, unknown>>
  /** What the front end itself keeps (Terraform: state and private bytes; Pulumi: outputs and inputs). */
  readonly native: unknown
}

export interface PlanView {
  /** The planned values (canonical names; unknowns as core's UNKNOWN). */
  readonly planned: Readonly<Record<string, unknown>>
  /** Attribute paths whose change forces a replacement, canonical names. */
  readonly replace: readonly (readonly string[])[]
  /** Canonical names of what the front end shows as changed; empty means an empty plan. */
  readonly changed: readonly string[]
  /** The warnings the plan showed the user, as text (summary and detail). */
  readonly warnings: readonly string[]
}

export interface DriverSession {
  plan(prior: DriverState | null, config: Config): Promise<PlanView>
  /** Plans and applies as the tool would, replacement included; throws on an error diagnostic. */
  apply(prior: DriverState | null, config: Config): Promise<DriverState>
  /**
   * An in-place change whose `unknown` inputs come from values not known at plan time (another
   * resource's outputs): planned with them unknown, then applied with `config` as the tool does,
   * Terraform's final-plan consistency rule included. Throws when the plan replaces the object.
   */
  applyFromUnknown(prior: DriverState, config: Config, unknown: readonly string[]): Promise<DriverState>
  /** A refresh; null when the object is gone. */
  read(state: DriverState): Promise<DriverState | null>
  /** The tool's import by id (followed by the read the tool makes). */
  import(id: string): Promise<DriverState>
  /**
   * Resource identity, for a front end whose tool keeps one (Terraform 1.12+): the identity kept with
   * a state (canonical part names, as the tool decoded it), and the tool's import by identity.
   */
  readonly identity?: {
    of(state: DriverState): Readonly<Record<string, unknown>> | null
    import(identity: Readonly<Record<string, unknown>>): Promise<DriverState>
    /**
     * The tool's listing of the type (Terraform `terraform query`), with its filters (canonical names):
     * each object's identity, display name and state (canonical names); null when the type has none.
     */
    list(filters: Readonly<Record<string, unknown>>): Promise<ListedView[] | null>
  }
  delete(state: DriverState): Promise<void>
  close(): Promise<void>
}

/** One object a tool's listing found. */
export interface ListedView {
  readonly identity: Readonly<Record<string, unknown>>
  readonly displayName: string
  readonly values: Readonly<Record<string, unknown>>
}

export interface FrontEndDriver {
  readonly name: string
  /** Whether its sessions offer `identity`: the tool keeps a resource identity. */
  readonly identity: boolean
  /** Whether the front end has write-only attributes (Terraform does; Pulumi's schema leaves them out). */
  readonly writeOnly: boolean
  /**
   * A session of the front end serving `definition`, its API client wired to the harness's emulator;
   * `settings` are provider settings besides the key and URL (canonical names).
   */
  open(definition: AnyResource, harness: Harness, settings?: Config): Promise<DriverSession>
}

/**
 * The seam: both front ends take a registry, and the provider definition's `configure` is what builds
 * the client. Here it returns the harness's client (emulator.fetch, sleeps advance the manual clock),
 * after the real configuration has been validated by the front end as usual.
 */
function registryFor(harness: Harness) {
  return {
    provider: { ...providerDefinition, configure: () => harness.client },
    resources,
    dataSources,
  }
}

const BASE_URL = 'http://emulator.invalid/v1'

/** The configuration with the named inputs not known yet. */
function unknownIn(config: Config, unknown: readonly string[]): Config {
  return Object.fromEntries(Object.entries(config).map(([name, value]) => [name, unknown.includes(name) ? UNKNOWN : value]))
}

class ProviderFailure extends Error {}

// ---------------------------------------------------------------------------------------------
// Terraform

interface TfAttribute {
  readonly name: string
  readonly computed: boolean
  readonly optional: boolean
  readonly writeOnly: boolean
}

interface TfNative {
  /** The state object as Terraform holds it: snake_case keys, every schema attribute and block. */
  readonly object: Record<string, unknown>
  readonly private: Uint8Array
  /** The identity Terraform keeps beside it (msgpack), if the provider gave one. */
  readonly identity: Uint8Array | undefined
}

/** Terraform's unknown on the wire. */
const TF_UNKNOWN = new ExtData(0, new Uint8Array([0]))

function fromWire(value: unknown): unknown {
  if (value instanceof ExtData) return UNKNOWN
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(fromWire)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromWire(v)]))
  }
  return value
}

function toWire(value: unknown): unknown {
  if (value === UNKNOWN) return TF_UNKNOWN
  if (Array.isArray(value)) return value.map(toWire)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v)]))
  return value
}

function dynamic(object: Record<string, unknown> | null) {
  return { msgpack: encode(toWire(object), { useBigInt64: true }) }
}

/**
 * A state object off the wire. Terraform decodes with the schema's types: a number may come as its
 * decimal text, so the attributes the schema types `number` (`numbers`) are read back as numbers.
 */
function undynamic(
  value: { msgpack: Uint8Array; json: Uint8Array } | undefined,
  numbers: ReadonlySet<string> = new Set(),
): Record<string, unknown> | null {
  if (!value) return null
  if (value.msgpack.length > 0) {
    const object = fromWire(decode(value.msgpack, { useBigInt64: true })) as Record<string, unknown> | null
    if (object === null) return null
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, numbers.has(k) && typeof v === 'string' ? Number(v) : v]))
  }
  if (value.json.length > 0) return JSON.parse(new TextDecoder().decode(value.json)) as Record<string, unknown>
  return null
}

function errorsOf(rpc: string, diagnostics: readonly TfDiagnostic[] | undefined): void {
  const errors = (diagnostics ?? []).filter((d) => d.severity === Diagnostic_Severity.ERROR)
  if (errors.length > 0) throw new ProviderFailure(`${rpc}: ${errors.map((d) => `${d.summary}: ${d.detail}`).join('\n')}`)
}

function same(a: unknown, b: unknown): boolean {
  if (a === UNKNOWN || b === UNKNOWN) return a === b
  return valuesEqual(a, b)
}

export const terraformDriver: FrontEndDriver = {
  name: 'terraform',
  identity: true,
  writeOnly: true,
  async open(definition, harness, settings = {}) {
    const typeName = `provider_${definition.name}`
    const server = createGrpcServer({})
    providerService(registryFor(harness), { log: tfSilentLogger, userAgent: 'provider-terraform/conformance' }).attach(server)
    const port = await server.listen('127.0.0.1', 0)
    const grpc = connectGrpcTestClient({ address: `127.0.0.1:${port}` })
    const schemas = await grpc.call(Provider.method.getProviderSchema, {})
    const schema: Schema | undefined = schemas.resourceSchemas[typeName]
    if (!schema?.block || !schemas.provider?.block) throw new Error(`no schema for ${typeName}`)
    const identitySchema = (await grpc.call(Provider.method.getResourceIdentitySchemas, {})).identitySchemas[typeName]
    if (!identitySchema || identitySchema.identityAttributes.length === 0) throw new ProviderFailure(`no identity schema for ${typeName}`)
    const identityNames = identitySchema.identityAttributes.map((a) => a.name)
    const identityNumbers = new Set(
      identitySchema.identityAttributes.filter((a) => new TextDecoder().decode(a.type) === '"number"').map((a) => a.name),
    )
    const partOf = new Map(resourceIdentity(definition).parts.map((part) => [toSnake(part.name), part.name]))
    const numbers = new Set(schema.block.attributes.filter((a) => new TextDecoder().decode(a.type) === '"number"').map((a) => a.name))
    const providerNames = schemas.provider.block.attributes.map((a) => a.name)
    const providerConfig = Object.fromEntries(providerNames.map((n) => [n, null]))
    const configured = await grpc.call(Provider.method.configureProvider, {
      terraformVersion: '1.9.0',
      config: dynamic({ ...providerConfig, ...settings, api_key: harness.emulator.apiKey, base_url: BASE_URL }),
    })
    errorsOf('ConfigureProvider', configured.diagnostics)

    const attributes: TfAttribute[] = schema.block.attributes.map((a) => ({
      name: a.name,
      computed: a.computed,
      optional: a.optional,
      writeOnly: a.writeOnly,
    }))
    const blocks = schema.block.blockTypes.map((b) => b.typeName)
    const canonical = new Map(Object.keys(definition.attributes).map((name) => [toSnake(name), name]))
    const canonicalOf = (snake: string) => canonical.get(snake) ?? snake

    /** The configuration object Terraform decodes from HCL: every attribute, null when unset; absent blocks null. */
    function configObject(config: Config): Record<string, unknown> {
      const object: Record<string, unknown> = {}
      for (const a of attributes) object[a.name] = null
      for (const b of blocks) object[b] = null
      for (const [name, value] of Object.entries(config)) {
        if (value === undefined || value === null) continue
        const snake = toSnake(name)
        if (!(snake in object)) throw new Error(`${typeName} has no attribute ${snake}`)
        object[snake] = value
      }
      return object
    }

    /**
     * objchange.ProposedNew: config values, except computed attributes left unset, which keep the prior
     * value; write-only values stripped (ephemeral.StripWriteOnlyAttributes).
     */
    function proposedNew(prior: Record<string, unknown> | null, config: Record<string, unknown>): Record<string, unknown> {
      const proposed: Record<string, unknown> = { ...config }
      for (const a of attributes) {
        if (a.computed && config[a.name] === null) proposed[a.name] = prior?.[a.name] ?? null
        if (a.writeOnly) proposed[a.name] = null
      }
      return proposed
    }

    /** objchange.AssertPlanValid for attributes: what Terraform refuses as "Provider produced invalid plan". */
    function assertPlanValid(prior: Record<string, unknown> | null, config: Record<string, unknown>, planned: Record<string, unknown>) {
      const problems: string[] = []
      for (const a of attributes) {
        const [p, c, v] = [prior?.[a.name] ?? null, config[a.name] ?? null, planned[a.name] ?? null]
        if (a.writeOnly) {
          if (v !== null) problems.push(`${a.name}: planned value for write-only attribute is not null`)
          continue
        }
        if (same(v, c)) continue
        if (prior !== null && p !== null && c !== null && same(v, p)) continue
        if (a.computed && !a.optional) continue
        if (c === null && a.computed) continue
        problems.push(`${a.name}: planned ${show(v)} for config ${show(c)} (prior ${show(p)})`)
      }
      for (const b of blocks) if (!same(planned[b] ?? null, config[b] ?? null)) problems.push(`block ${b} planned differently from config`)
      if (problems.length > 0) throw new ProviderFailure(`Provider produced invalid plan for ${typeName}: ${problems.join('; ')}`)
    }

    /** objchange.AssertObjectCompatible: every known planned value must be the applied value. */
    function assertApplyConsistent(planned: Record<string, unknown>, applied: Record<string, unknown>) {
      const problems = Object.keys(planned)
        .filter((k) => planned[k] !== UNKNOWN && !containsUnknown(planned[k]) && !same(planned[k], applied[k] ?? null))
        .map((k) => `${k}: planned ${show(planned[k])}, applied ${show(applied[k])}`)
      if (problems.length > 0)
        throw new ProviderFailure(`Provider produced inconsistent result after apply for ${typeName}: ${problems.join('; ')}`)
    }

    /** Terraform's "Provider produced inconsistent final plan": known values of the saved plan must stand. */
    function assertFinalPlanConsistent(saved: Record<string, unknown>, final: Record<string, unknown>) {
      const problems = Object.keys(saved)
        .filter((k) => !containsUnknown(saved[k]) && !same(saved[k], final[k] ?? null))
        .map((k) => `${k}: planned ${show(saved[k])}, then ${show(final[k])}`)
      if (problems.length > 0)
        throw new ProviderFailure(`Provider produced inconsistent final plan for ${typeName}: ${problems.join('; ')}`)
    }

    /**
     * The identity a response gave: Terraform refuses one with unknown values or with other attributes
     * than the identity schema's; this provider gives one with every object, so none is a failure.
     */
    function identityFrom(rpc: string, data: { identityData?: { msgpack: Uint8Array } } | undefined): Uint8Array {
      const bytes = data?.identityData?.msgpack
      if (!bytes || bytes.length === 0) throw new ProviderFailure(`${rpc} returned no identity for ${typeName}`)
      const values = fromWire(decode(bytes, { useBigInt64: true })) as Record<string, unknown> | null
      if (values === null || containsUnknown(values)) throw new ProviderFailure(`${rpc} returned an identity with unknown values`)
      if (JSON.stringify(Object.keys(values).sort()) !== JSON.stringify([...identityNames].sort()))
        throw new ProviderFailure(`${rpc} returned an identity that does not match the identity schema: ${show(values)}`)
      return bytes
    }

    function stateOf(object: Record<string, unknown> | null, priv: Uint8Array, identity?: Uint8Array): DriverState | null {
      if (object === null) return null
      // ephemeral.ValidateWriteOnlyAttributes: Terraform refuses a new state with a write-only value.
      for (const a of attributes) {
        if (a.writeOnly && object[a.name] !== null)
          throw new ProviderFailure(`${typeName}.${a.name} is write-only but not null in the state`)
      }
      const values = Object.fromEntries(Object.entries(object).map(([k, v]) => [canonicalOf(k), v]))
      return { id: String(object.id), values, native: { object, private: priv, identity } satisfies TfNative }
    }
    const native = (state: DriverState) => state.native as TfNative
    const identityData = (bytes: Uint8Array | undefined) => (bytes ? { identityData: { msgpack: bytes } } : undefined)

    async function validate(config: Record<string, unknown>) {
      const validated = await grpc.call(Provider.method.validateResourceConfig, {
        typeName,
        config: dynamic(config),
        clientCapabilities: { writeOnlyAttributesAllowed: true },
      })
      errorsOf('ValidateResourceConfig', validated.diagnostics)
    }

    /** `replanned`: the private state of the plan whose replacement this plans, which Terraform hands the new object's plan. */
    async function planChange(prior: DriverState | null, config: Record<string, unknown>, replanned?: Uint8Array) {
      const priorObject = prior ? native(prior).object : null
      const response = await grpc.call(Provider.method.planResourceChange, {
        typeName,
        priorState: dynamic(priorObject),
        proposedNewState: dynamic(proposedNew(priorObject, config)),
        config: dynamic(config),
        priorPrivate: prior ? native(prior).private : (replanned ?? new Uint8Array()),
        priorIdentity: prior ? identityData(native(prior).identity) : undefined,
      })
      errorsOf('PlanResourceChange', response.diagnostics)
      const planned = undynamic(response.plannedState, numbers)
      if (planned === null) throw new ProviderFailure(`PlanResourceChange planned nothing for ${typeName}`)
      assertPlanValid(priorObject, config, planned)
      const replace = response.requiresReplace.map((path) =>
        path.steps.map((s) => (s.selector.case === 'attributeName' ? canonicalOf(s.selector.value) : String(s.selector.value))),
      )
      const changed =
        priorObject === null ? Object.keys(planned) : Object.keys(planned).filter((k) => !same(planned[k], priorObject[k] ?? null))
      const warnings = response.diagnostics
        .filter((d) => d.severity === Diagnostic_Severity.WARNING)
        .map((d) => `${d.summary}: ${d.detail}`)
      // An object planned in place keeps the identity it has; a new one gets its identity at apply.
      const plannedIdentity =
        prior !== null && replace.length === 0 ? identityFrom('PlanResourceChange', response.plannedIdentity) : undefined
      if (plannedIdentity && !bytesEqual(plannedIdentity, native(prior as DriverState).identity))
        throw new ProviderFailure(`PlanResourceChange planned another identity for ${typeName}`)
      return { planned, replace, changed: changed.map(canonicalOf), plannedPrivate: response.plannedPrivate, plannedIdentity, warnings }
    }

    async function applyChange(
      prior: DriverState | null,
      planned: Record<string, unknown> | null,
      config: Record<string, unknown> | null,
      plannedPrivate: Uint8Array,
      plannedIdentity?: Uint8Array,
    ) {
      const response = await grpc.call(Provider.method.applyResourceChange, {
        typeName,
        priorState: dynamic(prior ? native(prior).object : null),
        plannedState: dynamic(planned),
        config: dynamic(config),
        plannedPrivate,
        plannedIdentity: identityData(plannedIdentity),
      })
      errorsOf('ApplyResourceChange', response.diagnostics)
      const applied = undynamic(response.newState, numbers)
      if (planned !== null) {
        if (applied === null) throw new ProviderFailure(`ApplyResourceChange returned no state for ${typeName}`)
        assertApplyConsistent(planned, applied)
      } else if (applied !== null) {
        throw new ProviderFailure(`ApplyResourceChange of a delete returned a state for ${typeName}`)
      }
      const identity = applied === null ? undefined : identityFrom('ApplyResourceChange', response.newIdentity)
      if (identity && plannedIdentity && !bytesEqual(identity, plannedIdentity))
        throw new ProviderFailure(`ApplyResourceChange changed the identity of ${typeName} in place`)
      return stateOf(applied, response.private, identity)
    }

    async function refresh(
      object: Record<string, unknown>,
      priv: Uint8Array,
      identity: Uint8Array | undefined,
    ): Promise<DriverState | null> {
      // Terraform upgrades the stored JSON state before every refresh.
      const upgraded = await grpc.call(Provider.method.upgradeResourceState, {
        typeName,
        version: 0n,
        rawState: { json: new TextEncoder().encode(JSON.stringify(object)) },
      })
      errorsOf('UpgradeResourceState', upgraded.diagnostics)
      const response = await grpc.call(Provider.method.readResource, {
        typeName,
        currentState: upgraded.upgradedState,
        private: priv,
        currentIdentity: identityData(identity),
      })
      errorsOf('ReadResource', response.diagnostics)
      const state = undynamic(response.newState, numbers)
      return stateOf(state, response.private, state === null ? undefined : identityFrom('ReadResource', response.newIdentity))
    }

    /** The identity kept with a state, by canonical part names. */
    function identityValues(state: DriverState): Record<string, unknown> | null {
      const bytes = native(state).identity
      if (!bytes) return null
      const values = undynamic({ msgpack: bytes, json: new Uint8Array() }, identityNumbers) ?? {}
      return Object.fromEntries(Object.entries(values).map(([k, v]) => [partOf.get(k) ?? k, v]))
    }

    /** Terraform's import: by id or by identity, then the read of what it imported, which is what it keeps. */
    async function importBy(how: { id: string } | { identity: Uint8Array }): Promise<DriverState> {
      const response = await grpc.call(
        Provider.method.importResourceState,
        'id' in how ? { typeName, id: how.id } : { typeName, id: '', identity: identityData(how.identity) },
      )
      errorsOf('ImportResourceState', response.diagnostics)
      const imported = response.importedResources[0]
      if (!imported || response.importedResources.length !== 1)
        throw new ProviderFailure(`ImportResourceState returned ${response.importedResources.length} objects`)
      const object = undynamic(imported.state, numbers)
      if (object === null) throw new ProviderFailure('ImportResourceState returned a null state')
      const identity = identityFrom('ImportResourceState', imported.identity)
      const response2 = await grpc.call(Provider.method.readResource, {
        typeName,
        currentState: imported.state,
        private: imported.private,
        currentIdentity: identityData(identity),
      })
      errorsOf('ReadResource', response2.diagnostics)
      const read = undynamic(response2.newState, numbers)
      const state = stateOf(read, response2.private, read === null ? undefined : identityFrom('ReadResource', response2.newIdentity))
      if (state === null) throw new ProviderFailure(`the imported ${typeName} ${JSON.stringify(how)} reads as gone`)
      return state
    }

    return {
      async applyFromUnknown(prior, config, unknown) {
        const early = configObject(unknownIn(config, unknown))
        await validate(early)
        const saved = await planChange(prior, early)
        if (saved.replace.length > 0) throw new ProviderFailure(`planned a replacement: ${JSON.stringify(saved.replace)}`)
        const object = configObject(config)
        await validate(object)
        const final = await planChange(prior, object)
        assertFinalPlanConsistent(saved.planned, final.planned)
        const state = await applyChange(prior, final.planned, object, final.plannedPrivate, final.plannedIdentity)
        if (state === null) throw new ProviderFailure('no state')
        return state
      },
      async plan(prior, config) {
        const object = configObject(config)
        await validate(object)
        const { planned, replace, changed, warnings } = await planChange(prior, object)
        const values = Object.fromEntries(Object.entries(planned).map(([k, v]) => [canonicalOf(k), v]))
        return { planned: values, replace, changed, warnings }
      },
      async apply(prior, config) {
        const object = configObject(config)
        await validate(object)
        const plan = await planChange(prior, object)
        // At apply time Terraform plans again and refuses a final plan that contradicts the saved one.
        assertFinalPlanConsistent(plan.planned, (await planChange(prior, object)).planned)
        if (prior === null || plan.replace.length === 0) {
          const state = await applyChange(prior, plan.planned, object, plan.plannedPrivate, plan.plannedIdentity)
          if (state === null) throw new ProviderFailure('no state')
          return state
        }
        // A replacement: Terraform plans the create with no prior state (and the first plan's private
        // state), then destroys before creating.
        const create = await planChange(null, object, plan.plannedPrivate)
        await applyChange(prior, null, null, native(prior).private)
        const state = await applyChange(null, create.planned, object, create.plannedPrivate)
        if (state === null) throw new ProviderFailure('no state')
        return state
      },
      read: (state) => refresh(native(state).object, native(state).private, native(state).identity),
      import: (id) => importBy({ id }),
      identity: {
        of: identityValues,
        import: (identity) =>
          importBy({
            identity: encode(toWire(Object.fromEntries(Object.entries(identity).map(([k, v]) => [toSnake(k), v]))), { useBigInt64: true }),
          }),
        async list(filters) {
          const listSchema = schemas.listResourceSchemas[typeName]
          if (!listSchema?.block) return null
          const config: Record<string, unknown> = Object.fromEntries(listSchema.block.attributes.map((a) => [a.name, null]))
          for (const [name, value] of Object.entries(filters)) config[toSnake(name)] = value
          const events = await grpc.stream(Provider.method.listResource, {
            typeName,
            config: dynamic(config),
            includeResourceObject: true,
            limit: 1000n,
          })
          for (const event of events) errorsOf('ListResource', event.diagnostic)
          return events.map((event) => {
            const identity = identityFrom('ListResource', event.identity)
            const object = undynamic(event.resourceObject, numbers)
            if (object === null) throw new ProviderFailure('ListResource sent no object though asked to')
            const state = stateOf(object, new Uint8Array(), identity) as DriverState
            return { identity: identityValues(state) ?? {}, displayName: event.displayName, values: state.values }
          })
        },
      },
      async delete(state) {
        await applyChange(state, null, null, native(state).private)
      },
      async close() {
        await grpc.close()
        await server.close()
      },
    }
  },
}

function bytesEqual(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && Buffer.from(a).equals(Buffer.from(b))
}

function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true
  if (Array.isArray(value)) return value.some(containsUnknown)
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown)
  return false
}

function show(value: unknown): string {
  return value === UNKNOWN ? '(unknown)' : JSON.stringify(value)
}

// ---------------------------------------------------------------------------------------------
// Pulumi

interface PulumiNative {
  readonly outputs: WireMap
  readonly inputs: WireMap
}

/** Wire value → the suite's value: secrets unwrapped, the unknown sentinel as UNKNOWN. */
function unwire(value: Wire): unknown {
  const p = plain(value)
  const walk = (v: Wire): unknown => {
    if (v === UNKNOWN_WIRE) return UNKNOWN
    if (Array.isArray(v)) return v.map(walk)
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  return walk(p)
}

/** replaceOnChanges as the generated SDK registers them: the engine applies them on top of Diff. */
const REPLACE_ON_CHANGES = replaceOnChangesOf(readFileSync(join(ROOT, 'schema', 'schema.json'), 'utf8'))

// The engine's rules (see EngineModel in test/support/pulumi/plugin-harness.ts): Check gets the old inputs, Diff's
// answer passes through replaceOnChanges, a Same step saves the new inputs with the old outputs, and
// a refresh ends with Diff called with old and new swapped, whose error fails the refresh.
export const pulumiDriver: FrontEndDriver = {
  name: 'pulumi',
  identity: false, // Pulumi keeps no resource identity: its import takes the id
  writeOnly: false,
  async open(definition, harness, settings = {}) {
    let warnings: string[] = []
    const log = (severity: string, message: string) => void (severity === 'warning' && warnings.push(message))
    const provider = pulumiService(registryFor(harness), { version: '0.0.0-conformance', log })
    const extra = Object.fromEntries(Object.entries(settings).map(([name, value]) => [toCamel(name), value as Wire]))
    const checked = provider.checkConfig({ news: { ...extra, apiKey: harness.emulator.apiKey, baseUrl: BASE_URL } })
    if (checked.failures.length > 0) throw new ProviderFailure(`CheckConfig: ${JSON.stringify(checked.failures)}`)
    provider.configure({ args: checked.inputs, variables: {} })
    const type = resourceToken(definition)
    const urn = `urn:pulumi:test::conformance::${type}::subject`
    const canonical = new Map(Object.keys(definition.attributes).map((name) => [toCamel(name), name]))
    const canonicalOf = (wire: string) => canonical.get(wire) ?? wire

    /** A program's inputs: camelCase, unset values left out (the SDK drops undefined). */
    function news(config: Config): WireMap {
      const out: WireMap = {}
      for (const [name, value] of Object.entries(config)) {
        if (value !== undefined && value !== null) out[toCamel(name)] = value === UNKNOWN ? UNKNOWN_WIRE : (value as Wire)
      }
      return out
    }
    const sensitive = Object.entries(definition.attributes)
      .filter(([, a]) => a.sensitive)
      .map(([name]) => toCamel(name))
    function stateOf(id: string, outputs: WireMap, inputs: WireMap): DriverState {
      // Secrets stay wrapped end to end (docs/design.md, "Front ends"): a sensitive value is never handed back in the clear.
      for (const map of [outputs, inputs]) {
        for (const key of sensitive) {
          const value = map[key]
          if (value !== undefined && value !== null && !isSecret(value))
            throw new ProviderFailure(`${type}.${key} is returned without the secret wrapper`)
        }
      }
      const values: Record<string, unknown> = { id }
      for (const [k, v] of Object.entries(outputs)) if (!k.startsWith('__')) values[canonicalOf(k)] = unwire(v)
      return { id, values, native: { outputs, inputs } satisfies PulumiNative }
    }
    const native = (state: DriverState) => state.native as PulumiNative

    async function check(config: Config, prior: DriverState | null): Promise<WireMap> {
      const result = provider.check({ urn, news: news(config), olds: prior ? native(prior).inputs : {} })
      if (result.failures.length > 0)
        throw new ProviderFailure(`Check: ${result.failures.map((f) => `${f.property}: ${f.reason}`).join('\n')}`)
      return result.inputs
    }

    async function preview(prior: DriverState | null, inputs: WireMap) {
      const diff = prior
        ? await provider.diff({ urn, id: prior.id, olds: native(prior).outputs, oldInputs: native(prior).inputs, news: inputs })
        : null
      return diff && applyReplaceOnChanges(diff, REPLACE_ON_CHANGES.get(type) ?? [])
    }

    async function create(inputs: WireMap): Promise<DriverState> {
      await provider.create({ urn, properties: inputs, preview: true })
      const created = await provider.create({ urn, properties: inputs, preview: false })
      if (created.id === '') throw new ProviderFailure('Create returned an empty id')
      return stateOf(created.id, created.properties, inputs)
    }

    async function remove(state: DriverState) {
      await provider.delete({ urn, id: state.id, properties: native(state).outputs })
    }

    const session: DriverSession = {
      async applyFromUnknown(prior, config, unknown) {
        // The engine previews with the unknowns, then updates with the values once they are known.
        const previewed = await session.plan(prior, unknownIn(config, unknown))
        if (previewed.replace.length > 0) throw new ProviderFailure(`previewed a replacement: ${JSON.stringify(previewed.replace)}`)
        return session.apply(prior, config)
      },
      async plan(prior, config) {
        warnings = []
        const inputs = await check(config, prior)
        const diff = await preview(prior, inputs)
        if (prior === null || diff === null) {
          const planned = await provider.create({ urn, properties: inputs, preview: true })
          return {
            planned: stateOf('', planned.properties, inputs).values,
            replace: [],
            changed: Object.keys(inputs).map(canonicalOf),
            warnings: [...warnings],
          }
        }
        let planned = prior.values
        // A preview of a replacement previews the new object's create, as the engine's preview does.
        if (diff.replaces.length > 0) await provider.create({ urn, properties: inputs, preview: true })
        if (diff.changes === 'some' && diff.replaces.length === 0) {
          const update = await provider.update({
            urn,
            id: prior.id,
            olds: native(prior).outputs,
            oldInputs: native(prior).inputs,
            news: inputs,
            preview: true,
          })
          planned = stateOf(prior.id, update.properties, inputs).values
        }
        return {
          planned,
          replace: diff.replaces.map((k) => [canonicalOf(k)]),
          changed: diff.changes === 'none' ? [] : diff.diffs.map(canonicalOf),
          warnings: [...warnings],
        }
      },
      async apply(prior, config) {
        const inputs = await check(config, prior)
        const diff = await preview(prior, inputs)
        if (prior === null || diff === null) return create(inputs)
        if (diff.changes === 'none') return stateOf(prior.id, native(prior).outputs, inputs)
        if (diff.replaces.length > 0) {
          if (diff.deleteBeforeReplace) {
            await remove(prior)
            return create(inputs)
          }
          const replacement = await create(inputs)
          await remove(prior)
          return replacement
        }
        const request = { urn, id: prior.id, olds: native(prior).outputs, oldInputs: native(prior).inputs, news: inputs }
        await provider.update({ ...request, preview: true })
        const updated = await provider.update({ ...request, preview: false })
        return stateOf(prior.id, updated.properties, inputs)
      },
      async read(state) {
        const result = await provider.read({ urn, id: state.id, properties: native(state).outputs, inputs: native(state).inputs })
        if (result.id === '') return null
        await provider.diff({ urn, id: result.id, olds: result.properties, oldInputs: result.inputs, news: native(state).inputs })
        return stateOf(result.id, result.properties, result.inputs)
      },
      async import(id) {
        const result = await provider.read({ urn, id, properties: {}, inputs: {} })
        if (result.id === '') throw new ProviderFailure(`Read of ${type} ${id} for an import found nothing`)
        return stateOf(result.id, result.properties, result.inputs)
      },
      delete: remove,
      async close() {},
    }
    return session
  },
}

export const drivers: readonly FrontEndDriver[] = [terraformDriver, pulumiDriver]

/** The Pulumi package schema, generated from the definitions: one source of truth for GetSchema, schema/schema.json and the SDK. */
import {
  type AnyResource,
  type Attribute,
  type Attributes,
  attributeNotes,
  isInput,
  sometimesRecorded,
  type TypeSpec,
  toPascal,
} from '../core/index.js'
import { functionToken, methodName, methodToken, PACKAGE, pulumiRegistry, type Registry, resourceToken } from './provider.js'
import { wireName } from './wire.js'

type Json = null | string | number | boolean | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

export interface SchemaOptions {
  readonly version: string
}

/** Object types named after their owner and path, e.g. `provider:index:LiteProductsProductOptions`. */
class Types {
  readonly specs: Record<string, JsonObject> = {}

  typeRef(type: TypeSpec, name: string): JsonObject {
    switch (type.kind) {
      case 'string':
        return { type: 'string' }
      case 'int64':
        // Whole numbers (ids, sizes, counts) are `integer`: `pulumi.Int` in Go, whose int is 64-bit on the
        // 64-bit platforms Pulumi supports, an `int` in Python, a number in TypeScript. The engine sends
        // every number as a double either way. (.NET and Java would read 32 bits; no SDK of ours is in those.)
        return { type: 'integer' }
      case 'float':
        return { type: 'number' }
      case 'bool':
        return { type: 'boolean' }
      case 'list':
        return { type: 'array', items: this.typeRef(type.element, name) }
      case 'map':
        return { type: 'object', additionalProperties: this.typeRef(type.element, name) }
      case 'object': {
        const token = `${PACKAGE}:index:${name}`
        this.specs[token] = {
          type: 'object',
          description: `${name}: a nested object.`,
          properties: this.properties(type.attributes, name, () => true, false),
          // All but what the service may leave null: an unpaid invoice has no `datepaid`.
          required: Object.entries(type.attributes)
            .filter(([, a]) => a.nullable !== true)
            .map(([n]) => wireName(n))
            .sort(),
        }
        return { $ref: `#/types/${token}` }
      }
    }
  }

  properties(attributes: Attributes, owner: string, keep: (a: Attribute) => boolean, asInput: boolean): JsonObject {
    const out: JsonObject = {}
    for (const [name, attribute] of Object.entries(attributes)) {
      if (!keep(attribute)) continue
      out[wireName(name)] = this.property(attribute, `${owner}${toPascal(name)}`, asInput)
    }
    return out
  }

  property(attribute: Attribute, typeName: string, asInput: boolean): JsonObject {
    const spec: JsonObject = { ...this.typeRef(attribute.type, typeName), description: describe(attribute) }
    if (asInput && attribute.default !== undefined) spec.default = attribute.default
    if (attribute.sensitive) spec.secret = true
    if (attribute.createOnly && isInput(attribute)) spec.replaceOnChanges = true
    return spec
  }
}

/**
 * The engine turns every changed key that replaceOnChanges names into a replacement, whatever Diff
 * says. Core's plan records some create-only inputs without a replacement (sometimesRecorded): marking
 * one would make the engine order a new resource and delete the one it has. Diff still asks for the
 * replacement every other change of it needs. (Order-time inputs, a promocode and the card flag, are
 * never create-only, so they are never marked at all.)
 */
function withoutOverride(properties: JsonObject, definition: AnyResource): JsonObject {
  for (const name of sometimesRecorded(definition)) {
    const spec = properties[wireName(name)]
    if (spec && typeof spec === 'object' && !Array.isArray(spec)) delete (spec as JsonObject).replaceOnChanges
  }
  return properties
}

/** The description with the attribute's rules (core's attributeNotes), so that every Limit of the spec is visible in the SDK docs. */
function describe(attribute: Attribute): string {
  return [attribute.description, ...attributeNotes(attribute, 'pulumi up --replace')].join(' ')
}

function sortedKeys(o: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] ?? null]),
  )
}

export function packageSchema(all: Registry, options: SchemaOptions): JsonObject {
  const registry = pulumiRegistry(all)
  const types = new Types()
  const { provider } = registry

  const configVariables: JsonObject = {}
  for (const [name, attribute] of Object.entries(provider.attributes)) {
    const spec = types.property(attribute, `Provider${toPascal(name)}`, true)
    const variable = provider.environment[name]
    if (variable) spec.defaultInfo = { environment: [variable] }
    configVariables[wireName(name)] = spec
  }

  const resources: JsonObject = {}
  for (const definition of registry.resources) {
    const owner = toPascal(definition.name)
    const attributes = definition.attributes
    const inputs = Object.entries(attributes).filter(([, a]) => isInput(a))
    resources[resourceToken(definition)] = {
      description: definition.description,
      properties: withoutOverride(
        types.properties(attributes, owner, () => true, false),
        definition,
      ),
      // Outputs that always hold a value; what an import cannot recover (a private key) may be null.
      required: Object.entries(attributes)
        .filter(([, a]) => a.required === true || a.default !== undefined || (a.stable === true && !isInput(a)))
        .map(([name]) => name)
        .filter((name) => !(definition.unrecoverable ?? []).includes(name))
        .map(wireName)
        .sort(),
      inputProperties: withoutOverride(types.properties(attributes, owner, isInput, true), definition),
      requiredInputs: inputs
        .filter(([, a]) => a.required === true)
        .map(([name]) => wireName(name))
        .sort(),
      ...(definition.methods?.length
        ? { methods: sortedKeys(Object.fromEntries(definition.methods.map((m) => [methodName(m), methodToken(definition, m)]))) }
        : {}),
    }
  }

  // A method is a function whose first input, `__self__`, is the resource it is called on; it returns
  // nothing (the SDKs generate `vm.power({ state })` returning void, or an `error` in Go).
  const methods: JsonObject = {}
  for (const definition of registry.resources) {
    const owner = toPascal(definition.name)
    for (const method of definition.methods ?? []) {
      const self = { $ref: `#/resources/${resourceToken(definition)}`, description: `The ${owner} the method acts on.` }
      methods[methodToken(definition, method)] = {
        description: `${method.description} Runs at each \`pulumi up\` that reaches the call, never in a preview; it changes no state (the next refresh reads what it changed).`,
        inputs: {
          type: 'object',
          properties: { __self__: self, ...types.properties(method.inputs, `${owner}${toPascal(method.name)}`, () => true, true) },
          required: [
            '__self__',
            ...Object.entries(method.inputs)
              .filter(([, a]) => a.required === true)
              .map(([name]) => wireName(name))
              .sort(),
          ],
        },
      }
    }
  }

  const functions: JsonObject = {}
  for (const definition of registry.dataSources) {
    const owner = toPascal(definition.name)
    const attributes = definition.attributes
    const inputProps = types.properties(attributes, owner, isInput, true)
    functions[functionToken(definition)] = {
      description: definition.description,
      ...(Object.keys(inputProps).length > 0
        ? {
            inputs: {
              type: 'object',
              properties: inputProps,
              required: Object.entries(attributes)
                .filter(([, a]) => a.required === true)
                .map(([name]) => wireName(name))
                .sort(),
            },
          }
        : {}),
      outputs: {
        type: 'object',
        properties: types.properties(attributes, owner, () => true, false),
        required: Object.keys(attributes).map(wireName).sort(),
      },
    }
  }

  return {
    name: PACKAGE,
    displayName: 'provider',
    version: options.version,
    description: provider.description,
    keywords: ['pulumi', 'provider', 'category/infrastructure', 'kind/native'],
    license: 'MPL-2.0',
    publisher: 'provider',
    // No pluginDownloadURL: the plugin is not downloadable from anywhere; users install the release
    // tarball with `pulumi plugin install resource provider <version> --file <tarball>`.
    // supportPack: the generators stamp the version into every SDK and write the Go SDK's go.mod.
    meta: { moduleFormat: '(.*)', supportPack: true },
    config: {
      variables: configVariables,
    },
    provider: {
      description: `The ${PACKAGE} provider. ${provider.description}`,
      inputProperties: configVariables,
    },
    resources: sortedKeys(resources),
    functions: sortedKeys({ ...functions, ...methods }),
    types: sortedKeys(types.specs),
    language: languages(options.version),
  }
}

/**
 * The SDK package names: what users install and import (docs/pulumi-sdks.md). The Go SDK's module is
 * the import path less its last element: github.com/provider/pulumi-provider/sdk/go, in sdk/go.
 */
const SDK_NAMES = {
  nodejs: '@provider/pulumi',
  python: 'pulumi_provider',
  goImport: 'github.com/provider/pulumi-provider/sdk/go/provider',
} as const

/**
 * What Pulumi's generators read per language. The @pulumi/pulumi (npm) and pulumi (PyPI) requirements
 * are left to the generators, which write the oldest version that has what their code calls.
 */
function languages(version: string): JsonObject {
  const plugin = [
    `It needs the \`provider\` resource plugin of the same version, ${version}, installed from the release tarball:`,
    '',
    '```sh',
    `pulumi plugin install resource provider ${version} --file pulumi-resource-provider-v${version}-<os>-<arch>.tar.gz`,
    '```',
  ].join('\n')
  const readme = (title: string, install: string) =>
    `# ${title}\n\nThe Pulumi SDK of the \`provider\` package, version ${version}. ${install}\n\n${plugin}\n`
  return {
    nodejs: {
      packageName: SDK_NAMES.nodejs,
      readme: readme(
        SDK_NAMES.nodejs,
        `Install the release's npm tarball: \`npm install ./${SDK_NAMES.nodejs.slice(1).replace('/', '-')}-${version}.tgz\`.`,
      ),
      respectSchemaVersion: true,
    },
    python: {
      packageName: SDK_NAMES.python,
      readme: readme(SDK_NAMES.python, `Install the release's wheel: \`pip install ./${SDK_NAMES.python}-${version}-py3-none-any.whl\`.`),
      respectSchemaVersion: true,
      pyproject: { enabled: true },
    },
    go: {
      importBasePath: SDK_NAMES.goImport,
      // Arrays and maps of resources (provider.LiteVmArray, ...), for programs that pass them around.
      generateResourceContainerTypes: true,
      respectSchemaVersion: true,
    },
  }
}

/** The schema as GetSchema serves it and schema/schema.json holds it. */
export function schemaText(registry: Registry, options: SchemaOptions): string {
  return `${JSON.stringify(inPulumiTerms(packageSchema(registry, options), registry), null, 2)}\n`
}

/**
 * Descriptions are written once, with the spec's names (snake_case, `provider_lite_vm`); each SDK
 * spells them its own way (TypeScript `liteAccountId`, Python `lite_account_id`, Go `LiteAccountId`).
 * A name in backquotes becomes a Pulumi doc reference, `{{% ref #/... %}}`, which each language's
 * generator renders as that language names the thing (a bare name inside its own owner, otherwise
 * qualified, e.g. `LiteVmArgs.select_os`); a reference cannot sit inside a code span, so the name
 * loses its backquotes. What is referenced: a property of the description's owner (the resource,
 * function, object type or provider it describes), another resource's property written
 * `provider_<resource>.<name>`, and a lookup (`provider_lite_products`, a function). A resource
 * (`provider_lite_vm`) is the same class name in every SDK, `LiteVm`. Any other backquoted name (an
 * API value such as `change_package`, a Terraform word) is left as it is.
 */
function inPulumiTerms(schema: JsonObject, registry: Registry): JsonObject {
  const object = (value: Json | undefined): JsonObject =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}
  const resources = object(schema.resources)
  const resourceNames = new Map<string, string>(registry.resources.map((r) => [`provider_${r.name}`, resourceToken(r)] as const))
  const functionNames = new Map<string, string>(registry.dataSources.map((d) => [`provider_${d.name}`, functionToken(d)] as const))

  /** The reference to a property, when `owner` (a ref prefix and its property groups) has it. */
  type Owner = { readonly ref: string; readonly groups: readonly [string, JsonObject][] }
  const propertyRef = (owner: Owner, name: string): string | undefined => {
    const group = owner.groups.find(([, properties]) => Object.hasOwn(properties, wireName(name)))
    return group && `${owner.ref}/${group[0]}/${wireName(name)}`
  }
  const resourceOwner = (token: string): Owner => {
    const resource = object(resources[token])
    return {
      ref: `#/resources/${token}`,
      groups: [
        ['properties', object(resource.properties)],
        ['inputProperties', object(resource.inputProperties)],
      ],
    }
  }
  const reference = (ref: string) => `{{% ref ${ref} %}}`

  const rewrite = (text: string, owner: Owner, self?: string) =>
    text.replace(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?:\.([a-z][a-z0-9_]*))?`/g, (whole, name: string, member?: string) => {
      const resource = resourceNames.get(name)
      if (member !== undefined) {
        const ref = resource && propertyRef(resourceOwner(resource), member)
        if (!ref) throw new Error(`A description names \`${name}.${member}\`, which is no resource's property`)
        return reference(ref)
      }
      if (resource) return `\`${resource.split(':')[2]}\``
      const fn = functionNames.get(name)
      if (fn) return reference(`#/functions/${fn}`)
      const own = propertyRef(owner, name)
      // A property that names itself bare meant another's of that name (a product row's `product_id` is a VM's).
      if (own && wireName(name) === self)
        throw new Error(`The description of ${own} names itself; qualify it (provider_<resource>.${name})`)
      return own ? reference(own) : whole
    })

  const describeIn = (value: JsonObject, owner: Owner, self?: string): JsonObject => {
    const out: JsonObject = { ...value }
    if (typeof out.description === 'string') out.description = rewrite(out.description, owner, self)
    return out
  }
  const propertiesIn = (properties: Json | undefined, owner: Owner): JsonObject =>
    Object.fromEntries(Object.entries(object(properties)).map(([k, v]) => [k, describeIn(object(v), owner, k)]))

  const outResources = Object.fromEntries(
    Object.entries(resources).map(([token, value]) => {
      const owner = resourceOwner(token)
      const resource = describeIn(object(value), owner)
      resource.properties = propertiesIn(resource.properties, owner)
      resource.inputProperties = propertiesIn(resource.inputProperties, owner)
      return [token, resource]
    }),
  )
  const outFunctions = Object.fromEntries(
    Object.entries(object(schema.functions)).map(([token, value]) => {
      const fn = object(value)
      const owner: Owner = {
        ref: `#/functions/${token}`,
        groups: [
          ['inputs/properties', object(object(fn.inputs).properties)],
          ['outputs/properties', object(object(fn.outputs).properties)],
        ],
      }
      const out = describeIn(fn, owner)
      for (const group of ['inputs', 'outputs'] as const) {
        if (out[group] === undefined) continue
        out[group] = { ...object(out[group]), properties: propertiesIn(object(out[group]).properties, owner) }
      }
      return [token, out]
    }),
  )
  const outTypes = Object.fromEntries(
    Object.entries(object(schema.types)).map(([token, value]) => {
      const type = object(value)
      const owner: Owner = { ref: `#/types/${token}`, groups: [['properties', object(type.properties)]] }
      const out = describeIn(type, owner)
      out.properties = propertiesIn(out.properties, owner)
      return [token, out]
    }),
  )
  const provider = object(schema.provider)
  const providerOwner: Owner = { ref: '#/provider', groups: [['inputProperties', object(provider.inputProperties)]] }
  const config = object(schema.config)
  return {
    ...schema,
    config: { ...config, variables: propertiesIn(config.variables, providerOwner) },
    provider: { ...describeIn(provider, providerOwner), inputProperties: propertiesIn(provider.inputProperties, providerOwner) },
    resources: outResources,
    functions: outFunctions,
    types: outTypes,
  }
}

/** The Pulumi package schema, generated from the definitions: one source of truth for GetSchema, schema/schema.json and the SDK. */
import { type Attribute, type Attributes, isInput, type TypeSpec, toCamel, toPascal } from '../core/index.js'
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
 * says. After an import, Diff only records an input the service cannot report: marking a create-only
 * one would make the engine order a new resource and delete the imported one. (Order-time inputs, a
 * promocode and the card flag, are never create-only, so they are never marked at all.)
 */
function withoutOverride(properties: JsonObject, unrecoverable: readonly string[]): JsonObject {
  for (const name of unrecoverable) {
    const spec = properties[wireName(name)]
    if (spec && typeof spec === 'object' && !Array.isArray(spec)) delete (spec as JsonObject).replaceOnChanges
  }
  return properties
}

/** The description with the attribute's rules, so that every Limit of the spec is visible in the SDK docs. */
function describe(attribute: Attribute): string {
  const rules = (attribute.validate ?? []).map((v) => v.rule)
  const notes = [
    ...(rules.length > 0 ? [`Must be ${rules.join('; ')}.`] : []),
    ...(attribute.createOnly && isInput(attribute) ? ['Changing it replaces the resource.'] : []),
    ...(attribute.orderTime && isInput(attribute)
      ? [
          'Order-time: read only when an order is placed; a later change is recorded with a warning and replaces nothing (`pulumi up --replace` orders again).',
        ]
      : []),
    ...(attribute.growOnly ? ['Grow-only: a smaller value is refused.'] : []),
  ]
  return [attribute.description, ...notes].join(' ')
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
        definition.unrecoverable ?? [],
      ),
      // Outputs that always hold a value; what an import cannot recover (a private key) may be null.
      required: Object.entries(attributes)
        .filter(([, a]) => a.required === true || a.default !== undefined || (a.stable === true && !isInput(a)))
        .map(([name]) => name)
        .filter((name) => !(definition.unrecoverable ?? []).includes(name))
        .map(wireName)
        .sort(),
      inputProperties: withoutOverride(types.properties(attributes, owner, isInput, true), definition.unrecoverable ?? []),
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
 * Descriptions are written once, with the spec's names; Pulumi users read resource and function
 * tokens and camelCase fields, so every name in backquotes is rewritten in those terms.
 */
function inPulumiTerms(schema: JsonObject, registry: Registry): JsonObject {
  const names = new Map<string, string>([
    ...registry.resources.map((r) => [`provider_${r.name}`, toPascal(r.name)] as const),
    ...registry.dataSources.map((d) => [`provider_${d.name}`, toCamel(d.name)] as const),
  ])
  const rewrite = (text: string) =>
    text.replace(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`/g, (_, name: string) => `\`${names.get(name) ?? toCamel(name)}\``)
  const walk = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(walk)
    if (value === null || typeof value !== 'object') return value
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'description' && typeof v === 'string' ? rewrite(v) : walk(v)]),
    )
  }
  return walk(schema) as JsonObject
}

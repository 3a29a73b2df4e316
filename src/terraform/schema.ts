// Core definitions seen through Terraform: names, protocol schemas, implied cty types, and the
// mapping between cty values and core values. Derived from the definitions, never written by hand.
import { create } from '@bufbuild/protobuf'
import {
  type AnyDataSource,
  type AnyMethod,
  type AnyProvider,
  type AnyResource,
  type Attribute,
  type Attributes,
  attributeNotes,
  type Diagnostic,
  isComputed,
  isInput,
  string,
  toSnake,
  type TypeSpec,
  UNKNOWN,
  type Value,
  type ValueMap,
  isUnknown as isCoreUnknown,
} from '../core/index.js'
import { BigNum, type CtyType, type CtyValue, cty, encodeTypeJson, isUnknown, numberToText, Unknown, wholeNumberOf } from './cty.js'
import {
  type AttributePath,
  AttributePathSchema,
  type Diagnostic as TfDiagnostic,
  Diagnostic_Severity,
  DiagnosticSchema,
  type Schema,
  type Schema_Attribute,
  Schema_AttributeSchema,
  type Schema_Object,
  Schema_BlockSchema,
  Schema_NestedBlock_NestingMode,
  Schema_NestedBlockSchema,
  Schema_Object_NestingMode,
  Schema_ObjectSchema,
  SchemaSchema,
  StringKind,
} from './gen/tfplugin6.10_pb.js'

export const TYPE_PREFIX = 'provider_'

/** A definition as Terraform sees it: its type name, schema and implied value type. */
export interface TfView {
  readonly typeName: string
  readonly attributes: Attributes
  /** Whether the schema has the `id` attribute and the `timeouts` block. */
  readonly resource: boolean
  readonly timeouts: readonly string[]
  readonly schema: Schema
  readonly type: CtyType
}

export function resourceView(definition: AnyResource): TfView {
  const timeouts = Object.keys(definition.timeouts)
  return view(
    `${TYPE_PREFIX}${definition.name}`,
    definition.attributes,
    definition.description,
    true,
    timeouts,
    timeoutsDescription(definition),
  )
}

/** What the `timeouts` block is for, with this resource's defaults. */
function timeoutsDescription(definition: AnyResource): string {
  const defaults = Object.entries(definition.timeouts).map(([name, value]) => `${name} ${value}`)
  return (
    'How long each operation may wait for the service (an order is waited for until the resource is Active) ' +
    `before the operation fails; an order already placed is kept in state. Defaults: ${defaults.join(', ')}.`
  )
}

export function dataSourceView(definition: AnyDataSource): TfView {
  return view(`${TYPE_PREFIX}${definition.name}`, definition.attributes, definition.description, false, [])
}

/**
 * A method of a resource as a Terraform action: its configuration is the id of the object it acts on
 * (`provider_lite_vm.web.id`) and the method's own arguments.
 */
export function actionView(typeName: string, definition: AnyResource, method: AnyMethod): TfView {
  const target = string({
    required: true,
    description: `The id of the ${definition.name} to act on, usually a reference such as \`${TYPE_PREFIX}${definition.name}.example.id\`.`,
  })
  const warning = method.destructive ? ' It cannot be undone.' : ''
  return view(typeName, { id: target, ...method.inputs }, `${method.description}${warning}`, false, [])
}

export function providerView(definition: AnyProvider): TfView {
  return view('provider', definition.attributes, definition.description, false, [])
}

export function view(
  typeName: string,
  attributes: Attributes,
  description: string,
  resource: boolean,
  timeouts: readonly string[],
  timeoutsText = '',
): TfView {
  const objectTypes: Record<string, CtyType> = {}
  const schemaAttributes = []
  if (resource) {
    objectTypes.id = cty.string
    schemaAttributes.push(
      create(Schema_AttributeSchema, {
        name: 'id',
        type: encodeTypeJson(cty.string),
        computed: true,
        description: 'The id of the object at the service.',
        descriptionKind: StringKind.MARKDOWN,
      }),
    )
  }
  for (const [name, attribute] of Object.entries(attributes)) {
    objectTypes[toSnake(name)] = ctyTypeOf(attribute.type)
    schemaAttributes.push(schemaAttribute(name, attribute))
  }
  const blockTypes = []
  if (timeouts.length > 0) {
    objectTypes.timeouts = cty.object(Object.fromEntries(timeouts.map((t) => [t, cty.string])))
    blockTypes.push(
      create(Schema_NestedBlockSchema, {
        typeName: 'timeouts',
        nesting: Schema_NestedBlock_NestingMode.SINGLE,
        block: create(Schema_BlockSchema, {
          description: timeoutsText,
          descriptionKind: StringKind.MARKDOWN,
          attributes: timeouts.map((t) =>
            create(Schema_AttributeSchema, {
              name: t,
              type: encodeTypeJson(cty.string),
              optional: true,
              description: `How long the ${t} may take, e.g. "30m" or "1h".`,
              descriptionKind: StringKind.MARKDOWN,
            }),
          ),
        }),
      }),
    )
  }
  const schema = create(SchemaSchema, {
    version: 0n,
    block: create(Schema_BlockSchema, {
      attributes: schemaAttributes,
      blockTypes,
      description,
      descriptionKind: StringKind.MARKDOWN,
    }),
  })
  return { typeName, attributes, resource, timeouts, schema, type: cty.object(objectTypes) }
}

function ctyTypeOf(type: TypeSpec): CtyType {
  switch (type.kind) {
    case 'string':
      return cty.string
    case 'int64':
    case 'float':
      return cty.number
    case 'bool':
      return cty.bool
    case 'list':
      return cty.list(ctyTypeOf(type.element))
    case 'map':
      return cty.map(ctyTypeOf(type.element))
    case 'object':
      return cty.object(Object.fromEntries(Object.entries(type.attributes).map(([n, a]) => [toSnake(n), ctyTypeOf(a.type)])))
  }
}

function schemaAttribute(name: string, attribute: Attribute): Schema_Attribute {
  const computed = isComputed(attribute)
  const flags = {
    name: toSnake(name),
    required: attribute.required === true,
    optional: isInput(attribute) && attribute.required !== true,
    computed,
    sensitive: attribute.sensitive === true,
    writeOnly: attribute.writeOnly !== undefined,
    description: describeAttribute(attribute),
    descriptionKind: StringKind.MARKDOWN,
  }
  const nested = nestedObject(attribute.type)
  if (nested) return create(Schema_AttributeSchema, { ...flags, nestedType: nested })
  return create(Schema_AttributeSchema, { ...flags, type: encodeTypeJson(ctyTypeOf(attribute.type)) })
}

/** Objects and lists of objects become protocol-6 nested attributes, so the UI shows their inner diffs. */
function nestedObject(type: TypeSpec): Schema_Object | undefined {
  const object = type.kind === 'object' ? type : type.kind === 'list' && type.element.kind === 'object' ? type.element : null
  if (!object) return undefined
  return create(Schema_ObjectSchema, {
    nesting: type.kind === 'object' ? Schema_Object_NestingMode.SINGLE : Schema_Object_NestingMode.LIST,
    attributes: Object.entries(object.attributes).map(([n, a]) => schemaAttribute(n, a)),
  })
}

/** The attribute's description plus the rules a user must know before applying (core's attributeNotes). */
export function describeAttribute(attribute: Attribute): string {
  return [attribute.description, ...attributeNotes(attribute, 'terraform apply -replace')].join(' ')
}

/** cty value of a whole object → core values under canonical names. */
export function fromCty(view: TfView, value: CtyValue): ValueMap | null {
  if (value === null) return null
  if (isUnknown(value)) return { id: UNKNOWN }
  const object = value as Readonly<Record<string, CtyValue>>
  const result: Record<string, Value> = {}
  if (view.resource) result.id = toCore(object.id ?? null)
  for (const [name, attribute] of Object.entries(view.attributes)) {
    result[name] = toCoreTyped(object[toSnake(name)] ?? null, attribute.type)
  }
  if (view.timeouts.length > 0) result.timeouts = toCore(object.timeouts ?? null)
  return result
}

function toCoreTyped(value: CtyValue, type: TypeSpec): Value {
  if (value === null) return null
  if (isUnknown(value)) return UNKNOWN
  if (type.kind === 'object') {
    const object = value as Readonly<Record<string, CtyValue>>
    return Object.fromEntries(Object.entries(type.attributes).map(([n, a]) => [n, toCoreTyped(object[toSnake(n)] ?? null, a.type)]))
  }
  if (type.kind === 'list' && Array.isArray(value)) return value.map((item: CtyValue) => toCoreTyped(item, type.element))
  return toCore(value)
}

function toCore(value: CtyValue): Value {
  if (value === null) return null
  if (isUnknown(value)) return UNKNOWN
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value
  if (Array.isArray(value)) return value.map(toCore)
  // A number a double cannot hold: a whole one stays exact as a bigint (validation refuses it, showing
  // it as written); any other, as close a double as exists.
  if (value instanceof BigNum) return wholeNumberOf(value) ?? Number(numberToText(value))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCore(v as CtyValue)]))
}

/** Core values under canonical names → the cty object Terraform expects (snake_case keys). */
export function toCty(view: TfView, value: ValueMap | null): CtyValue {
  if (value === null) return null
  const object: Record<string, CtyValue> = {}
  if (view.resource) object.id = fromCore(value.id ?? null)
  for (const [name, attribute] of Object.entries(view.attributes)) {
    object[toSnake(name)] = fromCoreTyped(value[name] ?? null, attribute.type)
  }
  if (view.timeouts.length > 0) object.timeouts = fromCore(value.timeouts ?? null)
  return object
}

function fromCoreTyped(value: Value, type: TypeSpec): CtyValue {
  if (value === null) return null
  if (isCoreUnknown(value)) return Unknown
  if (type.kind === 'object' && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as ValueMap
    return Object.fromEntries(Object.entries(type.attributes).map(([n, a]) => [toSnake(n), fromCoreTyped(object[n] ?? null, a.type)]))
  }
  if (type.kind === 'list' && Array.isArray(value)) return value.map((item) => fromCoreTyped(item, type.element))
  return fromCore(value)
}

function fromCore(value: Value): CtyValue {
  if (value === null) return null
  if (isCoreUnknown(value)) return Unknown
  if (typeof value === 'bigint') return new BigNum(value.toString())
  if (Array.isArray(value)) return value.map(fromCore)
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromCore(v as Value)]))
  return value as string | number | boolean
}

/** Canonical path → Terraform attribute path (snake_case names, list indexes). */
export function attributePath(path: readonly (string | number)[]): AttributePath {
  return create(AttributePathSchema, {
    steps: path.map((step) =>
      typeof step === 'number'
        ? { selector: { case: 'elementKeyInt' as const, value: BigInt(step) } }
        : { selector: { case: 'attributeName' as const, value: toSnake(step) } },
    ),
  })
}

export function toTfDiagnostic(diagnostic: Diagnostic): TfDiagnostic {
  return create(DiagnosticSchema, {
    severity: diagnostic.severity === 'error' ? Diagnostic_Severity.ERROR : Diagnostic_Severity.WARNING,
    summary: diagnostic.summary,
    detail: diagnostic.detail,
    ...(diagnostic.path && diagnostic.path.length > 0 ? { attribute: attributePath(diagnostic.path) } : {}),
  })
}

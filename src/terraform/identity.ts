/**
 * Resource identity through Terraform (1.12 and later): each resource type's identity schema, and its
 * identity values as ResourceIdentityData, from the core's identity of the definition. Older clients
 * never ask for the schemas and ignore the identity fields of the responses.
 */
import { create, type MessageInitShape } from '@bufbuild/protobuf'
import {
  type AnyResource,
  type Attributes,
  type Diagnostic,
  error,
  int64,
  resourceIdentity,
  string,
  toSnake,
  type ValueMap,
} from '../core/index.js'
import { cty, encodeTypeJson } from './cty.js'
import { decode, encode } from './dynamic-value.js'
import {
  type ResourceIdentityData,
  ResourceIdentityDataSchema,
  type ResourceIdentitySchema,
  ResourceIdentitySchema_IdentityAttributeSchema,
  ResourceIdentitySchemaSchema,
} from './gen/tfplugin6.10_pb.js'
import { type TfView, view } from './schema.js'

/** A resource type's identity as Terraform sees it: the schema, and the view its values are coded with. */
export interface TfIdentity {
  readonly schema: ResourceIdentitySchema
  readonly view: TfView
}

export function identityOf(definition: AnyResource, typeName: string): TfIdentity {
  const identity = resourceIdentity(definition)
  const attributes: Attributes = Object.fromEntries(
    identity.parts.map((part) => [part.name, (part.type === 'int64' ? int64 : string)({ required: true, description: part.description })]),
  )
  const identityView = view(`${typeName} identity`, attributes, '', false, [])
  const schema = create(ResourceIdentitySchemaSchema, {
    version: BigInt(identity.version),
    // Every part is needed to name the object: an import by identity gives them all.
    identityAttributes: identity.parts.map((part) =>
      create(ResourceIdentitySchema_IdentityAttributeSchema, {
        name: toSnake(part.name),
        type: encodeTypeJson(part.type === 'int64' ? cty.number : cty.string),
        requiredForImport: true,
        description: part.description,
      }),
    ),
  })
  return { schema, view: identityView }
}

/** Identity values (canonical part names) as Terraform's ResourceIdentityData. */
export function encodeIdentity(identity: TfIdentity, values: ValueMap): MessageInitShape<typeof ResourceIdentityDataSchema> {
  return create(ResourceIdentityDataSchema, { identityData: encode(identity.view, values) })
}

/** ResourceIdentityData off the wire, by canonical part names; null when absent. */
export function decodeIdentity(identity: TfIdentity, data: ResourceIdentityData | undefined): ValueMap | null {
  return decode(identity.view, data?.identityData)
}

/**
 * The refusal of a refresh whose state pairs an id with another object's identity: an object's
 * identity never changes (see ProviderServer.refresh).
 */
export function identityChanged(definition: AnyResource, id: unknown, named: ValueMap, kept: ValueMap): Diagnostic {
  const detail =
    `The state of this ${definition.name} has id ${String(id)}, whose identity is ${JSON.stringify(named)}, ` +
    `but Terraform kept the identity ${JSON.stringify(kept)}. An object's identity never changes: restore the state, or remove ` +
    'the object from it and import it again.'
  return error('Resource identity changed', detail)
}

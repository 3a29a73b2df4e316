/** Attribute builders: the vocabulary a definition is written in. Plain data, read by every front end. */
import type { Validator } from './validators.js'

export type TypeSpec =
  | { readonly kind: 'string' }
  | { readonly kind: 'int64' }
  | { readonly kind: 'float' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'list'; readonly element: TypeSpec }
  | { readonly kind: 'map'; readonly element: TypeSpec }
  | { readonly kind: 'object'; readonly attributes: Attributes }

export interface AttributeFlags {
  readonly required?: boolean
  readonly optional?: boolean
  /** Set by the service. With `optional`, an unset value keeps what the state has. */
  readonly computed?: boolean
  /** The value planned when the configuration leaves the attribute unset. */
  readonly default?: string | number | boolean
  /** A change plans a replacement. */
  readonly createOnly?: boolean
  /**
   * An order-time input (a promocode, the payment flag): read by the service only when an order is
   * placed, so a change on an existing object orders nothing and deletes nothing. Core records the new
   * value with a warning that it takes effect at the next order; a replacement asked for on purpose
   * (`terraform apply -replace`, `pulumi up --replace`) orders again with it. No update step names it.
   * This is how the interface's "create-only" is read for such inputs: they only reach a create.
   */
  readonly orderTime?: boolean
  /**
   * The service checks the value only when it places an order (a promotion code it may refuse as
   * unknown, expired or used): no plan can, so a replacement whose new order carries one, and that
   * deletes the old object first, is warned about (see uncheckedReplacement in apply.ts).
   */
  readonly checkedAtOrder?: boolean
  /** A one-shot trigger: its update step runs only when the value changes to a non-empty value. */
  readonly action?: boolean
  /**
   * A smaller value is rejected at plan time. The value is a floor: a refresh that finds the object
   * larger (grown outside, in the portal, or by a bigger package) keeps the recorded value, since a
   * larger object is no drift, while one found smaller is recorded, and the plan grows it back.
   */
  readonly growOnly?: boolean
  readonly sensitive?: boolean
  /** A computed value that no update can change, so plans keep it known. */
  readonly stable?: boolean
  /**
   * A computed value naming the order that made the object: the messages of a create that fails after
   * its order quote it, so the user can find that order at the service.
   */
  readonly identifiesOrder?: boolean
  /**
   * An optional+computed input that, left unset, reports the service's current value, which other
   * update steps may move (e.g. a VM's disk after a change of package): when the configuration leaves
   * it unset and an apply changes something remotely, it is planned as known after apply.
   */
  readonly follows?: boolean
  /**
   * A live figure that changes on every read (uptime, memory in use): a refresh keeps the recorded
   * value unless it finds another change, so a refresh that finds nothing changed leaves the state
   * exactly as it was (no drift reported by `plan -refresh-only`). Applies record the current figure.
   */
  readonly live?: boolean
  /** A value of a nested object that the service may leave null (e.g. the payment date of an unpaid invoice). */
  readonly nullable?: boolean
  readonly validate?: readonly Validator[]
  /**
   * The form the service keeps the value in (e.g. trimmed); a configured value with the same form
   * as the state's is no change, so plans keep the state's value.
   */
  readonly normalize?: (value: string) => string
  /**
   * A string input whose empty value (after `normalize`) the service reads as no value at all (a
   * public key left empty asks for a generated one): empty passes validation as unset does, and a
   * change between unset and empty changes nothing the service has, so it is recorded, never a
   * replacement.
   */
  readonly emptyIsUnset?: boolean
  /**
   * Write-only: the value reaches the create (or the update step) but never a plan, a state or a
   * client without write-only attributes. See write-only.ts for the rules.
   */
  readonly writeOnly?: WriteOnly
  readonly description: string
}

/** What a write-only input is paired with (Terraform's `<name>_wo` and `<name>_wo_version`). */
export interface WriteOnly {
  /**
   * The input that carries the same value through plans and state, for clients without write-only
   * attributes. Handlers receive the write-only value under its name; the two cannot both be set.
   */
  readonly alternative: string
  /** The input kept in state whose change sends the write-only value again; required with it. */
  readonly version: string
  /** Read-only attributes that hold the value as the service reports it: null while the write-only form is used. */
  readonly echoes?: readonly string[]
  /** One of this attribute and its alternative must be set. */
  readonly required?: boolean
}

export interface Attribute<T extends TypeSpec = TypeSpec> extends AttributeFlags {
  readonly type: T
}

export type Attributes = { readonly [name: string]: Attribute }

type Options = Omit<AttributeFlags, 'description'> & { readonly description: string }

export const string = (o: Options): Attribute<{ kind: 'string' }> => ({ ...o, type: { kind: 'string' } })
export const int64 = (o: Options): Attribute<{ kind: 'int64' }> => ({ ...o, type: { kind: 'int64' } })
export const float = (o: Options): Attribute<{ kind: 'float' }> => ({ ...o, type: { kind: 'float' } })
export const bool = (o: Options): Attribute<{ kind: 'bool' }> => ({ ...o, type: { kind: 'bool' } })

export function list<E extends TypeSpec>(element: E, o: Options): Attribute<{ kind: 'list'; element: E }> {
  return { ...o, type: { kind: 'list', element } }
}
export function map<E extends TypeSpec>(element: E, o: Options): Attribute<{ kind: 'map'; element: E }> {
  return { ...o, type: { kind: 'map', element } }
}
/** A nested object attribute. */
export function object<A extends Attributes>(attributes: A, o: Options): Attribute<{ kind: 'object'; attributes: A }> {
  return { ...o, type: { kind: 'object', attributes } }
}
/** The type of a list element or map value that is an object. */
export function objectType<A extends Attributes>(attributes: A): { kind: 'object'; attributes: A } {
  return { kind: 'object', attributes }
}
export const stringType = { kind: 'string' } as const
export const int64Type = { kind: 'int64' } as const

/** The JavaScript value an attribute of type T holds once known. */
export type ValueOf<T extends TypeSpec> = T extends { kind: 'string' }
  ? string
  : T extends { kind: 'int64' } | { kind: 'float' }
    ? number
    : T extends { kind: 'bool' }
      ? boolean
      : T extends { kind: 'list'; element: infer E extends TypeSpec }
        ? ValueOf<E>[]
        : T extends { kind: 'map'; element: infer E extends TypeSpec }
          ? Record<string, ValueOf<E>>
          : T extends { kind: 'object'; attributes: infer A extends Attributes }
            ? ObjectOf<A>
            : never

/**
 * The object an attribute map describes; every attribute may be null. The attributes of an erased
 * definition (AnyResource) are `any` to the compiler, and so are the values of their objects: the
 * engine fills those from the value model, checked at run time.
 */
export type ObjectOf<A extends Attributes> = 0 extends 1 & A
  ? { readonly [name: string]: Erased }
  : { [K in keyof A]: A[K] extends Attribute<infer T> ? ValueOf<T> | null : never }

// biome-ignore lint/suspicious/noExplicitAny: the values of an erased definition's objects (see ObjectOf).
type Erased = any

/** Whether a value of the attribute means what leaving it unset means (see `emptyIsUnset`). */
export function meansUnset(attribute: AttributeFlags, value: unknown): boolean {
  if (value === null || value === undefined) return true
  if (attribute.emptyIsUnset !== true || typeof value !== 'string') return false
  return (attribute.normalize ? attribute.normalize(value) : value) === ''
}

/** Whether a change of the attribute from `prior` to `planned` is between unset and what means unset (or two such values): nothing the service reads changes. */
export function unsetEitherWay(attribute: AttributeFlags, prior: unknown, planned: unknown): boolean {
  return meansUnset(attribute, prior) && meansUnset(attribute, planned)
}

/** Whether the user may set the attribute. */
export function isInput(attribute: AttributeFlags): boolean {
  return attribute.required === true || attribute.optional === true
}

/**
 * The rules of an attribute a user must know before applying, as sentences, the same for every client's
 * schema (its descriptions, and so each SDK's docs): `replace` is the client's command that orders an
 * object again (`terraform apply -replace`, `pulumi up --replace`).
 */
export function attributeNotes(attribute: Attribute, replace: string): string[] {
  const rules = (attribute.validate ?? []).map((v) => v.rule)
  const input = isInput(attribute)
  return [
    ...(attribute.createOnly && input ? ['Changing it replaces the resource.'] : []),
    ...(attribute.orderTime && input
      ? [
          `Order-time: read only when an order is placed; a later change is recorded with a warning and replaces nothing (\`${replace}\` orders again).`,
        ]
      : []),
    ...(attribute.action
      ? ['In-place action: the call is made only when the value changes to a non-empty one; the same value, or none, calls nothing.']
      : []),
    ...(attribute.growOnly ? ['Grow-only: a smaller value is refused.'] : []),
    ...(attribute.default !== undefined ? [`Default: \`${JSON.stringify(attribute.default)}\`.`] : []),
    ...(rules.length > 0 ? [`Must be ${rules.join('; ')}.`] : []),
  ]
}

/**
 * Whether a value may stand that the configuration did not give: the service sets it (computed only,
 * optional+computed, optional with a default), or it is an in-place action, whose last value is
 * kept when it is removed (removing it calls nothing, so nothing changes).
 */
export function isComputed(attribute: AttributeFlags): boolean {
  return attribute.computed === true || attribute.default !== undefined || (attribute.action === true && isInput(attribute))
}

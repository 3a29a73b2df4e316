/** Planning: defaults, replacement, grow-only, actions and which update steps an apply will run. */
import { type Attribute, isComputed, isInput, unsetEitherWay } from './attributes.js'
import { recordOnly } from './definition.js'
import type { AnyResource } from './definition-types.js'
import { type Diagnostic, error, hasErrors, warning } from './diagnostics.js'
import { validateConfig } from './validate.js'
import { isEmpty, isUnknown, UNKNOWN, type Value, type ValueMap, valuesEqual } from './values.js'
import { withoutWriteOnlyPlanned, writeOnlyReplace } from './write-only.js'

/** Core's private state, kept beside the resource's state by each front end. */
export interface PrivateState {
  /** An order was placed and its wait did not end: the next apply waits again and orders nothing. */
  readonly resume?: boolean
  /** When a create's order left unfinished was placed (ms): a 404 soon after it is no proof that the object is gone. */
  readonly orderedAt?: number
  /**
   * An update's order was placed and takes effect later with no further call (its invoice waits for
   * payment): why, e.g. "invoice 700003 ... is unpaid". Reads keep the ordered targets while the
   * service still shows the old values, and plans warn instead of ordering them again.
   */
  readonly waiting?: string
  /**
   * Inputs an import could not recover and filled with defaults, which the first apply after it records;
   * and those it read as the object is now (`importReadsCurrent`), of which a plan warns (importedWarnings).
   */
  readonly imported?: readonly string[]
  /**
   * Grow-only inputs an import read from the service: the size the object has, not a floor a
   * configuration set (see `growOnly`). Until the next apply, a smaller configured value is taken as
   * the floor (recorded, nothing sent) instead of refused as a shrink.
   */
  readonly floors?: readonly string[]
  /**
   * What the resource's own handlers noted about the object for its later reads (ReadContext.notes), by
   * name: e.g. that a step of this configuration changed something the service reports. Kept until a
   * handler drops it.
   */
  readonly notes?: Readonly<Record<string, string>>
}

export interface Plan {
  /** Every attribute plus `id` and, when the resource has timeouts, `timeouts`. */
  readonly planned: ValueMap
  /** Create-only inputs whose change forces a replacement. */
  readonly replace: readonly string[]
  /** Inputs whose planned value differs from the prior state. */
  readonly changed: readonly string[]
  readonly diagnostics: readonly Diagnostic[]
  readonly private: PrivateState
  /**
   * Whether an apply has work on the object, whatever the inputs say: a change or a replacement, or
   * work an earlier apply left unfinished (`private.resume`), which needs an apply with no input changed.
   */
  readonly applies: boolean
  /**
   * Unset inputs planned unknown because they report the service's value after the running steps (see
   * `follows`): they ask their own step for nothing, unlike an input set from a value not known yet.
   */
  readonly following?: readonly string[]
}

export function inputNames(definition: AnyResource): string[] {
  return Object.entries(definition.attributes)
    .filter(([, a]) => isInput(a))
    .map(([name]) => name)
}

/**
 * The inputs with each one left out (null or missing) given its default: what the configuration
 * means, as a plan reads it and as Pulumi's Check records it for the engine.
 */
export function withDefaults(definition: AnyResource, values: ValueMap): ValueMap {
  const filled: Record<string, Value> = { ...values }
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    if (isInput(attribute) && attribute.default !== undefined && (filled[name] ?? null) === null) filled[name] = attribute.default
  }
  return filled
}

/**
 * The value planned for one input: the configuration, else its default, else (optional+computed)
 * what the state holds, or unknown on create; an action removed keeps its last value.
 */
function plannedInput(attribute: Attribute, configured: Value | undefined, prior: Value | undefined, creating: boolean): Value {
  if (configured !== null && configured !== undefined) return configured
  if (attribute.default !== undefined) return attribute.default
  if (attribute.computed) return creating ? UNKNOWN : (prior ?? null)
  if (attribute.action) return creating ? null : (prior ?? null)
  return null
}

/** Whether a changed input makes its update step run: an action fires only on a non-empty value. */
export function fires(attribute: Attribute, planned: Value | undefined): boolean {
  return !(attribute.action && isEmpty(planned ?? null))
}

/**
 * The create-only inputs whose change planResource may record without a replacement: what the service
 * cannot report (set after an import, or first set, it is only recorded) and what reads empty as unset
 * (unset and empty order the same). A front end that tells its engine which inputs replace (Pulumi's
 * replaceOnChanges) leaves these out, so that the engine never replaces what the plan keeps.
 */
export function sometimesRecorded(definition: AnyResource): ReadonlySet<string> {
  return new Set([
    ...(definition.unrecoverable ?? []),
    ...Object.entries(definition.attributes)
      .filter(([, a]) => a.emptyIsUnset === true)
      .map(([name]) => name),
  ])
}

export function planResource(definition: AnyResource, prior: ValueMap | null, config: ValueMap, priorPrivate: PrivateState = {}): Plan {
  const hasTimeouts = Object.keys(definition.timeouts).length > 0
  const diagnostics: Diagnostic[] = validateConfig(definition.attributes, config, {
    timeouts: hasTimeouts ? definition.timeouts : undefined,
  })
  const creating = prior === null
  const planned: Record<string, Value> = {}
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    // A write-only value is never planned (write-only.ts).
    planned[name] = isInput(attribute) && !attribute.writeOnly ? plannedInput(attribute, config[name], prior?.[name], creating) : null
  }
  if (hasTimeouts) planned.timeouts = config.timeouts ?? null

  const computedOnly = Object.entries(definition.attributes).filter(([, a]) => !isInput(a) && isComputed(a))
  if (creating) {
    planned.id = UNKNOWN
    for (const [name] of computedOnly) planned[name] = UNKNOWN
    const changed = inputNames(definition)
    return { planned: withoutWriteOnlyPlanned(definition, planned), replace: [], changed, diagnostics, private: {}, applies: true }
  }

  for (const name of inputNames(definition)) {
    const normalize = definition.attributes[name]?.normalize
    const before = prior[name]
    const after = planned[name]
    if (normalize && typeof before === 'string' && typeof after === 'string' && normalize(before) === normalize(after)) {
      planned[name] = before
    }
  }
  const changed = inputNames(definition).filter((name) => !valuesEqual(planned[name], prior[name] ?? null))
  // An input the service cannot report is null (or its default) after an import; setting it then
  // only records it, so an import is never followed by a replacement (a second paid order) for
  // what was always there.
  const unrecoverable = new Set(definition.unrecoverable ?? [])
  const imported = new Set(priorPrivate.imported ?? [])
  const recordedAtTimes = sometimesRecorded(definition)
  const createOnlyChanges = changed.filter((name) => {
    const attribute = definition.attributes[name]
    if (attribute?.createOnly !== true) return false
    if (!recordedAtTimes.has(name)) return true
    if (unrecoverable.has(name) && ((prior[name] ?? null) === null || imported.has(name))) return false
    // Unset and empty ask the service for the same (emptyIsUnset): recorded, never a new order.
    return !unsetEitherWay(attribute, prior[name], planned[name])
  })
  const replace = writeOnlyReplace(definition, prior, config, planned, createOnlyChanges)
  diagnostics.push(...importedWarnings(definition, prior, planned, changed, replace, imported))
  diagnostics.push(...keptShrinks(definition, prior, planned, replace, diagnostics, new Set(priorPrivate.floors ?? [])))
  if (replace.length === 0) diagnostics.push(...orderTimeChanges(definition, prior, planned, changed, imported))
  const resuming = priorPrivate.resume === true
  const affected = affectedOutputs(definition, prior, planned, replace.length > 0 || resuming)
  planned.id = prior.id ?? null
  for (const [name, attribute] of computedOnly) {
    planned[name] = affected.has(name) && !(attribute.stable && replace.length === 0) ? UNKNOWN : (prior[name] ?? null)
  }
  // An unset input that reports the service's current value follows what the running steps do to it.
  const following: string[] = []
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    const unset = config[name] === null || config[name] === undefined
    if (attribute.follows && unset && isInput(attribute) && affected.has(name)) {
      planned[name] = UNKNOWN
      following.push(name)
    }
  }
  // Both notes speak of the object kept: a replacement deletes it, and its unpaid invoice with it.
  const keeping = replace.length === 0 && !hasErrors(diagnostics)
  if (resuming && keeping) {
    diagnostics.push(
      warning(
        'An earlier apply left this resource unfinished',
        `The last apply of ${definition.name} ${String(prior.id)} stopped before everything asked was done (` +
          (priorPrivate.waiting ?? 'an order still being provisioned, or waiting for its invoice to be paid') +
          '). This apply waits for it again and finishes the rest; it places no new order for what was already ordered.',
      ),
    )
  } else if (priorPrivate.waiting !== undefined && keeping) {
    diagnostics.push(
      warning(
        `${definition.name} ${String(prior.id)} waits for payment`,
        `A change of ${definition.name} ${String(prior.id)} was ordered and waits for payment: ${priorPrivate.waiting}. ` +
          'It takes effect once the invoice is paid; nothing is ordered again for it.',
      ),
    )
  }
  return {
    planned: withoutWriteOnlyPlanned(definition, planned),
    replace,
    changed,
    diagnostics,
    private: priorPrivate,
    applies: changed.length > 0 || resuming,
    ...(following.length > 0 ? { following } : {}),
  }
}

/**
 * The order-time rule (AttributeFlags.orderTime): a changed order-time input of an object kept in
 * place is recorded with a warning, since the service reads it only when an order is placed. Never a
 * replacement: a promocode the service refuses would otherwise delete a live object and order
 * nothing. A value an import could not recover is only being filled in, so it is not announced.
 * When this plan runs a step whose order is sent with the input (UpdateStep.placedWith), the warning
 * says that order uses the new value; else that nothing is sent for it now.
 */
function orderTimeChanges(
  definition: AnyResource,
  prior: ValueMap,
  planned: ValueMap,
  changed: readonly string[],
  imported: ReadonlySet<string>,
): Diagnostic[] {
  const id = `${definition.name} ${String(prior.id)}`
  // Whether the object places orders of its own after its create (a paid change): else only a new object reads it.
  const ordersAgain = definition.updates.some((step) => step.price !== undefined)
  const when = ordersAgain
    ? 'It takes effect at the next paid change of it that reads it.'
    : `${definition.name} places no order after its create, so it takes effect only if the object is ordered anew.`
  // The orders this plan places (as pricing and the apply tell them: steps that run, not only record).
  const orders = stepsToRun(definition, prior, planned, true).filter((step) => !step.recordOnly && definition.updates[step.index]?.price)
  return changed
    .filter((name) => {
      const attribute = definition.attributes[name]
      if (attribute?.orderTime !== true || imported.has(name)) return false
      // Unset and empty give an order the same (emptyIsUnset): no value takes effect, so nothing to announce.
      return !unsetEitherWay(attribute, prior[name], planned[name])
    })
    .map((name) => {
      const using = orders
        .filter((step) => definition.updates[step.index]?.placedWith?.includes(name))
        .map((step) => step.attributes.join(', '))
      if (using.length > 0) {
        const one = using.length === 1
        return warning(
          `${name} is used by this plan's ${one ? 'order' : 'orders'} of ${using.join(' and ')}`,
          `${name} is read by the service only when an order is placed. This plan changes ${using.join(' and ')} of ${id}, ` +
            `and the ${one ? 'order' : 'orders'} it places for ${one ? 'that change is' : 'those changes are'} placed with the new value ` +
            `of ${name} (none is placed when the object already has what is asked, as its price shows), which the state records ` +
            'for the orders after them too. Nothing is deleted.',
          [name],
        )
      }
      return warning(
        `${name} takes effect at the next order`,
        `${name} is read by the service only when an order is placed, so this change of ${id} ` +
          `is only recorded: nothing is sent to the service and nothing is deleted. ${when} ` +
          'To order the object again with it now, replace it on purpose: `terraform apply -replace=<address>`, or ' +
          '`pulumi up --replace <urn>`; that deletes this object and orders a new one.',
        [name],
      )
    })
}

/**
 * What a plan after an import does that the configuration it was imported into may not mean, while no
 * apply has changed the object since (the import's marks): a replacement for a create-only input the
 * import read as the object is now (`importReadsCurrent`: the OS a rebuild installed), whose value in
 * the configuration may be the create's; and an in-place action the import could not read (null), which
 * the configuration gives a value, so that it runs, though it may have run already. Both are what the
 * interface asks for (a create-only change replaces; a trigger fires after an import): the warnings say
 * so before the apply, and how to keep the object as it is.
 */
function importedWarnings(
  definition: AnyResource,
  prior: ValueMap,
  planned: ValueMap,
  changed: readonly string[],
  replace: readonly string[],
  imported: ReadonlySet<string>,
): Diagnostic[] {
  const id = `${definition.name} ${String(prior.id)}`
  const current = new Set<string>(definition.importReadsCurrent ?? [])
  const replaced = replace
    .filter((name) => current.has(name) && imported.has(name) && !isUnknown(planned[name]))
    .map((name) =>
      warning(
        `${name} ${JSON.stringify(planned[name])} replaces the imported object, which has ${JSON.stringify(prior[name])}`,
        `${id} was imported with ${name} ${JSON.stringify(prior[name])}, the value it has now, which an in-place action (such ` +
          `as a rebuild) sets. ${name} is create-only, so the configuration's ${JSON.stringify(planned[name])} replaces the ` +
          'object: it is deleted, with what is on it, and a new one is ordered and paid for. If the configuration gives the ' +
          `value it was created with, set ${name} to ${JSON.stringify(prior[name])} instead to keep the object.`,
        [name],
      ),
    )
  if (replace.length > 0) return replaced
  const running = changed
    .filter((name) => {
      const attribute = definition.attributes[name]
      return (
        attribute?.action === true &&
        imported.has(name) &&
        (prior[name] ?? null) === null &&
        !isUnknown(planned[name]) &&
        fires(attribute, planned[name])
      )
    })
    .map((name) =>
      warning(
        `${name} ${JSON.stringify(planned[name])} runs on the imported object`,
        `${id} was imported, and the service does not report whether this in-place action ran on it already (the ` +
          `object may have been created or rebuilt with it): the configuration's ${name} is a change, so the apply runs it. ` +
          `To keep the object as it is, leave ${name} out of the configuration (or empty) for this apply; set later, it runs then.`,
        [name],
      ),
    )
  return [...replaced, ...running]
}

/**
 * The grow-only rule: an error for each grow-only value planned below the prior one, for an object
 * kept. A replacement is a new order, where any size is valid, so it refuses nothing; nor is an input
 * that already breaks a value rule (`issues`) also reported as a shrink: one mistake, one error.
 */
export function keptShrinks(
  definition: AnyResource,
  prior: ValueMap,
  planned: ValueMap,
  replace: readonly string[],
  issues: readonly Diagnostic[],
  floors: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  if (replace.length > 0) return []
  const broken = new Set(issues.filter((d) => d.severity === 'error').map((d) => d.path?.[0]))
  const shrunk: Diagnostic[] = []
  for (const [name, attribute] of Object.entries(definition.attributes)) {
    const before = prior[name]
    const after = planned[name]
    if (attribute.growOnly && !broken.has(name) && typeof before === 'number' && typeof after === 'number' && after < before) {
      if (floors.has(name)) {
        // Imported: the state holds the object's size, and the configuration's smaller value is its floor.
        shrunk.push(
          warning(
            `${name} ${after} is recorded as the floor of an object of ${before}`,
            `${definition.name} ${String(prior.id)} was imported with ${name} ${before}; the configuration's ${after} is ` +
              `below it, and ${name} is grow-only and a floor: the apply records ${after} and sends nothing (nothing ` +
              'shrinks). Raising it above the object later orders only what it lacks.',
            [name],
          ),
        )
        continue
      }
      shrunk.push(
        error(
          `Cannot shrink ${name}`,
          `${name} is grow-only: it can be raised but never lowered (from ${before} to ${after}). ` +
            'Keep the current value or a larger one.',
          [name],
        ),
      )
    }
  }
  return shrunk
}

/**
 * The read-only attributes an apply from `prior` to `planned` can change: every one for a
 * replacement or a resumed order, else those the running steps declare in `affects` (all of them
 * for a step that declares nothing). The others keep their prior values in the plan.
 */
function affectedOutputs(definition: AnyResource, prior: ValueMap, planned: ValueMap, everything: boolean): Set<string> {
  // Inputs that follow the service's value when unset (see `follows`) move like read-only attributes.
  const outputs = Object.entries(definition.attributes)
    .filter(([, a]) => (!isInput(a) && isComputed(a)) || a.follows === true)
    .map(([name]) => name)
  const affected = new Set<string>()
  // Planning, an input set from a value not known yet may change, so its step may run.
  for (const scheduled of everything ? [] : stepsToRun(definition, prior, planned, true)) {
    if (scheduled.recordOnly) continue
    for (const name of definition.updates[scheduled.index]?.affects ?? outputs) affected.add(name)
  }
  return everything ? new Set(outputs) : affected
}

export interface ScheduledStep {
  readonly index: number
  readonly attributes: readonly string[]
  readonly recordOnly: boolean
}

/**
 * The update steps an apply from `prior` to `planned` runs, in the definition's order. At apply time
 * an unknown planned input follows the service (see `follows`): it asks its step for nothing. With
 * `unknownMayMove` (planning, where an unknown input is one configured from a value not known yet)
 * it may change and fire its step.
 */
export function stepsToRun(definition: AnyResource, prior: ValueMap, planned: ValueMap, unknownMayMove = false): ScheduledStep[] {
  const steps: ScheduledStep[] = []
  definition.updates.forEach((step, index) => {
    const moved = step.attributes.filter((name) =>
      isUnknown(planned[name]) ? unknownMayMove : !valuesEqual(planned[name], prior[name] ?? null),
    )
    if (moved.length === 0) return
    const firing = moved.filter((name) => {
      const attribute = definition.attributes[name]
      return attribute !== undefined && (isUnknown(planned[name]) || fires(attribute, planned[name]))
    })
    steps.push({ index, attributes: moved, recordOnly: firing.length === 0 || step.apply === recordOnly })
  })
  return steps
}

/** The value with unknowns replaced by null: what a state records when an operation stops early. */
export function knownOrNull(value: Value): Value {
  if (isUnknown(value)) return null
  if (Array.isArray(value)) return value.map(knownOrNull)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, knownOrNull(v as Value)]))
  }
  return value
}

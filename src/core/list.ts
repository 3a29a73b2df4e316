/**
 * Listing: every object of a resource type that the API key can see, as an import of each would find
 * it, kept or left out by the filters the type declares. A tool uses it to adopt what was ordered by
 * hand or by a run whose state was lost (Terraform's `list` blocks and `terraform query`).
 */
import { failureOf, importResource, type Session } from './apply.js'
import { type Attributes, string } from './attributes.js'
import type { AnyResource, ListFilter } from './definition-types.js'
import { type Diagnostic, hasErrors, warning } from './diagnostics.js'
import { oneOf } from './validators.js'
import type { ValueMap } from './values.js'

/** One object a listing found. */
export interface Listed {
  readonly id: string
  /** What a person recognises it by: the display attribute's value, or the id. */
  readonly displayName: string
  /** Its state as an import of its id finds it. */
  readonly state: ValueMap
}

/** What a listing yields, in order: an object, or a warning about one it left out. */
export type ListEvent = { readonly listed: Listed } | { readonly diagnostics: readonly Diagnostic[] }

/**
 * The filters of a listable resource as the inputs of a list configuration: each an optional string,
 * with its rules (one of its values, in any case; the filter's own), so that validating a list's
 * configuration refuses a filter that can match nothing before anything is listed.
 */
export function listFilterAttributes(definition: AnyResource): Attributes {
  return Object.fromEntries(
    Object.entries(definition.list?.filters ?? {}).map(([name, filter]) => [
      name,
      string({
        optional: true,
        description: filter.description,
        validate: [...(filter.values ? [oneOf(filter.values, { ignoreCase: true })] : []), ...(filter.validate ?? [])],
      }),
    ]),
  )
}

/** Whether `text`, an object's value, is what `filter` asks for. */
function matches(filter: ListFilter, text: string, wanted: string): boolean {
  if (filter.match === 'prefix') return text.startsWith(wanted)
  // Listed values are compared as the service compares them: whatever their case.
  return filter.values ? text.toLowerCase() === wanted.toLowerCase() : text === wanted
}

/** Whether an object's state passes every filter that is set (`filters` by canonical filter name). */
function kept(definition: AnyResource, state: ValueMap, filters: ValueMap): boolean {
  for (const [name, filter] of Object.entries(definition.list?.filters ?? {})) {
    const wanted = filters[name]
    if (wanted === null || wanted === undefined) continue
    const value = state[filter.attribute]
    if (!matches(filter, value === null || value === undefined ? '' : String(value), String(wanted))) return false
  }
  return true
}

/**
 * The objects of `definition` that the key can see and the filters keep, each read as its import
 * reads it, in the order the service lists them; stops after `limit` objects or when the session's
 * signal is aborted. An object that vanishes between the listing and its read is left out silently;
 * one whose read fails is left out with a warning naming it. A failed listing yields its error.
 */
export async function* listResources<C>(
  definition: AnyResource,
  filters: ValueMap,
  session: Session<C>,
  limit = Number.POSITIVE_INFINITY,
): AsyncGenerator<ListEvent> {
  const list = definition.list
  if (!list) throw new Error(`${definition.name} declares no listing`)
  const notes: Diagnostic[] = []
  let ids: readonly (string | number)[]
  try {
    ids = await list.ids({
      client: session.client,
      signal: session.signal,
      log: session.log,
      warn: (summary: string, detail: string) => notes.push(warning(summary, detail)),
    })
  } catch (thrown) {
    yield { diagnostics: [...notes, ...failureOf(session, thrown, `Listing ${definition.name} failed`, [])] }
    return
  }
  if (notes.length > 0) yield { diagnostics: notes }
  let found = 0
  for (const id of ids) {
    if (found >= limit || session.signal.aborted) return
    const outcome = await importResource(definition, String(id), session)
    if (outcome.state === null) {
      const errors = outcome.diagnostics.filter((d) => d.severity === 'error' && d.summary !== 'Cannot import a missing object')
      if (errors.length > 0) {
        const detail = errors.map((d) => `${d.summary}: ${d.detail}`).join('\n')
        yield { diagnostics: [warning(`${definition.name} ${id} is left out of the list`, detail)] }
      }
      continue
    }
    if (hasErrors(outcome.diagnostics)) continue
    if (!kept(definition, outcome.state, filters)) continue
    found += 1
    const shown = list.displayName === undefined ? null : outcome.state[list.displayName]
    const displayName = shown === null || shown === undefined || shown === '' ? String(outcome.state.id) : String(shown)
    yield { listed: { id: String(outcome.state.id), displayName, state: outcome.state } }
  }
}

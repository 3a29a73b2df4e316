/**
 * Resource identity: the few values that name an object at the service for good (an account id, a
 * keypair id, a server and an IP), kept by a tool beside the state and accepted in place of an import
 * id. Every resource has one, derived from its import id: the id's parts are the identity's
 * attributes, so the id and the identity map to each other with no handler of the resource's own.
 */
import type { AnyResource, IdentityPart, ImportId } from './definition-types.js'
import { nameProblems } from './names.js'

/** An identity's values by canonical part name: a string or a whole number each. */
export type IdentityValues = Readonly<Record<string, string | number>>

export interface ResourceIdentity {
  /** Bumped when the parts change; a tool keeps it beside the identity. */
  readonly version: number
  readonly parts: readonly IdentityPart[]
  /** The identity of the object with this id, or null when the id is not written as the import id says. */
  of(id: string): IdentityValues | null
  /** The id an identity names, or what is wrong with it (naming each part); the import id's own rules apply. */
  idOf(identity: Readonly<Record<string, unknown>>): { id: string } | { error: string }
}

/** The identity's version: no resource has changed its parts yet. */
const VERSION = 0

/**
 * The parts and separator an import id declares, or those its format spells: each `<name>` a string
 * part, the text between them the separator (one, the same between every two). Null when the format
 * is not written that way: the definition check refuses such a resource without declared parts.
 */
function declaredParts(importId: ImportId): { parts: readonly IdentityPart[]; separator: string } | null {
  if (importId.parts) return { parts: importId.parts, separator: importId.separator ?? '' }
  const pieces = importId.format.split(/<([A-Za-z][A-Za-z0-9_]*)>/)
  // split with one capture group alternates literal text and names: '', name, sep, name, ..., ''
  if (pieces.length < 3 || pieces[0] !== '' || pieces[pieces.length - 1] !== '') return null
  const names = pieces.filter((_, i) => i % 2 === 1)
  const separators = new Set(pieces.filter((_, i) => i % 2 === 0 && i > 0 && i < pieces.length - 1))
  if (separators.size > 1 || separators.has('')) return null
  const parts = names.map((name) => ({ name, type: 'string' as const, description: `The \`${name}\` part of the import id.` }))
  return { parts, separator: [...separators][0] ?? '' }
}

/** What is wrong with a resource's identity as declared (or derived); empty when it is sound. */
export function identityProblems(definition: AnyResource): string[] {
  const declared = declaredParts(definition.importId)
  if (declared === null) {
    return [
      `the import id format ${definition.importId.format} is not <part> placeholders joined by one separator, so it must declare its parts`,
    ]
  }
  const { parts, separator } = declared
  const problems: string[] = []
  if (parts.length === 0) problems.push('the import id declares no parts')
  if (parts.length > 1 && separator === '') problems.push('the import id has several parts but no separator')
  const names = parts.map((p) => p.name)
  for (const name of new Set(names))
    if (names.indexOf(name) !== names.lastIndexOf(name)) problems.push(`identity part ${name} is declared twice`)
  problems.push(...nameProblems('identity part', names))
  for (const part of parts) if (!part.description) problems.push(`identity part ${part.name} has no description`)
  return problems
}

const known = new WeakMap<AnyResource, ResourceIdentity>()

/** The identity of a resource: its parts, and the mapping between an id and an identity. */
export function resourceIdentity(definition: AnyResource): ResourceIdentity {
  let identity = known.get(definition)
  if (identity === undefined) {
    identity = derive(definition)
    known.set(definition, identity)
  }
  return identity
}

function derive(definition: AnyResource): ResourceIdentity {
  const declared = declaredParts(definition.importId)
  if (declared === null) throw new Error(`${definition.name}: ${identityProblems(definition).join('; ')}`)
  const { parts, separator } = declared
  return {
    version: VERSION,
    parts,
    of(id) {
      const pieces = parts.length === 1 ? [id] : id.split(separator)
      if (pieces.length !== parts.length || pieces.some((piece) => piece === '')) return null
      const values: Record<string, string | number> = {}
      for (const [index, part] of parts.entries()) {
        const piece = pieces[index] as string
        if (part.type === 'int64') {
          if (!/^[0-9]+$/.test(piece) || !Number.isSafeInteger(Number(piece))) return null
          values[part.name] = Number(piece)
        } else {
          values[part.name] = piece
        }
      }
      return values
    },
    idOf(identity) {
      const problems: string[] = []
      const pieces: string[] = []
      for (const part of parts) {
        const value = identity[part.name]
        if (value === null || value === undefined) problems.push(`${part.name} is required`)
        else if (typeof value === 'bigint')
          // Beyond a double's exact range (see the core value model): named as written.
          problems.push(`${part.name} must be a whole number of 0 or more, no larger than ${Number.MAX_SAFE_INTEGER}, got ${value}`)
        else if (part.type === 'int64' && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0))
          problems.push(`${part.name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`)
        else if (part.type === 'string' && (typeof value !== 'string' || value === ''))
          problems.push(`${part.name} must be a non-empty string, got ${JSON.stringify(value)}`)
        else if (separator !== '' && String(value).includes(separator))
          problems.push(`${part.name} must not contain ${JSON.stringify(separator)}, got ${JSON.stringify(value)}`)
        else pieces.push(String(value))
      }
      if (problems.length > 0) return { error: problems.join('; ') }
      const parsed = definition.importId.parse(pieces.join(separator))
      return 'id' in parsed ? parsed : { error: parsed.error }
    },
  }
}

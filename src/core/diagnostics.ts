/** Diagnostics: every error a user sees, translated once from whatever was thrown. */
import { toSnake } from './names.js'

export type Path = readonly (string | number)[]

export interface Diagnostic {
  readonly severity: 'error' | 'warning'
  readonly summary: string
  readonly detail: string
  /** Canonical attribute names; each front end spells them its own way. */
  readonly path?: Path
}

/** Our own code broke a promise: never the user's fault, always "please report". */
export class ProviderBug extends Error {}

/** A bad input found by a handler (rarely: most rules are validators checked at plan time). */
export class InputError extends Error {
  constructor(
    readonly path: Path,
    message: string,
  ) {
    super(message)
  }
}

export function error(summary: string, detail: string, path?: Path): Diagnostic {
  return path ? { severity: 'error', summary, detail, path } : { severity: 'error', summary, detail }
}

export function warning(summary: string, detail: string, path?: Path): Diagnostic {
  return path ? { severity: 'warning', summary, detail, path } : { severity: 'warning', summary, detail }
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}

/** The shape of the API client's errors, read structurally so that core never imports `api/`. */
interface ExplainedError {
  readonly message: string
  readonly status?: number
  readonly fields?: readonly { field: string; message: string }[]
}

const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError]

function isExplained(value: unknown): value is ExplainedError {
  if (!(value instanceof Error)) return false
  if (value instanceof ProviderBug) return false
  // A TypeError from fetch is a network failure the client wraps; one that reaches here is our bug.
  return !PROGRAMMING_ERRORS.some((kind) => value.constructor === kind)
}

export function messageOf(value: unknown): string {
  return value instanceof Error ? value.message : String(value)
}

// Marks around text a front end must show as it is. Private-use characters: never in user text.
const VERBATIM_OPEN = '\uE000'
const VERBATIM_CLOSE = '\uE001'

/**
 * Text shown exactly as it is, whatever the front end: an API path, the service's own words, values
 * from the catalog. `renderNames` leaves it alone (and drops the marks).
 */
export function verbatim(text: string): string {
  return `${VERBATIM_OPEN}${text}${VERBATIM_CLOSE}`
}

/** An error of the API client: it names its request, so its text is the API's and the service's. */
function isServiceError(value: unknown): boolean {
  const request = value as { method?: unknown; path?: unknown } | null
  return value instanceof Error && typeof request?.method === 'string' && typeof request.path === 'string'
}

/** The message of what was thrown, for a diagnostic: the API client's errors verbatim. */
export function causeOf(value: unknown): string {
  return isServiceError(value) ? verbatim(messageOf(value)) : messageOf(value)
}

/** `causeOf` as a clause inside a sentence: without the full stop it may end with, verbatim or not. */
export function clauseOf(value: unknown): string {
  const cause = causeOf(value)
  if (!cause.endsWith(VERBATIM_CLOSE)) return cause.replace(/\.+$/, '')
  return `${cause.slice(0, -VERBATIM_CLOSE.length).replace(/\.+$/, '')}${VERBATIM_CLOSE}`
}

/**
 * Turns a thrown error into one diagnostic: the operation's summary and the API's explanation, which
 * names each field the API rejected with the service's words for it; placed on the attribute of the
 * first such field when there is one, so the client points at the configured value.
 */
export function toDiagnostics(value: unknown, summary: string, attributeNames: readonly string[]): Diagnostic[] {
  if (value instanceof InputError) return [error(summary, value.message, value.path)]
  if (!isExplained(value)) {
    return [error('Provider bug', `${summary}: ${messageOf(value)}. This is a bug in the provider; please report it.`)]
  }
  const rejected = (value.fields ?? []).flatMap(({ field }) => attributeNames.filter((a) => toSnake(a) === toSnake(field)))
  return [error(summary, causeOf(value), rejected.length > 0 ? [rejected[0] as string] : undefined)]
}

/**
 * Diagnostics are written with the spec's canonical names; each front end shows them in its own
 * (Terraform `power_state`, `provider_baremetal`; Pulumi `powerState`, `Baremetal`). This renders
 * every name of `names` found as a whole word in the texts, outside verbatim text and outside
 * anything path-like (a word joined to `/`, `-` or `.`: `/baremetal-elastic-storages` stays as it
 * is), and every name of two words joined by a dot as a whole; attribute paths stay canonical.
 */
export function renderNames(diagnostic: Diagnostic, names: ReadonlyMap<string, string>): Diagnostic {
  // Names of two words joined by a dot (`timeouts.create`) are rendered whole, before single words.
  const phrases = [...names]
    .filter(([name]) => name.includes('.'))
    .map(([name, spelled]) => [new RegExp(`(?<![\\w.])${name.replace('.', '\\.')}(?!\\w)`, 'g'), spelled] as const)
  const renderWords = (written: string) => {
    const text = phrases.reduce((out, [phrase, spelled]) => out.replace(phrase, spelled), written)
    return text.replace(/[A-Za-z][A-Za-z0-9_]*/g, (word, at: number) => {
      const before = text[at - 1] ?? ''
      const after = text[at + word.length] ?? ''
      const joined =
        /[/-]/.test(before) ||
        /[/-]/.test(after) ||
        (before === '.' && /\w/.test(text[at - 2] ?? '')) ||
        (after === '.' && /\w/.test(text[at + word.length + 1] ?? ''))
      return joined ? word : (names.get(word) ?? word)
    })
  }
  const render = (text: string) =>
    text
      .split(VERBATIM_OPEN)
      .map((part, i) => {
        if (i === 0) return renderWords(part)
        const end = part.indexOf(VERBATIM_CLOSE)
        return end < 0 ? part : part.slice(0, end) + renderWords(part.slice(end + 1))
      })
      .join('')
      .replaceAll(VERBATIM_CLOSE, '')
  return { ...diagnostic, summary: render(diagnostic.summary), detail: render(diagnostic.detail) }
}

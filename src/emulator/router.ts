// Route matching (the API's path rules): patterns with `:name` parameters, one trailing slash allowed,
// literal segments winning over parameters, and 405 with the allowed methods. Also what a handler sees of
// its request (RouteContext). Used by the API pipeline and the control API alike.
import type { Json } from './json.js'
import type { CustomerStore } from './customer-store.js'
import type { BodyReader } from './validation.js'

/** What a handler sees of its request. Handlers run steps 5 to 8 of the emulator's request pipeline in that order. */
export interface RouteContext {
  /** The store as the request's customer sees it: its objects only (customer-store.ts). */
  readonly store: CustomerStore
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly idempotencyKey: string | null
  /** Step 6: a reader of the body (or, with `expectBody` false, of nothing but path and header issues). */
  reader(expectBody: boolean): BodyReader
}

export type Handler = (ctx: RouteContext) => Json

export interface Route {
  readonly method: string
  /** Segments; `:name` is a parameter, digits-only when the name ends in `id` (the API's path rules). */
  readonly pattern: string
  readonly handler: Handler
}

export interface Routed {
  readonly method: string
  readonly pattern: string
}

export type Match<R extends Routed = Route> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' }

/** One trailing slash is the same route (the API's path rules); anything more is a different, unknown path. */
export function normalisePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

/**
 * A path segment as text. A malformed percent escape (`%ZZ`, a cut UTF-8 sequence) is kept as sent: it is then
 * an unknown value of its parameter (the handler's 422, or 404 for an id), never a failure of the request.
 */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = pattern.split('/').slice(1)
  if (parts.length !== segments.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const segment = segments[i]!
    if (part.startsWith(':')) {
      const name = part.slice(1)
      if (segment === '' || (name.endsWith('id') && !/^\d+$/.test(segment))) return null
      params[name] = decodeSegment(segment)
    } else if (part !== segment) {
      return null
    }
  }
  return params
}

const literalCount = (pattern: string) => pattern.split('/').filter((p) => p !== '' && !p.startsWith(':')).length

export class Router<R extends Routed = Route> {
  constructor(private readonly routes: readonly R[]) {}

  match(method: string, rawPath: string): Match<R> {
    const segments = normalisePath(rawPath).split('/').slice(1)
    const hits: { route: R; params: Record<string, string> }[] = []
    for (const route of this.routes) {
      const params = matchPattern(route.pattern, segments)
      if (params) hits.push({ route, params })
    }
    if (hits.length === 0) return { kind: 'none' }
    const same = hits.filter((h) => h.route.method === method)
    if (same.length === 0) return { kind: 'method', allowed: [...new Set(hits.map((h) => h.route.method))] }
    // Literal segments win over parameters (the API's path rules).
    same.sort((a, b) => literalCount(b.route.pattern) - literalCount(a.route.pattern))
    const best = same[0]!
    return { kind: 'found', route: best.route, params: best.params }
  }
}

export function paramId(ctx: RouteContext, name: string): number {
  return Number(ctx.params[name] ?? Number.NaN)
}

// The layout of the sources under src/ as the architecture test (test/architecture.test.ts) enforces
// it: the dependency table of docs/design.md and CONTRIBUTING.md, the rule inside api/, the handler
// rule, the longest function allowed, the names shared code must not contain; and the checks that
// apply them to one parsed file, each answering its violations as `file:line: what; the rule`.
// Must not: read the tree or hold exceptions to a rule; the test reads the tree, and there are none.
import { posix } from 'node:path'
import type { SourceFile } from 'typescript/unstable/ast'
import * as syntax from './syntax.js'

export interface Rule {
  /** Modules (`core`) or single files (`resources/index`, relative to src/, no extension) this one may import. */
  readonly may: readonly string[]
  /** Modules this one may reach with type-only imports alone. */
  readonly typeOnly?: readonly string[]
  readonly any?: true
}

/**
 * The dependency table: what each module under src/ may import. A relative specifier counts for the
 * top-level folder it resolves to; bare specifiers (`node:http2`, `@msgpack/msgpack`) are external and
 * always allowed. Only whole-statement `import type` / `export type`, `typeof import()` and
 * `import('x').T` are type-only (`import { type A }` still loads the module). A row whose folder does
 * not exist yet holds trivially; a folder without a row, a file directly in src/, and an import() of a
 * computed specifier outside bin/ are refused: a new module needs a decision in the design first.
 *
 *   api/ core/ grpc/   nothing internal
 *   resources/         core/, api/
 *   server/            core/; `import type` from api/ (the operation frame, a rehearsal's answer)
 *   terraform/ pulumi/ server/, core/, grpc/ (not each other, api/, emulator/, resources/)
 *   emulator/          `import type` / `export type` from api/, nothing else
 *   bin/               anything (the entry points wire the modules together)
 */
export const RULES: Readonly<Record<string, Rule>> = {
  api: { may: [] },
  core: { may: [] },
  resources: { may: ['core', 'api'] },
  server: { may: ['core'], typeOnly: ['api'] },
  grpc: { may: [] },
  terraform: { may: ['server', 'core', 'grpc'] },
  pulumi: { may: ['server', 'core', 'grpc'] },
  emulator: { may: [], typeOnly: ['api'] },
  bin: { may: [], any: true },
}
/** Rules inside one module: non-test files at or under `from` must not import files at or under `to` (under src/, no extension). */
export const INNER_RULES = [
  { from: 'api/transport', to: 'api/orders', why: 'the orders sit above the HTTP transport, which never calls back into them' },
]
/** What a `*.test.ts` inside a module may import beyond its module's rule. */
export const TEST_EXTRAS = ['emulator', 'test']
/**
 * The folders of one-RPC handler files (decode, one call into src/server/, encode). A handler may
 * import the server's entry point, grpc/, its front end's other modules and core/'s types, and no
 * other handler (handlerViolations).
 */
export const HANDLER_FOLDERS = ['src/terraform/handlers', 'src/pulumi/handlers']
export const MAX_FUNCTION_LINES = 150
/** Resource type names shared code must never contain (matched ignoring case), besides every name the registry serves. */
export const RESOURCE_NAMES = ['lite_vm', 'litevm', 'baremetal', 'provider_lite', 'providerlite']

export const SOURCE_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/
export const TEST_FILE = /\.test\.(ts|mts|cts|tsx|js|mjs|cjs)$/
/** `path` is `prefix` itself or a path inside the folder `prefix`. */
const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)
const bare = (path: string) => path.replace(/^src\//, '').replace(SOURCE_FILE, '')
/** The repo-relative file a relative specifier of `path` names. */
const target = (path: string, specifier: string) => posix.join(posix.dirname(path), specifier)

/** The area of a repo-relative path: a module under src/ (`api`), `src` for a loose file, `test`, or `outside`. */
export function areaOf(path: string): string {
  const parts = posix.normalize(path).split('/')
  if (parts[0] === 'src') return parts.length > 2 ? parts[1]! : 'src'
  return parts[0] === 'test' ? 'test' : 'outside'
}

function describeRule(module: string, rule: Rule): string {
  const may = rule.may.map((m) => (m.includes('/') ? `${m}.ts` : `${m}/`))
  for (const m of rule.typeOnly ?? []) may.push(`type-only ${m}/`)
  return `${module}/ may import ${may.length > 0 ? may.join(', ') : 'nothing internal'}`
}

/** Violations of the dependency table by one file (`path` repo-relative, posix separators). */
export function dependencyViolations(path: string, file: SourceFile): string[] {
  const from = areaOf(path)
  if (from === 'test' || from === 'outside') return []
  if (from === 'src') return [`${path}: a file directly under src/ belongs to no module of DESIGN.md's table`]
  const rule = RULES[from]
  if (rule === undefined) return [`${path}: src/${from}/ has no row in DESIGN.md's dependency table`]
  if (rule.any) return []
  const isTest = TEST_FILE.test(path)
  const problems: string[] = []
  for (const ref of syntax.parseImports(file)) {
    const where = `${path}:${ref.line}`
    if (ref.specifier === null) problems.push(`${where}: import() of a computed specifier cannot be checked`)
    else if (ref.specifier.startsWith('/') || ref.specifier.startsWith('file:'))
      problems.push(`${where}: absolute import '${ref.specifier}'`)
    if (ref.specifier === null || !ref.specifier.startsWith('.')) continue // a package or a node: builtin
    const to = areaOf(target(path, ref.specifier))
    const inSrc = bare(target(path, ref.specifier))
    const inner = INNER_RULES.find((r) => !isTest && within(bare(path), r.from) && within(inSrc, r.to))
    if (inner !== undefined) problems.push(`${where}: imports '${ref.specifier}' (src/${inner.to}/): ${inner.why}`)
    if (to === from || rule.may.includes(to) || rule.may.includes(inSrc)) continue
    if ((ref.typeOnly && rule.typeOnly?.includes(to)) || (isTest && TEST_EXTRAS.includes(to))) continue
    const shown = to === 'test' || to === 'outside' ? to : `${to}/`
    const hint = rule.typeOnly?.includes(to) ? ' (only as `import type`)' : ''
    const extra = isTest ? ', and as a test emulator/ and test/' : ''
    problems.push(`${where}: imports '${ref.specifier}' (${shown})${hint}; ${describeRule(from, rule)}${extra}`)
  }
  return problems
}

/** Violations of the handler rule by one file: a handler imports no other handler, and core/ only as types. */
export function handlerViolations(path: string, file: SourceFile): string[] {
  const handlers = HANDLER_FOLDERS.find((folder) => path.startsWith(`${folder}/`))
  if (handlers === undefined || TEST_FILE.test(path)) return []
  const frontEnd = posix.dirname(handlers)
  const rule = `a handler decodes, makes one call into src/server/ (its index.ts), and encodes; it may import grpc/ and ${frontEnd}/'s other modules`
  const problems: string[] = []
  for (const ref of syntax.parseImports(file)) {
    if (!ref.specifier?.startsWith('.')) continue
    const to = target(path, ref.specifier)
    const why = HANDLER_FOLDERS.some((folder) => to.startsWith(`${folder}/`))
      ? 'imports another handler'
      : within(to, 'src/core') && !ref.typeOnly
        ? 'imports core/ for its values (only `import type` is allowed)'
        : within(to, 'src/server') && bare(to) !== 'server/index'
          ? "imports the server's internals, not its entry point"
          : within(to, 'src/core') || within(to, 'src/grpc') || within(to, frontEnd) || within(to, 'src/server')
            ? null
            : `imports ${ref.specifier}`
    if (why !== null) problems.push(`${path}:${ref.line}: ${why} ('${ref.specifier}'); ${rule}`)
  }
  return problems
}

/** Why a module's main file does not open with three comment lines saying what must not live there; null if it does. */
export function headerProblem(source: string): string | null {
  const lines = syntax.openingComment(source)
  if (lines.length < 3) return `opens with ${lines.length} comment line(s), not three or more`
  if (!/\b(must not|may not|never|nothing|not|no)\b/i.test(lines.join(' ')))
    return 'the opening comment does not say what must not live here'
  return null
}

/** `file: name (line N, M lines)` for each function of `file` longer than MAX_FUNCTION_LINES. */
export const longFunctions = (path: string, file: SourceFile): string[] =>
  syntax
    .functionSpans(file)
    .filter((f) => f.lines > MAX_FUNCTION_LINES)
    .map((f) => `${path}: ${f.name} (line ${f.line}, ${f.lines} lines; at most ${MAX_FUNCTION_LINES})`)

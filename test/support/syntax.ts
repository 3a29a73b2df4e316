// What the architecture test (test/architecture.test.ts) reads from the sources: their imports,
// the import graph and its cycles, the length of every function, the opening comment, the object
// types a file declares, calls of the global fetch and resource names in code. Parsing is the
// TypeScript compiler's own: TypeScript 7 has no in-process parser, so `typescript/unstable/sync`
// starts its compiler (tsgo) and hands back the syntax trees, one process for a whole batch of
// sources. Must not: hold a rule of the layout; the rules, and what is allowed, live in the test.
// Each function here is unit-tested on inline sources in test/syntax.test.ts.
import { posix } from 'node:path'
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast'
import { createVirtualFileSystem } from 'typescript/unstable/fs'
import { API } from 'typescript/unstable/sync'

// biome-ignore lint/suspicious/noExplicitAny: the remote syntax tree exposes every field on every node
type Any = any

/** Syntax trees of the given sources (keyed by relative path), parsed by one compiler process. */
export function parseAll(sources: Readonly<Record<string, string>>): Map<string, SourceFile> {
  const root = '/sources/'
  const names = Object.keys(sources)
  // No library, no module resolution: only the syntax of these files is wanted.
  const config = { compilerOptions: { noLib: true, noResolve: true, types: [], allowJs: true }, files: names }
  const files: Record<string, string> = { [`${root}tsconfig.json`]: JSON.stringify(config) }
  for (const name of names) files[root + name] = sources[name]!
  const api = new API({ cwd: root, fs: createVirtualFileSystem(files) })
  try {
    const program = api.updateSnapshot({ openProject: `${root}tsconfig.json` }).getProject(`${root}tsconfig.json`)!.program
    return new Map(names.map((name) => [name, program.getSourceFile(root + name)!]))
  } finally {
    api.close()
  }
}

export const parse = (source: string): SourceFile => parseAll({ 'source.ts': source }).get('source.ts')!

/** Every node of a tree (JSDoc comments are not children, so they are not visited). */
function nodes(root: Node): Any[] {
  const all: Node[] = []
  const visit = (node: Node): void => {
    all.push(node)
    node.forEachChild(visit)
  }
  visit(root)
  return all
}

const lineAt = (node: Node, position: number): number => node.getSourceFile().getLineAndCharacterOfPosition(position).line + 1
const lineOf = (node: Node): number => lineAt(node, node.getStart())

const literalText = (node: Any): string | null =>
  node?.kind === SyntaxKind.StringLiteral || node?.kind === SyntaxKind.NoSubstitutionTemplateLiteral ? node.text : null

// ---------------------------------------------------------------------------------------------
// Imports and the graph they make.

export interface ImportRef {
  /** The module specifier; null for a dynamic import() of a computed value. */
  readonly specifier: string | null
  readonly line: number
  readonly kind: 'import' | 'export' | 'dynamic'
  /**
   * Erased at compile time: whole-statement `import type` / `export type`, `typeof import()`,
   * `import('x').T`. `import { type A } from` is NOT: under verbatimModuleSyntax it compiles to
   * `import {} from`, which still loads the module.
   */
  readonly typeOnly: boolean
}

/** Every static import, re-export, import-equals and dynamic import() of a source file. */
export function parseImports(file: SourceFile): ImportRef[] {
  const refs: ImportRef[] = []
  for (const node of nodes(file)) {
    const at = (kind: ImportRef['kind'], specifier: string | null, typeOnly: boolean) =>
      refs.push({ specifier, line: lineOf(node), kind, typeOnly })
    if (node.kind === SyntaxKind.ImportDeclaration) {
      at('import', literalText(node.moduleSpecifier), node.importClause?.phaseModifier === SyntaxKind.TypeKeyword)
    } else if (node.kind === SyntaxKind.ExportDeclaration && node.moduleSpecifier !== undefined) {
      at('export', literalText(node.moduleSpecifier), node.isTypeOnly)
    } else if (node.kind === SyntaxKind.ImportEqualsDeclaration && node.moduleReference.kind === SyntaxKind.ExternalModuleReference) {
      at('import', literalText(node.moduleReference.expression), node.isTypeOnly)
    } else if (node.kind === SyntaxKind.CallExpression && node.expression.kind === SyntaxKind.ImportKeyword) {
      at('dynamic', node.arguments.length > 0 ? literalText(node.arguments[0]) : null, false)
    } else if (node.kind === SyntaxKind.ImportType) {
      at('dynamic', literalText(node.argument.literal), true)
    }
  }
  return refs
}

/**
 * The import edges between the given files: `from -> [to]`, both repo-relative, to files in the set
 * (a `.js` specifier names its `.ts` source). Type-only imports count unless `runtimeOnly`.
 */
export function importEdges(files: ReadonlyMap<string, SourceFile>, runtimeOnly = false): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const [path, file] of files) {
    const targets = parseImports(file)
      .filter((ref) => (!runtimeOnly || !ref.typeOnly) && ref.specifier?.startsWith('.'))
      .map((ref) => posix.join(posix.dirname(path), ref.specifier!).replace(/\.js$/, '.ts'))
      .filter((target) => files.has(target))
    edges.set(path, [...new Set(targets)])
  }
  return edges
}

/** Each cycle of a directed graph once, as `a -> b -> a` (a depth-first search; bounded by the graph's size). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = []
  const done = new Set<string>()
  const stack: string[] = []
  const visit = (node: string): void => {
    const at = stack.indexOf(node)
    if (at !== -1) {
      // Written from its least node, so that a cycle reads the same whichever node the search met first.
      const ring = stack.slice(at)
      const least = ring.indexOf([...ring].sort()[0]!)
      const from = [...ring.slice(least), ...ring.slice(0, least)]
      found.push([...from, from[0]].join(' -> '))
      return
    }
    if (done.has(node)) return
    stack.push(node)
    for (const next of graph.get(node) ?? []) visit(next)
    stack.pop()
    done.add(node)
  }
  for (const node of [...graph.keys()].sort()) visit(node)
  return found
}

/** The files reached from `roots` along `edges` (the roots included). */
export function reachedFrom(roots: readonly string[], edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const reached = new Set<string>()
  const queue = [...roots]
  while (queue.length > 0) {
    const path = queue.pop()!
    if (reached.has(path)) continue
    reached.add(path)
    queue.push(...(edges.get(path) ?? []))
  }
  return reached
}

// ---------------------------------------------------------------------------------------------
// Functions and the opening comment.

export interface FunctionSpan {
  /** The declared name, the variable or property it is assigned to, or `<anonymous>`. */
  readonly name: string
  readonly line: number
  /** Lines from the first line of the function to the line of its closing brace, both included. */
  readonly lines: number
}

const FUNCTIONS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
])

const nameText = (name: Any): string | null => (name && typeof name.text === 'string' ? name.text : null)

function functionName(node: Any): string {
  if (node.kind === SyntaxKind.Constructor) return 'constructor'
  const own = nameText(node.name)
  if (own !== null) return own
  const parent = node.parent
  if (parent?.kind === SyntaxKind.VariableDeclaration || parent?.kind === SyntaxKind.PropertyAssignment) {
    return nameText(parent.name) ?? '<anonymous>'
  }
  if (parent?.kind === SyntaxKind.PropertyDeclaration) return nameText(parent.name) ?? '<anonymous>'
  return '<anonymous>'
}

/** Every function of a file with a body (declarations, expressions, arrows, methods, accessors, constructors), outer before inner. */
export function functionSpans(file: SourceFile): FunctionSpan[] {
  return nodes(file)
    .filter((node) => FUNCTIONS.has(node.kind) && node.body !== undefined)
    .map((node) => ({ name: functionName(node), line: lineOf(node), lines: lineAt(node, node.end) - lineOf(node) + 1 }))
}

/** The comment lines a source opens with (a `/* … *\/` block or consecutive `//` lines), without their markers; [] if code comes first. */
export function openingComment(source: string): string[] {
  const text = source
    .replace(/^\uFEFF/, '')
    .replace(/^#!.*\n/, '')
    .trimStart()
  let lines: string[] = []
  if (text.startsWith('/*')) {
    const end = text.indexOf('*/')
    if (end === -1) return []
    lines = text
      .slice(2, end)
      .split('\n')
      .map((l) => l.replace(/^\s*\*+/, '').trim())
  } else {
    for (const l of text.split('\n')) {
      const trimmed = l.trim()
      if (!trimmed.startsWith('//')) break
      lines.push(trimmed.slice(2).trim())
    }
  }
  return lines.filter((l) => l !== '')
}

// ---------------------------------------------------------------------------------------------
// Object types, fetch calls, names in code.

/** The object types a source declares (`interface N {…}`, `type N = {…}`), each with its sorted member names. */
export function objectShapes(file: SourceFile): Map<string, string[]> {
  const shapes = new Map<string, string[]>()
  for (const node of nodes(file)) {
    const body =
      node.kind === SyntaxKind.InterfaceDeclaration
        ? node.members
        : node.kind === SyntaxKind.TypeAliasDeclaration && node.type.kind === SyntaxKind.TypeLiteral
          ? node.type.members
          : undefined
    if (body === undefined) continue
    const members = (body as Any[])
      .filter((m) => m.kind === SyntaxKind.PropertySignature || m.kind === SyntaxKind.MethodSignature)
      .map((m) => m.name.text as string)
    shapes.set(node.name.text, members.sort())
  }
  return shapes
}

/**
 * Object types declared with the same members (two or more) in files of different groups (`groupOf`
 * a path), whatever their names: a contract between layers that may not import each other is
 * declared once, in the layer that reads it.
 */
export function sameShapes(files: ReadonlyMap<string, SourceFile>, groupOf: (path: string) => string): string[] {
  const seen = new Map<string, { path: string; name: string }>()
  const problems: string[] = []
  for (const [path, file] of files) {
    for (const [name, members] of objectShapes(file)) {
      if (members.length < 2) continue
      const key = members.join(',')
      const earlier = seen.get(key)
      if (earlier === undefined) seen.set(key, { path, name })
      else if (groupOf(earlier.path) !== groupOf(path)) {
        problems.push(`${earlier.path} ${earlier.name} and ${path} ${name} declare the same members (${members.join(', ')})`)
      }
    }
  }
  return problems
}

const GLOBAL_OBJECTS = new Set(['globalThis', 'window', 'self', 'global'])

/** Lines that call the global fetch (a method named fetch on another object is not counted). */
export function globalFetchCalls(file: SourceFile): number[] {
  const lines: number[] = []
  for (const node of nodes(file)) {
    if (node.kind !== SyntaxKind.CallExpression) continue
    const callee = node.expression
    const global = (owner: Any) => owner.kind === SyntaxKind.Identifier && GLOBAL_OBJECTS.has(owner.text)
    const http =
      (callee.kind === SyntaxKind.Identifier && callee.text === 'fetch') ||
      (callee.kind === SyntaxKind.PropertyAccessExpression && callee.name.text === 'fetch' && global(callee.expression)) ||
      (callee.kind === SyntaxKind.ElementAccessExpression &&
        literalText(callee.argumentExpression) === 'fetch' &&
        global(callee.expression))
    if (http) lines.push(lineOf(node))
  }
  return lines
}

const NAMED = new Set([
  SyntaxKind.Identifier,
  SyntaxKind.PrivateIdentifier,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateHead,
  SyntaxKind.TemplateMiddle,
  SyntaxKind.TemplateTail,
])

/** The names and texts of `file`'s code (identifiers, strings, template text; not comments), each with its line. */
export function codeTexts(file: SourceFile): { text: string; line: number }[] {
  return nodes(file)
    .filter((node) => NAMED.has(node.kind))
    .map((node) => ({ text: node.text as string, line: lineOf(node) }))
}

/** `name (line)` for each of `names` found in the code of `file` (identifiers, strings, template text; not comments), ignoring case. */
export function namesIn(file: SourceFile, names: readonly string[]): string[] {
  const wanted = names.map((n) => n.toLowerCase())
  const found: string[] = []
  for (const { text, line } of codeTexts(file)) {
    const lower = text.toLowerCase()
    for (const name of wanted) if (lower.includes(name)) found.push(`${name} (line ${line})`)
  }
  return found
}

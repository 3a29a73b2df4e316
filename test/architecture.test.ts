// Enforces the layout of DESIGN.md section 3 (docs/design.md, "Layers and the dependency rule") by
// reading the sources with the TypeScript compiler's own parser: the dependency table, no import
// cycles, the opening comment of each module's main file, HTTP only in api/, and a core that never
// names a particular resource. Every check is a function over parsed sources, unit-tested below on
// inline sources so that it is seen to fail, then run over the real tree under src/.
//
// The rules, as enforced here (a relative specifier is resolved to the top-level folder under src/;
// bare specifiers such as `node:http2` or `@msgpack/msgpack` are external and always allowed):
//
//   api/         nothing internal; inside it, the HTTP transport (api/transport.ts) never imports
//                the order mechanism api/orders/, which sits above it
//   core/        nothing internal
//   resources/   core/, api/
//   server/      core/, resources/index.ts (the registry); `import type` from api/ (the OperationFrame it produces)
//   grpc/        nothing internal        (unary gRPC over node:http2, shared by the front ends)
//   terraform/   server/, core/, grpc/   (not pulumi/, api/, emulator/, resources/)
//   pulumi/      server/, core/, grpc/   (not terraform/, api/, emulator/, resources/)
//   emulator/    `import type` / `export type` from api/, nothing else
//   bin/         anything (entry points wire the modules together)
//
// - Test files (`*.test.ts`) inside a module obey their module's rule, and may in addition import
//   src/emulator/ (in-process testing) and the shared harness under test/. Only `*.test.ts` files get
//   this; helpers beside them ship under src/ and obey the module rule as they are. Files under test/,
//   bench/ and scripts/ are not in the table. A row whose folder does not exist yet holds trivially.
// - Only whole-statement `import type` / `export type` is type-only. `import { type A } from` is NOT:
//   under verbatimModuleSyntax it compiles to `import {} from`, which still loads the module.
//   A type query or type reference (`typeof import('x')`, `import('x').T`) is erased and type-only.
// - A dynamic import() whose argument is not a string literal cannot be checked, so it is refused
//   outside bin/. A folder under src/ that has no row, or a file directly in src/, is refused too:
//   a new module needs a decision in DESIGN first.
// - Cycles: neither the table nor the files under src/ (their run-time imports) form a cycle.
// - Main files: every module folder that exists (bin/ aside), and api/orders/, has an index.ts that
//   opens with a comment of three or more lines saying what must not happen there.
// - HTTP: outside src/api/, no call of the global fetch (`fetch(…)`, `globalThis.fetch(…)`). The
//   emulator (its handlers are fetch functions) and test files are exempt; calling a method named
//   fetch on an object (`emulator.fetch(request)`) is not HTTP and is allowed everywhere.
// - Core: no resource type name (lite_vm, baremetal, provider_lite, their camel forms, and every name
//   the resource registry serves) in code: identifiers, string and template text of non-test files.
//   Comments may cite names as examples, and core's tests use real names as name-derivation data;
//   neither branches on a resource.
//
// TypeScript 7 has no in-process parser: `typescript/unstable/sync` starts its compiler (tsgo) and
// hands back the syntax trees, so one process parses a whole batch of sources.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast'
import { createVirtualFileSystem } from 'typescript/unstable/fs'
import { API } from 'typescript/unstable/sync'

// ---------------------------------------------------------------------------------------------
// Parsing.

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

const lineOf = (node: Node): number => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1

// biome-ignore lint/suspicious/noExplicitAny: the remote syntax tree exposes every field on every node
type Any = any
const literalText = (node: Any): string | null =>
  node?.kind === SyntaxKind.StringLiteral || node?.kind === SyntaxKind.NoSubstitutionTemplateLiteral ? node.text : null

// ---------------------------------------------------------------------------------------------
// Imports.

export interface ImportRef {
  /** The module specifier; null for a dynamic import() of a computed value. */
  readonly specifier: string | null
  readonly line: number
  readonly kind: 'import' | 'export' | 'dynamic'
  /** Erased at compile time: `import type`, `export type`, `typeof import()`, `import('x').T`. */
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

// ---------------------------------------------------------------------------------------------
// The dependency table.

interface Rule {
  /** Modules (`core`) or single files (`resources/index`, relative to src/, no extension) this one may import. */
  readonly may: readonly string[]
  /** Modules this one may reach with type-only imports alone. */
  readonly typeOnly?: readonly string[]
  readonly any?: true
}

export const RULES: Readonly<Record<string, Rule>> = {
  api: { may: [] },
  core: { may: [] },
  resources: { may: ['core', 'api'] },
  server: { may: ['core', 'resources/index'], typeOnly: ['api'] },
  grpc: { may: [] },
  terraform: { may: ['server', 'core', 'grpc'] },
  pulumi: { may: ['server', 'core', 'grpc'] },
  emulator: { may: [], typeOnly: ['api'] },
  bin: { may: [], any: true },
}

/** Rules inside one module: non-test files at or under `from` must not import files at or under `to` (under src/, no extension). */
export const INNER_RULES: readonly { from: string; to: string; why: string }[] = [
  { from: 'api/transport', to: 'api/orders', why: 'the orders sit above the HTTP transport, which never calls back into them' },
]

/** What a `*.test.ts` inside a module may import beyond its module's rule. */
export const TEST_EXTRAS: readonly string[] = ['emulator', 'test']

const SOURCE_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/
/** `path` is `prefix` itself or a path inside the folder `prefix`. */
const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)
const TEST_FILE = /\.test\.(ts|mts|cts|tsx|js|mjs|cjs)$/

/** The area a repo-relative path belongs to: a module under src/ (`api`), `src` for a loose file, `test`, or `outside`. */
export function areaOf(path: string): string {
  const parts = posix.normalize(path).split('/')
  if (parts[0] === 'src') return parts.length > 2 ? parts[1]! : 'src'
  if (parts[0] === 'test') return 'test'
  return 'outside'
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
  for (const ref of parseImports(file)) {
    const where = `${path}:${ref.line}`
    if (ref.specifier === null) {
      problems.push(`${where}: import() of a computed specifier cannot be checked`)
      continue
    }
    if (ref.specifier.startsWith('/') || ref.specifier.startsWith('file:')) {
      problems.push(`${where}: absolute import '${ref.specifier}'`)
      continue
    }
    if (!ref.specifier.startsWith('.')) continue // a package or a node: builtin
    const targetPath = posix.join(posix.dirname(path), ref.specifier)
    const target = areaOf(targetPath)
    const inSrc = targetPath.replace(/^src\//, '').replace(SOURCE_FILE, '')
    const inner = INNER_RULES.find(
      (r) => !isTest && within(path.replace(/^src\//, '').replace(SOURCE_FILE, ''), r.from) && within(inSrc, r.to),
    )
    if (inner !== undefined) problems.push(`${where}: imports '${ref.specifier}' (src/${inner.to}/): ${inner.why}`)
    if (target === from || rule.may.includes(target) || rule.may.includes(inSrc)) continue
    if (ref.typeOnly && rule.typeOnly?.includes(target)) continue
    if (isTest && TEST_EXTRAS.includes(target)) continue
    const shown = target === 'test' || target === 'outside' ? target : `${target}/`
    const hint = rule.typeOnly?.includes(target) ? ' (only as `import type`)' : ''
    problems.push(
      `${where}: imports '${ref.specifier}' (${shown})${hint}; ${describeRule(from, rule)}${isTest ? ', and as a test emulator/ and test/' : ''}`,
    )
  }
  return problems
}

/** The run-time import edges between the given files: `from -> to`, both repo-relative, to a file that is in the set. */
export function runtimeEdges(files: ReadonlyMap<string, SourceFile>): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const [path, file] of files) {
    const targets = parseImports(file)
      .filter((ref) => !ref.typeOnly && ref.specifier?.startsWith('.'))
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
      found.push([...stack.slice(at), node].join(' -> '))
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

// ---------------------------------------------------------------------------------------------
// Contracts between layers that may not import each other.

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
 * Object types that core/ and api/ both declare with the same members. The two may not import each
 * other, so a contract between them (what the API client reads from the operation core runs) is
 * declared once, in the layer that reads it; resources/, which wires them, checks the fit.
 */
export function sharedShapes(files: ReadonlyMap<string, SourceFile>): string[] {
  const seen = new Map<string, { path: string; name: string }>()
  const problems: string[] = []
  for (const [path, file] of files) {
    for (const [name, members] of objectShapes(file)) {
      if (members.length < 2) continue
      const key = members.join(',')
      const earlier = seen.get(key)
      if (earlier === undefined) seen.set(key, { path, name })
      else if (areaOf(earlier.path) !== areaOf(path)) {
        problems.push(`${earlier.path} ${earlier.name} and ${path} ${name} declare the same members (${members.join(', ')})`)
      }
    }
  }
  return problems
}

// ---------------------------------------------------------------------------------------------
// Main files, HTTP, resource names.

/** Why a module's main file does not open with a three-line comment saying what must not live there; null if it does. */
export function headerProblem(source: string): string | null {
  const text = source.replace(/^\uFEFF/, '')
  let lines: string[]
  if (text.startsWith('/*')) {
    const end = text.indexOf('*/')
    if (end === -1) return 'unterminated opening comment'
    lines = text
      .slice(2, end)
      .split('\n')
      .map((l) => l.replace(/^\s*\*?/, '').trim())
  } else {
    lines = []
    for (const l of text.split('\n')) {
      const trimmed = l.trim()
      if (!trimmed.startsWith('//')) break
      lines.push(trimmed.slice(2).trim())
    }
  }
  lines = lines.filter((l) => l !== '')
  if (lines.length < 3) return `opens with ${lines.length} comment line(s), not three or more`
  if (!/\b(must not|may not|never|nothing|not|no)\b/i.test(lines.join(' ')))
    return 'the opening comment does not say what must not live here'
  return null
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

/** Resource type names that shared code must never contain; matched case-insensitively. */
export const RESOURCE_NAMES: readonly string[] = ['lite_vm', 'litevm', 'baremetal', 'provider_lite', 'providerlite']

const NAMED = new Set([
  SyntaxKind.Identifier,
  SyntaxKind.PrivateIdentifier,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateHead,
  SyntaxKind.TemplateMiddle,
  SyntaxKind.TemplateTail,
])

/** `name (line)` for each resource type name found in the code of `file` (comments excluded). */
export function resourceNamesIn(file: SourceFile, names: readonly string[] = RESOURCE_NAMES): string[] {
  const wanted = names.map((n) => n.toLowerCase())
  const found: string[] = []
  for (const node of nodes(file)) {
    if (!NAMED.has(node.kind)) continue
    const text = (node.text as string).toLowerCase()
    for (const name of wanted) if (text.includes(name)) found.push(`${name} (line ${lineOf(node)})`)
  }
  return found
}

// ---------------------------------------------------------------------------------------------
// Unit tests of the checks on inline sources.

// `${` spelled out, so that the sources below may hold template literals without lint taking them for mistakes.
const $ = '\u0024{'
const specs = (source: string) => parseImports(parse(source)).map((r) => `${r.kind}${r.typeOnly ? ' type' : ''} ${r.specifier}`)

describe('import parser', () => {
  test('static imports of every shape', () => {
    const source = [
      "import a from './a.js'",
      "import * as b from './b.js'",
      "import c, { d, e as f } from './c.js'",
      'import {',
      '  g,',
      '  type H,',
      "} from './g.js'",
      "import './side-effect.js'",
      'import x from "./double.js";',
      "import json from './data.json' with { type: 'json' }",
      "import req = require('./required.js')",
    ].join('\n')
    assert.deepEqual(specs(source), [
      'import ./a.js',
      'import ./b.js',
      'import ./c.js',
      'import ./g.js',
      'import ./side-effect.js',
      'import ./double.js',
      'import ./data.json',
      'import ./required.js',
    ])
    assert.deepEqual(
      parseImports(parse(source)).map((r) => r.line),
      [1, 2, 3, 4, 8, 9, 10, 11],
    )
  })

  test('type-only means the whole statement, not inline type specifiers', () => {
    const source = [
      "import type { A } from './a.js'",
      "import type * as B from './b.js'",
      "import type C from './c.js'",
      "import { type D } from './d.js'", // compiles to `import {} from './d.js'`: the module still loads
      "import type from './default-named-type.js'",
      "import type, { e } from './default-named-type-2.js'",
      "export type { F } from './f.js'",
      "export type * from './g.js'",
      "export { type H } from './h.js'",
    ].join('\n')
    assert.deepEqual(specs(source), [
      'import type ./a.js',
      'import type ./b.js',
      'import type ./c.js',
      'import ./d.js',
      'import ./default-named-type.js',
      'import ./default-named-type-2.js',
      'export type ./f.js',
      'export type ./g.js',
      'export ./h.js',
    ])
  })

  test('re-exports, and exports that are not re-exports', () => {
    const source = [
      "export * from './a.js'",
      "export * as b from './b.js'",
      "export { c, d as e } from './c.js'",
      'export { local }',
      'export const from = 1',
      "export type Shape = { from: 'x' }",
      "export default { from: './not-an-import.js' }",
      "export function f() { return './nope.js' }",
    ].join('\n')
    assert.deepEqual(specs(source), ['export ./a.js', 'export ./b.js', 'export ./c.js'])
  })

  test('dynamic import(), type imports, computed specifiers', () => {
    const source = [
      "const http2 = await import('node:http2')",
      "const m = await import('../api/index.js', { with: {} })",
      "type Client = typeof import('../api/index.js')",
      "type Options = import('../api/options.js').Options",
      'const computed = await import(name)',
      "const concatenated = await import('./' + name)",
      'const url = import.meta.url',
      'const s = `' + $ + "await import('./in-template.js')}`",
    ].join('\n')
    assert.deepEqual(specs(source), [
      'dynamic node:http2',
      'dynamic ../api/index.js',
      'dynamic type ../api/index.js',
      'dynamic type ../api/options.js',
      'dynamic null',
      'dynamic null',
      'dynamic ./in-template.js',
    ])
  })

  test('comments, strings, templates, regexes and properties are not imports', () => {
    const source = [
      "// import a from './comment.js'",
      "/* import b from './block.js'",
      "   export * from './block2.js' */",
      'const s = "import c from \'./string.js\'"',
      "const t = `import d from './template.js'`",
      "const r = /['\"]import e from '.\\/regex.js'/",
      "const o = { import: 'x', export: 'y' }",
      "loader.import('./method.js')",
      "const afterDivision = a / b; import f from './real.js'",
    ].join('\n')
    assert.deepEqual(specs(source), ['import ./real.js'])
    assert.equal(parseImports(parse(source))[0]!.line, 9)
  })

  test('line numbers hold across comments, strings and templates', () => {
    const source = '/*\n\n*/\nconst t = `a\n' + $ + "1}\nb`\nimport z from './z.js'"
    assert.deepEqual(parseImports(parse(source)), [{ specifier: './z.js', line: 7, kind: 'import', typeOnly: false }])
  })
})

describe('dependency table', () => {
  const violations = (path: string, source: string) => dependencyViolations(path, parse(source)).length

  test('api/ and core/ import nothing internal', () => {
    assert.equal(violations('src/api/client.ts', "import { x } from './transport.js'\nimport { y } from 'node:http'"), 0)
    assert.equal(violations('src/api/client.ts', "import { definition } from '../core/index.js'"), 1)
    assert.equal(violations('src/core/plan.ts', "import type { Client } from '../api/index.js'"), 1)
    assert.equal(violations('src/core/plan.ts', "export * from '../resources/index.js'"), 1)
    assert.equal(violations('src/core/plan.ts', "import { serve } from '../server/index.js'"), 1)
    assert.equal(violations('src/core/deep/plan.ts', "import { a } from '../../terraform/index.js'"), 1)
  })

  test('inside api/, the orders call the transport and the transport never calls the orders', () => {
    assert.equal(violations('src/api/orders/journal.ts', "import { request } from '../transport.js'"), 0)
    assert.equal(violations('src/api/lite.ts', "import { placeOrder } from './orders/index.js'"), 0)
    assert.equal(violations('src/api/transport.ts', "import { placeOrder } from './orders/index.js'"), 1)
    assert.equal(violations('src/api/transport.ts', "import type { Order } from './orders/journal.js'"), 1)
    assert.equal(violations('src/api/transport/retry.ts', "import { keys } from '../orders/keys.js'"), 1)
    assert.equal(violations('src/api/transport.test.ts', "import { placeOrder } from './orders/index.js'"), 0)
  })

  test('resources/ may import core/ and api/, nothing else', () => {
    assert.equal(violations('src/resources/lite-vm.ts', "import { a } from '../core/index.js'\nimport { b } from '../api/index.js'"), 0)
    assert.equal(violations('src/resources/lite-vm.ts', "import { a } from '../terraform/index.js'"), 1)
    assert.equal(violations('src/resources/lite-vm.ts', "import { a } from '../server/index.js'"), 1)
    assert.equal(violations('src/resources/lite-vm.ts', "const e = await import('../emulator/index.js')"), 1)
  })

  test('server/ may import core/, the resource registry, and types of api/', () => {
    const fine =
      "import { a } from '../core/index.js'\nimport { resources } from '../resources/index.js'\nimport type { OperationFrame } from '../api/index.js'"
    assert.equal(violations('src/server/registry.ts', fine), 0)
    assert.equal(violations('src/server/configure.ts', "import { createClient } from '../api/index.js'"), 1)
    assert.equal(violations('src/server/registry.ts', "import { liteVm } from '../resources/lite-vm.js'"), 1)
    assert.equal(violations('src/server/configure.ts', "import { request } from '../api/transport.js'"), 1)
    assert.equal(violations('src/server/configure.ts', "import { journal } from '../api/orders/index.js'"), 1)
    assert.equal(violations('src/server/configure.ts', "import { serve } from '../terraform/index.js'"), 1)
    assert.equal(violations('src/server/configure.ts', "import { grpc } from '../grpc/index.js'"), 1)
    assert.equal(violations('src/server/configure.ts', "import type { Store } from '../emulator/index.js'"), 1)
  })

  test('front ends may import server/, core/ and grpc/ only', () => {
    assert.equal(violations('src/terraform/schema.ts', "import { a } from '../core/index.js'\nimport { s } from '../server/index.js'"), 0)
    assert.equal(violations('src/pulumi/schema.ts', "import { a } from '../grpc/index.js'\nimport { s } from '../server/index.js'"), 0)
    assert.equal(violations('src/terraform/schema.ts', "import { a } from '../pulumi/index.js'"), 1)
    assert.equal(violations('src/pulumi/schema.ts', "import { a } from '../terraform/index.js'"), 1)
    assert.equal(violations('src/terraform/schema.ts', "import type { Client } from '../api/index.js'"), 1)
    assert.equal(violations('src/pulumi/schema.ts', "import { journal } from '../api/orders/index.js'"), 1)
    assert.equal(violations('src/terraform/schema.ts', "import { resources } from '../resources/index.js'"), 1)
    assert.equal(violations('src/pulumi/serve.ts', "import { createEmulator } from '../emulator/index.js'"), 1)
  })

  test('emulator/ may import api/ wire types with `import type` only', () => {
    assert.equal(violations('src/emulator/model.ts', "import type { Keypair } from '../api/index.js'"), 0)
    assert.equal(violations('src/emulator/model.ts', "export type { Keypair } from '../api/models.js'"), 0)
    assert.equal(violations('src/emulator/model.ts', "import { type Keypair } from '../api/index.js'"), 1)
    assert.equal(violations('src/emulator/model.ts', "import { redact } from '../api/index.js'"), 1)
    assert.equal(violations('src/emulator/model.ts', "import type { Value } from '../core/index.js'"), 1)
    assert.equal(violations('src/emulator/model.ts', "import type { Session } from '../server/index.js'"), 1)
  })

  test('test files may also import the emulator and the harness under test/', () => {
    assert.equal(violations('src/core/core.test.ts', "import { createEmulator } from '../emulator/index.js'"), 0)
    assert.equal(violations('src/terraform/x.test.ts', "import { harness } from '../../test/harness.js'"), 0)
    assert.equal(violations('src/emulator/x.test.ts', "import { harness } from '../../test/harness.js'"), 0)
    assert.equal(violations('src/core/box-support.ts', "import { createEmulator } from '../emulator/index.js'"), 1)
    assert.equal(violations('src/emulator/x.ts', "import { harness } from '../../test/harness.js'"), 1)
    assert.equal(violations('src/terraform/x.test.ts', "import { resources } from '../resources/index.js'"), 1)
    assert.equal(violations('src/emulator/x.test.ts', "import { createClient } from '../api/index.js'"), 1)
  })

  test('bin/ and files outside src/ may import anything; no one imports bin/', () => {
    assert.equal(
      violations('src/bin/provider.ts', "import { a } from '../emulator/index.js'\nimport { b } from '../terraform/index.js'"),
      0,
    )
    assert.equal(violations('test/e2e.test.ts', "import { a } from '../src/emulator/index.js'"), 0)
    assert.equal(violations('src/resources/x.ts', "import { VERSION } from '../bin/terraform-provider.js'"), 1)
  })

  test('unknown modules, loose files, computed and absolute specifiers are refused', () => {
    assert.equal(violations('src/shared/x.ts', ''), 1)
    assert.equal(violations('src/x.ts', ''), 1)
    assert.equal(violations('src/core/x.ts', 'await import(name)'), 1)
    assert.equal(violations('src/core/x.ts', "import a from '/work/main/src/api/index.js'"), 1)
    assert.match(dependencyViolations('src/core/x.ts', parse("\n\nimport { b } from '../api/index.js'"))[0]!, /^src\/core\/x\.ts:3: /)
  })
})

describe('cycles', () => {
  test('a cycle is found once, whatever its length; a diamond is no cycle', () => {
    const graph = new Map([
      ['a', ['b', 'c']],
      ['b', ['d']],
      ['c', ['d']],
      ['d', []],
      ['x', ['y']],
      ['y', ['z']],
      ['z', ['x']],
      ['self', ['self']],
    ])
    assert.deepEqual(cycles(graph), ['self -> self', 'x -> y -> z -> x'])
  })

  test('run-time imports between files make the graph; type-only imports do not', () => {
    const files = parseAll({
      'src/core/a.ts': "import { b } from './b.js'\nimport type { C } from './c.js'",
      'src/core/b.ts': "export { a } from './a.js'",
      'src/core/c.ts': "import { a } from './a.js'",
    })
    assert.deepEqual(Object.fromEntries(runtimeEdges(files)), {
      'src/core/a.ts': ['src/core/b.ts'],
      'src/core/b.ts': ['src/core/a.ts'],
      'src/core/c.ts': ['src/core/a.ts'],
    })
    assert.deepEqual(cycles(runtimeEdges(files)), ['src/core/a.ts -> src/core/b.ts -> src/core/a.ts'])
  })
})

describe('contracts between core/ and api/', () => {
  test('object types and their members; nested objects, parameters and type arguments are not members', () => {
    const source = [
      'export interface Frame<T> extends Base {',
      '  /** a comment: not a member */',
      '  readonly scope?: string | undefined',
      '  timeoutMs: Map<string, number>',
      '  onFinish(callback: (x: { inner: number }) => void): void',
      '  nested: { deep: string; deeper?: number }',
      '}',
      'type Local = { a: number; readonly b?: string }',
      'type Alias = string | number',
    ].join('\n')
    assert.deepEqual(Object.fromEntries(objectShapes(parse(source))), {
      Frame: ['nested', 'onFinish', 'scope', 'timeoutMs'],
      Local: ['a', 'b'],
    })
  })
  test('the same members declared in both layers are refused, whatever the names; within one layer they are not', () => {
    const files = parseAll({
      'src/core/operation.ts': 'export interface OperationFrame { readonly scope: string; onFinish(f: () => void): void }',
      'src/api/transport.ts': 'export interface Frame {\n  scope?: string\n  onFinish(callback: () => void): void\n}',
      'src/core/other.ts': 'interface Twin { scope: string; onFinish(): void }',
    })
    const only = (...paths: string[]) => new Map(paths.map((p) => [p, files.get(p)!]))
    assert.equal(sharedShapes(only('src/core/operation.ts', 'src/api/transport.ts')).length, 1)
    assert.match(sharedShapes(only('src/core/operation.ts', 'src/api/transport.ts'))[0]!, /OperationFrame.*Frame.*\(onFinish, scope\)/)
    assert.deepEqual(sharedShapes(only('src/core/operation.ts', 'src/core/other.ts')), [])
  })
})

describe('main files, HTTP and resource names', () => {
  test('a main file opens with three comment lines that say what must not live there', () => {
    assert.equal(headerProblem('// What lives here.\n// More of it.\n// Nothing here may import api/.\nexport {}'), null)
    assert.equal(headerProblem('/*\n * What lives here.\n * More.\n * Must not: HTTP.\n */\nexport {}'), null)
    assert.match(headerProblem('// What lives here.\n// Must not: HTTP.\nexport {}') ?? '', /2 comment line/)
    assert.match(headerProblem('export {}\n// a\n// b\n// c') ?? '', /0 comment line/)
    assert.match(headerProblem('// What lives here.\n// More.\n// And more.\nexport {}') ?? '', /must not/)
  })

  test('only calls of the global fetch count', () => {
    const source = [
      'const a = await fetch(url)',
      'const b = await globalThis.fetch(url, { method: "POST" })',
      'const c = await emulator.fetch(request)',
      'const d = await options?.fetch(request)',
      '// fetch(in a comment)',
      'const e = "fetch(in a string)"',
      'class Twin { async fetch(request: Request): Promise<Response> { return x } }',
      'const f = { fetch(request) { return x } }',
      'const g = globalThis?.fetch(url)',
      "const h = globalThis['fetch'](url)",
    ].join('\n')
    assert.deepEqual(globalFetchCalls(parse(source)), [1, 2, 9, 10])
  })

  test('resource names in code are found; in comments they are not', () => {
    const source = [
      '// e.g. lite_vm',
      "if (definition.name === 'lite_vm') special()",
      'const isBaremetal = true',
      'const t = `provider_lite_' + $ + 'kind}`',
      'const ok = definition.name',
      '/** see {@link baremetal} */',
    ].join('\n')
    assert.deepEqual(resourceNamesIn(parse(source)), ['lite_vm (line 2)', 'baremetal (line 3)', 'provider_lite (line 4)'])
  })
})

// ---------------------------------------------------------------------------------------------
// The real tree.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const exists = (path: string) => statSync(posix.join(ROOT, path), { throwIfNoEntry: false }) !== undefined

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(posix.join(ROOT, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sourceFiles(path))
    else if (SOURCE_FILE.test(entry.name)) out.push(path)
  }
  return out.sort()
}

const read = (path: string) => readFileSync(posix.join(ROOT, path), 'utf8')

describe('the tree under src/', () => {
  const paths = sourceFiles('src')
  const tree = parseAll(Object.fromEntries(paths.map((path) => [path, read(path)])))
  const where = (keep: (path: string) => boolean) => new Map([...tree].filter(([path]) => keep(path)))

  test('every import follows the dependency table', () => {
    const problems = [...tree].flatMap(([path, file]) => dependencyViolations(path, file))
    assert.deepEqual(problems, [], `imports against DESIGN.md's table:\n${problems.join('\n')}`)
  })

  test('the scan sees the edges the table is about (a parser that finds nothing fails here)', () => {
    const edges = new Set<string>()
    for (const [path, file] of tree) {
      for (const ref of parseImports(file)) {
        if (ref.specifier?.startsWith('.')) edges.add(`${areaOf(path)}->${areaOf(posix.join(posix.dirname(path), ref.specifier))}`)
      }
    }
    for (const edge of ['resources->core', 'resources->api', 'terraform->core', 'bin->terraform', 'bin->emulator']) {
      assert.ok(edges.has(edge), `no ${edge} import found; edges seen: ${[...edges].sort().join(', ')}`)
    }
  })

  test('no cycles: neither between modules in the table nor between files', () => {
    const table = new Map(
      Object.entries(RULES).map(([m, rule]) => [m, [...rule.may, ...(rule.typeOnly ?? [])].map((t) => t.split('/')[0]!)]),
    )
    assert.deepEqual(cycles(table), [], 'the dependency table has a cycle')
    const edges = runtimeEdges(tree)
    assert.ok(
      [...edges.values()].some((targets) => targets.length > 0),
      'no import between files under src/ was found',
    )
    const found = cycles(edges)
    assert.deepEqual(found, [], `import cycles under src/:\n${found.join('\n')}`)
  })

  test('nothing under src/ exists only for the tests: every other file is reached from an entry point in src/bin/', () => {
    const edges = new Map<string, string[]>()
    for (const [path, file] of tree) {
      const targets = parseImports(file)
        .filter((ref) => ref.specifier?.startsWith('.'))
        .map((ref) => posix.join(posix.dirname(path), ref.specifier!).replace(/\.js$/, '.ts'))
        .filter((target) => tree.has(target))
      edges.set(path, targets)
    }
    const reached = new Set<string>()
    const queue = [...tree.keys()].filter((path) => areaOf(path) === 'bin' && !TEST_FILE.test(path))
    assert.ok(queue.length > 0, 'no entry point under src/bin/')
    while (queue.length > 0) {
      const path = queue.pop()!
      if (reached.has(path)) continue
      reached.add(path)
      queue.push(...(edges.get(path) ?? []))
    }
    // A module's main file is its public entry point even where the executables import its parts directly (start-up cost).
    const main = (path: string) => /^src\/[^/]+(\/orders)?\/index\.ts$/.test(path)
    // Generated protocol code (src/terraform/gen/) comes whole from the .proto files, the messages the handshake answers raw included.
    const generated = (path: string) => path.startsWith('src/terraform/gen/')
    const orphans = [...tree.keys()].filter((path) => !TEST_FILE.test(path) && !reached.has(path) && !main(path) && !generated(path))
    assert.deepEqual(orphans, [], `files under src/ that no entry point uses (test support belongs under test/):\n${orphans.join('\n')}`)
  })

  test('each module main file opens with a three-line comment saying what must not live there', () => {
    const modules = [...Object.keys(RULES).filter((m) => m !== 'bin'), 'api/orders'].filter((m) => exists(`src/${m}`))
    assert.ok(modules.length >= 6, `module folders found: ${modules.join(', ')}`)
    const problems: string[] = []
    for (const module of modules) {
      const path = `src/${module}/index.ts`
      const problem = exists(path) ? headerProblem(read(path)) : 'missing'
      if (problem !== null) problems.push(`${path}: ${problem}`)
    }
    assert.deepEqual(problems, [])
  })

  test('a contract between core/ and api/ is declared once, not in each layer', () => {
    const problems = sharedShapes(where((path) => ['core', 'api'].includes(areaOf(path)) && !TEST_FILE.test(path)))
    assert.deepEqual(problems, [], `the same object type declared in core/ and api/:\n${problems.join('\n')}`)
  })

  test('HTTP only in api/: nothing else calls the global fetch (the emulator and tests excepted)', () => {
    const checked = where((path) => !['api', 'emulator'].includes(areaOf(path)) && !TEST_FILE.test(path))
    assert.ok(checked.size > 0)
    const problems = [...checked].flatMap(([path, file]) => globalFetchCalls(file).map((line) => `${path}:${line}`))
    assert.deepEqual(problems, [], `global fetch outside src/api/:\n${problems.join('\n')}`)
  })

  test('core never names a particular resource', async (t) => {
    const names = new Set(RESOURCE_NAMES)
    // Every type the registry serves, in snake, camel and Pascal case (matching ignores case). A registry
    // that does not load fails its own tests; here the fixed names still apply.
    try {
      const registry = (await import('../src/resources/index.js')) as {
        resources: readonly { name: string }[]
        dataSources: readonly { name: string }[]
      }
      for (const { name } of [...registry.resources, ...registry.dataSources]) {
        names.add(name)
        names.add(name.replaceAll('_', ''))
      }
      assert.ok(names.size > RESOURCE_NAMES.length, 'the resource registry served no names')
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error
      t.diagnostic(`resource registry not loaded (${String(error)}); checking the fixed names only`)
    }
    const core = where((path) => areaOf(path) === 'core' && !TEST_FILE.test(path))
    assert.ok(core.size > 0)
    const problems = [...core].flatMap(([path, file]) => resourceNamesIn(file, [...names]).map((hit) => `${path}: ${hit}`))
    assert.deepEqual(problems, [], `resource names in core/:\n${problems.join('\n')}`)
  })
})

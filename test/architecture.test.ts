// Enforces DESIGN §3 by reading the sources: the dependency table, the opening comment of each
// module's main file, HTTP only in api/, and a core that never names a particular resource.
// Every check is a pure function over source text, unit-tested below on inline sources so that it
// is seen to fail, then run over the real tree under src/.
//
// The rules, as enforced here (a relative specifier is resolved to the top-level folder under src/;
// bare specifiers such as `node:http2` or `@msgpack/msgpack` are external and always allowed):
//
//   api/         nothing internal
//   core/        nothing internal
//   resources/   core/, api/
//   grpc/        nothing internal        (unary gRPC over node:http2, shared by the front ends)
//   server/      core/; `import type` from api/ (the OperationFrame it produces)
//   terraform/   core/, grpc/, server/   (not pulumi/, api/, emulator/, resources/)
//   pulumi/      core/, grpc/, server/   (not terraform/, api/, emulator/, resources/)
//   emulator/    `import type` / `export type` from api/, nothing else
//   bin/         anything (entry points wire the modules together)
//
// - Test files (`*.test.ts`) inside a module obey their module's rule, and may in addition import
//   src/emulator/ (in-process testing) and the shared harness under test/. Only `*.test.ts` files get
//   this; helpers beside them (testing.ts, fake-fetch.ts, testing/…) ship under src/ and obey the
//   module rule as they are. Files under test/, bench/ and scripts/ are not in the table.
// - Only whole-statement `import type` / `export type` is type-only. `import { type A } from` is NOT:
//   under verbatimModuleSyntax it compiles to `import {} from`, which still loads the module.
//   `typeof import('x')` is a type and counts as type-only.
// - A dynamic import() whose argument is not a string literal cannot be checked, so it is refused
//   outside bin/. A folder under src/ that has no row, or a file directly in src/, is refused too:
//   a new module needs a decision in DESIGN first.
// - Main files: index.ts of api, core, resources, terraform, emulator (and pulumi once it exists)
//   opens with a comment of three or more lines that says what must not happen there.
// - HTTP: outside src/api/, no call of the global fetch (`fetch(…)`, `globalThis.fetch(…)`). The
//   emulator (its handlers are fetch functions) and test files are exempt; calling a method named
//   fetch on an object (`emulator.fetch(request)`) is not HTTP and is allowed everywhere.
// - Core: no resource type name (lite_vm, baremetal, provider_lite, their camel forms, and every name
//   the resource registry serves) in code: identifiers, string and template text of non-test files.
//   Comments may cite names as examples, and core's tests use real names as name-derivation data;
//   neither branches on a resource.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

// ---------------------------------------------------------------------------------------------
// A small lexer: enough of TypeScript to tell code from comments, strings, templates and regexes.

export interface Token {
  readonly kind: 'word' | 'string' | 'template' | 'number' | 'punct' | 'regex'
  readonly value: string
  readonly line: number
}

const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
])

function regexAllowed(prev: Token | undefined): boolean {
  if (prev === undefined) return true
  if (prev.kind === 'word') return REGEX_AFTER_WORD.has(prev.value)
  if (prev.kind === 'punct') return prev.value !== ')' && prev.value !== ']' && prev.value !== '}'
  return false
}

/** Tokens of the code; comments are dropped, string and template text kept as one token each. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  // One entry per open `${`: how many plain `{` are open inside that template expression.
  const templates: number[] = []
  let line = 1
  let i = 0
  const n = source.length
  const push = (kind: Token['kind'], value: string, at: number) => tokens.push({ kind, value, line: at })

  const readTemplate = (): void => {
    // i is just past a backtick or just past the `}` closing a template expression.
    const start = line
    let text = ''
    while (i < n) {
      const c = source[i]!
      if (c === '\\') {
        text += source.slice(i, i + 2)
        if (source[i + 1] === '\n') line++
        i += 2
      } else if (c === '`') {
        i++
        push('template', text, start)
        return
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2
        push('template', text, start)
        push('punct', '${', line)
        templates.push(0)
        return
      } else {
        if (c === '\n') line++
        text += c
        i++
      }
    }
    push('template', text, start)
  }

  while (i < n) {
    const c = source[i]!
    if (c === '\n') {
      line++
      i++
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\uFEFF') {
      i++
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end === -1 ? n : end + 2
      for (let k = i; k < stop; k++) if (source[k] === '\n') line++
      i = stop
    } else if (c === '"' || c === "'") {
      const start = line
      let value = ''
      i++
      while (i < n && source[i] !== c && source[i] !== '\n') {
        if (source[i] === '\\') {
          value += source[i + 1] ?? ''
          i += 2
        } else {
          value += source[i]
          i++
        }
      }
      i++
      push('string', value, start)
    } else if (c === '`') {
      i++
      readTemplate()
    } else if (c === '/' && regexAllowed(tokens.at(-1))) {
      const start = i
      let inClass = false
      i++
      while (i < n && source[i] !== '\n') {
        const r = source[i]!
        if (r === '\\') i++
        else if (r === '[') inClass = true
        else if (r === ']') inClass = false
        else if (r === '/' && !inClass) break
        i++
      }
      i++
      while (i < n && /[a-z]/i.test(source[i]!)) i++
      push('regex', source.slice(start, i), line)
    } else if (/[A-Za-z_$]/.test(c)) {
      const start = i
      while (i < n && /[\w$]/.test(source[i]!)) i++
      push('word', source.slice(start, i), line)
    } else if (/[0-9]/.test(c)) {
      const start = i
      while (i < n && /[\w.]/.test(source[i]!)) i++
      push('number', source.slice(start, i), line)
    } else if (c === '{') {
      if (templates.length > 0) templates[templates.length - 1]!++
      push('punct', c, line)
      i++
    } else if (c === '}') {
      i++
      if (templates.length > 0 && templates.at(-1) === 0) {
        templates.pop()
        readTemplate()
      } else {
        if (templates.length > 0) templates[templates.length - 1]!--
        push('punct', c, line)
      }
    } else {
      push('punct', c, line)
      i++
    }
  }
  return tokens
}

// ---------------------------------------------------------------------------------------------
// Imports.

export interface ImportRef {
  /** The module specifier; null for a dynamic import() of a computed value. */
  readonly specifier: string | null
  readonly line: number
  readonly kind: 'import' | 'export' | 'dynamic'
  /** Erased at compile time: `import type`, `export type`, `typeof import()`. */
  readonly typeOnly: boolean
}

const is = (token: Token | undefined, kind: Token['kind'], value?: string): boolean =>
  token !== undefined && token.kind === kind && (value === undefined || token.value === value)

/** The position of `from '<specifier>'` ending an import/export clause that starts at `start`, or -1. */
function findFrom(tokens: Token[], start: number): number {
  for (let j = start; j < tokens.length; j++) {
    const t = tokens[j]!
    if (t.kind === 'word' && t.value === 'from' && is(tokens[j + 1], 'string')) return j + 1
    // Only names, braces, commas, `*` (and quoted names) may sit between import/export and from.
    const clause = t.kind === 'word' || (t.kind === 'punct' && '{},*'.includes(t.value)) || t.kind === 'string'
    if (!clause) return -1
  }
  return -1
}

/** Every static import, re-export and dynamic import() of a source file. */
export function parseImports(source: string): ImportRef[] {
  const tokens = tokenize(source)
  const refs: ImportRef[] = []
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.kind !== 'word' || (t.value !== 'import' && t.value !== 'export')) continue
    if (is(tokens[i - 1], 'punct', '.')) continue // obj.import(...), obj?.export
    const next = tokens[i + 1]
    if (t.value === 'import') {
      if (is(next, 'punct', '.')) continue // import.meta
      if (is(next, 'punct', '(')) {
        const arg = tokens[i + 2]
        const literal = is(arg, 'string') && (is(tokens[i + 3], 'punct', ')') || is(tokens[i + 3], 'punct', ','))
        refs.push({
          specifier: literal ? arg!.value : null,
          line: t.line,
          kind: 'dynamic',
          typeOnly: is(tokens[i - 1], 'word', 'typeof'),
        })
        continue
      }
      if (is(next, 'string')) {
        refs.push({ specifier: next!.value, line: t.line, kind: 'import', typeOnly: false })
        continue
      }
      const at = findFrom(tokens, i + 1)
      if (at === -1) continue
      // `import type from './x'` and `import type, { a } from` import a default binding named `type`.
      const after = tokens[i + 2]
      const typeOnly = is(next, 'word', 'type') && !is(after, 'word', 'from') && !is(after, 'punct', ',')
      refs.push({ specifier: tokens[at]!.value, line: t.line, kind: 'import', typeOnly })
    } else {
      let j = i + 1
      let typeOnly = false
      if (is(tokens[j], 'word', 'type') && (is(tokens[j + 1], 'punct', '{') || is(tokens[j + 1], 'punct', '*'))) {
        typeOnly = true
        j++
      }
      // Only `export * …` and `export { … }` can be followed by `from`; findFrom refuses `export const`.
      if (!is(tokens[j], 'punct', '*') && !is(tokens[j], 'punct', '{')) continue
      const at = findFrom(tokens, j)
      if (at === -1) continue
      refs.push({ specifier: tokens[at]!.value, line: t.line, kind: 'export', typeOnly })
    }
  }
  return refs
}

// ---------------------------------------------------------------------------------------------
// The dependency table.

interface Rule {
  readonly may: readonly string[]
  /** Modules this one may reach with type-only imports alone. */
  readonly typeOnly?: readonly string[]
  readonly any?: true
}

export const RULES: Readonly<Record<string, Rule>> = {
  api: { may: [] },
  core: { may: [] },
  resources: { may: ['core', 'api'] },
  grpc: { may: [] },
  server: { may: ['core'], typeOnly: ['api'] },
  terraform: { may: ['core', 'grpc', 'server'] },
  pulumi: { may: ['core', 'grpc', 'server'] },
  emulator: { may: [], typeOnly: ['api'] },
  bin: { may: [], any: true },
}

/** What a `*.test.ts` inside a module may import beyond its module's rule. */
export const TEST_EXTRAS: readonly string[] = ['emulator', 'test']

const SOURCE_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/
const TEST_FILE = /\.test\.(ts|mts|cts|tsx|js|mjs|cjs)$/

/** The area a repo-relative path belongs to: a module under src/ (`api`), `src` for a loose file, `test`, or `outside`. */
export function areaOf(path: string): string {
  const parts = posix.normalize(path).split('/')
  if (parts[0] === 'src') return parts.length > 2 ? parts[1]! : 'src'
  if (parts[0] === 'test') return 'test'
  return 'outside'
}

function describeRule(module: string, rule: Rule): string {
  const may = rule.may.map((m) => `${m}/`)
  for (const m of rule.typeOnly ?? []) may.push(`type-only ${m}/`)
  return `${module}/ may import ${may.length > 0 ? may.join(', ') : 'nothing internal'}`
}

/** Violations of the dependency table by one file (`path` repo-relative, posix separators). */
export function dependencyViolations(path: string, source: string): string[] {
  const from = areaOf(path)
  if (from === 'test' || from === 'outside') return []
  if (from === 'src') return [`${path}: a file directly under src/ belongs to no module of DESIGN §3`]
  const rule = RULES[from]
  if (rule === undefined) return [`${path}: src/${from}/ has no row in DESIGN §3's dependency table`]
  if (rule.any) return []
  const isTest = TEST_FILE.test(path)
  const problems: string[] = []
  for (const ref of parseImports(source)) {
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
    const target = areaOf(posix.join(posix.dirname(path), ref.specifier))
    if (target === from || rule.may.includes(target)) continue
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

// ---------------------------------------------------------------------------------------------
// Contracts between layers that may not import each other.

/** The object types a source declares (`interface N {…}`, `type N = {…}`), each with its sorted member names. */
export function objectShapes(source: string): Map<string, string[]> {
  const tokens = tokenize(source)
  const shapes = new Map<string, string[]>()
  for (let i = 0; i < tokens.length; i++) {
    const keyword = tokens[i]
    const name = tokens[i + 1]
    if (!is(keyword, 'word') || !is(name, 'word') || (keyword!.value !== 'interface' && keyword!.value !== 'type')) continue
    // Skip type parameters and `extends …` up to the body; a `type` must be an object literal type.
    let j = i + 2
    if (keyword!.value === 'type') {
      if (!is(tokens[j], 'punct', '=') || !is(tokens[j + 1], 'punct', '{')) continue
      j++
    } else {
      while (j < tokens.length && !is(tokens[j], 'punct', '{')) j++
    }
    const members: string[] = []
    let braces = 0
    let nested = 0 // parentheses, brackets and angle brackets inside the body
    for (let k = j; k < tokens.length; k++) {
      const token = tokens[k]!
      if (token.kind === 'punct') {
        if (token.value === '{') braces++
        else if (token.value === '}') braces--
        else if (token.value === '(' || token.value === '[' || token.value === '<') nested++
        else if (token.value === ')' || token.value === ']' || (token.value === '>' && !is(tokens[k - 1], 'punct', '='))) nested-- // `=>` is no bracket
        if (braces === 0) break
        continue
      }
      if (braces !== 1 || nested !== 0 || token.kind !== 'word') continue
      const before = tokens[k - 1]!
      const after = tokens[k + 1]
      const starts = before.line < token.line || is(before, 'punct', '{') || is(before, 'punct', ';') || is(before, 'word', 'readonly')
      if (token.value === 'readonly' && is(after, 'word')) continue
      if (starts && (is(after, 'punct', '?') || is(after, 'punct', ':') || is(after, 'punct', '('))) members.push(token.value)
    }
    shapes.set(name!.value, members.sort())
  }
  return shapes
}

/**
 * Object types that core/ and api/ both declare with the same members. The two may not import each
 * other, so a contract between them (what the API client reads from the operation core runs) is
 * declared once, in the layer that reads it; resources/, which wires them, checks the fit.
 */
export function sharedShapes(files: readonly { path: string; source: string }[]): string[] {
  const seen = new Map<string, { path: string; name: string }>()
  const problems: string[] = []
  for (const { path, source } of files) {
    for (const [name, members] of objectShapes(source)) {
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
  if (!/\b(must not|may not|never|nothing|not|no)\b/i.test(lines.join(' '))) return 'the opening comment does not say what must not live here'
  return null
}

const GLOBAL_OBJECTS = new Set(['globalThis', 'window', 'self', 'global'])

/** Lines that call the global fetch (a method named fetch on another object is not counted). */
export function globalFetchCalls(source: string): number[] {
  const tokens = tokenize(source)
  const lines: number[] = []
  for (let i = 0; i < tokens.length; i++) {
    if (!is(tokens[i], 'word', 'fetch') || !is(tokens[i + 1], 'punct', '(')) continue
    const prev = tokens[i - 1]
    if (is(prev, 'punct', '.')) {
      // `owner.fetch(` or `owner?.fetch(`: HTTP only when the owner is the global object.
      const owner = is(tokens[i - 2], 'punct', '?') ? tokens[i - 3] : tokens[i - 2]
      if (!(owner?.kind === 'word' && GLOBAL_OBJECTS.has(owner.value))) continue
    }
    // `fetch(request) {` or `fetch(request): Promise<Response> {` defines a method; it calls nothing.
    let depth = 0
    let j = i + 1
    for (; j < tokens.length; j++) {
      if (is(tokens[j], 'punct', '(')) depth++
      else if (is(tokens[j], 'punct', ')') && --depth === 0) break
    }
    if (is(tokens[j + 1], 'punct', '{') || is(tokens[j + 1], 'punct', ':')) continue
    lines.push(tokens[i]!.line)
  }
  return lines
}

/** Resource type names that shared code must never contain; matched case-insensitively. */
export const RESOURCE_NAMES: readonly string[] = ['lite_vm', 'litevm', 'baremetal', 'provider_lite', 'providerlite']

/** `name (line)` for each resource type name found in the code of `source` (comments excluded). */
export function resourceNamesIn(source: string, names: readonly string[] = RESOURCE_NAMES): string[] {
  const wanted = names.map((n) => n.toLowerCase())
  const found: string[] = []
  for (const token of tokenize(source)) {
    if (token.kind !== 'word' && token.kind !== 'string' && token.kind !== 'template') continue
    const text = token.value.toLowerCase()
    for (const name of wanted) if (text.includes(name)) found.push(`${name} (line ${token.line})`)
  }
  return found
}

// ---------------------------------------------------------------------------------------------
// Unit tests of the checks on inline sources.

// `${` spelled out, so that the sources below may hold template literals without lint taking them for mistakes.
const $ = '\u0024{'
const specs = (source: string) => parseImports(source).map((r) => `${r.kind}${r.typeOnly ? ' type' : ''} ${r.specifier}`)

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
    ].join('\n')
    assert.deepEqual(specs(source), [
      'import ./a.js',
      'import ./b.js',
      'import ./c.js',
      'import ./g.js',
      'import ./side-effect.js',
      'import ./double.js',
      'import ./data.json',
    ])
    assert.deepEqual(
      parseImports(source).map((r) => r.line),
      [1, 2, 3, 4, 8, 9, 10],
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

  test('dynamic import(), typeof import(), computed specifiers', () => {
    const source = [
      "const http2 = await import('node:http2')",
      "const m = await import('../api/index.js', { with: {} })",
      "type Client = typeof import('../api/index.js')",
      'const computed = await import(name)',
      "const concatenated = await import('./' + name)",
      'const url = import.meta.url',
      "const s = `" + $ + "await import('./in-template.js')}`",
    ].join('\n')
    assert.deepEqual(specs(source), [
      'dynamic node:http2',
      'dynamic ../api/index.js',
      'dynamic type ../api/index.js',
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
      "const s = \"import c from './string.js'\"",
      "const t = `import d from './template.js'`",
      "const r = /['\"]import e from '.\\/regex.js'/",
      "const o = { import: 'x', export: 'y' }",
      "loader.import('./method.js')",
      "const afterDivision = a / b; import f from './real.js'",
    ].join('\n')
    assert.deepEqual(specs(source), ['import ./real.js'])
    assert.equal(parseImports(source)[0]!.line, 9)
  })

  test('the lexer keeps line numbers across comments, strings and templates', () => {
    const source = "/*\n\n*/\nconst t = `a\n" + $ + "1}\nb`\nimport z from './z.js'"
    assert.deepEqual(parseImports(source), [{ specifier: './z.js', line: 7, kind: 'import', typeOnly: false }])
  })
})

describe('dependency table', () => {
  const violations = (path: string, source: string) => dependencyViolations(path, source).length

  test('api/ and core/ import nothing internal', () => {
    assert.equal(violations('src/api/client.ts', "import { x } from './transport.js'\nimport { y } from 'node:http'"), 0)
    assert.equal(violations('src/api/client.ts', "import { definition } from '../core/index.js'"), 1)
    assert.equal(violations('src/core/plan.ts', "import type { Client } from '../api/index.js'"), 1)
    assert.equal(violations('src/core/plan.ts', "export * from '../resources/index.js'"), 1)
    assert.equal(violations('src/core/deep/plan.ts', "import { a } from '../../terraform/index.js'"), 1)
  })

  test('resources/ may import core/ and api/, nothing else', () => {
    assert.equal(violations('src/resources/lite-vm.ts', "import { a } from '../core/index.js'\nimport { b } from '../api/index.js'"), 0)
    assert.equal(violations('src/resources/lite-vm.ts', "import { a } from '../terraform/index.js'"), 1)
    assert.equal(violations('src/resources/lite-vm.ts', "const e = await import('../emulator/index.js')"), 1)
  })

  test('front ends may import core/ only', () => {
    assert.equal(violations('src/terraform/schema.ts', "import { a } from '../core/index.js'"), 0)
    assert.equal(violations('src/terraform/schema.ts', "import { a } from '../pulumi/index.js'"), 1)
    assert.equal(violations('src/pulumi/schema.ts', "import { a } from '../terraform/index.js'"), 1)
    assert.equal(violations('src/terraform/schema.ts', "import type { Client } from '../api/index.js'"), 1)
    assert.equal(violations('src/terraform/schema.ts', "import { resources } from '../resources/index.js'"), 1)
  })

  test('emulator/ may import api/ wire types with `import type` only', () => {
    assert.equal(violations('src/emulator/model.ts', "import type { Keypair } from '../api/index.js'"), 0)
    assert.equal(violations('src/emulator/model.ts', "export type { Keypair } from '../api/models.js'"), 0)
    assert.equal(violations('src/emulator/model.ts', "import { type Keypair } from '../api/index.js'"), 1)
    assert.equal(violations('src/emulator/model.ts', "import { redact } from '../api/index.js'"), 1)
    assert.equal(violations('src/emulator/model.ts', "import type { Value } from '../core/index.js'"), 1)
  })

  test('test files may also import the emulator and the harness under test/', () => {
    assert.equal(violations('src/core/core.test.ts', "import { createEmulator } from '../emulator/index.js'"), 0)
    assert.equal(violations('src/terraform/x.test.ts', "import { harness } from '../../test/harness.js'"), 0)
    assert.equal(violations('src/emulator/x.test.ts', "import { harness } from '../../test/harness.js'"), 0)
    assert.equal(violations('src/core/testing-fixture.ts', "import { createEmulator } from '../emulator/index.js'"), 1)
    assert.equal(violations('src/emulator/x.ts', "import { harness } from '../../test/harness.js'"), 1)
    assert.equal(violations('src/terraform/x.test.ts', "import { resources } from '../resources/index.js'"), 1)
    assert.equal(violations('src/emulator/x.test.ts', "import { createClient } from '../api/index.js'"), 1)
  })

  test('bin/ and files outside src/ may import anything; no one imports bin/', () => {
    assert.equal(violations('src/bin/provider.ts', "import { a } from '../emulator/index.js'\nimport { b } from '../terraform/index.js'"), 0)
    assert.equal(violations('test/e2e.test.ts', "import { a } from '../src/emulator/index.js'"), 0)
    assert.equal(violations('src/resources/x.ts', "import { VERSION } from '../bin/terraform-provider.js'"), 1)
  })

  test('unknown modules, loose files, computed and absolute specifiers are refused', () => {
    assert.equal(violations('src/shared/x.ts', ''), 1)
    assert.equal(violations('src/x.ts', ''), 1)
    assert.equal(violations('src/core/x.ts', 'await import(name)'), 1)
    assert.equal(violations('src/core/x.ts', "import a from '/work/main/src/api/index.js'"), 1)
    assert.match(dependencyViolations('src/core/x.ts', "\n\nimport { b } from '../api/index.js'")[0]!, /^src\/core\/x\.ts:3: /)
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
    assert.deepEqual(Object.fromEntries(objectShapes(source)), {
      Frame: ['nested', 'onFinish', 'scope', 'timeoutMs'],
      Local: ['a', 'b'],
    })
  })
  test('the same members declared in both layers are refused, whatever the names; within one layer they are not', () => {
    const core = { path: 'src/core/operation.ts', source: 'export interface OperationFrame { readonly scope: string; onFinish(f: () => void): void }' }
    const api = { path: 'src/api/transport.ts', source: 'export interface Frame {\n  scope?: string\n  onFinish(callback: () => void): void\n}' }
    const coreAgain = { path: 'src/core/other.ts', source: 'interface Twin { scope: string; onFinish(): void }' }
    assert.equal(sharedShapes([core, api]).length, 1)
    assert.match(sharedShapes([core, api])[0]!, /OperationFrame.*Frame.*\(onFinish, scope\)/)
    assert.deepEqual(sharedShapes([core, coreAgain]), [])
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
    ].join('\n')
    assert.deepEqual(globalFetchCalls(source), [1, 2, 9])
  })

  test('resource names in code are found; in comments they are not', () => {
    const source = [
      '// e.g. lite_vm',
      "if (definition.name === 'lite_vm') special()",
      'const isBaremetal = true',
      'const t = `provider_lite_' + $ + 'kind}`',
      'const ok = definition.name',
    ].join('\n')
    assert.deepEqual(resourceNamesIn(source), ['lite_vm (line 2)', 'baremetal (line 3)', 'provider_lite (line 4)'])
  })
})

// ---------------------------------------------------------------------------------------------
// The real tree.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN_FILE_MODULES = ['api', 'core', 'grpc', 'resources', 'server', 'terraform', 'emulator']

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
  const files = sourceFiles('src')

  test('every import follows the dependency table', () => {
    const problems = files.flatMap((path) => dependencyViolations(path, read(path)))
    assert.deepEqual(problems, [], `imports against DESIGN §3:\n${problems.join('\n')}`)
  })

  test('the scan sees the edges the table is about (a parser that finds nothing fails here)', () => {
    const edges = new Set<string>()
    for (const path of files) {
      for (const ref of parseImports(read(path))) {
        if (ref.specifier?.startsWith('.')) edges.add(`${areaOf(path)}->${areaOf(posix.join(posix.dirname(path), ref.specifier))}`)
      }
    }
    for (const edge of ['resources->core', 'resources->api', 'terraform->core', 'bin->terraform', 'bin->emulator']) {
      assert.ok(edges.has(edge), `no ${edge} import found; edges seen: ${[...edges].sort().join(', ')}`)
    }
  })

  test('each module main file opens with a three-line comment saying what must not live there', () => {
    const modules = [...MAIN_FILE_MODULES]
    // pulumi/ is held to it once it has a main file; until then it is work in progress.
    if (statSync(posix.join(ROOT, 'src/pulumi/index.ts'), { throwIfNoEntry: false })?.isFile()) modules.push('pulumi')
    const problems: string[] = []
    for (const module of modules) {
      const path = `src/${module}/index.ts`
      if (!statSync(posix.join(ROOT, path), { throwIfNoEntry: false })?.isFile()) {
        problems.push(`${path}: missing`)
        continue
      }
      const problem = headerProblem(read(path))
      if (problem !== null) problems.push(`${path}: ${problem}`)
    }
    assert.deepEqual(problems, [])
  })

  test('a contract between core/ and api/ is declared once, not in each layer', () => {
    const layers = files.filter((path) => ['core', 'api'].includes(areaOf(path)) && !TEST_FILE.test(path))
    const problems = sharedShapes(layers.map((path) => ({ path, source: read(path) })))
    assert.deepEqual(problems, [], `the same object type declared in core/ and api/:\n${problems.join('\n')}`)
  })

  test('HTTP only in api/: nothing else calls the global fetch (the emulator and tests excepted)', () => {
    const checked = files.filter((path) => !['api', 'emulator'].includes(areaOf(path)) && !TEST_FILE.test(path))
    assert.ok(checked.length > 0)
    const problems = checked.flatMap((path) => globalFetchCalls(read(path)).map((line) => `${path}:${line}`))
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
    const core = files.filter((path) => areaOf(path) === 'core' && !TEST_FILE.test(path))
    assert.ok(core.length > 0)
    const problems = core.flatMap((path) => resourceNamesIn(read(path), [...names]).map((hit) => `${path}: ${hit}`))
    assert.deepEqual(problems, [], `resource names in core/:\n${problems.join('\n')}`)
  })
})

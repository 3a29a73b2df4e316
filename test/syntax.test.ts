// The facts test/support/syntax.ts reads from sources, checked on inline sources: imports of every
// shape and which of them are type-only, the import graph and its cycles, function lengths, the
// opening comment, object shapes, calls of the global fetch and names in code. The architecture test
// builds its rules on these; a parser that misses a shape here would let a violation through there.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  cycles,
  functionSpans,
  globalFetchCalls,
  importEdges,
  namesIn,
  objectShapes,
  openingComment,
  parse,
  parseAll,
  parseImports,
  reachedFrom,
  sameShapes,
} from './support/syntax.js'

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

  test('imports between files make the graph; run-time only leaves type-only imports out', () => {
    const files = parseAll({
      'src/core/a.ts': "import { b } from './b.js'\nimport type { C } from './c.js'",
      'src/core/b.ts': "export { a } from './a.js'",
      'src/core/c.ts': "import { a } from './a.js'\nimport { x } from 'node:x'\nimport { y } from './not-in-the-set.js'",
    })
    assert.deepEqual(Object.fromEntries(importEdges(files, true)), {
      'src/core/a.ts': ['src/core/b.ts'],
      'src/core/b.ts': ['src/core/a.ts'],
      'src/core/c.ts': ['src/core/a.ts'],
    })
    assert.deepEqual(cycles(importEdges(files, true)), ['src/core/a.ts -> src/core/b.ts -> src/core/a.ts'])
    assert.deepEqual(importEdges(files).get('src/core/a.ts'), ['src/core/b.ts', 'src/core/c.ts'])
    assert.deepEqual(cycles(importEdges(files)), [
      'src/core/a.ts -> src/core/b.ts -> src/core/a.ts',
      'src/core/a.ts -> src/core/c.ts -> src/core/a.ts',
    ])
  })

  test('a cycle is written from its least node, whichever node the search meets first', () => {
    assert.deepEqual(
      cycles(
        new Map([
          ['m', ['z']],
          ['z', ['b']],
          ['b', ['z']],
        ]),
      ),
      ['b -> z -> b'],
    )
  })

  test('what a set of roots reaches', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'a']],
      ['c', []],
      ['d', ['a']],
    ])
    assert.deepEqual([...reachedFrom(['a'], graph)].sort(), ['a', 'b', 'c'])
  })
})

describe('object shapes', () => {
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
    const sharedShapes = (subset: typeof files) => sameShapes(subset, (path) => path.split('/')[1]!)
    assert.equal(sharedShapes(only('src/core/operation.ts', 'src/api/transport.ts')).length, 1)
    assert.match(sharedShapes(only('src/core/operation.ts', 'src/api/transport.ts'))[0]!, /OperationFrame.*Frame.*\(onFinish, scope\)/)
    assert.deepEqual(sharedShapes(only('src/core/operation.ts', 'src/core/other.ts')), [])
  })
})

describe('functions, the opening comment, fetch and names', () => {
  test('every function with a body, by name and line span; outer before inner', () => {
    const source = [
      'export function declared(a: number) {', // 1
      '  const inner = () => {',
      '    return a',
      '  }',
      '  return inner',
      '}',
      'const expressed = function () { return 1 }', // 7
      'class Box {',
      '  constructor() {}',
      '  get size() { return 1 }',
      '  method(): void {',
      '  }',
      '  field = (x: number) => x',
      '  abstract?(): void',
      '}',
      'const o = { property: async () => {\n}, short() {} }', // 16
      'declare function bodiless(): void',
      'items.map((x) => x)',
    ].join('\n')
    assert.deepEqual(
      functionSpans(parse(source)).map((f) => `${f.name}:${f.line}:${f.lines}`),
      [
        'declared:1:6',
        'inner:2:3',
        'expressed:7:1',
        'constructor:9:1',
        'size:10:1',
        'method:11:2',
        'field:13:1',
        'property:16:2',
        'short:17:1',
        '<anonymous>:19:1',
      ],
    )
  })

  test('the opening comment: a block or `//` lines before any code, markers and blank lines dropped', () => {
    assert.deepEqual(openingComment('// What lives here.\n//\n// More of it.\nexport {}'), ['What lives here.', 'More of it.'])
    assert.deepEqual(openingComment('/*\n * What lives here.\n * More.\n */\nexport {}'), ['What lives here.', 'More.'])
    assert.deepEqual(openingComment('/** One line. */\nimport x from "x"'), ['One line.'])
    assert.deepEqual(openingComment('#!/usr/bin/env node\n\n// After the shebang.\n'), ['After the shebang.'])
    assert.deepEqual(openingComment('export {}\n// a\n// b\n// c'), [])
    assert.deepEqual(openingComment("import x from 'x'\n// a"), [])
    assert.deepEqual(openingComment('/* unterminated'), [])
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
    assert.deepEqual(namesIn(parse(source), ['lite_vm', 'baremetal', 'PROVIDER_LITE']), [
      'lite_vm (line 2)',
      'baremetal (line 3)',
      'provider_lite (line 4)',
    ])
  })
})

// Enforces the layout of docs/design.md ("Layers and the dependency rule") and CONTRIBUTING.md on the
// sources under src/. The rules are in test/support/layout.ts (the dependency table first), applied
// here to every file as the TypeScript compiler parses it (test/support/syntax.ts):
//
// - every import follows the dependency table (test files may also import src/emulator/ and test/);
// - a handler (src/terraform/handlers/, src/pulumi/handlers/) imports no other handler, and core/
//   with `import type` only: it decodes, makes one call into src/server/, and encodes;
// - no import circle, neither between the table's modules nor between files (value or type imports);
// - no function over 150 lines, and every file opens with a header comment (src/terraform/gen/ and
//   tests aside; every module of test/support/ too); each module's main file opens with three lines saying what must not live there;
// - nothing under src/ exists only for the tests: every file is reached from an entry point in src/bin/;
// - a contract between core/ and api/ (which may not import each other) is declared once;
// - HTTP only in api/: no call of the global fetch elsewhere (the emulator and tests excepted);
// - core/ never names a particular resource in code.
//
// Each check is seen to fail on inline sources first; the tree then has no exception to any rule.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { SourceFile } from 'typescript/unstable/ast'
import {
  areaOf,
  dependencyViolations,
  HANDLER_FOLDERS,
  handlerViolations,
  headerProblem,
  longFunctions,
  MAX_FUNCTION_LINES,
  RESOURCE_NAMES,
  RULES,
  SOURCE_FILE,
  TEST_FILE,
} from './support/layout.js'
import * as syntax from './support/syntax.js'

describe('the checks, on inline sources', () => {
  const count = (check: (path: string, file: SourceFile) => string[], rows: [string, string, number][]) => {
    const files = syntax.parseAll(Object.fromEntries(rows.map(([, source], i) => [`${i}.ts`, source])))
    for (const [i, [path, source, n]] of rows.entries()) assert.equal(check(path, files.get(`${i}.ts`)!).length, n, `${path}: ${source}`)
  }
  const im = (what: string, from: string) => `import ${what} from '${from}'`

  test('the dependency table', () => {
    count(dependencyViolations, [
      ['src/api/client.ts', `${im('{ x }', './transport.js')}\n${im('{ y }', 'node:http')}`, 0],
      ['src/api/client.ts', im('{ d }', '../core/index.js'), 1],
      ['src/core/plan.ts', im('type { C }', '../api/index.js'), 1],
      ['src/core/plan.ts', "export * from '../resources/index.js'", 1],
      ['src/core/plan.ts', im('{ serve }', '../server/index.js'), 1],
      ['src/core/deep/plan.ts', im('{ a }', '../../terraform/index.js'), 1],
      ['src/api/lite.ts', im('{ placeOrder }', './orders/index.js'), 0],
      ['src/api/transport.ts', im('{ placeOrder }', './orders/index.js'), 1],
      ['src/api/orders/journal.ts', im('{ r }', '../transport.js'), 0],
      ['src/api/transport.ts', im('type { O }', './orders/journal.js'), 1],
      ['src/api/transport/retry.ts', im('{ k }', '../orders/keys.js'), 1],
      ['src/api/transport.test.ts', im('{ p }', './orders/index.js'), 0],
      ['src/resources/lite-vm.ts', `${im('{ a }', '../core/index.js')}\n${im('{ b }', '../api/index.js')}`, 0],
      ['src/resources/lite-vm.ts', im('{ a }', '../terraform/index.js'), 1],
      ['src/resources/lite-vm.ts', im('{ a }', '../server/index.js'), 1],
      ['src/resources/lite-vm.ts', "const e = await import('../emulator/index.js')", 1],
      ['src/server/registry.ts', `${im('{ c }', '../core/index.js')}\n${im('type { F }', '../api/index.js')}`, 0],
      ['src/server/registry.ts', im('{ resources }', '../resources/index.js'), 1],
      ['src/server/configure.ts', im('{ createClient }', '../api/index.js'), 1],
      ['src/server/registry.ts', im('{ liteVm }', '../resources/lite-vm.js'), 1],
      ['src/server/configure.ts', im('{ request }', '../api/transport.js'), 1],
      ['src/server/configure.ts', im('{ journal }', '../api/orders/index.js'), 1],
      ['src/server/configure.ts', im('{ serve }', '../terraform/index.js'), 1],
      ['src/server/configure.ts', im('{ grpc }', '../grpc/index.js'), 1],
      ['src/server/configure.ts', im('type { Store }', '../emulator/index.js'), 1],
      ['src/terraform/schema.ts', `${im('{ a }', '../core/index.js')}\n${im('{ s }', '../server/index.js')}`, 0],
      ['src/pulumi/schema.ts', `${im('{ a }', '../grpc/index.js')}\n${im('{ s }', '../server/index.js')}`, 0],
      ['src/terraform/schema.ts', im('{ a }', '../pulumi/index.js'), 1],
      ['src/pulumi/schema.ts', im('{ a }', '../terraform/index.js'), 1],
      ['src/terraform/schema.ts', im('type { Client }', '../api/index.js'), 1],
      ['src/pulumi/schema.ts', im('{ journal }', '../api/orders/index.js'), 1],
      ['src/terraform/schema.ts', im('{ resources }', '../resources/index.js'), 1],
      ['src/pulumi/serve.ts', im('{ createEmulator }', '../emulator/index.js'), 1],
      ['src/emulator/model.ts', `${im('type { K }', '../api/index.js')}\nexport type { K } from '../api/models.js'`, 0],
      ['src/emulator/model.ts', im('{ type K }', '../api/index.js'), 1],
      ['src/emulator/model.ts', im('{ redact }', '../api/index.js'), 1],
      ['src/emulator/model.ts', im('type { V }', '../core/index.js'), 1],
      ['src/emulator/model.ts', im('type { S }', '../server/index.js'), 1],
      ['src/core/core.test.ts', `${im('{ e }', '../emulator/index.js')}\n${im('{ h }', '../../test/support/harness.js')}`, 0],
      ['src/terraform/x.test.ts', im('{ h }', '../../test/support/harness.js'), 0],
      ['src/emulator/x.test.ts', im('{ h }', '../../test/support/harness.js'), 0],
      ['src/core/box-support.ts', im('{ e }', '../emulator/index.js'), 1],
      ['src/emulator/x.ts', im('{ h }', '../../test/support/harness.js'), 1],
      ['src/emulator/x.test.ts', im('{ createClient }', '../api/index.js'), 1],
      ['src/terraform/x.test.ts', im('{ r }', '../resources/index.js'), 1],
      ['src/bin/provider.ts', `${im('{ a }', '../emulator/index.js')}\n${im('{ b }', '../terraform/index.js')}`, 0],
      ['test/e2e.test.ts', im('{ a }', '../src/emulator/index.js'), 0],
      ['src/resources/x.ts', im('{ V }', '../bin/terraform-provider.js'), 1],
      ['src/shared/x.ts', '', 1],
      ['src/x.ts', '', 1],
      ['src/core/x.ts', 'await import(name)', 1],
      ['src/core/x.ts', im('a', '/work/main/src/api/index.js'), 1],
    ])
    const [problem] = dependencyViolations('src/core/x.ts', syntax.parse(`\n\n${im('{ b }', '../api/index.js')}`))
    assert.match(problem ?? '', /^src\/core\/x\.ts:3: imports '..\/api\/index.js' \(api\/\); core\/ may import nothing internal$/)
  })

  test('handlers import no other handler and core/ as types only', () => {
    count(handlerViolations, [
      ['src/terraform/handlers/plan.ts', `${im('{ s }', '../../server/index.js')}\n${im('{ g }', '../../grpc/index.js')}`, 0],
      ['src/terraform/handlers/plan.ts', `${im('{ w }', '../wire.js')}\n${im('type { V }', '../../core/index.js')}`, 0],
      ['src/pulumi/handlers/update.ts', im('{ c }', './create.js'), 1],
      ['src/pulumi/handlers/update.ts', im('{ p }', '../../terraform/handlers/plan.js'), 1],
      ['src/terraform/handlers/plan.ts', im('{ plan }', '../../core/plan.js'), 1],
      ['src/terraform/handlers/plan.ts', im('{ plan }', '../../server/plan.js'), 1],
      ['src/terraform/handlers/plan.ts', im('{ a }', '../../api/index.js'), 1],
      ['src/terraform/handlers/plan.test.ts', im('{ p }', './read.js'), 0],
      ['src/terraform/plan.ts', im('{ p }', './handlers/read.js'), 0],
    ])
    const [problem] = handlerViolations('src/pulumi/handlers/update.ts', syntax.parse(im('{ c }', './create.js')))
    assert.match(problem ?? '', /^src\/pulumi\/handlers\/update\.ts:1: imports another handler .*a handler decodes/)
  })

  test('main files and long functions', () => {
    assert.equal(headerProblem('// What lives here.\n// More of it.\n// Nothing here may import api/.\nexport {}'), null)
    assert.match(headerProblem('// What lives here.\n// Must not: HTTP.\nexport {}') ?? '', /2 comment line/)
    assert.match(headerProblem('// What lives here.\n// More.\n// And more.\nexport {}') ?? '', /must not/)
    const long = `export function big() {\n${'  step()\n'.repeat(MAX_FUNCTION_LINES - 1)}}\nconst ok = () => 1`
    assert.deepEqual(longFunctions('src/x.ts', syntax.parse(long)), [`src/x.ts: big (line 1, 151 lines; at most 150)`])
  })
})

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const exists = (path: string) => statSync(posix.join(ROOT, path), { throwIfNoEntry: false }) !== undefined
const read = (path: string) => readFileSync(posix.join(ROOT, path), 'utf8')
function sourceFiles(dir: string): string[] {
  return readdirSync(posix.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(posix.join(dir, e.name)) : SOURCE_FILE.test(e.name) ? [posix.join(dir, e.name)] : []))
    .sort()
}

describe('the tree under src/', () => {
  const tree = syntax.parseAll(Object.fromEntries(sourceFiles('src').map((path) => [path, read(path)])))
  const where = (keep: (path: string) => boolean) => new Map([...tree].filter(([path]) => keep(path)))
  const generated = (path: string) => path.startsWith('src/terraform/gen/')
  const shipped = where((path) => !TEST_FILE.test(path) && !generated(path))
  /** Fails naming each violation of the rule. */
  const none = (rule: string, found: string[]) => assert.deepEqual(found, [], `${rule}:\n${found.join('\n')}`)

  test('every import follows the dependency table', () => {
    const problems = [...tree].flatMap(([path, file]) => dependencyViolations(path, file))
    assert.deepEqual(problems, [], `imports against DESIGN.md's table:\n${problems.join('\n')}`)
    const edges = new Set([...syntax.importEdges(tree)].flatMap(([from, to]) => to.map((t) => `${areaOf(from)}->${areaOf(t)}`)))
    for (const edge of ['resources->core', 'resources->api', 'terraform->core', 'bin->terraform', 'bin->emulator']) {
      assert.ok(edges.has(edge), `no ${edge} import found (a parser that finds nothing fails here); seen: ${[...edges].sort().join(', ')}`)
    }
  })

  test('handlers import no other handler and core/ only as types; one RPC per handler file', () => {
    for (const folder of HANDLER_FOLDERS) {
      const files = [...shipped.keys()].filter((path) => posix.dirname(path) === folder)
      // Terraform's protocol has 25 RPCs a provider answers, Pulumi's ResourceProvider 13 of its own.
      assert.ok(files.length >= 10, `${folder}: ${files.length} handler files; every RPC has its own file there`)
      const several = files.filter((path) => (read(path).match(/^export (async )?function /gm) ?? []).length !== 1)
      none(`${folder}: handler files that do not export exactly one handler function`, several)
    }
    const problems = [...tree].flatMap(([path, file]) => handlerViolations(path, file))
    assert.deepEqual(problems, [], `handlers against the handler rule:\n${problems.join('\n')}`)
  })

  test('no import circles: not between the table modules, not between files (value or type imports)', () => {
    const table = new Map(Object.entries(RULES).map(([m, r]) => [m, [...r.may, ...(r.typeOnly ?? [])].map((t) => t.split('/')[0]!)]))
    assert.deepEqual(syntax.cycles(table), [], 'the dependency table has a cycle')
    assert.deepEqual(syntax.cycles(syntax.importEdges(tree, true)), [], 'run-time import circles under src/')
    assert.ok(
      [...syntax.importEdges(tree).values()].some((to) => to.length > 0),
      'no import between files under src/ was found',
    )
    none('import circles under src/ (no file may reach itself through its imports)', syntax.cycles(syntax.importEdges(tree)))
  })

  test(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    none(
      'functions too long',
      [...shipped].flatMap(([path, file]) => longFunctions(path, file)),
    )
  })

  test('every file opens with a header comment saying what it is for', () => {
    const missing = [...shipped.keys()].filter((path) => syntax.openingComment(read(path)).length === 0)
    none('files that do not open with a header comment (before the first import or statement)', missing)
    const support = sourceFiles('test/support').filter((path) => syntax.openingComment(read(path)).length === 0)
    assert.deepEqual(support, [], `test support modules that do not open with a header comment:\n${support.join('\n')}`)
  })

  test('each module main file opens with a three-line comment saying what must not live there', () => {
    const modules = [...Object.keys(RULES).filter((m) => m !== 'bin'), 'api/orders'].filter((m) => exists(`src/${m}`))
    assert.ok(modules.length >= 6, `module folders found: ${modules.join(', ')}`)
    const problems = modules.flatMap((m) => {
      const problem = exists(`src/${m}/index.ts`) ? headerProblem(read(`src/${m}/index.ts`)) : 'missing'
      return problem === null ? [] : [`src/${m}/index.ts: ${problem}`]
    })
    assert.deepEqual(problems, [])
  })

  test('nothing under src/ exists only for the tests: every other file is reached from an entry point in src/bin/', () => {
    const entries = [...shipped.keys()].filter((path) => areaOf(path) === 'bin')
    assert.ok(entries.length > 0, 'no entry point under src/bin/')
    const reached = syntax.reachedFrom(entries, syntax.importEdges(tree))
    // A module's main file is its public entry point even where the executables import its parts directly (start-up cost).
    const main = (path: string) => /^src\/[^/]+(\/orders)?\/index\.ts$/.test(path)
    const orphans = [...shipped.keys()].filter((path) => !reached.has(path) && !main(path))
    assert.deepEqual(orphans, [], `files under src/ that no entry point uses (test support belongs under test/):\n${orphans.join('\n')}`)
  })

  test('a contract between core/ and api/ is declared once, not in each layer', () => {
    const problems = syntax.sameShapes(
      where((path) => ['core', 'api'].includes(areaOf(path)) && !TEST_FILE.test(path)),
      areaOf,
    )
    assert.deepEqual(problems, [], `the same object type declared in core/ and api/:\n${problems.join('\n')}`)
  })

  test('HTTP only in api/: nothing else calls the global fetch (the emulator and tests excepted)', () => {
    const checked = where((path) => !['api', 'emulator'].includes(areaOf(path)) && !TEST_FILE.test(path))
    const problems = [...checked].flatMap(([path, file]) => syntax.globalFetchCalls(file).map((line) => `${path}:${line}`))
    assert.ok(checked.size > 0)
    assert.deepEqual(problems, [], `global fetch outside src/api/:\n${problems.join('\n')}`)
  })

  test('core never names a particular resource', async (t) => {
    // Every type the registry serves, snake and run together (matching ignores case). A registry that
    // does not load fails its own tests; here the fixed names still apply.
    const served: string[] = []
    try {
      const registry = (await import('../src/resources/index.js')) as unknown as Record<string, readonly { name: string }[]>
      served.push(...[...registry.resources!, ...registry.dataSources!].flatMap(({ name }) => [name, name.replaceAll('_', '')]))
      assert.ok(served.length > 0, 'the resource registry served no names')
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error
      t.diagnostic(`resource registry not loaded (${String(error)}); checking the fixed names only`)
    }
    const core = where((path) => areaOf(path) === 'core' && !TEST_FILE.test(path))
    const problems = [...core].flatMap(([path, file]) =>
      syntax.namesIn(file, [...RESOURCE_NAMES, ...served]).map((hit) => `${path}: ${hit}`),
    )
    assert.ok(core.size > 0)
    assert.deepEqual(problems, [], `resource names in core/:\n${problems.join('\n')}`)
  })
})

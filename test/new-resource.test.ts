// Counts the files a new resource kind makes someone edit, and holds that count to the table in
// CONTRIBUTING.md ("Adding a resource"). A kind's files are measured on today's kinds, each as if it
// were the newest: the files whose code names it (its type name in any spelling, or its module), and,
// for an API family, the files that import the family's module in src/api/ and in src/emulator/. A
// kind named anywhere else (a front end, the server, a shared emulator file) is one more file to edit
// and fails here, naming the file.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { toCamel } from '../src/core/index.js'
import { SOURCE_FILE, TEST_FILE } from './support/layout.js'
import * as syntax from './support/syntax.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string) => readFileSync(posix.join(ROOT, path), 'utf8')
function files(dir: string): string[] {
  return readdirSync(posix.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(posix.join(dir, e.name)) : SOURCE_FILE.test(e.name) ? [posix.join(dir, e.name)] : []))
    .sort()
}

/** The rows of CONTRIBUTING's table of hand-edited files: a path (with `<resource>` or `<family>`) and when it is edited. */
function contributingTable(): { path: string; when: string }[] {
  const text = read('CONTRIBUTING.md')
  const section = text.slice(text.indexOf('## Adding a resource'), text.indexOf('\n## ', text.indexOf('## Adding a resource') + 1))
  return [...section.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)].map((m) => ({ path: m[1]!, when: m[2]!.trim() }))
}

// Every file a kind could be named in: the shipped sources (generated code aside) and the fixtures.
const SHIPPED = files('src').filter((path) => !TEST_FILE.test(path) && !path.startsWith('src/terraform/gen/'))
const FIXTURES = files('test/fixtures').filter((path) => !TEST_FILE.test(path) && !/\/(index|fixture|example)\.ts$/.test(path))
const tree = syntax.parseAll(Object.fromEntries([...SHIPPED, ...FIXTURES].map((path) => [path, read(path)])))
const edges = syntax.importEdges(tree)
const importers = (module: string) => [...edges].filter(([, to]) => to.includes(module)).map(([from]) => from)

/** The files whose code names the kind `kebab` (`lite-vm`): as `lite_vm`, `liteVm`, `LiteVm` or `lite-vm`, whole. */
function naming(kebab: string): string[] {
  const snake = kebab.replaceAll('-', '_')
  const camel = toCamel(snake).toLowerCase()
  // A spelling stands alone or between characters that cannot continue a name (`./lite-vm.js`, `provider_lite_vm`'s end).
  const whole = new RegExp(`(^|[^a-z0-9_-])(${snake}|${kebab})([^a-z0-9_-]|$)`)
  return [...tree]
    .filter(([, file]) => syntax.codeTexts(file).some(({ text }) => text.toLowerCase() === camel || whole.test(text.toLowerCase())))
    .map(([path]) => path)
    .sort()
}

/** The family registries of src/api/ and src/emulator/, and the folder of their modules. */
const REGISTRIES = [
  ['src/api/families.ts', 'src/api'],
  ['src/emulator/families/index.ts', 'src/emulator/families'],
] as const
const runtime = syntax.importEdges(tree, true)
/** The family modules a registry loads (type-only imports, such as the registry's own context type, are not families). */
const familyModules = (registry: string) =>
  (runtime.get(registry) ?? []).filter((to) => posix.dirname(to) === posix.dirname(registry) && !to.endsWith('/index.ts'))

const table = contributingTable()
const rowsWith = (placeholder: string, value: string, also: readonly string[]) =>
  table
    .filter((row) => row.path.includes(placeholder) || also.includes(row.path))
    .map((row) => row.path.replace(placeholder, value))
    .sort()

describe("the files a new resource kind touches match CONTRIBUTING's table", () => {
  test('the table names the definition, the registries, the family modules and the fixture', () => {
    assert.deepEqual(
      table.map((row) => row.path),
      [
        'src/resources/<resource>.ts',
        'src/resources/index.ts',
        'src/api/<family>.ts',
        'src/api/families.ts',
        'src/emulator/families/<family>.ts',
        'src/emulator/families/index.ts',
        'test/fixtures/<resource>.ts',
      ],
    )
  })

  const kinds = FIXTURES.map((path) => posix.basename(path, '.ts'))
  test('every kind with a fixture has its definition module', () => {
    assert.ok(kinds.length >= 9, `kinds found: ${kinds.join(', ')}`)
    const missing = kinds.filter((kind) => !SHIPPED.includes(`src/resources/${kind}.ts`))
    assert.deepEqual(missing, [], 'fixtures whose kind has no src/resources/<kind>.ts')
  })

  // The files that speak of families as a whole: a family's modules and registries (measured below),
  // the definitions (src/resources/, where a kind names the kinds it builds on) and the fixtures.
  const familyFiles = new Set(REGISTRIES.flatMap(([registry]) => [registry, ...familyModules(registry)]))
  const ownsKinds = (path: string) => path.startsWith('src/resources/') || path.startsWith('test/fixtures/') || familyFiles.has(path)
  for (const kind of kinds) {
    test(`${kind}: named nowhere but in its definition, the registry, the fixtures and its family's modules`, () => {
      const named = naming(kind)
      assert.ok(named.includes(`src/resources/${kind}.ts`), `src/resources/${kind}.ts does not name ${kind}: ${named.join(', ')}`)
      assert.ok(
        importers(`src/resources/${kind}.ts`).includes('src/resources/index.ts'),
        `the registry does not import src/resources/${kind}.ts`,
      )
      const elsewhere = named.filter((path) => !ownsKinds(path))
      assert.deepEqual(elsewhere, [], `files outside the table's rows that name ${kind} (each one more file to edit for a new kind)`)
    })
  }

  for (const [registry, folder] of REGISTRIES) {
    test(`${folder}: each family module is imported by its registry alone (and its own parts)`, () => {
      const modules = familyModules(registry)
      assert.ok(modules.length >= 4, `family modules of ${registry}: ${modules.join(', ')}`)
      for (const module of modules) {
        const name = posix.basename(module, '.ts')
        const expected = rowsWith('<family>', name, [registry]).filter((path) => path.startsWith(`${folder}/`))
        // Family modules may import each other (an additional IP is routed to a Metal server), and the
        // registry's other modules are families too (Lite's catalog): neither is a file a new kind edits.
        const outside = importers(module).filter((from) => !modules.includes(from) || from === module)
        assert.deepEqual([module, ...outside].sort(), expected, `files that import ${module}`)
      }
    })
  }

  test('the newest kind, elastic storage (a family of its own), touched as many files as the table has rows', () => {
    const touched = new Set([
      ...naming('baremetal-elastic-storage'),
      'src/api/elastic-storage.ts',
      ...importers('src/api/elastic-storage.ts'),
      'src/emulator/families/elastic-storage.ts',
      ...importers('src/emulator/families/elastic-storage.ts'),
    ])
    assert.equal(touched.size, table.length, [...touched].sort().join('\n'))
  })
})

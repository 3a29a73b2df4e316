// The generated docs: the committed docs/ must equal what gen-docs writes now, the committed resource
// examples what their fixtures render now, and every type the registry serves has a runnable example
// and a page.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { DOCS_DIR, EXAMPLES_DIR, generateDocs } from '../src/bin/gen-docs.js'
import { listFilterAttributes, validateConfig } from '../src/core/index.js'
import { dataSources, resources } from '../src/resources/index.js'
import {
  actionPage,
  actionsOf,
  examplePath,
  generatedFiles,
  HAND_WRITTEN_DOCS,
  isHandWritten,
  listFiles,
  writeDocs,
} from '../src/terraform/docs.js'
import { TYPE_PREFIX } from '../src/terraform/schema.js'
import { committedExamples, exampleFiles, writeExamples } from './fixtures/example.js'
import { fixtures } from './fixtures/index.js'

const REFRESH = 'npm run generate'

describe('docs', () => {
  test('the committed docs/ is what gen-docs generates now', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'provider-docs-'))
    try {
      writeDocs(fresh, generateDocs())
      const expected = listFiles(fresh)
      const committed = generatedFiles(DOCS_DIR)
      for (const page of HAND_WRITTEN_DOCS) assert.ok(!expected.includes(page), `the generator writes ${page}, a hand-written page`)
      for (const page of expected) assert.ok(!isHandWritten(page), `the generator writes ${page}, in a hand-written folder`)
      const missing = expected.filter((path) => !committed.includes(path))
      const extra = committed.filter((path) => !expected.includes(path))
      const changed = expected.filter(
        (path) => committed.includes(path) && readFileSync(join(fresh, path), 'utf8') !== readFileSync(join(DOCS_DIR, path), 'utf8'),
      )
      const problems = [
        ...missing.map((path) => `missing: docs/${path}`),
        ...extra.map((path) => `no longer generated: docs/${path}`),
        ...changed.map((path) => `stale: docs/${path}`),
      ]
      assert.deepEqual(problems, [], `docs/ is out of date; run \`${REFRESH}\`:\n${problems.join('\n')}`)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })

  test('the committed resource examples are what their fixtures render now', () => {
    const expected = exampleFiles(fixtures)
    const committed = committedExamples(EXAMPLES_DIR)
    const problems = [
      ...expected.filter((f) => !committed.includes(f.path)).map((f) => `missing: examples/terraform/${f.path}`),
      ...committed
        .filter((path) => !expected.some((f) => f.path === path))
        .map((path) => `no longer generated: examples/terraform/${path}`),
      ...expected
        .filter((f) => committed.includes(f.path) && readFileSync(join(EXAMPLES_DIR, f.path), 'utf8') !== f.content)
        .map((f) => `stale: examples/terraform/${f.path}`),
    ]
    assert.deepEqual(problems, [], `the resource examples are out of date; run \`npm run docs\`:\n${problems.join('\n')}`)
  })

  test('writing the examples deletes the example of a resource without a fixture and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'provider-examples-'))
    try {
      const kept = ['data-sources/provider_x/main.tf', 'resources/provider_lite_vm/import.sh', 'resources/provider_gone/main.tf']
      for (const path of kept) {
        mkdirSync(dirname(join(dir, path)), { recursive: true })
        writeFileSync(join(dir, path), 'by hand\n')
      }
      const files = exampleFiles(fixtures)
      const { deleted } = writeExamples(dir, files)
      assert.deepEqual(deleted, ['resources/provider_gone/main.tf'])
      assert.ok(!existsSync(join(dir, 'resources', 'provider_gone')), 'the emptied folder is removed')
      for (const path of kept.slice(0, 2)) assert.equal(readFileSync(join(dir, path), 'utf8'), 'by hand\n', path)
      assert.deepEqual(committedExamples(dir), files.map((f) => f.path).sort())
      assert.deepEqual(writeExamples(dir, files), { written: [], deleted: [] }, 'a second run changes nothing')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('every resource, data source and ephemeral resource has an example and a page', () => {
    const pages = new Set(generateDocs().map((file) => file.path))
    const problems: string[] = []
    const entries = [
      ...resources.map((r) => ({ kind: 'resources' as const, name: r.name })),
      ...dataSources.map((d) => ({ kind: 'data-sources' as const, name: d.name })),
      ...dataSources.filter((d) => d.ephemeral).map((d) => ({ kind: 'ephemeral-resources' as const, name: d.name })),
    ]
    for (const { kind, name } of entries) {
      const example = join('examples', 'terraform', examplePath(kind, `${TYPE_PREFIX}${name}`))
      if (!existsSync(join(EXAMPLES_DIR, examplePath(kind, `${TYPE_PREFIX}${name}`)))) problems.push(`no example: ${example}`)
      if (!pages.has(`${kind}/${name}.md`)) problems.push(`no page: docs/${kind}/${name}.md`)
    }
    assert.deepEqual(problems, [], problems.join('\n'))
    assert.ok(existsSync(join(EXAMPLES_DIR, examplePath('provider', ''))), 'no provider example: examples/terraform/provider/main.tf')
  })

  test('every action has an example that declares it as `example`, and a page that shows how to invoke it', () => {
    const files = new Map(generateDocs().map((file) => [file.path, file.content]))
    const actions = actionsOf({ resources })
    assert.ok(actions.length > 0, 'the registry declares methods')
    const problems: string[] = []
    for (const { typeName, resource } of actions) {
      const path = join(EXAMPLES_DIR, examplePath('actions', typeName))
      if (!existsSync(path)) problems.push(`no example: examples/terraform/${examplePath('actions', typeName)}`)
      else if (!readFileSync(path, 'utf8').includes(`action "${typeName}" "example" {`))
        problems.push(`${path} has no action "${typeName}" "example"`)
      const page = files.get(actionPage(typeName))
      if (!page) problems.push(`no page: docs/${actionPage(typeName)}`)
      else {
        for (const part of [
          '\n## Example Usage\n',
          '\n## Schema (the `config` block)\n',
          `terraform apply -invoke=action.${typeName}.example`,
          '- `id` (String)',
        ]) {
          if (!page.includes(part)) problems.push(`docs/${actionPage(typeName)} lacks ${JSON.stringify(part)}`)
        }
      }
      const resourcePage = files.get(`resources/${resource.name}.md`) ?? ''
      if (!resourcePage.includes(`(../${actionPage(typeName)})`))
        problems.push(`docs/resources/${resource.name}.md does not link ${typeName}`)
      if (!(files.get('index.md') ?? '').includes(`(${actionPage(typeName)})`)) problems.push(`docs/index.md does not link ${typeName}`)
    }
    assert.deepEqual(problems, [], problems.join('\n'))
  })

  test('each resource page documents its schema, timeouts and import', () => {
    const files = new Map(generateDocs().map((file) => [file.path, file.content]))
    for (const resource of resources) {
      const page = files.get(`resources/${resource.name}.md`) ?? ''
      const type = `${TYPE_PREFIX}${resource.name}`
      assert.match(page, /^---\npage_title: /, type)
      assert.match(page, /\n## Example Usage\n/, type)
      assert.match(page, /\n## Schema\n/, type)
      assert.ok(page.includes(`terraform import ${type}.example ${resource.importId.example}`), `${type}: import command`)
      assert.ok(page.includes(`  to = ${type}.example\n  id = ${JSON.stringify(resource.importId.example)}`), `${type}: import block`)
      if (Object.keys(resource.timeouts).length > 0) assert.match(page, /\n## Timeouts\n/, type)
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (attribute.createOnly) {
          const line = page.split('\n').find((l) => l.startsWith(`- \`${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}\``))
          assert.ok(line?.includes('Forces replacement'), `${type}.${name} is create-only but its line says nothing: ${line}`)
        }
      }
    }
  })

  test("each resource page's `list` block sets every filter to a value the filter takes, so that it runs as written", () => {
    const files = new Map(generateDocs().map((file) => [file.path, file.content]))
    let listed = 0
    for (const resource of resources.filter((r) => r.list)) {
      listed++
      const page = files.get(`resources/${resource.name}.md`) ?? ''
      const block = new RegExp(`\`\`\`terraform\\nlist "${TYPE_PREFIX}${resource.name}" [^]*?\\n\`\`\`\\n`).exec(page)?.[0]
      assert.ok(block, `${resource.name}: a list block`)
      const set = Object.fromEntries([...block.matchAll(/^ {4}(\w+) += ("[^"\n]*")$/gm)].map((m) => [m[1], JSON.parse(m[2] as string)]))
      assert.deepEqual(Object.keys(set).sort(), Object.keys(resource.list?.filters ?? {}).sort(), `${resource.name}: every filter`)
      // The checks `terraform query` runs on the block's config (the provider's ValidateListResourceConfig).
      const problems = validateConfig(listFilterAttributes(resource), set).map((d) => d.detail)
      assert.deepEqual(problems, [], `${resource.name}: ${block}`)
    }
    assert.ok(listed > 0, 'some resource is listable')
  })

  test('each resource page says what an import leaves in the arguments the API cannot return: its default, else null', () => {
    const files = new Map(generateDocs().map((file) => [file.path, file.content]))
    let defaults = 0
    for (const resource of resources) {
      const page = files.get(`resources/${resource.name}.md`) ?? ''
      assert.doesNotMatch(page, /so they are null after an import/, resource.name)
      for (const name of resource.unrecoverable ?? []) {
        const fallback = resource.attributes[name]?.default
        const said = fallback === undefined ? 'null' : `\`${JSON.stringify(fallback)}\`, its default`
        if (fallback !== undefined) defaults++
        // importBase (src/core/apply.ts) gives an input its default; the page must not call it null.
        assert.ok(page.includes(`\n- \`${name}\`: ${said}\n`), `${resource.name}.${name}: ${said}`)
      }
    }
    assert.ok(defaults > 0, 'some unrecoverable input has a default (pay_with_credit_card)')
  })

  test('each ephemeral resource page says it is never stored and links its data source, which links back', () => {
    const files = new Map(generateDocs().map((file) => [file.path, file.content]))
    const flagged = dataSources.filter((d) => d.ephemeral)
    assert.ok(flagged.length > 0, 'no lookup is served as an ephemeral resource')
    for (const { name } of flagged) {
      const type = `${TYPE_PREFIX}${name}`
      const page = files.get(`ephemeral-resources/${name}.md`) ?? ''
      assert.ok(page.includes(`# ${type} (Ephemeral Resource)`), type)
      assert.match(page, /never written to the state or a plan file/, type)
      assert.match(page, /\n## Example Usage\n/, type)
      assert.ok(page.includes(`ephemeral "${type}"`), `${type}: its example declares it`)
      assert.ok(page.includes(`(../data-sources/${name}.md)`), `${type}: links its data source`)
      assert.ok(
        files.get(`data-sources/${name}.md`)?.includes(`(../ephemeral-resources/${name}.md)`),
        `${type}: the data source links back`,
      )
      assert.ok(files.get('index.md')?.includes(`(ephemeral-resources/${name}.md)`), `${type}: listed on the provider page`)
    }
  })

  test('writing the docs deletes stale generated pages and leaves the hand-written ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'provider-docs-'))
    try {
      const handWritten = ['design.md', 'guides/ci.md']
      for (const path of [...handWritten, 'resources/gone.md']) {
        mkdirSync(dirname(join(dir, path)), { recursive: true })
        writeFileSync(join(dir, path), 'by hand\n')
      }
      writeDocs(dir, generateDocs())
      for (const path of handWritten) assert.equal(readFileSync(join(dir, path), 'utf8'), 'by hand\n', path)
      assert.ok(!existsSync(join(dir, 'resources', 'gone.md')), 'a page no longer generated is deleted')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('generating twice gives the same bytes', () => {
    assert.deepEqual(generateDocs(), generateDocs())
  })
})

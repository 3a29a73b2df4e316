// The repository stands on its own: every link in its Markdown resolves to a file inside it (no web
// address, no `../` out of the clone), and the licence package.json names is the one LICENSE holds.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SKIP = new Set(['node_modules', 'build', 'dist', '.git', '.cache', '.terraform'])

function markdownFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...markdownFiles(path))
    else if (entry.name.endsWith('.md')) out.push(path)
  }
  return out
}

/** The problems of one Markdown text's links: `[text](target)` and `<scheme:...>` autolinks. */
export function linkProblems(root: string, file: string, text: string): string[] {
  const problems: string[] = []
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  const targets = [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!)
  targets.push(...[...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)].map((m) => m[1]!))
  for (const target of targets) {
    const where = `${relative(root, file)}: ${target}`
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      problems.push(`${where} leaves the repository`)
      continue
    }
    const path = target.split('#')[0]!
    if (path === '') continue // an anchor in the same page
    const resolved = resolve(dirname(file), decodeURIComponent(path))
    if (relative(root, resolved).startsWith('..')) problems.push(`${where} points outside the repository`)
    else if (!existsSync(resolved)) problems.push(`${where} does not exist`)
  }
  return problems
}

describe('a self-contained repository', () => {
  test('linkProblems flags web addresses, paths out of the clone and missing files, and passes good links', () => {
    const file = join(ROOT, 'README.md')
    const text = [
      '[ok](docs/design.md) [anchor](#licence) [dir](examples/terraform) `[code](https://x.invalid)`',
      '[web](https://example.invalid/x) <https://example.invalid> [up](../shared/DESIGN.md) [gone](docs/nope.md)',
      '```\n[fenced](https://example.invalid)\n```',
    ].join('\n')
    assert.deepEqual(linkProblems(ROOT, file, text), [
      'README.md: https://example.invalid/x leaves the repository',
      'README.md: ../shared/DESIGN.md points outside the repository',
      'README.md: docs/nope.md does not exist',
      'README.md: https://example.invalid leaves the repository',
    ])
  })

  test('every link in README, CHANGELOG, docs/ and examples/ stays inside the repository and resolves', () => {
    const files = markdownFiles(ROOT)
    assert.ok(files.includes(join(ROOT, 'README.md')) && files.includes(join(ROOT, 'docs', 'design.md')))
    const problems = files.flatMap((file) => linkProblems(ROOT, file, readFileSync(file, 'utf8')))
    assert.deepEqual(problems, [])
  })

  test('LICENSE is the MPL-2.0 text package.json declares, and the design and emulator pages exist', () => {
    const { license } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string }
    assert.equal(license, 'MPL-2.0')
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
    assert.match(text, /^Mozilla Public License Version 2\.0\n/)
    assert.match(text, /Exhibit B - "Incompatible With Secondary Licenses" Notice/)
    for (const page of ['docs/design.md', 'docs/emulator-api.md', 'CHANGELOG.md']) assert.ok(existsSync(join(ROOT, page)), page)
  })
})

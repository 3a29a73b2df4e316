// The repository stands on its own: every link in its Markdown resolves to a file inside it (no web
// address, no `../` out of the clone), and the licence package.json names is the one LICENSE holds.
// The README stays a short first page: under its word limit, with the two set-up commands and the
// prerequisites they need, and a link to every guide, where the rest of the documentation lives.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
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

/** The README's ceiling, in words as `wc -w` counts them (code blocks included). */
const README_MAX_WORDS = 1500

/** The `## ` section of a Markdown text with this title, up to the next `## ` heading. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`)
  if (start < 0) return ''
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
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

  test('the README stays short, and links every guide and the contributor pages', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const words = text.split(/\s+/).filter((w) => w !== '').length
    assert.ok(words < README_MAX_WORDS, `README.md has ${words} words; keep it under ${README_MAX_WORDS} and move detail to docs/guides/`)
    const guides = readdirSync(join(ROOT, 'docs', 'guides')).filter((name) => name.endsWith('.md'))
    assert.ok(guides.length >= 4, `docs/guides/ holds ${guides.length} guides`)
    const unlinked = [...guides.map((name) => `docs/guides/${name}`), 'CONTRIBUTING.md', 'docs/design.md'].filter(
      (path) => !text.includes(`](${path})`),
    )
    assert.deepEqual(unlinked, [], 'pages the README does not link')
  })

  test('the README gives the two set-up commands and the prerequisites they need', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const start = section(text, 'Getting started')
    assert.notEqual(start, '', 'README.md has no "## Getting started" section')
    const commands = [...start.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter((line) => line.trim() !== ''))
    assert.deepEqual(
      commands.map((line) => line.replace(/\s+#.*$/, '')),
      ['npm install && npm start', 'npm test'],
    )
    const { engines } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    assert.equal(engines.node, '>=20')
    const prose = start.replace(/\s+/g, ' ')
    for (const needed of [
      'Node.js 20 or later',
      'Go',
      'Python 3.9 or later',
      'PostgreSQL server binaries',
      'qemu-user',
      'libc6-arm64-cross',
    ]) {
      assert.ok(prose.includes(needed), `"Getting started" does not name ${needed}`)
    }
    // What CI checks for before it runs `npm test` (Go, Python), and what `npm test` installs itself when
    // missing (its first step, scripts/system-packages.mjs), is what the README asks for.
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
    for (const probe of ['command -v go', 'command -v python3']) assert.ok(ci.includes(probe), `.ci/run: ${probe}`)
    const installer = readFileSync(join(ROOT, 'scripts', 'system-packages.mjs'), 'utf8')
    for (const probe of [
      "'postgresql'",
      'usr/lib/postgresql',
      "'qemu-user'",
      "'qemu-aarch64'",
      "'libc6-arm64-cross'",
      'ld-linux-aarch64.so.1',
    ])
      assert.ok(installer.includes(probe), `scripts/system-packages.mjs: ${probe}`)
    assert.match(start, /`npm test` installs/, '"Getting started" says that npm test installs the Debian packages it needs')
  })

  test('each test layer has its npm script, and `npm test` runs them all through the release', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    // Every layer, through the release's executables (--release is not a layer: it picks what the suites launch).
    assert.match(
      scripts.test ?? '',
      /^node scripts\/system-packages\.mjs && npm run lint && npm run release && node scripts\/test\.mjs --release$/,
      'npm test runs every layer through the release',
    )
    for (const [name, option] of [
      ['test:unit', '--unit'],
      ['test:e2e', '--release --e2e'],
      ['test:faults', '--faults'],
    ] as const) {
      assert.ok(scripts[name]?.endsWith(`node scripts/test.mjs ${option}`), `${name}: ${scripts[name]}`)
    }
    assert.ok(scripts['test:fast'], 'test:fast stays, as an alias')
    const contributing = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')
    for (const name of ['test:unit', 'test:e2e', 'test:faults'])
      assert.ok(contributing.includes(`npm run ${name}`), `CONTRIBUTING.md does not say how to run ${name}`)
  })

  test('no comment cites a numbered section of a specification that is not in the repository', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/replace-section-refs.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' })
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
  })
})

// THIRD_PARTY_NOTICES.md for a bundle: every npm package esbuild put into it (read from the build's
// metafile), with its name, version, licence and the full text of the licence files it ships.
// Bundling strips the packages' own files, and their licences (Apache-2.0, BSD-3-Clause, MIT) require
// the notice to travel with every copy, so each artifact carries this file.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The package directory of a bundled input such as `node_modules/@scope/name/dist/x.js`. */
function packageDirOf(input) {
  const parts = input.split('/')
  const at = parts.lastIndexOf('node_modules')
  if (at < 0) return undefined
  const scoped = parts[at + 1]?.startsWith('@')
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/')
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt))?$/i

/**
 * @param {string} root repository root (the metafile's paths are relative to it)
 * @param {{ inputs: Record<string, unknown> }} metafile esbuild's metafile
 * @param {string} program the executable the bundle becomes, named in the heading
 * @param {{ name: string, version: string, license: string, text: string }[]} [extra] more components, e.g. the Node.js runtime
 */
export function thirdPartyNotices(root, metafile, program, extra = []) {
  const dirs = [
    ...new Set(
      Object.keys(metafile.inputs)
        .map(packageDirOf)
        .filter((dir) => dir !== undefined),
    ),
  ].sort()
  const components = dirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))
    const files = readdirSync(join(root, dir))
      .filter((name) => LICENCE_FILE.test(name))
      .sort()
    const text =
      files.length > 0
        ? files.map((name) => readFileSync(join(root, dir, name), 'utf8').trim()).join('\n\n')
        : headerNotices(root, dir, Object.keys(metafile.inputs)) || readmeLicence(join(root, dir))
    if (text === '') throw new Error(`${manifest.name} is bundled but ships no licence file or header; add its notice by hand`)
    return { name: manifest.name, version: manifest.version, license: manifest.license ?? 'see below', text }
  })
  // A package that states Apache-2.0 only in file headers does not ship the licence text itself.
  const needsApache = components.some((c) => /Apache-2\.0/.test(c.license) && !c.text.includes('TERMS AND CONDITIONS'))
  if (needsApache) {
    const text = readFileSync(new URL('./licences/Apache-2.0.txt', import.meta.url), 'utf8').trim()
    components.push({ name: 'Apache License', version: '2.0', license: 'the text referred to above', text })
  }
  const all = [...extra, ...components]
  const sections = all.map((c) => `## ${c.name} ${c.version}\n\nLicence: ${c.license}\n\n\`\`\`text\n${c.text}\n\`\`\`\n`)
  return `# Third-party notices for ${program}\n\n${program} is licensed under the Mozilla Public License 2.0 (see LICENSE).\nIt includes the following third-party software, whose licences and notices follow.\n\n${all.map((c) => `- ${c.name} ${c.version} (${c.license})`).join('\n')}\n\n${sections.join('\n')}`
}

/**
 * The licence section of a package's README (`## License` up to the next heading), for packages that
 * state their licence only there (pg-types, pgpass): empty when there is none, or it names no copyright.
 */
function readmeLicence(dir) {
  const readme = readdirSync(dir).find((name) => /^readme(\.md)?$/i.test(name))
  if (readme === undefined) return ''
  const lines = readFileSync(join(dir, readme), 'utf8').split('\n')
  const start = lines.findIndex((line) => /^#+\s*licen[cs]e\b/i.test(line))
  if (start < 0) return ''
  const level = (lines[start].match(/^#+/) ?? [''])[0].length
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(line))
  const text = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim()
  return /copyright/i.test(text) ? text : ''
}

/** The distinct licence headers (leading comment blocks) of a package's bundled files. */
function headerNotices(root, dir, inputs) {
  const headers = new Set()
  for (const input of inputs) {
    if (packageDirOf(input) !== dir) continue
    const lines = readFileSync(join(root, input), 'utf8').split('\n')
    const block = []
    for (const line of lines.slice(lines[0]?.includes('use strict') ? 1 : 0)) {
      if (!line.startsWith('//')) break
      block.push(line.replace(/^\/\/ ?/, ''))
    }
    const text = block.join('\n').trim()
    if (/copyright/i.test(text)) headers.add(text)
  }
  return [...headers].join('\n\n---\n\n')
}

/**
 * The notice of the Bun runtime every release executable carries (scripts/licences/bun.md, then the texts of
 * the LGPL 2.1 and the Apache License 2.0, under which parts of it are licensed). Bun's npm packages ship no
 * licence file, so the notice is kept here; tools/README.md says to review it when Bun is bumped.
 */
export function bunNotice(version) {
  const read = (name) => readFileSync(new URL(`./licences/${name}`, import.meta.url), 'utf8').trim()
  const text = [
    read('bun.md'),
    `### GNU Lesser General Public License, version 2.1\n\n\`\`\`text\n${read('LGPL-2.1.txt')}\n\`\`\``,
    `### Apache License 2.0\n\n\`\`\`text\n${read('Apache-2.0.txt')}\n\`\`\``,
  ].join('\n\n')
  return { name: 'Bun', version, license: 'MIT; it links JavaScriptCore (LGPL 2) and the libraries listed', text }
}

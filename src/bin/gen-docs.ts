// Writes the Terraform registry docs (docs/) from the resource registry and the examples under
// examples/terraform, and deletes pages of types that no longer exist. Usage, after `npm run build`:
//   node build/src/bin/gen-docs.js [output-dir]     (default: docs/ of the repository)
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dataSources, productFamilies, providerDefinition, resources } from '../resources/index.js'
import { type DocFile, type DocsOptions, examplesFrom, renderDocs, writeDocs } from '../terraform/docs.js'

/** The repository root: this file runs from build/src/bin. */
export const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..')
export const DOCS_DIR = resolve(ROOT, 'docs')
export const EXAMPLES_DIR = resolve(ROOT, 'examples', 'terraform')

/** The registry's sidebar group of a type: its product family's title, by type-name prefix; the longest matching prefix wins. */
export function subcategoryOf(name: string): string {
  const matches = productFamilies.filter(({ prefix }) => name === prefix || name.startsWith(`${prefix}_`))
  return matches.sort((a, b) => b.prefix.length - a.prefix.length)[0]?.title ?? ''
}

/** Every page, as the committed docs/ must hold it. */
export function generateDocs(examplesDir = EXAMPLES_DIR): DocFile[] {
  const options: DocsOptions = { exampleOf: examplesFrom(examplesDir), subcategoryOf }
  return renderDocs({ provider: providerDefinition, resources, dataSources }, options)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? DOCS_DIR)
  const files = generateDocs()
  const { written, deleted } = writeDocs(out, files)
  for (const path of written) console.log(`wrote   ${path}`)
  for (const path of deleted) console.log(`deleted ${path}`)
  console.log(`${files.length} pages in ${out} (${written.length} written, ${deleted.length} deleted)`)
}

// Writes examples/terraform/resources/<type>/main.tf, each resource's docs example, from the `example`
// of its fixture (test/fixtures/), and deletes the example of a resource that no longer has one.
// `npm run docs` runs it before the reference pages, which show these files; test/docs.test.ts fails
// when one is stale. Run after `tsc`: it reads the build/ output.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dir = join(root, 'examples', 'terraform')
const load = (path) => import(pathToFileURL(join(root, 'build', path)).href)
const { fixtures } = await load('test/fixtures/index.js')
const { exampleFiles, writeExamples } = await load('test/fixtures/example.js')

const files = exampleFiles(fixtures)
const { written, deleted } = writeExamples(dir, files)
for (const path of written) console.log(`wrote   examples/terraform/${path}`)
for (const path of deleted) console.log(`deleted examples/terraform/${path}`)
console.log(`${files.length} resource examples (${written.length} written, ${deleted.length} deleted)`)

// Writes the Pulumi package schema, generated from the definitions, to schema/schema.json (committed;
// test/pulumi-schema.test.ts fails when it is stale). Run after `tsc`: it reads the build/ output.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The schema text for a version, from build/ (the same function GetSchema serves). */
export async function pulumiSchema(version) {
  const { schemaText } = await import(pathToFileURL(join(root, 'build/src/pulumi/index.js')).href)
  const { dataSources, providerDefinition, resources } = await import(pathToFileURL(join(root, 'build/src/resources/index.js')).href)
  return schemaText({ provider: providerDefinition, resources, dataSources }, { version })
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const target = join(root, 'schema', 'schema.json')
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, await pulumiSchema(version))
  console.log(`wrote ${target}`)
}

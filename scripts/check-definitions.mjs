// The definitions' load-time checks (core's defineResource, defineDataSource, defineProvider), run at
// build time: bundles an entry (src/resources/index.ts) from the sources as the providers' bundles are
// built, with the checks on, and evaluates it; a DefinitionError, or any other failure to load, fails.
// scripts/build.mjs runs it before writing any bundle, and the bundles it writes skip the checks at each
// launch (PROVIDER_DEFINITIONS_CHECKED): a declaration the checks refuse never reaches a bundle.
//   node scripts/check-definitions.mjs [entry.ts]   exits 1 with the refusal on stderr
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

/** Bundles `entry` with the checks on and evaluates it; resolves to its exports, rejects with what loading it threw. */
export async function checkDefinitions(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    define: { PROVIDER_DEFINITIONS_CHECKED: 'false' },
    logLevel: 'warning',
  })
  const module = { exports: {} }
  const evaluate = new Function('module', 'exports', 'require', result.outputFiles[0].text)
  evaluate(module, module.exports, createRequire(entry))
  return module.exports
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const entry = resolve(process.argv[2] ?? new URL('../src/resources/index.ts', import.meta.url).pathname)
  try {
    await checkDefinitions(entry)
  } catch (error) {
    process.stderr.write(`definitions refused (${entry}): ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}

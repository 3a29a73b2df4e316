// npm run gen:sdk: the Pulumi SDKs sdk/nodejs, sdk/python and sdk/go, written from schema/schema.json by
// Pulumi's own code generators. Run it after `npm run gen:pulumi` (npm run generate runs both).
//
//   node scripts/gen-sdk.mjs [--out <dir>] [--language nodejs|python|go]...
//
// The generators are those the language hosts run for `pulumi package gen-sdk`, called as a library by
// our sdkgen tool, which scripts/tools.mjs builds at the pinned Pulumi version. Their output is committed
// as it comes, never edited, with one file added: sdk/python/README.md, a copy of the one the generator
// writes into the package, because the pyproject.toml it writes names a README.md beside itself and
// `pip install ./sdk/python` fails without it. test/pulumi-sdk.test.ts regenerates into a temp dir and
// names what differs. sdkgen empties each language's directory before writing it, so a file the
// generator no longer writes disappears.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureTools } from './tools.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

export const SDK_LANGUAGES = ['nodejs', 'python', 'go']

/** The sdkgen executable, built by scripts/tools.mjs when it is missing. */
export async function sdkgenPath() {
  const tools = await ensureTools({ only: ['sdkgen'], quiet: true })
  return tools.sdkgen.bin
}

/**
 * Writes `<out>/<language>` for each language.
 * @param {{ sdkgen: string, out?: string, schema?: string, languages?: readonly string[] }} options
 * @returns {string[]} the directories written
 */
export function generateSdks({ sdkgen, out = join(root, 'sdk'), schema = join(root, 'schema', 'schema.json'), languages = SDK_LANGUAGES }) {
  const unknown = languages.filter((l) => !SDK_LANGUAGES.includes(l))
  if (unknown.length > 0) throw new Error(`gen-sdk: unknown language ${unknown.join(', ')} (${SDK_LANGUAGES.join(', ')})`)
  return languages.map((language) => {
    const dir = join(out, language)
    execFileSync(sdkgen, ['--schema', schema, '--language', language, '--out', dir], { stdio: ['ignore', 'ignore', 'pipe'] })
    if (language === 'python') {
      const pkg = readdirSync(dir).find((name) => existsSync(join(dir, name, '__init__.py')))
      if (!pkg) throw new Error(`gen-sdk: ${dir} holds no Python package`)
      copyFileSync(join(dir, pkg, 'README.md'), join(dir, 'README.md'))
    }
    return dir
  })
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  let out
  const languages = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out' && args[i + 1]) out = resolve(args[++i])
    else if (args[i] === '--language' && args[i + 1]) languages.push(args[++i])
    else throw new Error(`gen-sdk: usage: node scripts/gen-sdk.mjs [--out <dir>] [--language ${SDK_LANGUAGES.join('|')}]...`)
  }
  const started = Date.now()
  const dirs = generateSdks({ sdkgen: await sdkgenPath(), out, languages: languages.length > 0 ? languages : SDK_LANGUAGES })
  console.log(`wrote ${dirs.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

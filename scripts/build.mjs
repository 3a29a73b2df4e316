// Bundles the providers and the emulator. Terraform: one file laid out as a filesystem mirror, so that
// `TF_CLI_CONFIG_FILE=dist/terraformrc terraform init` installs it offline from any directory.
// Pulumi: dist/pulumi/ (launcher + bundle) and its plugin tarball. The emulator: dist/emulator/, the
// bundle `npm run release` compiles into the provider-emulator executables. Run after `tsc` (npm run
// build does both, and regenerates schema/schema.json first).
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { checkDefinitions } from './check-definitions.mjs'
import { thirdPartyNotices } from './notices.mjs'
import { REGISTRY_HOSTS, terraformrc } from './terraformrc.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const platform = `${process.platform}_${{ x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch}`
const dist = join(root, 'dist')
const mirror = join(dist, 'mirror')
const packageDir = join(mirror, 'registry.terraform.io', 'provider', 'provider', version, platform)

/** `dir`, emptied: what an earlier build left there must not reach this one's artifacts. */
function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return dir
}

freshDir(mirror)
mkdirSync(packageDir, { recursive: true })

/**
 * The first statement of a bundle: an old Node gets one line its caller shows, not a stack trace. On
 * `stream`: Terraform shows the provider's stdout; Pulumi reads only a port line there, so its plugin
 * writes to stderr, as the emulator does (its first stdout line is its base URL).
 */
const guard = (program, stream) =>
  `globalThis.PROVIDER_ENTRY_MS=performance.now();if(+process.versions.node.split(".")[0]<20){process.${stream}.write("${program} needs Node.js 20 or later, found "+process.version+"\\n");process.exit(1)}`

/**
 * Bundles `entry` (a src/bin program) into `outfile`, minified CommonJS for Node 20, with LICENSE and the
 * bundled packages' THIRD_PARTY_NOTICES.md beside it, which travel with every artifact made from it.
 */
async function bundle({ entry, outfile, program, stream, define }) {
  const result = await build({
    entryPoints: [join(root, entry)],
    define,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none', // the notices go, whole, into THIRD_PARTY_NOTICES.md beside the bundle
    metafile: true,
    banner: { js: guard(program, stream) },
    logLevel: 'warning',
  })
  writeFileSync(join(dirname(outfile), 'THIRD_PARTY_NOTICES.md'), thirdPartyNotices(root, result.metafile, program))
  copyFileSync(join(root, 'LICENSE'), join(dirname(outfile), 'LICENSE'))
}

// GetProviderSchema's response (and GetResourceIdentitySchemas', asked in the same launch), encoded once here from this build's definitions (the tsc output, which
// `npm run build` has just written) and stamped into the bundle: the first launch of every Terraform
// command only fetches it, and then loads no definition (src/bin/terraform-provider.ts).
const { dataSources, providerDefinition, resources } = await import('../build/src/resources/index.js')
const { providerIdentitySchemasResponse, providerSchemaResponse } = await import('../build/src/terraform/provider-service.js')
const schemaResponse = providerSchemaResponse({ provider: providerDefinition, resources, dataSources })
const identityResponse = providerIdentitySchemasResponse({ provider: providerDefinition, resources, dataSources })
const base64 = (bytes) => JSON.stringify(Buffer.from(bytes).toString('base64'))

// The definitions' load-time checks, run here over these sources: a refused declaration stops the build
// before any bundle is written, and so the bundles skip them at each launch (PROVIDER_DEFINITIONS_CHECKED).
await checkDefinitions(join(root, 'src/resources/index.ts'))
const CHECKED = { PROVIDER_DEFINITIONS_CHECKED: 'true' }

// ---- The emulator's web console (src/emulator/console/): its page script bundled for the browser into one
// file, beside its page and stylesheet, where the launcher of the tsc build reads them at the first request
// for `/` (build/src/emulator/console/assets/). A bundle of the launcher gets the three as strings instead:
// pass CONSOLE_DEFINE in its esbuild `define`.
const consoleDir = join(root, 'build', 'src', 'emulator', 'console', 'assets')
rmSync(consoleDir, { recursive: true, force: true })
mkdirSync(consoleDir, { recursive: true })
const consoleBundle = await build({
  entryPoints: [join(root, 'src/bin/emulator-console.ts')],
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
})
const consoleAssets = {
  html: readFileSync(join(root, 'src/emulator/console/index.html'), 'utf8'),
  css: readFileSync(join(root, 'src/emulator/console/console.css'), 'utf8'),
  js: consoleBundle.outputFiles[0].text,
}
writeFileSync(join(consoleDir, 'index.html'), consoleAssets.html)
writeFileSync(join(consoleDir, 'console.css'), consoleAssets.css)
writeFileSync(join(consoleDir, 'console.js'), consoleAssets.js)
/** The console's files stamped into a bundle of src/bin/emulator.ts (src/emulator/console/serve.ts reads them there). */
export const CONSOLE_DEFINE = { EMULATOR_CONSOLE_ASSETS: JSON.stringify(consoleAssets), 'import.meta.url': 'undefined' }

await bundle({
  entry: 'src/bin/terraform-provider.ts',
  outfile: join(packageDir, 'provider.cjs'),
  program: 'terraform-provider-provider',
  stream: 'stdout',
  define: {
    PROVIDER_SCHEMA_RESPONSE: base64(schemaResponse),
    PROVIDER_IDENTITY_SCHEMAS_RESPONSE: base64(identityResponse),
    ...CHECKED,
  },
})

// Terraform runs the first file named terraform-provider-provider[_.*]; the bundle beside it is not one.
const launcher = join(packageDir, `terraform-provider-provider_v${version}`)
/** The launchers' last lines: reached through a symlink (a plugin directory, /usr/local/bin), provider.cjs is beside the real file. */
const EXEC_BESIDE_REAL_FILE = `self=$0
while [ -L "$self" ]; do
  link=$(readlink -- "$self")
  case $link in
    /*) self=$link ;;
    *) self=$(dirname -- "$self")/$link ;;
  esac
done
exec "$node_bin" "$(dirname -- "$self")/provider.cjs" "$@"
`
writeFileSync(
  launcher,
  `#!/bin/sh
# terraform-provider-provider ${version}: runs the bundled provider with Node.js 20+ (PROVIDER_NODE overrides).
node_bin=\${PROVIDER_NODE:-node}
if ! command -v "$node_bin" >/dev/null 2>&1; then
  echo "terraform-provider-provider needs Node.js 20 or later on PATH (or set PROVIDER_NODE)"
  exit 1
fi
${EXEC_BESIDE_REAL_FILE}`,
)
chmodSync(launcher, 0o755)

// OpenTofu looks for registry.opentofu.org/provider/provider: the same unpacked package, copied. Not a
// symlink: OpenTofu (like Terraform) walks a filesystem mirror without following any symlink below its
// root, so a linked directory is never found ("not found in any of the search locations").
for (const host of REGISTRY_HOSTS.slice(1)) {
  cpSync(join(mirror, REGISTRY_HOSTS[0], 'provider', 'provider'), join(mirror, host, 'provider', 'provider'), { recursive: true })
}
writeFileSync(join(dist, 'terraformrc'), terraformrc(mirror, join(dist, 'terraformrc'), 'this build'))
console.log(`built provider ${version} for ${platform} into ${packageDir}`)

// ---- Pulumi: dist/pulumi/ holds the executable plugin (sh launcher + bundle + schema), and the
// tarball `pulumi plugin install resource provider <ver> --file <tarball>` takes.
const pulumiDir = freshDir(join(dist, 'pulumi'))
await bundle({
  entry: 'src/bin/pulumi-provider.ts',
  outfile: join(pulumiDir, 'provider.cjs'),
  program: 'pulumi-resource-provider',
  stream: 'stderr',
  define: { PROVIDER_VERSION: JSON.stringify(version), ...CHECKED },
})
const pulumiLauncher = join(pulumiDir, 'pulumi-resource-provider')
writeFileSync(
  pulumiLauncher,
  `#!/bin/sh
# pulumi-resource-provider ${version}: runs the bundled provider with Node.js 20+ (PROVIDER_NODE overrides).
# Nothing but the port line may reach stdout, so every message here goes to stderr.
node_bin=\${PROVIDER_NODE:-node}
if ! command -v "$node_bin" >/dev/null 2>&1; then
  echo "pulumi-resource-provider needs Node.js 20 or later on PATH (or set PROVIDER_NODE)" >&2
  exit 1
fi
${EXEC_BESIDE_REAL_FILE}`,
)
chmodSync(pulumiLauncher, 0o755)
writeFileSync(join(pulumiDir, 'pulumi-resource-provider.cmd'), `@echo off\r\nnode "%~dp0provider.cjs" %*\r\n`)
// The schema the plugin serves, from the tsc output (scripts/gen-pulumi.mjs writes the committed copy).
const { pulumiSchema } = await import('./gen-pulumi.mjs')
writeFileSync(join(pulumiDir, 'schema.json'), await pulumiSchema(version))

// A source-plugin layout (PulumiPlugin.yaml, runtime nodejs) for `pulumi package add <dir>` from a
// checkout. It lives apart: a PulumiPlugin.yaml beside the launcher would make the engine run the
// executable plugin through the Node language host instead.
const sourceDir = freshDir(join(dist, 'pulumi-source'))
copyFileSync(join(pulumiDir, 'provider.cjs'), join(sourceDir, 'provider.cjs'))
copyFileSync(join(pulumiDir, 'schema.json'), join(sourceDir, 'schema.json'))
writeFileSync(join(sourceDir, 'PulumiPlugin.yaml'), `runtime: nodejs\nname: provider\nversion: ${version}\n`)
writeFileSync(
  join(sourceDir, 'package.json'),
  `${JSON.stringify({ name: 'pulumi-resource-provider', version, private: true, main: 'provider.cjs', dependencies: { '@pulumi/pulumi': '^3.0.0' } }, null, 2)}\n`,
)

const pulumiPlatform = `${{ win32: 'windows' }[process.platform] ?? process.platform}-${{ x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch}`
const tarball = join(dist, `pulumi-resource-provider-v${version}-${pulumiPlatform}.tar.gz`)
rmSync(tarball, { force: true })
execFileSync('tar', [
  '-czf',
  tarball,
  '-C',
  pulumiDir,
  'pulumi-resource-provider',
  'pulumi-resource-provider.cmd',
  'provider.cjs',
  'schema.json',
  'LICENSE',
  'THIRD_PARTY_NOTICES.md',
])
console.log(`built pulumi-resource-provider ${version} into ${pulumiDir} and ${tarball}`)

// ---- The emulator: dist/emulator/provider-emulator.cjs, which `npm run release` compiles into the
// provider-emulator single executable of every platform (`npm run emulator` runs the tsc output instead).
const emulatorDir = freshDir(join(dist, 'emulator'))
await bundle({
  entry: 'src/bin/emulator.ts',
  outfile: join(emulatorDir, 'provider-emulator.cjs'),
  program: 'provider-emulator',
  stream: 'stderr',
  // The web console's files, so that the executable serves them (src/emulator/console/serve.ts).
  define: { ...CONSOLE_DEFINE, PROVIDER_VERSION: JSON.stringify(version) },
})
console.log(`built provider-emulator ${version} into ${emulatorDir}`)

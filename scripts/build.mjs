// Bundles the provider into one file and lays it out as a Terraform filesystem mirror, so that
// `TF_CLI_CONFIG_FILE=dist/terraformrc terraform init` installs it offline from any directory.
// Run after `tsc` (npm run build does both).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const platform = `${process.platform}_${{ x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch}`
const dist = join(root, 'dist')
const mirror = join(dist, 'mirror')
const packageDir = join(mirror, 'registry.terraform.io', 'provider', 'provider', version, platform)

rmSync(mirror, { recursive: true, force: true })
mkdirSync(packageDir, { recursive: true })

// The first statement of the bundle: an old Node gets one line Terraform shows, not a stack trace.
const guard =
  'if(+process.versions.node.split(".")[0]<20){process.stdout.write("terraform-provider-provider needs Node.js 20 or later, found "+process.version+"\\n");process.exit(1)}'

await build({
  entryPoints: [join(root, 'src/bin/terraform-provider.ts')],
  outfile: join(packageDir, 'provider.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  banner: { js: guard },
  logLevel: 'warning',
})

// Terraform runs the first file named terraform-provider-provider[_.*]; the bundle beside it is not one.
const launcher = join(packageDir, `terraform-provider-provider_v${version}`)
writeFileSync(
  launcher,
  `#!/bin/sh
# terraform-provider-provider ${version}: runs the bundled provider with Node.js 20+ (PROVIDER_NODE overrides).
node_bin=\${PROVIDER_NODE:-node}
if ! command -v "$node_bin" >/dev/null 2>&1; then
  echo "terraform-provider-provider needs Node.js 20 or later on PATH (or set PROVIDER_NODE)"
  exit 1
fi
exec "$node_bin" "$(dirname -- "$0")/provider.cjs" "$@"
`,
)
chmodSync(launcher, 0o755)

writeFileSync(
  join(dist, 'terraformrc'),
  `# Terraform CLI configuration: installs provider/provider from this build, with no network.
# Use it with TF_CLI_CONFIG_FILE=${join(dist, 'terraformrc')}
provider_installation {
  filesystem_mirror {
    path    = "${mirror}"
    include = ["registry.terraform.io/provider/provider"]
  }
  direct {
    exclude = ["registry.terraform.io/provider/provider"]
  }
}
`,
)
console.log(`built provider ${version} for ${platform} into ${packageDir}`)

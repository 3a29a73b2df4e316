// The CLI configurations the project writes, used exactly as the docs tell a user: the README's
// `TF_CLI_CONFIG_FILE=$PWD/dist/terraformrc` after `npm run build`, and docs/guides/releases.md's
// dist/release/terraformrc after `npm run release`. Each file itself (never a copy of its mirror, as the
// harness makes for every other test) installs provider/provider under the client this process runs
// (terraform or tofu, scripts/test.mjs runs test/e2e under each), and the installed provider serves a plan.
// OpenTofu reads `provider/provider` as registry.opentofu.org/provider/provider, and walks a mirror
// without following a symlink below its root: the mirror must hold that host's package as real files.
// `npm test` builds the release first (`npm run release`), so a missing release is a failure, never a skip.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { block, describeRun, PROVIDER_BLOCKS, ROOT, terraformClient, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }

/**
 * The CLI configuration a page tells the user to export, as `export TF_CLI_CONFIG_FILE=$PWD/<path>` from
 * the repository root, or `$REPO/<path>` where the page keeps the root in REPO before changing directory.
 */
function documentedConfig(page: string): string {
  const found = /export TF_CLI_CONFIG_FILE=\$(?:PWD|REPO)\/(\S+)/.exec(readFileSync(join(ROOT, page), 'utf8'))
  assert.ok(found, `${page} no longer tells the user to export TF_CLI_CONFIG_FILE=$PWD/... (or $REPO/...)`)
  return join(ROOT, found[1] as string)
}

const DOCUMENTED = [
  { page: 'README.md', what: 'the build (npm run build)', command: 'build' },
  { page: 'docs/guides/releases.md', what: 'the release (npm run release)', command: 'release' },
]

describe(`the documented CLI configurations install provider/provider under ${terraformClient().key}`, () => {
  const e2e = useEmulatorWorkspace({ workspace: false })

  for (const { page, what, command } of DOCUMENTED) {
    test(`${page}'s TF_CLI_CONFIG_FILE, from ${what}: init installs ${version} from its mirror, and a plan runs it`, async () => {
      const file = documentedConfig(page)
      assert.ok(existsSync(file), `${file} is missing: run \`npm run ${command}\` first`)
      const ws = await Workspace.create(e2e.emulator, file)
      try {
        await ws.write([PROVIDER_BLOCKS, block('data', 'provider_lite_products', 'all', {})].join('\n'))
        const init = await ws.run(['init', '-no-color', '-input=false'])
        assert.equal(init.code, 0, describeRun(init))
        assert.match(init.stdout, new RegExp(`Installed provider/provider v${version.replaceAll('.', '\\.')}`))
        const plan = await ws.run(['plan', '-no-color', '-input=false'])
        assert.equal(plan.code, 0, describeRun(plan))
        assert.match(plan.stdout, /No changes/)
      } finally {
        await ws.cleanup()
      }
    })
  }
})

// The definitions' load-time checks run at build time: scripts/build.mjs runs scripts/check-definitions.mjs
// over the sources before it writes any bundle, and the bundles it writes skip the checks at each launch
// (PROVIDER_DEFINITIONS_CHECKED in src/core/definition.ts). So the check must refuse a broken declaration,
// pass the shipped ones, and the bundles must be built with the checks skipped only by that build.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const check = (entry: string) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts/check-definitions.mjs'), join(ROOT, entry)], { cwd: ROOT, encoding: 'utf8' })

describe('definitions checked at build time', () => {
  test('a declaration the checks refuse fails the check, with the refusal', () => {
    const run = check('test/support/broken-definition.ts')
    assert.equal(run.status, 1, run.stderr)
    assert.match(run.stderr, /broken_box: paid is neither create-only nor covered by an update step, so its changes would be dropped/)
  })

  test('the shipped definitions pass', () => {
    const run = check('src/resources/index.ts')
    assert.equal(run.status, 0, run.stderr)
  })

  test('the build runs the check before it writes a bundle that skips it', () => {
    const build = readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8')
    const checked = build.indexOf("await checkDefinitions(join(root, 'src/resources/index.ts'))")
    assert.ok(checked > 0, 'scripts/build.mjs runs the check')
    // Every bundle for Node goes through one helper, bundle(); esbuild is called nowhere else but for the
    // emulator console's page script (platform 'browser'), which loads no definition.
    const builds = [...build.matchAll(/await build\(\{/g)].filter(
      (m) => !build.slice(m.index, build.indexOf('})', m.index)).includes("platform: 'browser'"),
    )
    assert.equal(builds.length, 1, 'scripts/build.mjs calls esbuild for Node in bundle() alone')
    const calls = [...build.matchAll(/await bundle\(\{[\s\S]*?\n\}\)/g)]
    assert.ok(calls.length >= 2 && calls.every((call) => call.index > checked), 'every bundle is written after the check')
    // The providers' bundles load the definitions and skip the check; the emulator's holds none.
    const providers = calls.filter((call) => /entry: 'src\/bin\/[a-z]+-provider\.ts'/.test(call[0]))
    assert.equal(providers.length, 2, 'the Terraform and Pulumi bundles')
    for (const call of providers) assert.match(call[0], /\.\.\.CHECKED/, 'and each provider bundle skips it')
  })
})

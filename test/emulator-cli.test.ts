// The emulator's command line as the release's provider-emulator executable offers it (its bundle here):
// `--version` names the version, so a user can tell which release a downloaded copy is.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { BUNDLES, VERSION as version } from './support/artifacts.js'

describe('provider-emulator command line', () => {
  test('--version prints the release version and exits 0; --help lists it', () => {
    const run = (flag: string) =>
      spawnSync(process.execPath, [BUNDLES.emulator as string, flag], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } })
    const printed = run('--version')
    assert.equal(printed.status, 0, printed.stderr)
    assert.equal(printed.stdout, `provider-emulator ${version}\n`)
    const help = run('--help')
    assert.equal(help.status, 0, help.stderr)
    assert.match(help.stdout, /--version/)
  })
})

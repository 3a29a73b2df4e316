// Which provider the real-client suites run. `npm test` and `npm run test:e2e` pass `--release` to
// scripts/test.mjs, which sets PROVIDER_TEST_ARTIFACTS=release: the suites then install and launch the
// release's executables for this platform (dist/release, what users download), so the whole suite runs
// through the shipped artifacts. Otherwise (a developer's targeted run after `npm run build`) they run the
// build's launcher and bundle (dist/mirror, dist/pulumi).
// Must not: fall back silently: a release older than the build is an error, never a quiet switch.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
export const RELEASE = join(ROOT, 'dist', 'release')
const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch
/** This machine's platform as the release names it (`linux_amd64`). */
export const HOST_PLATFORM = `${process.platform === 'win32' ? 'windows' : process.platform}_${arch}`

/** The Pulumi plugin tarball for this machine, as `npm run build` and `npm run release` both name it. */
export const PULUMI_TARBALL = `pulumi-resource-provider-v${VERSION}-${HOST_PLATFORM.replace('_', '-')}.tar.gz`

/** The bundles `npm run build` writes, which the release's executables are compiled from (scripts/release.mjs). */
export const BUNDLES: Readonly<Record<string, string>> = {
  terraform: join(ROOT, 'dist', 'mirror', 'registry.terraform.io', 'provider', 'provider', VERSION, HOST_PLATFORM, 'provider.cjs'),
  pulumi: join(ROOT, 'dist', 'pulumi', 'provider.cjs'),
  emulator: join(ROOT, 'dist', 'emulator', 'provider-emulator.cjs'),
}

/** True when the suites run the release's executables (PROVIDER_TEST_ARTIFACTS=release). */
export function runsRelease(): boolean {
  const value = process.env.PROVIDER_TEST_ARTIFACTS
  if (value === undefined || value === '' || value === 'build') return false
  if (value === 'release') return true
  throw new Error(`PROVIDER_TEST_ARTIFACTS=${value}: the known values are release and build`)
}

let checked = false

/**
 * A file of dist/release, after checking once that the release was compiled from the current build's
 * bundles (dist/release/bundle.sha256): a stale release would test yesterday's code.
 */
export function releaseFile(name: string): string {
  if (!checked) {
    const record = join(RELEASE, 'bundle.sha256')
    if (!existsSync(record)) throw new Error(`${record} is missing: run \`npm run release\` first`)
    const recorded = new Map(
      readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split('  ').reverse() as [string, string]),
    )
    for (const [which, bundle] of Object.entries(BUNDLES)) {
      const sum = createHash('sha256').update(readFileSync(bundle)).digest('hex')
      if (recorded.get(`${which}/${basename(bundle)}`) !== sum)
        throw new Error(`dist/release was not compiled from the current ${bundle}: run \`npm run release\` again`)
    }
    checked = true
  }
  const path = join(RELEASE, name)
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run release\` first`)
  return path
}

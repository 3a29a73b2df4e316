// The JavaScript runtimes taken from the npm registry, as pinned in tools/runtimes.json (version and npm's
// integrity of every platform's package): Bun, which the release compiles its executables with
// (scripts/release.mjs), and Deno, a benchmark candidate (bench/candidates.ts).
//
//   node scripts/runtimes.mjs [json]   fetch what is missing for this machine's platform (progress on
//                                      stderr) and print { "<runtime>": { "version", "bin" } } on stdout
//
// A package is fetched with npm's own client (`npm pack`, so node_modules is never touched), its tarball
// checked against the pinned integrity, and unpacked into the cache outside the clone:
// ${PROVIDER_RUNTIMES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/provider-iac/runtimes}/<runtime>-<version>-<os>_<arch>/.
// It is unpacked in a temporary directory and renamed into place once checked (and, for this machine's
// platform, once its binary answers `--version`), so a killed fetch never leaves a directory that a later
// run would take as fetched.
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * What every compiled provider executable is built with: a standalone executable that does not read
 * `.env` or `bunfig.toml` from the directory it runs in, which for a provider Terraform launches is the
 * user's (an `.env` there could set PROVIDER_API_KEY).
 */
export const BUN_COMPILE_FLAGS = Object.freeze(['--compile', '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig'])

/**
 * The flags `npm run release` compiles every executable with (scripts/release.mjs), besides the target:
 * - `--bytecode`: JavaScriptCore bytecode compiled at build time, so a launch parses and compiles nothing;
 * - `--compile-jit-policy=64`: the tier-up thresholds × 64 for the whole run, so that code a short-lived
 *   launch runs a few times stays in the interpreter instead of being compiled by the JIT (a third less CPU
 *   per launch, measured in bench/README.md; the long runs of 500 resources were no slower);
 * - BUN_COMPILE_FLAGS, which every Bun executable of ours needs, the benchmark's candidates too.
 */
export const BUN_RELEASE_FLAGS = Object.freeze([...BUN_COMPILE_FLAGS, '--bytecode', '--compile-jit-policy=64'])

const LOCK = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'runtimes.json')

/** This machine's platform as Terraform spells it (`linux_amd64`). */
export function hostPlatform() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch
  return `${process.platform === 'win32' ? 'windows' : process.platform}_${arch}`
}

/** tools/runtimes.json without its comment. */
export function runtimeLock() {
  const { '//': _comment, ...lock } = JSON.parse(readFileSync(LOCK, 'utf8'))
  return lock
}

function cacheRoot() {
  if (process.env.PROVIDER_RUNTIMES_CACHE) return resolve(process.env.PROVIDER_RUNTIMES_CACHE)
  return resolve(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'provider-iac', 'runtimes')
}

const log = (line) => console.error(`[runtimes] ${line}`)

/**
 * The unpacked package of `runtime` for `platform` (`linux_amd64`…), fetched once: its pinned version, the
 * package directory (the tarball's `package/` is inside it) and the runtime's binary. Throws when the lock
 * has no package for that platform.
 */
export function runtimePackage(runtime, platform = hostPlatform()) {
  const spec = runtimeLock()[runtime]
  if (!spec) throw new Error(`tools/runtimes.json pins no runtime named ${runtime}`)
  const pkg = spec.packages[platform]
  if (!pkg) throw new Error(`tools/runtimes.json pins no ${runtime} package for ${platform}`)
  const cache = cacheRoot()
  mkdirSync(cache, { recursive: true })
  const home = join(cache, `${runtime}-${spec.version}-${platform}`)
  const bin = join(home, pkg.bin ?? spec.bin)
  if (!existsSync(bin)) {
    log(`fetching ${pkg.name}@${spec.version} with npm pack`)
    const temp = mkdtempSync(join(cache, `.tmp-${runtime}-`))
    try {
      // A registry that fails now and then (npm exits 254 on a dropped connection) gets three tries.
      for (let attempt = 1; ; attempt++) {
        try {
          execFileSync('npm', ['pack', `${pkg.name}@${spec.version}`, '--pack-destination', temp, '--loglevel=error'], {
            stdio: ['ignore', 'ignore', 'inherit'],
            timeout: 600_000,
          })
          break
        } catch (error) {
          if (attempt === 3) throw error
          log(
            `npm pack ${pkg.name}@${spec.version} failed (${error instanceof Error ? error.message.split('\n')[0] : error}); trying again`,
          )
        }
      }
      const tarball = readdirSync(temp).find((name) => name.endsWith('.tgz'))
      if (!tarball) throw new Error(`npm pack ${pkg.name}@${spec.version} wrote no tarball`)
      const data = readFileSync(join(temp, tarball))
      const integrity = `sha512-${createHash('sha512').update(data).digest('base64')}`
      if (integrity !== pkg.integrity)
        throw new Error(
          `${pkg.name}@${spec.version}: the registry's tarball has integrity ${integrity}, tools/runtimes.json pins ${pkg.integrity}`,
        )
      execFileSync('tar', ['-xzf', join(temp, tarball), '-C', temp])
      rmSync(join(temp, tarball))
      const unpacked = join(temp, pkg.bin ?? spec.bin)
      if (!existsSync(unpacked)) throw new Error(`${pkg.name}@${spec.version} has no ${pkg.bin ?? spec.bin}`)
      if (platform === hostPlatform()) execFileSync(unpacked, ['--version'], { stdio: 'ignore', timeout: 30_000 })
      rmSync(home, { recursive: true, force: true })
      renameSync(temp, home)
    } finally {
      rmSync(temp, { recursive: true, force: true })
    }
  }
  return { name: pkg.name, version: spec.version, dir: home, bin }
}

/** Every pinned runtime that has a package for this machine's platform: { runtime: { version, bin } }. */
export function hostRuntimes() {
  const cache = cacheRoot()
  if (existsSync(cache))
    for (const name of readdirSync(cache)) if (name.startsWith('.tmp-')) rmSync(join(cache, name), { recursive: true, force: true })
  const result = {}
  for (const [runtime, spec] of Object.entries(runtimeLock())) {
    if (!spec.packages[hostPlatform()]) continue
    const { version, bin } = runtimePackage(runtime)
    result[runtime] = { version, bin }
  }
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const command = process.argv[2] ?? 'json'
  if (command !== 'json') throw new Error(`unknown command ${command}: the only one is json`)
  console.log(JSON.stringify(hostRuntimes(), null, 2))
}

// The JavaScript runtimes `npm run bench` measures as candidates beside the Node.js single executable
// (bench/candidates.ts): Bun and Deno, as their makers publish them on the npm registry, fetched with
// npm's own client (`npm pack`, so node_modules is never touched) into a cache outside the clone.
//
//   node scripts/bench-runtimes.mjs [json]   fetch what is missing (progress on stderr); print the JSON below
//
//   { "bun":  { "version": "1.4.5", "bin": "<cache>/bun-1.4.5/package/bin/bun" },
//     "deno": { "version": "2.9.6", "bin": "<cache>/deno-2.9.6/package/deno" } }
//
// Cache: ${XDG_CACHE_HOME:-$HOME/.cache}/provider-iac/runtimes/<runtime>-<version>/ (PROVIDER_BENCH_RUNTIMES
// overrides). A runtime is unpacked in a temporary directory and renamed into place once its binary answers
// `--version`, so a killed fetch never leaves a directory that a later run would take as fetched.
// Only the packages of the host platform are fetched; a host without one gets no entry for that runtime.
// `deno compile` needs `denort`, which Deno publishes only on its own download host, not on npm: the bench
// runs the bundle with the `deno` binary instead (see bench/README.md).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Pinned versions; the package of each host platform, and where its binary is inside the package. */
const RUNTIMES = {
  bun: {
    version: '1.4.5',
    packages: {
      'linux-x64': '@oven/bun-linux-x64',
      'linux-arm64': '@oven/bun-linux-aarch64',
      'darwin-x64': '@oven/bun-darwin-x64',
      'darwin-arm64': '@oven/bun-darwin-aarch64',
    },
    bin: 'package/bin/bun',
  },
  deno: {
    version: '2.9.6',
    packages: {
      'linux-x64': '@deno/linux-x64-glibc',
      'linux-arm64': '@deno/linux-arm64-glibc',
      'darwin-x64': '@deno/darwin-x64',
      'darwin-arm64': '@deno/darwin-arm64',
    },
    bin: 'package/deno',
  },
}

function cacheRoot() {
  if (process.env.PROVIDER_BENCH_RUNTIMES) return resolve(process.env.PROVIDER_BENCH_RUNTIMES)
  return resolve(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'provider-iac', 'runtimes')
}

/** Fetches what is missing and resolves to { runtime: { version, bin } } for the host platform. */
export function ensureRuntimes({ log = (line) => console.error(`[bench-runtimes] ${line}`) } = {}) {
  const cache = cacheRoot()
  mkdirSync(cache, { recursive: true })
  for (const name of readdirSync(cache)) if (name.startsWith('.tmp-')) rmSync(join(cache, name), { recursive: true, force: true })
  const host = `${process.platform}-${process.arch}`
  const result = {}
  for (const [runtime, spec] of Object.entries(RUNTIMES)) {
    const pkg = spec.packages[host]
    if (!pkg) continue
    const home = join(cache, `${runtime}-${spec.version}`)
    if (!existsSync(join(home, spec.bin))) {
      log(`fetching ${pkg}@${spec.version} with npm pack`)
      const temp = mkdtempSync(join(cache, `.tmp-${runtime}-`))
      execFileSync('npm', ['pack', `${pkg}@${spec.version}`, '--pack-destination', temp, '--silent'], {
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      const tarball = readdirSync(temp).find((name) => name.endsWith('.tgz'))
      if (!tarball) throw new Error(`npm pack ${pkg}@${spec.version} wrote no tarball`)
      execFileSync('tar', ['-xzf', join(temp, tarball), '-C', temp])
      rmSync(join(temp, tarball))
      execFileSync(join(temp, spec.bin), ['--version'], { stdio: 'ignore' })
      rmSync(home, { recursive: true, force: true })
      renameSync(temp, home)
    }
    result[runtime] = { version: spec.version, bin: join(home, spec.bin) }
  }
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const command = process.argv[2] ?? 'json'
  if (command !== 'json') throw new Error(`unknown command ${command}: the only one is json`)
  console.log(JSON.stringify(ensureRuntimes(), null, 2))
}

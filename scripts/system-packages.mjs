// The Debian packages the test suite needs beyond Node.js, Go and Python, installed when missing:
// `npm test` (and `npm run test:e2e`) run this first, so that the README's one test command passes on a
// fresh machine. Each package is looked for by the file the suite uses from it:
//   qemu-user          qemu-aarch64 on PATH: test/e2e/release.test.ts runs the linux_arm64 executables under it
//   libc6-arm64-cross  /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1: the AArch64 C library they load
//   postgresql         /usr/lib/postgresql/<major>/bin/postgres: test/support/postgres.ts starts a server of its own
//   chromium           /usr/bin/chromium: test/console.test.ts drives the emulator's web console in it (playwright-core)
// The missing ones are installed with one `apt-get install` (as root; otherwise, or without apt-get, a
// clear error names the packages and the command). Nothing is asked of apt-get when all are there.
//
//   node scripts/system-packages.mjs            check, and install what is missing
//   node scripts/system-packages.mjs --check    check only: list what is missing, exit 1 if anything is
//
// PROVIDER_SYSTEM_ROOT (default /) is the root the files are looked for under, so that a test can show
// what happens on a machine without them (test/system-packages.test.ts); qemu-aarch64 is looked for on PATH.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** What the suite needs, each with the file that shows its package is installed. */
export const SYSTEM_PACKAGES = [
  {
    name: 'qemu-user',
    why: 'runs the linux_arm64 executables',
    look: 'qemu-aarch64 on PATH',
    present: ({ path }) => path.split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'qemu-aarch64'))),
  },
  {
    name: 'libc6-arm64-cross',
    why: 'the AArch64 C library those executables load',
    look: '/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1',
    present: ({ root }) => existsSync(join(root, 'usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1')),
  },
  {
    name: 'postgresql',
    why: "the shared order journal's tests start a server",
    look: '/usr/lib/postgresql/<major>/bin/postgres',
    present: ({ root }) => {
      const dir = join(root, 'usr/lib/postgresql')
      return existsSync(dir) && readdirSync(dir).some((major) => existsSync(join(dir, major, 'bin', 'postgres')))
    },
  },
  {
    name: 'chromium',
    why: "the emulator's web console is tested in it",
    look: '/usr/bin/chromium',
    present: ({ root }) => existsSync(join(root, 'usr/bin/chromium')),
  },
]

/** The packages whose file is missing under `root` (and, for commands, on `path`). */
export function missingPackages({ root = '/', path = process.env.PATH ?? '' } = {}) {
  return SYSTEM_PACKAGES.filter((pkg) => !pkg.present({ root, path }))
}

/**
 * Installs the missing packages with apt-get, or throws an error naming them and the command to run.
 * `run(command, args, env)` runs a command and returns its exit status; `isRoot` and `aptGet` (the
 * apt-get on PATH, or undefined) describe the machine.
 */
export function ensureSystemPackages({ root = '/', path = process.env.PATH ?? '', isRoot, aptGet, run, log = console.log }) {
  const missing = missingPackages({ root, path })
  if (missing.length === 0) return []
  const names = missing.map((pkg) => pkg.name)
  const list = missing.map((pkg) => `  ${pkg.name} (${pkg.look}: ${pkg.why})`).join('\n')
  const command = `apt-get install -y --no-install-recommends ${names.join(' ')}`
  if (aptGet === undefined)
    throw new Error(
      `The test suite needs these Debian packages, and there is no apt-get here to install them:\n${list}\nInstall their equivalents with your system's package manager.`,
    )
  if (!isRoot)
    throw new Error(
      `The test suite needs these Debian packages, and installing them needs root:\n${list}\nRun: sudo apt-get update && sudo ${command}`,
    )
  log(`installing Debian's ${names.join(', ')} for the test suite (${command})`)
  // No recommends: qemu-user's would register binfmt handlers, which the tests do not use (they name qemu-aarch64).
  const env = { DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...names],
  ]) {
    const status = run(aptGet, args, env)
    if (status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${status}); the suite needs ${names.join(', ')}`)
  }
  const still = missingPackages({ root, path }).map((pkg) => `${pkg.name} (${pkg.look})`)
  if (still.length > 0) throw new Error(`apt-get installed ${names.join(', ')}, yet these are still missing: ${still.join(', ')}`)
  return names
}

/** The first `name` on `path`, or undefined. */
function onPath(name, path) {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file))
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.env.PROVIDER_SYSTEM_ROOT || '/')
  const path = process.env.PATH ?? ''
  try {
    if (process.argv.includes('--check')) {
      const missing = missingPackages({ root, path })
      for (const pkg of missing) console.log(`missing: ${pkg.name} (${pkg.look})`)
      process.exit(missing.length === 0 ? 0 : 1)
    }
    ensureSystemPackages({
      root,
      path,
      isRoot: process.getuid?.() === 0,
      aptGet: onPath('apt-get', path),
      run: (command, args, env) =>
        spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } }).status ?? 1,
    })
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : error}`)
    process.exit(1)
  }
}

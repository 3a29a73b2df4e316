// The installable packages of the generated Pulumi SDKs, as users get them from a release: the npm
// tarball of the compiled TypeScript SDK, the Python wheel and sdist, and the Go module. Used by
// scripts/release.mjs, which writes them into dist/release/, and by test/pulumi-sdk.test.ts, which
// builds them and runs programs on them.
//
// The tools each build needs are installed once into .cache/sdk-build/ (PROVIDER_SDK_CACHE overrides),
// from the npm registry and PyPI with their own clients, at the versions pinned below:
//   nodejs-<v>/  node_modules with @pulumi/pulumi <v>: the generated SDK calls APIs newer than the
//                repository's own @pulumi/pulumi, which the provider bundle pins for its gRPC stubs
//   python-<v>/  a venv with pulumi <v> (to import the SDK), build and setuptools (to package it)
// Each is built under a temporary name and renamed into place once complete, so a killed install is
// never taken for a finished one.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const cache = resolve(process.env.PROVIDER_SDK_CACHE ?? join(root, '.cache', 'sdk-build'))

/**
 * Versions of what the builds and the SDK tests install. Each Pulumi SDK is the newest its registry
 * served when it was pinned that the generated code accepts (it asks for 3.269.0 or later); the Go
 * SDK's version is the generator's own, from scripts/tools.mjs.
 */
export const PINS = {
  nodejsPulumi: '3.270.0',
  pythonPulumi: '3.272.0',
  pythonBuild: '1.6.1',
  pythonSetuptools: '84.2.1',
}

const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options })

/** Builds `dir` with `fill(tmp)` when it is missing; concurrent or killed builds never leave a half-made `dir`. */
function cached(dir, fill) {
  if (existsSync(dir)) return dir
  mkdirSync(dirname(dir), { recursive: true })
  const tmp = `${dir}.tmp-${process.pid}`
  rmSync(tmp, { recursive: true, force: true })
  try {
    fill(tmp)
    try {
      renameSync(tmp, dir)
    } catch (error) {
      if (!existsSync(dir)) throw error // another process finished first: use its copy
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return dir
}

/** A node_modules holding @pulumi/pulumi and @types/node, for compiling and running the TypeScript SDK. */
export function nodeEnv() {
  const types = JSON.parse(readFileSync(join(root, 'node_modules', '@types', 'node', 'package.json'), 'utf8')).version
  return cached(join(cache, `nodejs-${PINS.nodejsPulumi}`), (tmp) => {
    mkdirSync(tmp, { recursive: true })
    const manifest = { private: true, dependencies: { '@pulumi/pulumi': PINS.nodejsPulumi, '@types/node': types } }
    writeFileSync(join(tmp, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: tmp })
  })
}

/** A venv with pulumi, build and setuptools; returns its python. Only `python -m …` is used, so the venv may be renamed. */
export function pythonEnv() {
  const dir = cached(join(cache, `python-${PINS.pythonPulumi}`), (tmp) => {
    run('python3', ['-m', 'venv', tmp])
    run(join(tmp, 'bin', 'python'), [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--quiet',
      `pulumi==${PINS.pythonPulumi}`,
      `build==${PINS.pythonBuild}`,
      `setuptools==${PINS.pythonSetuptools}`,
    ])
  })
  return join(dir, 'bin', 'python')
}

/**
 * Compiles the TypeScript SDK with the repository's tsc and packs it with npm, as Pulumi's SDKs are
 * published: the package is the compiled bin/ with package.json beside it (utilities.getVersion reads
 * it). Returns the tarball's path in `out`.
 */
export function packNodejs(sdk, out, work) {
  const dir = join(work, 'nodejs')
  rmSync(dir, { recursive: true, force: true })
  cpSync(sdk, dir, { recursive: true, filter: (src) => !/[/\\](bin|node_modules)$/.test(src) })
  symlinkSync(join(nodeEnv(), 'node_modules'), join(dir, 'node_modules'), 'dir')
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')])
  for (const file of ['package.json', 'README.md']) cpSync(join(dir, file), join(dir, 'bin', file))
  cpSync(join(root, 'LICENSE'), join(dir, 'bin', 'LICENSE'))
  mkdirSync(out, { recursive: true })
  const name = run('npm', ['pack', join(dir, 'bin'), '--pack-destination', out, '--silent'], { cwd: work })
    .trim()
    .split('\n')
    .pop()
  return join(out, name)
}

/**
 * The wheel and the sdist of the Python SDK, built without network access by the venv's setuptools,
 * with LICENSE beside pyproject.toml. SOURCE_DATE_EPOCH fixes the wheel's timestamps. Returns the two
 * paths in `out`.
 */
export function buildPython(sdk, out, work) {
  const dir = join(work, 'python')
  rmSync(dir, { recursive: true, force: true })
  cpSync(sdk, dir, { recursive: true })
  cpSync(join(root, 'LICENSE'), join(dir, 'LICENSE'))
  mkdirSync(out, { recursive: true })
  const before = new Set(readdirSync(out))
  run(pythonEnv(), ['-m', 'build', '--no-isolation', '--sdist', '--wheel', '--outdir', out, dir], {
    env: { ...process.env, SOURCE_DATE_EPOCH: '315532800', PYTHONDONTWRITEBYTECODE: '1' },
  })
  return readdirSync(out)
    .filter((name) => !before.has(name))
    .sort()
    .map((name) => join(out, name))
}

// The Terraform provider as a Node.js single executable application (SEA), built for this machine only, as
// the release built it before it moved to Bun: kept so that `npm run bench` can still measure it
// (bench/candidates.ts). The official Node.js binary of the running version (npm package
// node-<os>-<arch>, fetched with `npm pack` and cached outside the clone, in
// ${XDG_CACHE_HOME:-$HOME/.cache}/provider-iac/runtimes/node-<version>-<os>_<arch>/), with a SEA blob
// injected by postject: its main script is scripts/sea-main.cjs, its assets the bundle wrapped in a
// CommonJS function and V8's code cache of a trained run (scripts/sea-train.mjs, run by that binary, so
// the cache matches its V8). The executable must then accept that cache.
//
//   node scripts/node-sea.mjs <provider.cjs> <executable out>     (after `npm run build`)
import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'
/** The function the bundle is wrapped in; scripts/sea-main.cjs calls it as Node calls a CommonJS module. */
const CJS_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})']

/** The official Node.js binary of the running version for this machine, fetched once with npm's own client. */
export function nodeRuntime() {
  if (process.platform !== 'linux') throw new Error(`node-sea.mjs builds on Linux only, not on ${process.platform}`)
  const version = process.versions.node
  const cache = resolve(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'provider-iac', 'runtimes')
  const home = join(cache, `node-${version}-linux_${{ x64: 'amd64' }[process.arch] ?? process.arch}`)
  const bin = join(home, 'package', 'bin', 'node')
  if (existsSync(bin)) return bin
  const name = `node-linux-${process.arch}@${version}`
  console.error(`[node-sea] fetching ${name} with npm pack`)
  mkdirSync(cache, { recursive: true })
  const temp = mkdtempSync(join(cache, '.tmp-node-'))
  try {
    execFileSync('npm', ['pack', name, '--pack-destination', temp, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] })
    const tarball = readdirSync(temp).find((file) => file.endsWith('.tgz'))
    if (!tarball) throw new Error(`npm pack ${name} wrote no tarball`)
    execFileSync('tar', ['-xzf', join(temp, tarball), '-C', temp, 'package/bin/node', 'package/LICENSE'])
    rmSync(join(temp, tarball))
    // Renamed into place only once it runs, so a killed fetch never leaves a cache entry a later run would trust.
    execFileSync(join(temp, 'package', 'bin', 'node'), ['--version'], { stdio: 'ignore', timeout: 30_000 })
    rmSync(home, { recursive: true, force: true })
    renameSync(temp, home)
  } finally {
    rmSync(temp, { recursive: true, force: true })
  }
  return bin
}

/**
 * Builds the single executable of the Terraform provider's `bundle` (dist/mirror/…/provider.cjs) at
 * `target`. Resolves once the executable has reported that V8 accepted its code cache (a rejected cache
 * would silently cost the whole compile at every launch); rejects otherwise.
 */
export async function buildNodeSea(bundle, target) {
  const node = nodeRuntime()
  const work = mkdtempSync(join(tmpdir(), 'node-sea-'))
  try {
    const code = join(work, 'provider.cjs')
    const cache = join(work, 'provider.cache')
    const blob = join(work, 'provider.blob')
    writeFileSync(code, CJS_WRAPPER[0] + readFileSync(bundle, 'utf8') + CJS_WRAPPER[1])
    execFileSync(node, [join(root, 'scripts', 'sea-train.mjs'), code, cache], { stdio: 'pipe', timeout: 60_000 })
    const config = {
      main: join(root, 'scripts', 'sea-main.cjs'),
      assets: { 'provider.cjs': code, 'provider.cache': cache },
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
    }
    writeFileSync(join(work, 'sea.json'), JSON.stringify(config))
    execFileSync(node, ['--experimental-sea-config', join(work, 'sea.json')], { stdio: 'pipe' }) // its stderr is in the error
    copyFileSync(node, target)
    chmodSync(target, 0o755)
    const postject = join(root, 'node_modules', 'postject', 'dist', 'cli.js')
    execFileSync(process.execPath, [postject, target, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL], { stdio: 'pipe' })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  await checkCodeCache(target)
  return { node: process.versions.node }
}

/** Launches the executable with PROVIDER_TRACE_STARTUP=1 and reads the code cache's state from its stderr. */
function checkCodeCache(executable) {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, [], {
      env: { PATH: process.env.PATH, PROVIDER_TRACE_STARTUP: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (/provider-code-cache \w+\n/.test(stderr)) child.kill('SIGKILL')
    })
    child.once('error', reject)
    child.once('close', () => {
      clearTimeout(timer)
      const state = /provider-code-cache (\w+)/.exec(stderr)?.[1]
      if (state === 'accepted') resolve()
      else reject(new Error(`${executable}: V8 code cache ${state ?? 'not reported'}: ${stderr.slice(-500)}`))
    })
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [bundle, target] = process.argv.slice(2)
  if (!bundle || !target) throw new Error('usage: node scripts/node-sea.mjs <provider.cjs> <executable out>')
  await buildNodeSea(resolve(bundle), resolve(target))
  console.log(`${target}: Node.js ${process.versions.node} single executable, code cache accepted`)
}

// The Terraform provider as a Node.js single executable application (SEA), built for this machine only, as
// the release built it before it moved to Bun: kept so that `npm run bench` can still measure it
// (bench/candidates.ts). The official Node.js binary pinned in tools/runtimes.json (npm package
// node-linux-<arch>, fetched and checked by scripts/runtimes.mjs), with a SEA blob
// injected by postject: its main script is scripts/sea-main.cjs, its assets the bundle wrapped in a
// CommonJS function and V8's code cache of a trained run (scripts/sea-train.mjs, run by that binary, so
// the cache matches its V8). The executable must then accept that cache.
//
//   node scripts/node-sea.mjs <provider.cjs> <executable out>     (after `npm run build`)
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runtimePackage } from './runtimes.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'
/** The function the bundle is wrapped in; scripts/sea-main.cjs calls it as Node calls a CommonJS module. */
const CJS_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})']

/**
 * Builds the single executable of the Terraform provider's `bundle` (dist/mirror/…/provider.cjs) at
 * `target`. Resolves once the executable has reported that V8 accepted its code cache (a rejected cache
 * would silently cost the whole compile at every launch); rejects otherwise.
 */
export async function buildNodeSea(bundle, target) {
  const { bin: node, version } = runtimePackage('node')
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
  return { node: version }
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
  const { node } = await buildNodeSea(resolve(bundle), resolve(target))
  console.log(`${target}: Node.js ${node} single executable, code cache accepted`)
}

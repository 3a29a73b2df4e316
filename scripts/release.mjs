// npm run release: the release artifacts of both providers and the emulator for every platform, into
// dist/release/.
//
// Each executable (the Terraform provider, the Pulumi plugin, the emulator: PRODUCTS below) is compiled by
// Bun (pinned in tools/runtimes.json, fetched by scripts/runtimes.mjs): `bun build --compile --bytecode` of
// the program's bundle, unchanged, with the platform's own Bun binary (from its npm package) as the runtime
// the executable carries, and JavaScriptCore bytecode compiled at build time, so nothing is parsed or
// compiled from source at a launch. The Bun of this machine builds every platform's executable (`--target`,
// `--compile-executable-path`). The flags, and why each, are BUN_RELEASE_FLAGS in scripts/runtimes.mjs.
//
// Writes, for version V:
//   terraform-provider-provider_V_<os>_<arch>.zip, _V_SHA256SUMS, _V_manifest.json (Terraform Registry layout)
//   mirror/registry.terraform.io/provider/provider/<those zips>, index.json, V.json  (filesystem_mirror, or
//                                                                served over HTTPS, network_mirror)
//   terraformrc                                                  (a CLI configuration using that mirror)
//   pulumi-resource-provider-vV-<os>-<arch>.tar.gz               (`pulumi plugin install ... --file`)
//   provider-emulator_V_<os>_<arch>.tar.gz (.zip for windows), _V_SHA256SUMS  (the emulator, run by hand)
//   provider-pulumi-V.tgz                                        (the TypeScript SDK: `npm install <it>`)
//   pulumi_provider-V-py3-none-any.whl, pulumi_provider-V.tar.gz (the Python SDK: `pip install <it>`)
//   goproxy/<module>/@v/vV.{info,mod,zip}, list                  (the Go SDK, as a GOPROXY=file://… directory)
//   pulumi-sdks_V_SHA256SUMS                                     (over the SDK files above)
//   bundle.sha256                                                (the bundles the executables were compiled from)
// The SDKs are packed from sdk/ as committed (scripts/sdk-packages.mjs; docs/pulumi-sdks.md says how
// each is installed). RELEASE_PLATFORMS (e.g. "linux_amd64,windows_amd64") narrows the set. Run after
// `npm run build` (npm run release does both).
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { deflateRawSync } from 'node:zlib'
import { unsign } from 'macho-unsign'
import { checkMachOSignature } from './macho.mjs'
import { bunNotice } from './notices.mjs'
import { BUN_RELEASE_FLAGS, hostPlatform, runtimePackage } from './runtimes.mjs'
import { buildPython, packNodejs } from './sdk-packages.mjs'
import { REGISTRY_HOSTS, terraformrc } from './terraformrc.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const dist = join(root, 'dist')
const out = join(dist, 'release')
const work = join(dist, 'release-work')

/** Every platform the registries ask for, with Bun's name of it (`--target=bun-<bun>`). */
const PLATFORMS = [
  { os: 'linux', arch: 'amd64', bun: 'linux-x64' },
  { os: 'linux', arch: 'arm64', bun: 'linux-arm64' },
  { os: 'darwin', arch: 'amd64', bun: 'darwin-x64' },
  { os: 'darwin', arch: 'arm64', bun: 'darwin-arm64' },
  { os: 'windows', arch: 'amd64', bun: 'windows-x64' },
]
const wanted = process.env.RELEASE_PLATFORMS?.split(',').map((p) => p.trim())
const platforms = wanted ? PLATFORMS.filter((p) => wanted.includes(`${p.os}_${p.arch}`)) : PLATFORMS
if (wanted && platforms.length !== wanted.length) throw new Error(`RELEASE_PLATFORMS names unknown platforms: ${wanted.join(', ')}`)

const tfBundle = join(dist, 'mirror', 'registry.terraform.io', 'provider', 'provider', version, hostPlatform(), 'provider.cjs')
const pulumiBundle = join(dist, 'pulumi', 'provider.cjs')
const emulatorBundle = join(dist, 'emulator', 'provider-emulator.cjs')
for (const file of [tfBundle, pulumiBundle, emulatorBundle]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run release does)`)
}

const started = Date.now()
rmSync(out, { recursive: true, force: true })
rmSync(work, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

const host = runtimePackage('bun')
const { MAGIC_COOKIE_VALUE } = await import(pathToFileURL(join(root, 'build', 'src', 'terraform', 'handshake.js')).href)
const tfName = 'terraform-provider-provider'
const exeOf = (platform) => (platform.os === 'windows' ? '.exe' : '')

/**
 * What the release compiles for every platform: each bundle becomes one executable, packed with LICENSE,
 * its notices and `extra` files (from beside the bundle) into one archive per platform, zip or tar.gz by
 * its name, and every archive of a product is listed in the product's SHA256SUMS. `start` is how this
 * machine's executable is launched to check that it answers: the environment, the arguments, and the
 * first stdout line it must print.
 */
const PRODUCTS = [
  {
    name: 'terraform', // its line in bundle.sha256
    bundle: tfBundle,
    executable: (p) => `${tfName}_v${version}${exeOf(p)}`,
    // The registry's zip holds the executable and the notices, nothing else.
    archive: (p) => `${tfName}_${version}_${p.os}_${p.arch}.zip`,
    sums: `${tfName}_${version}_SHA256SUMS`,
    extra: [],
    start: {
      env: {
        TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE,
        PLUGIN_PROTOCOL_VERSIONS: '6',
        PLUGIN_MIN_PORT: '10000',
        PLUGIN_MAX_PORT: '25000',
      },
      args: [],
      line: { what: 'handshake', pattern: /^1\|6\|(tcp|unix)\|/ },
    },
  },
  {
    name: 'pulumi',
    bundle: pulumiBundle,
    executable: (p) => `pulumi-resource-provider${exeOf(p)}`,
    // The tarball `pulumi plugin install resource provider V --file` unpacks into the plugin dir.
    archive: (p) => `pulumi-resource-provider-v${version}-${p.os}-${p.arch}.tar.gz`,
    sums: `pulumi-resource-provider_${version}_SHA256SUMS`,
    extra: ['schema.json'],
    start: { env: {}, args: [], line: { what: 'port', pattern: /^\d+$/ } },
  },
  {
    name: 'emulator',
    bundle: emulatorBundle,
    executable: (p) => `provider-emulator${exeOf(p)}`,
    // Unpacked by hand: Windows opens a zip with no extra tool, every other system has tar.
    archive: (p) => `provider-emulator_${version}_${p.os}_${p.arch}.${p.os === 'windows' ? 'zip' : 'tar.gz'}`,
    sums: `provider-emulator_${version}_SHA256SUMS`,
    extra: [],
    start: { env: {}, args: ['--port', '0'], line: { what: 'base URL', pattern: /^http:\/\/127\.0\.0\.1:\d+\/v1$/ } },
  },
]

/**
 * The platform's Bun binary as the executable's runtime. A darwin_amd64 binary's Apple signature would no
 * longer match once the bundle is appended, and macOS kills a binary whose signature is broken: it is
 * removed first (Intel Macs run unsigned binaries). For darwin_arm64, which runs no unsigned binary, Bun
 * signs the result ad hoc itself; checkMachOSignature then verifies every page's hash.
 */
function runtimeOf(platform) {
  const bun = runtimePackage('bun', `${platform.os}_${platform.arch}`)
  if (platform.os !== 'darwin' || platform.arch !== 'amd64') return bun.bin
  const unsigned = join(work, 'runtimes', `bun-${platform.bun}`)
  mkdirSync(dirname(unsigned), { recursive: true })
  writeFileSync(unsigned, Buffer.from(unsign(readFileSync(bun.bin)) ?? readFileSync(bun.bin)))
  chmodSync(unsigned, 0o755)
  return unsigned
}

/** Compiles `product`'s bundle into the executable `target` for `platform`, and checks what can be checked here. */
async function compile(product, target, platform, runtime) {
  const args = [
    'build',
    ...BUN_RELEASE_FLAGS,
    `--target=bun-${platform.bun}`,
    `--compile-executable-path=${runtime}`,
    product.bundle,
    '--outfile',
    target,
  ]
  execFileSync(host.bin, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 }) // its stderr is in the error
  chmodSync(target, 0o755)
  if (platform.os === 'darwin') checkMachOSignature(readFileSync(target), { required: platform.arch === 'arm64', name: target })
  if (`${platform.os}_${platform.arch}` === hostPlatform()) await checkFirstLine(target, product.start)
}

/**
 * This machine's executables must start and answer: the Terraform provider its handshake line, the
 * Pulumi plugin its port line, the emulator its base URL. A bytecode cache that JavaScriptCore rejected
 * would still run (from source); a build that cannot start at all is caught here rather than by a user.
 */
function checkFirstLine(executable, start) {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? '', ...start.env }
    const child = spawn(executable, start.args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      if (stdout.includes('\n')) child.kill('SIGKILL')
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.once('error', reject)
    child.once('close', () => {
      clearTimeout(timer)
      const line = stdout.split('\n')[0]
      if (start.line.pattern.test(line)) resolve()
      else
        reject(new Error(`${executable} did not answer with its ${start.line.what} line: ${JSON.stringify(line)}\n${stderr.slice(-1000)}`))
    })
  })
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')
const artifacts = new Map(PRODUCTS.map((product) => [product, []]))
/** Milliseconds spent compiling and packing each product, over every platform. */
const spent = new Map(PRODUCTS.map((product) => [product, 0]))
const summary = []
/** The network mirror's `<version>.json` archives: each platform's zip, by a URL relative to it, and its h1 hash. */
const mirrorArchives = {}

for (const platform of platforms) {
  const target = `${platform.os}_${platform.arch}`
  const runtime = runtimeOf(platform)
  for (const product of PRODUCTS) {
    const productStarted = Date.now()
    const dir = join(work, target, product.name)
    mkdirSync(dir, { recursive: true })
    const executable = product.executable(platform)
    await compile(product, join(dir, executable), platform, runtime)
    const files = [{ name: executable, data: readFileSync(join(dir, executable)), mode: 0o755 }, ...notices(product.bundle)]
    for (const name of product.extra) files.push({ name, data: readFileSync(join(dirname(product.bundle), name)), mode: 0o644 })
    const archive = product.archive(platform)
    pack(join(out, archive), dir, files)
    artifacts.get(product).push(archive)
    if (product.name === 'terraform') mirrorArchives[`${platform.os}_${platform.arch}`] = { url: archive, hashes: [hash1(files)] }
    const size = statSync(join(dir, executable)).size
    summary.push(`${target} ${product.name}: Bun ${host.version} executable, ${(size / 1048576).toFixed(1)} MiB`)
    spent.set(product, spent.get(product) + Date.now() - productStarted)
  }
}
summary.unshift(`executables compiled with ${BUN_RELEASE_FLAGS.slice(1).join(' ')}`)
for (const [product, ms] of spent)
  summary.push(`${product.name}: compiled and packed for ${platforms.length} platforms in ${(ms / 1000).toFixed(1)} s`)
// What the executables were compiled from, so that a test run can tell a stale release from a fresh one.
writeFileSync(
  join(out, 'bundle.sha256'),
  PRODUCTS.map((product) => `${sha256(readFileSync(product.bundle))}  ${product.name}/${basename(product.bundle)}\n`).join(''),
)

/**
 * Writes the archive `path` of `files`: a zip (deflate, Unix modes, fixed timestamps) or a gzipped tar
 * (root-owned, fixed timestamps), by the name's ending, so a rebuild is byte-identical either way.
 */
function pack(path, dir, files) {
  if (path.endsWith('.zip')) return writeFileSync(path, zip(files))
  if (!path.endsWith('.tar.gz')) throw new Error(`${path}: an archive's name ends in .zip or .tar.gz`)
  for (const file of files) {
    if (!existsSync(join(dir, file.name))) writeFileSync(join(dir, file.name), file.data, { mode: file.mode })
  }
  execFileSync('tar', [
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mtime=@0',
    '-czf',
    path,
    '-C',
    dir,
    ...files.map((file) => file.name),
  ])
}

/** LICENSE, and the bundle's third-party notices (beside it) followed by those of the Bun runtime every executable carries. */
function notices(bundle) {
  const bun = bunNotice(host.version)
  const text = `${readFileSync(join(dirname(bundle), 'THIRD_PARTY_NOTICES.md'), 'utf8')}\n## ${bun.name} ${bun.version} (the runtime in the executable)\n\nLicence: ${bun.license}\n\n${bun.text}\n`
  return [
    { name: 'LICENSE', data: readFileSync(join(root, 'LICENSE')), mode: 0o644 },
    { name: 'THIRD_PARTY_NOTICES.md', data: Buffer.from(text), mode: 0o644 },
  ]
}

// ---- The registry manifest, and SHA256SUMS over the zips and the manifest (what the registry signs).
// Each product has its own sums file: the Terraform one must list only what the registry expects.
const [terraform] = PRODUCTS
const manifestName = `${tfName}_${version}_manifest.json`
writeFileSync(join(out, manifestName), `${JSON.stringify({ version: 1, metadata: { protocol_versions: ['6.0'] } }, null, 2)}\n`)
artifacts.get(terraform).push(manifestName)
for (const [product, names] of artifacts) writeSums(product.sums, [...names].sort())

// ---- A filesystem mirror in the packed layout, holding every platform's zip, and a CLI config for it.
// Under both registry hosts: OpenTofu reads `provider/provider` as registry.opentofu.org/provider/provider.
// The second host's files are hard links of the first's, so the mirror costs no more disk.
// Beside the zips, the JSON of the provider network mirror protocol (index.json, V.json), as `terraform
// providers mirror` writes them: the same directory served over HTTPS is a `network_mirror`, and a
// filesystem mirror ignores them.
for (const host of REGISTRY_HOSTS) {
  const mirrorDir = join(out, 'mirror', host, 'provider', 'provider')
  mkdirSync(mirrorDir, { recursive: true })
  for (const name of artifacts.get(terraform).filter((n) => n.endsWith('.zip'))) linkSync(join(out, name), join(mirrorDir, name))
  writeFileSync(join(mirrorDir, 'index.json'), `${JSON.stringify({ versions: { [version]: {} } }, null, 2)}\n`)
  writeFileSync(join(mirrorDir, `${version}.json`), `${JSON.stringify({ archives: mirrorArchives }, null, 2)}\n`)
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

/**
 * Terraform's `h1:` hash of a provider package (golang.org/x/mod/sumdb/dirhash Hash1 over the zip's files):
 * the SHA-256 of the lines "<sha256 hex>  <name>\n", one per file in name order, in base64. It is what
 * `terraform providers lock` records for the package, so a network mirror's hashes match a lock file's.
 * @param {{ name: string, data: Buffer }[]} files
 */
function hash1(files) {
  const names = files.map((file) => file.name).sort()
  const lines = names.map((name) => `${sha256(files.find((file) => file.name === name).data)}  ${name}\n`).join('')
  return `h1:${createHash('sha256').update(lines).digest('base64')}`
}

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

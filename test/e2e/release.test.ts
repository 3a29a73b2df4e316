// The release (`npm run release`, dist/release/) as a user without Node.js gets it: the registry's file
// set and sums, every platform's executable in its format (and macOS's signed where it must be), a
// filesystem mirror that the real terraform CLI installs from and locks for every platform (and that holds
// the network mirror protocol's index with the same hashes), the
// linux_amd64 single executables serving Terraform and the Pulumi harness from an
// environment whose PATH holds no `node`, and the emulator's executables (linux_amd64, and linux_arm64
// under qemu-user) serving a terraform apply run by the release's provider. `npm test` builds the release first (`npm run release`), so a
// missing release is a failure, never a skip.
import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { Plugin, startFakeEngine, urnOf } from '../support/pulumi/plugin-harness.js'
import { block, describeRun, Emulator, mirrorCliConfig, PROVIDER_BLOCKS, ROOT, Workspace } from '../support/e2e/harness.js'
import { useEmulatorWorkspace } from '../support/e2e/suite.js'

const RELEASE = join(ROOT, 'dist', 'release')
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const TF = 'terraform-provider-provider'
const EMULATOR = 'provider-emulator'
const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64']
if (!existsSync(join(RELEASE, `${TF}_${version}_SHA256SUMS`))) throw new Error(`${RELEASE} is missing: run \`npm run release\` first`)

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** The emulator's archive for `platform`: a zip for Windows, a gzipped tar for the others. */
const emulatorArchive = (platform: string) => `${EMULATOR}_${version}_${platform}.${platform.startsWith('windows') ? 'zip' : 'tar.gz'}`
const exeOf = (platform: string) => (platform.startsWith('windows') ? '.exe' : '')

/**
 * Terraform's `h1:` hash of a provider zip (dirhash Hash1): the SHA-256, in base64, of "<sha256 hex>  <name>\n"
 * for each file of the zip in name order. What `terraform providers lock` records for the package.
 */
function hash1(zip: string): string {
  const lines = zipEntries(zip)
    .map((name) => {
      const data = execFileSync('unzip', ['-p', zip, name], { maxBuffer: 512 << 20 })
      return `${createHash('sha256').update(data).digest('hex')}  ${name}\n`
    })
    .join('')
  return `h1:${createHash('sha256').update(lines).digest('base64')}`
}

/** Checks that `sumsFile` lists exactly `names`, each with its right SHA-256. */
function assertSums(sumsFile: string, names: readonly string[]): void {
  const sums = readFileSync(join(RELEASE, sumsFile), 'utf8').trim().split('\n')
  assert.deepEqual(sums.map((line) => line.split('  ')[1]).sort(), [...names].sort(), sumsFile)
  for (const line of sums) {
    const [sum, name] = line.split('  ') as [string, string]
    assert.equal(sha256(join(RELEASE, name)), sum, `${sumsFile} line of ${name}`)
  }
}

/** Unpacks `file` of the archive `archive` (zip or tar.gz, by its name) into `dir`. */
function unpack(archive: string, file: string, dir: string): void {
  if (archive.endsWith('.zip')) execFileSync('unzip', ['-q', join(RELEASE, archive), file, '-d', dir])
  else execFileSync('tar', ['-xzf', join(RELEASE, archive), '-C', dir, file])
}

/** The names in a zip's central directory, read the way any unzip does (end record, then entries). */
function zipEntries(path: string): string[] {
  const data = readFileSync(path)
  const end = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  assert.ok(end >= 0, `${path} has no end-of-central-directory record`)
  const count = data.readUInt16LE(end + 10)
  let at = data.readUInt32LE(end + 16)
  const names: string[] = []
  for (let i = 0; i < count; i++) {
    assert.equal(data.readUInt32LE(at), 0x02014b50, `${path}: bad central directory entry ${i}`)
    const nameLength = data.readUInt16LE(at + 28)
    names.push(data.subarray(at + 46, at + 46 + nameLength).toString())
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32)
  }
  return names.sort()
}

/** A directory holding only a `terraform` link: the PATH of an image with Terraform and no Node.js. */
async function nodelessPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'provider-nodeless-'))
  const terraform = execFileSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).trim()
  await symlink(terraform, join(dir, 'terraform'))
  return dir
}

function assertNoNode(path: string): void {
  for (const dir of path.split(delimiter)) assert.ok(!existsSync(join(dir, 'node')), `${dir} holds a node`)
}

describe('release artifacts', () => {
  test('the Terraform Registry file set: a zip per platform, the manifest, and SHA256SUMS over exactly those', () => {
    const zips = PLATFORMS.map((p) => `${TF}_${version}_${p}.zip`)
    const manifest = `${TF}_${version}_manifest.json`
    assert.deepEqual(JSON.parse(readFileSync(join(RELEASE, manifest), 'utf8')), { version: 1, metadata: { protocol_versions: ['6.0'] } })
    assertSums(`${TF}_${version}_SHA256SUMS`, [...zips, manifest])
    for (const platform of PLATFORMS) {
      const exe = `${TF}_v${version}${platform.startsWith('windows') ? '.exe' : ''}`
      assert.deepEqual(zipEntries(join(RELEASE, `${TF}_${version}_${platform}.zip`)), ['LICENSE', 'THIRD_PARTY_NOTICES.md', exe].sort())
    }
  })

  test('the mirror is also a network mirror: index.json and V.json beside the zips, each archive with its h1 hash', () => {
    for (const host of ['registry.terraform.io', 'registry.opentofu.org']) {
      const dir = join(RELEASE, 'mirror', host, 'provider', 'provider')
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')), { versions: { [version]: {} } }, host)
      const { archives } = JSON.parse(readFileSync(join(dir, `${version}.json`), 'utf8')) as {
        archives: Record<string, { url: string; hashes: string[] }>
      }
      assert.deepEqual(Object.keys(archives).sort(), [...PLATFORMS].sort(), host)
      for (const platform of PLATFORMS) {
        const zip = `${TF}_${version}_${platform}.zip`
        assert.equal(archives[platform]?.url, zip, `${host} ${platform}: a URL relative to ${version}.json`)
        assert.ok(existsSync(join(dir, zip)), `${host}: ${zip}`)
        assert.deepEqual(archives[platform]?.hashes, [hash1(join(dir, zip))], `${host} ${platform}`)
      }
    }
  })

  test('every platform gets executables of its own format and CPU, and the macOS ones will run there', async () => {
    const { checkMachOSignature } = (await import(pathToFileURL(join(ROOT, 'scripts', 'macho.mjs')).href)) as {
      checkMachOSignature(binary: Buffer, options: { required: boolean; name: string }): 'signed' | 'unsigned'
    }
    const dir = await mkdtemp(join(tmpdir(), 'provider-release-formats-'))
    try {
      const executables = PLATFORMS.flatMap((platform) => [
        { platform, archive: `${TF}_${version}_${platform}.zip`, exe: `${TF}_v${version}${exeOf(platform)}` },
        { platform, archive: emulatorArchive(platform), exe: `${EMULATOR}${exeOf(platform)}` },
      ])
      for (const { platform, archive, exe } of executables) {
        mkdirSync(join(dir, platform), { recursive: true })
        unpack(archive, exe, join(dir, platform))
        const binary = readFileSync(join(dir, platform, exe))
        if (platform.startsWith('linux')) {
          assert.equal(binary.subarray(0, 4).toString('latin1'), '\x7fELF', platform)
          assert.equal(binary.readUInt16LE(18), platform === 'linux_amd64' ? 62 : 183, `${platform}: ELF machine (62 x86-64, 183 AArch64)`)
        } else if (platform.startsWith('windows')) {
          const pe = binary.readUInt32LE(0x3c)
          assert.equal(binary.subarray(pe, pe + 4).toString('latin1'), 'PE\0\0', platform)
          assert.equal(binary.readUInt16LE(pe + 4), 0x8664, `${platform}: PE machine AMD64`)
        } else {
          assert.equal(binary.readUInt32LE(4), platform === 'darwin_amd64' ? 0x01000007 : 0x0100000c, `${platform}: Mach-O CPU type`)
          // Apple silicon runs nothing unsigned: Bun signs it ad hoc. Intel Macs run it unsigned, not with a broken signature.
          const expected = platform === 'darwin_arm64' ? 'signed' : 'unsigned'
          assert.equal(checkMachOSignature(binary, { required: platform === 'darwin_arm64', name: platform }), expected, platform)
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('the emulator: an archive per platform holding the executable, LICENSE and the notices, and SHA256SUMS over exactly those', () => {
    const archives = PLATFORMS.map(emulatorArchive)
    assertSums(`${EMULATOR}_${version}_SHA256SUMS`, archives)
    for (const platform of PLATFORMS) {
      const archive = join(RELEASE, emulatorArchive(platform))
      const entries = archive.endsWith('.zip')
        ? zipEntries(archive)
        : execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n').sort()
      assert.deepEqual(entries, ['LICENSE', 'THIRD_PARTY_NOTICES.md', `${EMULATOR}${exeOf(platform)}`].sort(), platform)
    }
    const notices = execFileSync('tar', ['-xzOf', join(RELEASE, emulatorArchive('linux_amd64')), 'THIRD_PARTY_NOTICES.md'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    })
    assert.match(notices, /^# Third-party notices for provider-emulator$/m)
    assert.match(notices, /^## Bun /m)
  })

  test('a Pulumi plugin tarball per platform holding the executable, LICENSE and the notices', () => {
    for (const platform of PLATFORMS) {
      const [os, arch] = platform.split('_') as [string, string]
      const tarball = join(RELEASE, `pulumi-resource-provider-v${version}-${os}-${arch}.tar.gz`)
      const entries = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort()
      const exe = `pulumi-resource-provider${os === 'windows' ? '.exe' : ''}`
      assert.deepEqual(entries, ['LICENSE', 'THIRD_PARTY_NOTICES.md', 'schema.json', exe].sort(), platform)
    }
    const notices = execFileSync(
      'tar',
      ['-xzOf', join(RELEASE, `pulumi-resource-provider-v${version}-linux-amd64.tar.gz`), 'THIRD_PARTY_NOTICES.md'],
      {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    )
    for (const bundled of ['@pulumi/pulumi', 'google-protobuf', 'Bun']) assert.match(notices, new RegExp(`^## ${bundled} `, 'm'))
    assert.match(notices, /Apache License\s+Version 2\.0, January 2004/)
    // The runtime links JavaScriptCore statically: the LGPL's text, and where its source is, travel with it.
    assert.match(notices, /GNU LESSER GENERAL PUBLIC LICENSE\s+Version 2\.1, February 1999/)
    assert.match(notices, /oven-sh\/WebKit/)
  })

  test("pulumi-sdks.md's Go steps, typed as written in a new module holding its program, make a module that builds from the release's goproxy", {
    timeout: 10 * 60_000,
  }, async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'pulumi-sdks.md'), 'utf8')
    const section = doc.slice(doc.indexOf('## 5. Go'), doc.indexOf('## 6. '))
    const steps = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
    const program = /```go\n([\s\S]*?)```/.exec(section)?.[1]
    if (!steps?.includes('/path/to/release/goproxy')) assert.fail('section 5 of pulumi-sdks.md gives the steps, with the goproxy path')
    if (!program) assert.fail('section 5 of pulumi-sdks.md gives the program')
    const dir = await mkdtemp(join(tmpdir(), 'provider-release-go-'))
    try {
      await writeFile(join(dir, 'main.go'), program)
      // The module cache stands in for "the usual proxy" and no checksum database is asked, so nothing
      // leaves the machine; go.sum needs its lines all the same.
      const modcache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim()
      const env = { ...process.env, GOPROXY: pathToFileURL(join(modcache, 'cache', 'download')).href, GOSUMDB: 'off' }
      const run = (command: string, args: string[]) => {
        const result = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8' })
        assert.equal(result.status, 0, `${command} ${args.join(' ')}:\n${result.stdout}${result.stderr}`)
      }
      run('go', ['mod', 'init', 'example.invalid/program'])
      run('sh', ['-ec', steps.replaceAll('/path/to/release/goproxy', join(RELEASE, 'goproxy'))])
      run('go', ['build', '-o', join(dir, 'program'), '.'])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('single executables without Node.js: linux_amd64, and linux_arm64 under qemu-user', () => {
  const e2e = useEmulatorWorkspace({ workspace: false })
  let path: string
  before(async () => {
    path = await nodelessPath()
    assertNoNode(path)
  })
  after(async () => {
    if (path) await rm(path, { recursive: true, force: true })
  })

  test('the Terraform executable runs its bundle from the bytecode compiled at build time, not from source', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'provider-release-'))
    try {
      execFileSync('unzip', ['-q', join(RELEASE, `${TF}_${version}_linux_amd64.zip`), '-d', dir])
      // Bun writes the modules it ran from bytecode to BUN_BYTECODE_DIGEST_OUT; without Terraform's cookie
      // the provider refuses to serve and exits, and its module has run by then.
      const digest = join(dir, 'digest.txt')
      await new Promise<void>((resolve, reject) => {
        const child = spawn(join(dir, `${TF}_v${version}`), [], {
          env: { PATH: path, BUN_BYTECODE_DIGEST_OUT: digest },
          stdio: 'ignore',
        })
        child.once('error', reject)
        child.once('close', () => resolve())
      })
      assert.match(
        readFileSync(digest, 'utf8'),
        new RegExp(`^/\\$bunfs/root/${TF}_v${version.replace(/\./g, '\\.')} [0-9a-f]+ [1-9]\\d*$`, 'm'),
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('terraform locks every platform from the mirror, inits with no incomplete-lock warning, and applies and destroys', async () => {
    const home = await mkdtemp(join(tmpdir(), 'provider-release-home-'))
    try {
      const cliConfig = join(home, 'terraformrc')
      const mirror = join(RELEASE, 'mirror')
      await writeFile(cliConfig, mirrorCliConfig(mirror))
      const ws = await Workspace.create(e2e.emulator, cliConfig)
      const env = { PATH: path, HOME: home }
      await ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: 'release-nodeless' })].join('\n'))

      // Terraform computes a platform's hash only from that platform's package; a filesystem mirror carries no
      // signed sums, so the lock for every platform is made with `providers lock`, and init then keeps it whole.
      const lock = await ws.run(['providers', 'lock', `-fs-mirror=${mirror}`, ...PLATFORMS.map((p) => `-platform=${p}`)], { env })
      assert.equal(lock.code, 0, describeRun(lock))
      const init = await ws.run(['init', '-input=false'], { env })
      assert.equal(init.code, 0, describeRun(init))
      assert.doesNotMatch(init.stdout + init.stderr, /Incomplete lock file/i, describeRun(init))
      const lockFile = readFileSync(join(ws.dir, '.terraform.lock.hcl'), 'utf8')
      assert.equal(lockFile.match(/"h1:[A-Za-z0-9+/=]+"/g)?.length, PLATFORMS.length, lockFile)
      // The network mirror's index (beside the zips, which the filesystem mirror ignores) names the same hashes.
      const { archives } = JSON.parse(
        readFileSync(join(mirror, 'registry.terraform.io', 'provider', 'provider', `${version}.json`), 'utf8'),
      ) as {
        archives: Record<string, { hashes: string[] }>
      }
      assert.deepEqual(
        Object.values(archives)
          .flatMap((archive) => archive.hashes)
          .sort(),
        (lockFile.match(/h1:[A-Za-z0-9+/=]+/g) ?? []).sort(),
        lockFile,
      )

      const apply = await ws.run(['apply', '-auto-approve', '-input=false'], { env })
      assert.equal(apply.code, 0, describeRun(apply))
      const keypairs = await e2e.emulator.api<{ name: string }[]>('GET', '/lites/keypairs/')
      assert.ok(JSON.stringify(keypairs).includes('release-nodeless'), JSON.stringify(keypairs))
      const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false'], { env })
      assert.equal(plan.code, 0, describeRun(plan))
      const destroy = await ws.run(['destroy', '-auto-approve', '-input=false'], { env })
      assert.equal(destroy.code, 0, describeRun(destroy))
      await rm(ws.dir, { recursive: true, force: true })
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  test('the serve mode: terraform reattaches to one running executable for every command, and Ctrl-C stops it', async () => {
    await serveModeCycle(e2e.emulator, path, 'linux_amd64', (executable) => [executable])
  })

  test('the Pulumi plugin executable serves the harness: configure, check, create, delete', async () => {
    await pulumiPluginCycle(e2e.emulator, path, 'linux-amd64', (executable) => executable)
  })

  // The other platforms' executables are cross-compiled from here; linux_arm64's can run here under
  // qemu-user (Debian's qemu-user and libc6-arm64-cross, which npm test installs when missing), bytecode and all.
  test('the linux_arm64 Terraform executable, run under qemu-user, serves terraform apply, an empty plan and destroy', async () => {
    const qemu = qemuAarch64()
    await serveModeCycle(e2e.emulator, path, 'linux_arm64', (executable) => [qemu.bin, '-L', qemu.sysroot, executable])
  })

  test('the linux_amd64 emulator executable answers its API, and the release provider applies a keypair against it with an empty plan after', async () => {
    await emulatorCycle(path, 'linux_amd64', (executable) => [executable])
  })

  test('the linux_arm64 emulator executable, run under qemu-user, answers its API and serves a terraform apply and an empty plan', async () => {
    const qemu = qemuAarch64()
    await emulatorCycle(path, 'linux_arm64', (executable) => [qemu.bin, '-L', qemu.sysroot, executable])
  })

  test('the linux_arm64 Pulumi plugin executable, run under qemu-user, serves the harness: configure, check, create, delete', async () => {
    const qemu = qemuAarch64()
    await pulumiPluginCycle(e2e.emulator, path, 'linux-arm64', (executable, dir) => {
      const wrapper = join(dir, 'under-qemu')
      writeFileSync(wrapper, `#!/bin/sh\nexec "${qemu.bin}" -L "${qemu.sysroot}" "${executable}" "$@"\n`, { mode: 0o755 })
      return wrapper
    })
  })
})

/**
 * The serve mode of a platform's Terraform executable, started by `command` (the executable itself, or
 * under an emulator): terraform reattaches to it for apply, an empty plan and destroy, and Ctrl-C stops it.
 */
async function serveModeCycle(
  emulator: Emulator,
  path: string,
  platform: string,
  command: (executable: string) => string[],
): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'provider-release-serve-'))
  const executable = join(home, `${TF}_v${version}`)
  execFileSync('unzip', ['-q', join(RELEASE, `${TF}_${version}_${platform}.zip`), `${TF}_v${version}`, '-d', home])
  const [program, ...args] = command(executable) as [string, ...string[]]
  const served = spawn(program, args, {
    env: { PATH: path, PROVIDER_DEBUG_REATTACH: '1', PROVIDER_API_KEY: emulator.apiKey, PROVIDER_BASE_URL: emulator.baseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => served.once('exit', (code, signal) => resolve(signal ?? code)))
  try {
    const reattach = await new Promise<string>((resolve, reject) => {
      let stderr = ''
      // Under an emulator the first start takes seconds rather than milliseconds.
      const timer = setTimeout(() => reject(new Error(`${platform}: no TF_REATTACH_PROVIDERS within 60 s: ${stderr}`)), 60_000)
      served.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const found = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(stderr)
        if (found) {
          clearTimeout(timer)
          resolve(found[1]!)
        }
      })
    })
    // No CLI configuration, no mirror and no init: Terraform could not launch a provider if it tried.
    const cliConfig = join(home, 'empty.tfrc')
    await writeFile(cliConfig, '')
    const ws = await Workspace.create(emulator, cliConfig)
    await ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name: `release-served-${platform}` })].join('\n'))
    const env = { PATH: path, HOME: home, TF_REATTACH_PROVIDERS: reattach }
    for (const step of [
      ['apply', '-auto-approve'],
      ['plan', '-detailed-exitcode'],
      ['destroy', '-auto-approve'],
    ]) {
      const run = await ws.run([...step, '-input=false'], { env, timeoutMs: 300_000 })
      assert.equal(run.code, 0, `${platform}: ${describeRun(run)}`)
    }
    assert.equal(served.exitCode, null, 'the served provider outlives the commands that reattached to it')
    await rm(ws.dir, { recursive: true, force: true })
    served.kill('SIGINT')
    // Its own SIGINT handler ends it with 130 (128 + SIGINT), as a shell reports a job Ctrl-C ended.
    assert.equal(await exited, 130)
  } finally {
    served.kill('SIGKILL')
    await rm(home, { recursive: true, force: true })
  }
}

/**
 * A platform's emulator executable, started by `command` (the executable itself, or under qemu-user) with
 * no `node` on PATH: it answers its API with its key and refuses another key, serves its web console, the release's provider
 * (from the release mirror) applies a keypair against it, and the plan after is empty.
 */
async function emulatorCycle(path: string, platform: string, command: (executable: string) => string[]): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'provider-release-emulator-'))
  let emulator: Emulator | undefined
  try {
    unpack(emulatorArchive(platform), EMULATOR, home)
    // Under qemu-user the first start takes seconds rather than milliseconds.
    emulator = await Emulator.start({ launch: { command: command(join(home, EMULATOR)), path, readyWithinMs: 60_000 } })
    assert.match(emulator.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    assert.deepEqual(await emulator.api('GET', '/lites/keypairs/'), [])
    const refused = await fetch(`${emulator.baseUrl}/lites/keypairs/`, {
      headers: { 'x-token': 'not-a-key' },
      signal: AbortSignal.timeout(30_000),
    })
    assert.equal(refused.status, 401)
    // The web console travels inside the executable: its page and the files it loads.
    for (const [file, type] of [
      ['/', 'text/html'],
      ['/console.js', 'javascript'],
      ['/console.css', 'text/css'],
    ] as const) {
      const served = await fetch(`${emulator.origin}${file}`, { signal: AbortSignal.timeout(30_000) })
      assert.equal(served.status, 200, `${platform}: GET ${file}`)
      assert.match(served.headers.get('content-type') ?? '', new RegExp(type), `${platform}: GET ${file}`)
      assert.ok((await served.text()).length > 100, `${platform}: GET ${file} has content`)
    }

    const cliConfig = join(home, 'terraformrc')
    await writeFile(cliConfig, mirrorCliConfig(join(RELEASE, 'mirror')))
    const ws = await Workspace.create(emulator, cliConfig)
    const name = `release-emulator-${platform}`
    await ws.write([PROVIDER_BLOCKS, block('resource', 'provider_lite_keypair', 'k', { name })].join('\n'))
    const env = { PATH: path, HOME: home }
    const run = async (...args: string[]) => {
      const result = await ws.run([...args, '-input=false'], { env, timeoutMs: 300_000 })
      assert.equal(result.code, 0, `${platform}: ${describeRun(result)}`)
    }
    await run('init')
    await run('apply', '-auto-approve')
    const keypairs: { name: string }[] = await emulator.api('GET', '/lites/keypairs/')
    assert.deepEqual(
      keypairs.map((keypair) => keypair.name),
      [name],
      `${platform}: the emulator executable holds the keypair terraform applied`,
    )
    await run('plan', '-detailed-exitcode')
    await rm(ws.dir, { recursive: true, force: true })
  } finally {
    await emulator?.stop()
    await rm(home, { recursive: true, force: true })
  }
}

/**
 * A platform's Pulumi plugin executable, launched by the path `launcher` gives (the executable itself, or a
 * wrapper that runs it under an emulator), through the engine's calls: configure, check, create, delete.
 */
async function pulumiPluginCycle(
  emulator: Emulator,
  path: string,
  platform: string,
  launcher: (executable: string, dir: string) => string,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'provider-release-pulumi-'))
  const engine = await startFakeEngine()
  try {
    execFileSync('tar', ['-xzf', join(RELEASE, `pulumi-resource-provider-v${version}-${platform}.tar.gz`), '-C', dir])
    const executable = launcher(join(dir, 'pulumi-resource-provider'), dir)
    const plugin = await Plugin.launch(engine.address, { PATH: path }, { executable })
    try {
      assert.equal(await plugin.pluginInfo(), version)
      await plugin.configure({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, pollInterval: '50ms' })
      const urn = urnOf('provider:index:LiteKeypair', 'nodeless')
      const { inputs, failures } = await plugin.check(urn, { name: `release-pulumi-${platform}` })
      assert.deepEqual(failures, [])
      const created = await plugin.create(urn, inputs, { timeout: 60 })
      assert.equal(created.properties.name, `release-pulumi-${platform}`)
      await plugin.delete(urn, created.id, created.properties, inputs)
    } finally {
      await plugin.stop()
    }
  } finally {
    engine.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

/** qemu-user's aarch64 emulator and the AArch64 C library it loads the executables with, or why there are none. */
function qemuAarch64(): { bin: string; sysroot: string } {
  const sysroot = '/usr/aarch64-linux-gnu'
  const found = spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).stdout.trim()
  if (found === '' || !existsSync(join(sysroot, 'lib', 'ld-linux-aarch64.so.1')))
    throw new Error(
      "the linux_arm64 executables run here under qemu-user: install Debian's qemu-user and libc6-arm64-cross (`node scripts/system-packages.mjs`, npm test's first step, does when they are missing)",
    )
  return { bin: found, sysroot }
}

// `npm test` on a fresh machine: scripts/system-packages.mjs, which `npm test` runs first, installs the
// Debian packages the suite needs (qemu-user, libc6-arm64-cross, postgresql, chromium) when their files are missing,
// with one apt-get install of exactly those, and asks nothing of apt-get when all are there. A machine
// without them is simulated: the files are looked for under a temp root (PROVIDER_SYSTEM_ROOT), and apt-get
// is a fake on PATH that records its arguments and "installs" by writing the files. The real apt-get is
// never run here.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SCRIPT = join(ROOT, 'scripts', 'system-packages.mjs')
const ALL = ['qemu-user', 'libc6-arm64-cross', 'postgresql', 'chromium']
/** The file each package puts where the script looks, relative to the root (qemu-aarch64: to a PATH dir). */
const FILES: Record<string, string> = {
  'libc6-arm64-cross': 'usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1',
  postgresql: 'usr/lib/postgresql/15/bin/postgres',
  chromium: 'usr/bin/chromium',
}

interface Machine {
  root: string
  bin: string
  log: string
}

const made: string[] = []
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/**
 * A temp root holding the files of `installed`, and a bin dir with a fake apt-get (and qemu-aarch64 if
 * installed); with FAKE_APT_INSTALLS=1 an install writes the named packages' files there.
 */
function machine(installed: readonly string[]): Machine {
  const dir = mkdtempSync(join(tmpdir(), 'provider-system-packages-'))
  made.push(dir)
  const m = { root: join(dir, 'root'), bin: join(dir, 'bin'), log: join(dir, 'apt-get.log') }
  mkdirSync(m.root)
  mkdirSync(m.bin)
  const fake = `#!${process.execPath}
// A fake apt-get: records each call, and for install writes the file each named package provides.
const { appendFileSync, chmodSync, mkdirSync, writeFileSync } = require('node:fs')
const { dirname, join } = require('node:path')
const args = process.argv.slice(2)
appendFileSync(${JSON.stringify(m.log)}, JSON.stringify({ args, frontend: process.env.DEBIAN_FRONTEND ?? null }) + '\\n')
const files = ${JSON.stringify(FILES)}
// Only on a simulated machine: on the real one (PROVIDER_SYSTEM_ROOT=/) it writes nothing.
if (args[0] === 'install' && process.env.FAKE_APT_INSTALLS === '1') {
  for (const name of args) {
    if (name === 'qemu-user') {
      writeFileSync(join(__dirname, 'qemu-aarch64'), '#!/bin/sh\\n')
      chmodSync(join(__dirname, 'qemu-aarch64'), 0o755)
    } else if (files[name]) {
      const file = join(process.env.PROVIDER_SYSTEM_ROOT, files[name])
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, '')
    }
  }
}
`
  writeFileSync(join(m.bin, 'apt-get'), fake, { mode: 0o755 })
  for (const name of installed) {
    if (name === 'qemu-user') writeFileSync(join(m.bin, 'qemu-aarch64'), '#!/bin/sh\n', { mode: 0o755 })
    else {
      const file = join(m.root, FILES[name] as string)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, '')
    }
  }
  return m
}

/** What the fake apt-get was asked, one entry per call. */
function calls(m: Machine): { args: string[]; frontend: string | null }[] {
  if (!existsSync(m.log)) return []
  return readFileSync(m.log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { args: string[]; frontend: string | null })
}

/** The script as `npm test` runs it, on the simulated machine: only the fake bin dir on PATH. */
function runScript(m: Machine, path = m.bin) {
  return spawnSync(process.execPath, [SCRIPT], {
    encoding: 'utf8',
    env: { PATH: path, PROVIDER_SYSTEM_ROOT: m.root, FAKE_APT_INSTALLS: '1' },
  })
}

const isRoot = process.getuid?.() === 0

describe('npm test installs the Debian packages the suite needs, and only those', () => {
  test('package.json: `npm test`, `npm run test:e2e` and `npm run test:faults` run scripts/system-packages.mjs before anything else', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    for (const name of ['test', 'test:e2e', 'test:faults'])
      assert.match(scripts[name] ?? '', /^node scripts\/system-packages\.mjs && /, name)
  })

  test('a machine with none of them: apt-get update, then one install of exactly qemu-user, libc6-arm64-cross, postgresql and chromium', {
    skip: !isRoot && 'installing needs root (the not-root error is tested below)',
  }, () => {
    const m = machine([])
    const run = runScript(m)
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
    assert.deepEqual(calls(m), [
      { args: ['update', '-qq'], frontend: 'noninteractive' },
      { args: ['install', '-y', '-qq', '--no-install-recommends', ...ALL], frontend: 'noninteractive' },
    ])
    assert.match(run.stdout, /installing Debian's qemu-user, libc6-arm64-cross, postgresql, chromium/)
    // Run again, as the next `npm test` does: everything is there, and apt-get is not asked.
    const again = runScript(m)
    assert.equal(again.status, 0, `${again.stdout}${again.stderr}`)
    assert.equal(calls(m).length, 2)
  })

  test('a machine missing only the AArch64 C library: apt-get installs libc6-arm64-cross alone', {
    skip: !isRoot && 'installing needs root',
  }, () => {
    const m = machine(['qemu-user', 'postgresql', 'chromium'])
    const run = runScript(m)
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
    assert.deepEqual(
      calls(m).map((call) => call.args),
      [
        ['update', '-qq'],
        ['install', '-y', '-qq', '--no-install-recommends', 'libc6-arm64-cross'],
      ],
    )
  })

  test('a machine with all of them: apt-get is not called', () => {
    const m = machine(ALL)
    const run = runScript(m)
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
    assert.deepEqual(calls(m), [])
    assert.equal(run.stdout, '')
  })

  test('no apt-get: an error naming each missing package and the file looked for, and nothing else runs', () => {
    const m = machine(['postgresql', 'chromium'])
    const empty = mkdtempSync(join(tmpdir(), 'provider-system-packages-path-'))
    made.push(empty)
    const run = runScript(m, empty)
    assert.equal(run.status, 1, `${run.stdout}${run.stderr}`)
    assert.match(run.stderr, /no apt-get here/)
    assert.match(run.stderr, /qemu-user \(qemu-aarch64 on PATH/)
    assert.match(run.stderr, /libc6-arm64-cross \(\/usr\/aarch64-linux-gnu\/lib\/ld-linux-aarch64\.so\.1/)
    assert.doesNotMatch(run.stderr, /postgresql|chromium/)
  })

  test('not root: an error naming the packages and the sudo command, and apt-get is not called', async () => {
    const { ensureSystemPackages } = (await import(pathToFileURL(SCRIPT).href)) as {
      ensureSystemPackages(options: {
        root: string
        path: string
        isRoot: boolean
        aptGet: string | undefined
        run(command: string, args: string[], env: Record<string, string>): number
      }): string[]
    }
    const m = machine(['libc6-arm64-cross'])
    const ran: string[][] = []
    assert.throws(
      () =>
        ensureSystemPackages({
          root: m.root,
          path: m.bin,
          isRoot: false,
          aptGet: join(m.bin, 'apt-get'),
          run: (_command, args) => {
            ran.push(args)
            return 0
          },
        }),
      (error: Error) => {
        assert.match(error.message, /needs root/)
        assert.match(error.message, /sudo apt-get update && sudo apt-get install -y --no-install-recommends qemu-user postgresql chromium$/)
        return true
      },
    )
    assert.deepEqual(ran, [])
  })

  test('this machine: apt-get is asked for exactly the packages whose files are missing (none, once npm test has run)', () => {
    // An independent look at this machine: the shell's command -v, and the files themselves.
    const missing = ALL.filter((name) => {
      if (name === 'qemu-user') return spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).status !== 0
      if (name === 'postgresql')
        return !(
          existsSync('/usr/lib/postgresql') &&
          readdirSync('/usr/lib/postgresql').some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/postgres`))
        )
      return !existsSync(`/${FILES[name]}`)
    })
    const m = machine([])
    // The fake apt-get first on PATH, so the real one is never run; the real root.
    const run = spawnSync(process.execPath, [SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${m.bin}:${process.env.PATH ?? ''}`, PROVIDER_SYSTEM_ROOT: '/' },
    })
    const asked =
      calls(m)
        .find((call) => call.args[0] === 'install')
        ?.args.slice(4) ?? []
    if (missing.length === 0 || !isRoot) assert.deepEqual(calls(m), [])
    else assert.deepEqual(asked, missing, `${run.stdout}${run.stderr}`)
    if (missing.length === 0) assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
  })
})

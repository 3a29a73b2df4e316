// Builds the pinned real clients (Terraform, OpenTofu, the Pulumi CLI and YAML host, our SDK generator and
// a Go peer provider) from Go modules into a cache outside the clone, and tells where they are.
//
//   node scripts/tools.mjs [build] [--only <tool>]  build what is missing; progress on stderr
//   node scripts/tools.mjs env [--only <tool>]      print `export PATH=…` lines: eval "$(npm run -s tools -- env)"
//   node scripts/tools.mjs json [--only <tool>]     print the JSON below on stdout (builds what is missing first)
//   node scripts/tools.mjs list                     print each tool, its pinned version and whether it is built
//                                                   (or taken from PATH); it never builds, unlike json
//   --ignore-path                                   build a tool even when its pinned version is on PATH
//
// <tool> is a key below or its family name (terraform, tofu, pulumi, pulumi-language-yaml, sdkgen,
// terraform-provider-peer); --only may be repeated.
//
// Versions live in ONE place: the wrapper modules under tools/ (go.mod + go.sum, with `tool` directives)
// are the lock files, and this script reads each version from its wrapper's go.mod `require` line.
// tools/README.md says how to bump one.
//
// JSON, and what `await ensureTools({ quiet })` resolves to: one entry per tool, in this order (<c> is the cache)
//   {
//     "terraform-1.16.4":        { "version": "1.16.4",  "bin": "<c>/terraform-1.16.4/bin/terraform", "dir": "<c>/terraform-1.16.4/bin",
//                                  "from": "cache" },
//     "pulumi":                  { "version": "3.274.1", "bin": "<c>/pulumi-3.274.1/bin/pulumi", "dir": "…", "from": "cache" },
//     "sdkgen":                  { "version": "3.274.1", "bin": "<c>/sdkgen-3.274.1-<hash>/bin/sdkgen", "dir": "…", "from": "cache" },
//     "pulumi-language-yaml":    { "version": "1.38.1",  "bin": "<c>/pulumi-language-yaml-1.38.1/bin/pulumi-language-yaml", … },
//     "tofu-1.12.6":             { "version": "1.12.6",  "bin": "<c>/tofu-1.12.6/bin/tofu", … },
//     "terraform-provider-peer": { "version": "1.19.0",  "bin": "<c>/terraform-provider-peer-1.19.0-<hash>/bin/…", … },
//     "terraform-1.11.4":        { "version": "1.11.4",  "bin": "/usr/local/bin/terraform", "dir": "/usr/local/bin", "from": "path" }
//   }
// Terraform and OpenTofu keys carry their version (two Terraforms are pinned); the others do not. `version`
// has no leading v; `bin` (the executable) and `dir` (its directory) are absolute; `from` is "cache" (built by
// this script, now or before) or "path" (Terraform 1.11.4 only: a `terraform` on PATH reports exactly that
// version, so it is not built). sdkgen's version is Pulumi's (it is built from the Pulumi wrapper module);
// the peer's is terraform-plugin-framework's. `env` puts every `dir` on PATH except Terraform 1.11.4's and
// the peer's, so `terraform` there is 1.16.4.
//
// Cache: ${PROVIDER_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/provider-iac/tools}/<tool>-<version>/bin/,
// with tool.json beside bin/ recording how it was built. A tool is built in a temporary directory of the
// cache and renamed into place once it has passed its check, so a killed build never leaves a directory
// that a later run would take as built. Tools with our own Go code (sdkgen, the peer) add a hash of that
// code to the directory name, so an edit rebuilds them. Go's module and build caches stay where Go keeps
// them. Needs Go 1.24+ on PATH (`tool` directives).
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const toolsDir = join(root, 'tools')

// ---- what is built ----------------------------------------------------------------------------

const terraformLdflags = () => '-s -w -X github.com/hashicorp/terraform/version.dev=no'

/**
 * One entry per tool. `family`: its name (the key, plus `-<version>` when `versionedKey`); `wrapper`: its
 * module under tools/; `module`: the go.mod requirement whose version is the tool's version; `pkg`: the main
 * package; `bin`: the executable's name; `tags`, `ldflags(version)`: build flags; `check`: arguments that
 * make the binary print something matching `expect(version)` (exiting non-zero is fine when `failing`);
 * `ownCode`: paths (under the wrapper) of our code, hashed into the cache directory name; `onPath`: whether
 * `env` puts it on PATH; `usePath`: take a binary of that name from PATH when it reports exactly the pinned
 * version; `gotoolchain`: a GOTOOLCHAIN for this build only, for a module that needs a newer Go than the
 * machine's (none does today: Go 1.26.8 builds them all).
 */
const TOOLS = [
  {
    family: 'terraform',
    wrapper: 'terraform-1.16',
    module: 'github.com/hashicorp/terraform',
    pkg: 'github.com/hashicorp/terraform',
    bin: 'terraform',
    versionedKey: true,
    onPath: true,
    ldflags: terraformLdflags,
    check: ['version'],
    expect: (v) => new RegExp(`^Terraform v${esc(v)}$`, 'm'),
  },
  {
    family: 'pulumi',
    wrapper: 'pulumi',
    module: 'github.com/pulumi/pulumi/pkg/v3',
    pkg: 'github.com/pulumi/pulumi/pkg/v3/cmd/pulumi',
    bin: 'pulumi',
    onPath: true,
    // As Pulumi's own release build does.
    tags: 'osusergo,grpcnotrace',
    ldflags: (v) => `-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v${v}`,
    check: ['version'],
    expect: (v) => new RegExp(`^v${esc(v)}$`, 'm'),
  },
  {
    family: 'sdkgen',
    wrapper: 'pulumi',
    module: 'github.com/pulumi/pulumi/pkg/v3',
    pkg: './cmd/sdkgen',
    bin: 'sdkgen',
    onPath: true,
    ownCode: ['cmd/sdkgen', 'go.mod', 'go.sum'],
    ldflags: (v) => `-s -w -X main.version=v${v}`,
    check: ['--version'],
    expect: (v) => new RegExp(`^v${esc(v)}$`, 'm'),
  },
  {
    family: 'pulumi-language-yaml',
    wrapper: 'pulumi-language-yaml',
    module: 'github.com/pulumi/pulumi-yaml',
    pkg: 'github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml',
    bin: 'pulumi-language-yaml',
    onPath: true,
    ldflags: (v) => `-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v${v}`,
    // It has no version flag: its usage proves it runs, and `go version -m` checks the version.
    check: ['-help'],
    expect: () => /-root/,
    failing: true,
  },
  {
    family: 'tofu',
    wrapper: 'tofu',
    module: 'github.com/opentofu/opentofu',
    pkg: 'github.com/opentofu/opentofu/cmd/tofu',
    bin: 'tofu',
    versionedKey: true,
    onPath: true,
    // The version comes from the module's own VERSION file; dev=no as OpenTofu's release build sets it.
    ldflags: () => '-s -w -X github.com/opentofu/opentofu/version.dev=no',
    check: ['version'],
    expect: (v) => new RegExp(`^OpenTofu v${esc(v)}$`, 'm'),
  },
  {
    family: 'terraform-provider-peer',
    wrapper: 'terraform-provider-peer',
    module: 'github.com/hashicorp/terraform-plugin-framework',
    pkg: '.',
    bin: 'terraform-provider-peer',
    onPath: false,
    ownCode: ['.'],
    ldflags: () => '-s -w',
    check: [],
    // Started by hand rather than by Terraform, a plugin says so and exits 1.
    expect: () => /plugin/i,
    failing: true,
  },
  {
    family: 'terraform',
    wrapper: 'terraform-1.11',
    module: 'github.com/hashicorp/terraform',
    pkg: 'github.com/hashicorp/terraform',
    bin: 'terraform',
    versionedKey: true,
    onPath: false,
    usePath: true,
    ldflags: terraformLdflags,
    check: ['version'],
    expect: (v) => new RegExp(`^Terraform v${esc(v)}$`, 'm'),
  },
]

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// ---- reading the lock files -------------------------------------------------------------------

/** The `go`, `require` and `tool` directives of a go.mod. */
export function parseGoMod(text) {
  const mod = { go: undefined, require: new Map(), tool: new Set() }
  let block = null
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim()
    if (!line) continue
    if (block) {
      if (line === ')') block = null
      else addDirective(mod, block, line.split(/\s+/))
      continue
    }
    const [verb, ...rest] = line.split(/\s+/)
    if (rest[0] === '(') block = verb
    else addDirective(mod, verb, rest)
  }
  return mod
}

function addDirective(mod, verb, args) {
  if (verb === 'go') mod.go = args[0]
  else if (verb === 'require') mod.require.set(args[0], args[1])
  else if (verb === 'tool') mod.tool.add(args[0])
}

function readWrapper(tool) {
  const dir = join(toolsDir, tool.wrapper)
  const file = join(dir, 'go.mod')
  if (!existsSync(file)) throw new ToolError(tool.wrapper, 'read', `${relative(root, file)} is missing`)
  const mod = parseGoMod(readFileSync(file, 'utf8'))
  const pinned = mod.require.get(tool.module)
  if (!pinned) throw new ToolError(tool.wrapper, 'read', `${relative(root, file)} does not require ${tool.module}`)
  if (!tool.pkg.startsWith('.') && !mod.tool.has(tool.pkg)) {
    throw new ToolError(tool.wrapper, 'read', `${relative(root, file)} has no \`tool ${tool.pkg}\` directive`)
  }
  return { dir, mod, version: pinned.replace(/^v/, '') }
}

/** A short hash of our own code in a wrapper (files in sorted order, with their paths). */
function hashOwnCode(tool, wrapperDir) {
  const hash = createHash('sha256')
  const visit = (path) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name))
      return
    }
    hash.update(`${relative(wrapperDir, path)}\0`)
    hash.update(readFileSync(path))
    hash.update('\0')
  }
  for (const p of tool.ownCode) visit(join(wrapperDir, p))
  return hash.digest('hex').slice(0, 10)
}

/** Every tool with its pinned version, cache directory and key, without building anything. */
export function describeTools({ cache = cacheRoot(), only } = {}) {
  // Only the wrappers that --only may name are read, so one tool can be built before the others exist.
  const named = (t) => !only?.length || only.some((o) => o === t.family || new RegExp(`^${esc(t.family)}-\\d`).test(o))
  const tools = TOOLS.filter(named).map((tool) => {
    const { dir, mod, version } = readWrapper(tool)
    const key = tool.versionedKey ? `${tool.family}-${version}` : tool.family
    const dirName = `${tool.family}-${version}${tool.ownCode ? `-${hashOwnCode(tool, dir)}` : ''}`
    const home = join(cache, dirName)
    return { ...tool, key, version, wrapperDir: dir, goVersion: mod.go, home, binPath: join(home, 'bin', tool.bin) }
  })
  return select(tools, only)
}

export function cacheRoot() {
  if (process.env.PROVIDER_TOOLS_CACHE) return resolve(process.env.PROVIDER_TOOLS_CACHE)
  const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return resolve(xdg, 'provider-iac', 'tools')
}

// ---- running commands ---------------------------------------------------------------------------

class ToolError extends Error {
  constructor(tool, step, detail) {
    super(`tools: ${tool}: ${step} failed: ${detail}`)
    this.tool = tool
    this.step = step
  }
}

const fmtTime = (ms) => {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}
const fmtSize = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** Runs a command; resolves to its output (stdout then stderr), or rejects with the last lines of its stderr. */
function run(cmd, args, { cwd, env, key, step, log, allowFailure = false }) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = { stdout: '', stderr: '' }
    for (const stream of ['stdout', 'stderr']) {
      child[stream].on('data', (chunk) => {
        out[stream] += chunk
        if (out[stream].length > 200_000) out[stream] = out[stream].slice(-100_000)
      })
    }
    const started = Date.now()
    const beat = setInterval(() => log(`${key}: ${step} still running (${fmtTime(Date.now() - started)})`), 60_000)
    child.on('error', (err) => {
      clearInterval(beat)
      const why = err.code === 'ENOENT' ? `${cmd} not found${cmd === 'go' ? ' on PATH (Go 1.24 or newer is needed)' : ''}` : err.message
      fail(new ToolError(key, step, `${cmd}: ${why}`))
    })
    child.on('close', (code, signal) => {
      clearInterval(beat)
      if (code === 0 || (allowFailure && signal === null)) return done(out.stdout + out.stderr)
      const tail = (out.stderr.trim() || out.stdout.trim()).split('\n').slice(-25).join('\n')
      const shown = args.map((a) => (/^[\w./:=,@+-]+$/.test(a) ? a : `'${a}'`)).join(' ')
      fail(new ToolError(key, step, `\`${cmd} ${shown}\` (in ${cwd}) exited ${signal ?? code}:\n${tail}`))
    })
  })
}

function pathTool(tool) {
  // A binary of that name on PATH (outside our cache) that reports exactly the pinned version.
  const cache = cacheRoot()
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || resolve(dir).startsWith(cache)) continue
    const bin = join(dir, tool.bin)
    if (!existsSync(bin)) continue
    try {
      const out = execFileSync(bin, tool.check, { env: checkEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      if (tool.expect(tool.version).test(out)) return bin
    } catch {
      // Not runnable, or not the pinned version: keep looking.
    }
  }
  return undefined
}

/** The environment a version check runs in: no update checks phoning home. */
const checkEnv = () => ({ ...process.env, CHECKPOINT_DISABLE: '1', PULUMI_SKIP_UPDATE_CHECK: 'true' })

function removeStaleTemps(cache) {
  if (!existsSync(cache)) return
  for (const name of readdirSync(cache)) {
    const m = /^\.tmp-.*-(\d+)$/.exec(name)
    if (!m) continue
    try {
      process.kill(Number(m[1]), 0)
    } catch {
      rmSync(join(cache, name), { recursive: true, force: true })
    }
  }
}

async function build(tool, { log, cache }) {
  const key = tool.key
  const started = Date.now()
  const env = { ...process.env, CGO_ENABLED: '0' }
  if (tool.gotoolchain) {
    env.GOTOOLCHAIN = tool.gotoolchain
    log(`${key}: GOTOOLCHAIN=${tool.gotoolchain} for this build`)
  }
  const opts = { cwd: tool.wrapperDir, env, key, log }
  mkdirSync(cache, { recursive: true })
  const tmp = join(cache, `.tmp-${tool.family}-${tool.version}-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(join(tmp, 'bin'), { recursive: true })
  try {
    log(`${key}: building ${tool.pkg} from tools/${tool.wrapper} (Go module cache: downloads as needed)`)
    let t = Date.now()
    // Fetches exactly the modules the main package needs (verified against go.sum), nothing else.
    await run('go', ['list', '-deps', '-f', '{{if false}}{{end}}', tool.pkg], { ...opts, step: 'download' })
    const downloadMs = Date.now() - t
    log(`${key}: download done in ${fmtTime(downloadMs)}`)

    t = Date.now()
    const out = join(tmp, 'bin', tool.bin)
    const args = ['build', '-trimpath', '-o', out, '-ldflags', tool.ldflags(tool.version)]
    if (tool.tags) args.push('-tags', tool.tags)
    await run('go', [...args, tool.pkg], { ...opts, step: 'build' })
    const buildMs = Date.now() - t
    const size = statSync(out).size
    log(`${key}: build done in ${fmtTime(buildMs)} (${fmtSize(size)})`)

    const said = await run(out, tool.check, { ...opts, env: checkEnv(), cwd: tmp, step: 'verify', allowFailure: tool.failing })
    if (!tool.expect(tool.version).test(said)) {
      throw new ToolError(key, 'verify', `\`${tool.bin} ${tool.check.join(' ')}\` said:\n${said.trim().slice(0, 2000)}`)
    }
    // The binary's own build information must name the pinned module version.
    const info = await run('go', ['version', '-m', out], { ...opts, step: 'verify' })
    if (!new RegExp(`^\\s+(dep|mod)\\s+${esc(tool.module)}\\s+v${esc(tool.version)}\\s`, 'm').test(info)) {
      throw new ToolError(key, 'verify', `\`go version -m\` does not list ${tool.module} v${tool.version}:\n${info.slice(0, 2000)}`)
    }
    const goVersion = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim()
    const stamp = { tool: key, version: tool.version, pkg: tool.pkg, wrapper: `tools/${tool.wrapper}`, go: goVersion }
    Object.assign(stamp, { builtAt: new Date().toISOString(), downloadSeconds: downloadMs / 1000, buildSeconds: buildMs / 1000, size })
    writeFileSync(join(tmp, 'tool.json'), `${JSON.stringify(stamp, null, 2)}\n`)
    try {
      renameSync(tmp, tool.home)
    } catch (err) {
      // Another run finished the same tool first: keep its copy.
      if (!isBuilt(tool)) throw new ToolError(key, 'install', `rename to ${tool.home}: ${err.message}`)
    }
    log(`${key}: ready in ${fmtTime(Date.now() - started)}: ${tool.binPath}`)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

const isBuilt = (tool) => existsSync(join(tool.home, 'tool.json')) && existsSync(tool.binPath)

function select(tools, only) {
  if (!only?.length) return tools
  const picked = tools.filter((t) => only.includes(t.key) || only.includes(t.family))
  const unknown = only.filter((o) => !tools.some((t) => t.key === o || t.family === o))
  if (unknown.length) {
    const families = [...new Set(TOOLS.map((t) => t.family))].join(', ')
    throw new Error(`tools: unknown tool ${unknown.join(', ')} (known: ${families}, or a key such as terraform-1.16.4)`)
  }
  return picked
}

/**
 * Builds every selected tool that is missing (one at a time: parallel Go builds on 2 cores are slower) and
 * resolves to the JSON object described at the top. `quiet` leaves out the lines of tools already there;
 * builds always report progress, on stderr.
 */
export async function ensureTools({ quiet = false, only, ignorePath = false, log = (line) => console.error(`[tools] ${line}`) } = {}) {
  const cache = cacheRoot()
  const tools = describeTools({ cache, only })
  removeStaleTemps(cache)
  const started = Date.now()
  const result = {}
  let built = 0
  for (const tool of tools) {
    let bin = tool.binPath
    let from = 'cache'
    if (tool.usePath && !ignorePath) {
      const found = pathTool(tool)
      if (found) [bin, from] = [found, 'path']
    }
    if (from === 'cache' && !isBuilt(tool)) {
      await build(tool, { log, cache })
      built++
    } else if (!quiet) {
      log(`${tool.key}: ${from === 'path' ? 'on PATH' : 'cached'}: ${bin}`)
    }
    result[tool.key] = { version: tool.version, bin, dir: dirname(bin), from }
  }
  if (built || !quiet) log(`${built} built, ${tools.length - built} already there, in ${fmtTime(Date.now() - started)}`)
  return result
}

// ---- command line -------------------------------------------------------------------------------

const shellQuote = (s) => `'${s.replaceAll("'", `'\\''`)}'`

async function main(argv) {
  const only = []
  const words = []
  let ignorePath = false
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--ignore-path') ignorePath = true
    else if (argv[i] === '--only') {
      if (!argv[i + 1]) throw new Error('tools: --only needs a tool name')
      only.push(argv[++i])
    } else if (argv[i].startsWith('--only=')) only.push(argv[i].slice('--only='.length))
    else words.push(argv[i])
  }
  const command = words[0] ?? 'build'
  if (words.length > 1 || !['build', 'env', 'json', 'list'].includes(command)) {
    throw new Error('tools: usage: node scripts/tools.mjs [build|env|json|list] [--only <tool>] [--ignore-path]')
  }
  if (command === 'list') {
    // A tool taken from PATH (see pathTool) is there, though not in the cache: `json` would use it, not build it.
    for (const t of describeTools({ only })) {
      const onPath = !isBuilt(t) && !ignorePath && t.usePath ? pathTool(t) : undefined
      const status = isBuilt(t) ? 'built' : onPath ? 'on PATH' : 'missing'
      console.log(`${t.key.padEnd(24)} ${t.version.padEnd(8)} ${status.padEnd(7)}  ${onPath ?? t.home}`)
    }
    return
  }
  const tools = await ensureTools({ quiet: command !== 'build', only, ignorePath })
  if (command === 'json') console.log(JSON.stringify(tools, null, 2))
  if (command === 'env') {
    const onPath = describeTools({ only }).filter((t) => t.onPath && tools[t.key])
    const dirs = [...new Set(onPath.map((t) => tools[t.key].dir))]
    if (dirs.length) console.log(`export PATH=${dirs.map(shellQuote).join(':')}:"$PATH"`)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof ToolError || err.message.startsWith('tools:') ? err.message : err)
    process.exitCode = 1
  })
}

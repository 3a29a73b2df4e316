// How each language runs the chains program under the real CLI. YAML: `pulumi preview|up` in the project
// directory, with pulumi-language-yaml on PATH. TypeScript, Python, Go: a driver process using their SDK's
// Automation API with an inline program (the nodejs, python and go language hosts cannot be built here),
// which starts its own language runtime server and runs the real `pulumi` with `--client`. Only preview and up run the
// program; refresh, import, export and destroy run the CLI in the same directory (cli-harness.ts Stack).
// Programs compile against the repository's sdk/<language> (PULUMI_CLI_SDK_DIR=<dir holding nodejs/,
// python/, go/> points elsewhere while an SDK is being regenerated).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join, resolve } from 'node:path'
import { type ChainsConfig, CONSOLE_PASSWORD, INITIAL, yamlProgram } from './chains.js'
import { type OpResult, type PulumiHome, ROOT, readEventLog, Stack } from './cli-harness.js'

export const SDK_ROOT = resolve(process.env.PULUMI_CLI_SDK_DIR ?? join(ROOT, 'sdk'))
export const EXAMPLES = join(ROOT, 'examples', 'pulumi')

export interface RunOptions {
  readonly expectNoChanges?: boolean
}

/** One language's way to run the chains program in a stack. */
export interface Driver {
  readonly language: string
  /** The project directory and stack `name` (created on first use). */
  stack(name: string): Promise<Stack>
  configure(stack: Stack, config: ChainsConfig): Promise<void>
  preview(stack: Stack, options?: RunOptions): Promise<OpResult>
  up(stack: Stack, options?: RunOptions): Promise<OpResult>
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 300_000,
  })
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** Config keys of the chains program, set with `pulumi config set` (TypeScript, Python, Go). */
async function setChainsConfig(stack: Stack, config: ChainsConfig): Promise<void> {
  const keys: (keyof ChainsConfig)[] = ['selectOs', 'label', 'powerState', 'resetTrigger', 'rebuildOs', 'vmName', 'proKeyName']
  const values: Record<string, string | null> = {}
  for (const key of keys) values[key] = config[key] ?? null
  const current = JSON.parse((await stack.ok(['config', '--json'])).stdout) as Record<string, unknown>
  const present = new Set(Object.keys(current).map((name) => name.slice(name.indexOf(':') + 1)))
  for (const key of keys) {
    if (values[key] === null && !present.has(key)) delete values[key]
  }
  await stack.setConfig(values)
}

// ---- YAML ---------------------------------------------------------------------------------------

export function yamlDriver(home: PulumiHome): Driver {
  const stacks = new Map<string, Stack>()
  return {
    language: 'yaml',
    async stack(name) {
      let stack = stacks.get(name)
      if (!stack) {
        stack = await Stack.init(home, 'yaml-chains', name, { 'Pulumi.yaml': yamlProgram(INITIAL) })
        await stack.setConfig({ consolePassword: CONSOLE_PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
        stacks.set(name, stack)
      }
      return stack
    },
    async configure(stack, config) {
      writeFileSync(join(stack.dir, 'Pulumi.yaml'), yamlProgram(config))
    },
    preview: (stack, options = {}) => stack.withEvents(['preview', ...(options.expectNoChanges ? ['--expect-no-changes'] : [])]),
    up: (stack, options = {}) =>
      stack.withEvents(['up', '--yes', '--skip-preview', ...(options.expectNoChanges ? ['--expect-no-changes'] : [])]),
  }
}

// ---- TypeScript: the Node SDK's Automation API, in a driver process -----------------------------

/**
 * Compiles sdk/nodejs into `<dir>/node_modules/@provider/pulumi` (as `npm install` of the SDK does) and
 * the program beside it; @pulumi/pulumi there is the repository's copy, the one this process loads, so
 * the inline program registers with the runtime the Automation API serves.
 */
function compileTypeScript(dir: string, example: string): string {
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc')
  const sdk = join(SDK_ROOT, 'nodejs')
  const modules = join(dir, 'node_modules')
  mkdirSync(join(modules, '@provider'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules', '@pulumi'), join(modules, '@pulumi'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', '@types'), join(modules, '@types'), 'dir')
  const installed = join(modules, '@provider', 'pulumi')
  mkdirSync(installed)
  cpSync(join(sdk, 'package.json'), join(installed, 'package.json'))
  // Compiled where the manifest's `main` points; Pulumi's generator writes no `main` and publishes the
  // compiled bin/ with the manifest copied in, so then the output is the package root.
  const main = (JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { main?: string }).main
  run(tsc, ['-p', join(sdk, 'tsconfig.json'), '--outDir', main ? join(installed, dirname(main)) : installed])
  const program = join(dir, 'program')
  mkdirSync(program)
  for (const file of ['index.ts', 'tsconfig.json']) cpSync(join(EXAMPLES, example, file), join(program, file))
  run(tsc, ['-p', join(program, 'tsconfig.json')])
  return join(program, 'bin', 'index.js')
}

/** `example`: the program, a directory of examples/pulumi/ (the chains program unless told); its name is the project's. */
export function typescriptDriver(home: PulumiHome, example = 'typescript-chains'): Driver {
  const base = join(home.root, 'typescript')
  mkdirSync(base)
  const program = compileTypeScript(base, example)
  // Beside this file in build/: compiled by the root tsconfig.
  const driver = fileURLToPath(new URL('./typescript-driver.js', import.meta.url))
  return processDriver(home, 'typescript', (stack, op, options) =>
    driverProcess(home, stack, [process.execPath, driver], {
      op,
      program,
      project: example,
      expectNoChanges: options.expectNoChanges === true,
    }),
  )
}

// ---- Python and Go (and the TypeScript driver): a driver process of the SDK's Automation API ---------------------------------

/** Runs a driver process that does one preview or up and writes the engine events to a file. */
async function driverProcess(
  home: PulumiHome,
  stack: Stack,
  command: readonly string[],
  request: Record<string, unknown>,
): Promise<OpResult> {
  const events = join(stack.dir, `driver-events-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`)
  const body = JSON.stringify({ ...request, workDir: stack.dir, stack: stack.name, cliRoot: home.cliRoot, events })
  const child = spawn(command[0] as string, [...command.slice(1), body], {
    cwd: stack.dir,
    env: home.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString()
  })
  const code = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000)
    child.once('close', (status) => {
      clearTimeout(timer)
      done(status)
    })
  })
  home.record(output)
  // The driver exits 0 when the operation succeeded, 3 when it failed, anything else when it broke.
  if (code !== 0 && code !== 3) throw new Error(`driver ${command.join(' ')} broke (${code}):\n${output}`)
  return { ok: code === 0, events: await readEventLog(events), output }
}

/** A venv with the pinned Pulumi Python SDK (test/pulumi-cli/python/requirements.txt), made once per machine. */
export function pythonVenv(): string {
  const requirements = readFileSync(join(ROOT, 'test', 'pulumi-cli', 'python', 'requirements.txt'), 'utf8')
  const pin = /^pulumi==(\S+)$/m.exec(requirements)?.[1]
  if (!pin) throw new Error('test/pulumi-cli/python/requirements.txt pins no pulumi version')
  const cache = resolve(
    process.env.PROVIDER_TOOLS_CACHE ??
      join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/tmp', '.cache'), 'provider-iac', 'tools'),
  )
  // A change of the requirements makes another venv.
  const venv = join(cache, `python-pulumi-${pin}-${createHash('sha256').update(requirements).digest('hex').slice(0, 10)}`)
  const python = join(venv, 'bin', 'python')
  if (!existsSync(join(venv, '.complete'))) {
    // Built aside and renamed into place, so that a killed install never looks complete.
    const building = `${venv}.tmp-${process.pid}`
    run('python3', ['-m', 'venv', building])
    run(
      join(building, 'bin', 'python'),
      ['-m', 'pip', 'install', '--quiet', '-r', join(ROOT, 'test', 'pulumi-cli', 'python', 'requirements.txt')],
      {
        timeoutMs: 600_000,
      },
    )
    writeFileSync(join(building, '.complete'), `${pin}\n`)
    rmSync(venv, { recursive: true, force: true })
    renameSync(building, venv)
  }
  return python
}

/** `example`: the program, a directory of examples/pulumi/ (the chains program unless told); its name is the project's. */
export function pythonDriver(home: PulumiHome, example = 'python-chains'): Driver {
  const python = pythonVenv()
  const sdk = join(SDK_ROOT, 'python')
  if (!existsSync(sdk)) throw new Error(`${sdk} is missing: the Python SDK is generated into sdk/python`)
  // Installed as users install it (the generated code reads its version from the package metadata), into
  // a directory of this run: from a copy, as a build writes into the source tree.
  const copy = join(home.root, 'python-sdk')
  cpSync(sdk, copy, { recursive: true })
  const site = join(home.root, 'python-site')
  run(python, ['-m', 'pip', 'install', '--quiet', '--no-deps', '--no-build-isolation', '--target', site, copy])
  const script = join(ROOT, 'test', 'pulumi-cli', 'python', 'chains_driver.py')
  const program = join(EXAMPLES, example, '__main__.py')
  return processDriver(home, 'python', (stack, op, options) =>
    driverProcess(home, stack, [python, script], {
      op,
      program,
      project: example,
      sdk: site,
      expectNoChanges: options.expectNoChanges === true,
    }),
  )
}

/** A driver whose every operation is a run of a program of ours in the language (Python, Go), one project per language. */
function processDriver(
  home: PulumiHome,
  language: string,
  operate: (stack: Stack, op: string, options: RunOptions) => Promise<OpResult>,
): Driver {
  const stacks = new Map<string, Stack>()
  return {
    language,
    async stack(name) {
      let stack = stacks.get(name)
      if (!stack) {
        const dir = join(home.root, `${language}-project`)
        mkdirSync(dir, { recursive: true })
        stack = new Stack(home, dir, name)
        await operate(stack, 'init', {})
        await stack.setConfig({ consolePassword: CONSOLE_PASSWORD, 'provider:pollInterval': '100ms' }, ['consolePassword'])
        stacks.set(name, stack)
      }
      return stack
    },
    configure: setChainsConfig,
    preview: (stack, options = {}) => operate(stack, 'preview', options),
    up: (stack, options = {}) => operate(stack, 'up', options),
  }
}

/** The Go SDK's import path, as the generated code imports its own `internal` package. */
export function goImportPath(sdk: string): { importPath: string; dir: string } {
  for (const entry of readdirSync(sdk, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const dir = join(sdk, entry.name)
    const init = join(dir, 'init.go')
    if (!existsSync(init)) continue
    const match = /"([^"]+)\/internal"/.exec(readFileSync(init, 'utf8'))
    if (match?.[1]) return { importPath: match[1], dir }
  }
  throw new Error(`no generated Go package (a directory with init.go) under ${sdk}`)
}

/** `example`: the program, a directory of examples/pulumi/ (the chains program unless told); its name is the project's. */
export function goDriver(home: PulumiHome, example = 'go-chains'): Driver {
  const sdk = join(SDK_ROOT, 'go')
  if (!existsSync(sdk)) throw new Error(`${sdk} is missing: the Go SDK is generated into sdk/go`)
  const binary = buildGoDriver(home, sdk, example)
  return processDriver(home, 'go', (stack, op, options) =>
    driverProcess(home, stack, [binary], { op, expectNoChanges: options.expectNoChanges === true }),
  )
}

/**
 * A temp module: the example's program (its .go files but main.go, e.g. examples/pulumi/go-chains/chains.go)
 * with the driver (test/pulumi-cli/go/driver.go), requiring the SDK through a `replace` to the
 * repository's sdk/go. program.go names the function the example's main.go runs, and the project.
 */
function buildGoDriver(home: PulumiHome, sdk: string, example: string): string {
  const { importPath, dir: sdkPackage } = goImportPath(sdk)
  const module = join(home.root, 'go-driver')
  mkdirSync(module)
  const pulumiVersion = readFileSync(join(ROOT, 'test', 'pulumi-cli', 'go', 'pulumi-sdk.version'), 'utf8').trim()
  // sdk/go/go.mod names the SDK's module; without one (Pulumi's generator writes none), the package
  // directory is made a module of its own, at its import path.
  let sdkModule = sdk
  let sdkModulePath = /^module\s+(\S+)/m.exec(existsSync(join(sdk, 'go.mod')) ? readFileSync(join(sdk, 'go.mod'), 'utf8') : '')?.[1]
  if (!sdkModulePath) {
    sdkModule = join(home.root, 'go-sdk')
    cpSync(sdkPackage, sdkModule, { recursive: true })
    writeFileSync(
      join(sdkModule, 'go.mod'),
      `module ${importPath}\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 ${pulumiVersion}\n`,
    )
    sdkModulePath = importPath
  }
  const source = join(EXAMPLES, example)
  const entry = /pulumi\.Run\((\w+)\)/.exec(readFileSync(join(source, 'main.go'), 'utf8'))?.[1]
  if (!entry) throw new Error(`${join(source, 'main.go')} calls no pulumi.Run(<function>)`)
  const programs = readdirSync(source).filter((file) => file.endsWith('.go') && file !== 'main.go')
  for (const file of programs) {
    const text = readFileSync(join(source, file), 'utf8').replace(/"[^"]*\/sdk\/go\/provider"/, JSON.stringify(importPath))
    writeFileSync(join(module, file), text)
  }
  writeFileSync(
    join(module, 'program.go'),
    `// Written by test/support/pulumi/drivers.ts: the program the driver runs.\npackage main\n\nconst programName = ${JSON.stringify(example)}\n\nvar program = ${entry}\n`,
  )
  cpSync(join(ROOT, 'test', 'pulumi-cli', 'go', 'driver.go'), join(module, 'driver.go'))
  writeFileSync(
    join(module, 'go.mod'),
    `module provider-iac/pulumi-cli-driver\n\ngo 1.24\n\nrequire (\n\t${sdkModulePath} v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 ${pulumiVersion}\n)\n\nreplace ${sdkModulePath} => ${sdkModule}\n`,
  )
  // A build links a 100 MB binary for minutes on 2 cores: kept outside the clone, keyed by everything in it.
  const hash = createHash('sha256')
  const sources = ['go.mod', 'program.go', 'driver.go', ...programs].map((file) => join(module, file))
  for (const file of [...sources, ...filesUnder(sdkModule)]) {
    hash.update(file.startsWith(sdkModule) ? file.slice(sdkModule.length) : file.slice(module.length)).update(readFileSync(file))
  }
  const cached = join(cacheRoot(), `pulumi-cli-go-driver-${hash.digest('hex').slice(0, 16)}`, 'chains-driver')
  if (existsSync(cached)) return cached
  const env = { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), CGO_ENABLED: '0' }
  run('go', ['mod', 'tidy'], { cwd: module, env, timeoutMs: 600_000 })
  const binary = join(module, 'chains-driver')
  // The tags of the CLI's own build, so the Go build cache the tools left is reused.
  run('go', ['build', '-tags', 'osusergo,grpcnotrace', '-o', binary, '.'], { cwd: module, env, timeoutMs: 600_000 })
  mkdirSync(dirname(cached), { recursive: true })
  cpSync(binary, `${cached}.tmp-${process.pid}`)
  renameSync(`${cached}.tmp-${process.pid}`, cached)
  return cached
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** Where built things live between runs: the tools' cache (scripts/tools.mjs). */
function cacheRoot(): string {
  return resolve(
    process.env.PROVIDER_TOOLS_CACHE ??
      join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/tmp', '.cache'), 'provider-iac', 'tools'),
  )
}

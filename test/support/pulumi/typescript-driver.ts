// Runs one step of the TypeScript chains program as an Automation API inline program of the Node SDK,
// in a process of its own, as the Python and Go drivers do (and as a language host would run it): the
// program's leftover promises after a cancelled preview reject there, not in the test runner.
// Called by drivers.ts with one JSON argument: op (init, preview, up), program (the compiled program's
// entry), project (its name; typescript-chains unless given), expectNoChanges, workDir, stack, cliRoot
// and events (a file for the engine events, one JSON object a line, in the CLI's event-log shape).
// Exit status: 0 when the operation succeeded, 3 when it failed, anything else when the driver broke.
import { appendFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const requireHere = createRequire(import.meta.url)
type Automation = typeof import('@pulumi/pulumi/automation/index.js')

interface Request {
  readonly op: 'init' | 'preview' | 'up'
  readonly program: string
  /** The project's name: the example's directory. */
  readonly project?: string
  readonly expectNoChanges?: boolean
  readonly workDir: string
  readonly stack: string
  readonly cliRoot: string
  readonly events: string
}

async function main(): Promise<number> {
  const request = JSON.parse(process.argv[2] ?? '{}') as Request
  // The program's copy of @pulumi/pulumi is a link to this repository's: one runtime for both.
  const automation = requireHere('@pulumi/pulumi/automation') as Automation
  const pulumiCommand = await automation.PulumiCommand.get({ root: request.cliRoot, skipVersionCheck: true })
  const project = request.project ?? 'typescript-chains'
  const stack = await automation.LocalWorkspace.createOrSelectStack(
    {
      stackName: request.stack,
      projectName: project,
      program: async () => requireHere(request.program) as Record<string, unknown>,
    },
    { workDir: request.workDir, pulumiCommand, projectSettings: { name: project, runtime: 'nodejs', main: request.workDir } },
  )
  if (request.op === 'init') return 0
  writeFileSync(request.events, '')
  const options = {
    expectNoChanges: request.expectNoChanges === true,
    onOutput: (text: string) => process.stdout.write(text),
    onError: (text: string) => process.stderr.write(text),
    onEvent: (event: unknown) => appendFileSync(request.events, `${JSON.stringify(event)}\n`),
  }
  try {
    if (request.op === 'preview') await stack.preview(options)
    else await stack.up(options)
  } catch (error) {
    process.stdout.write(`\n${error instanceof Error ? error.message : String(error)}\n`)
    return 3
  }
  return 0
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(2)
  },
)

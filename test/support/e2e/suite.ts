// One emulator and one workspace for an end-to-end suite (a test file, or a describe block in it):
// useEmulatorWorkspace() registers the before hook that starts them and the after hook that removes
// every workspace the suite made and stops the emulator, in that order. Must not: know a resource or
// a client; what the suite writes, applies and checks stays in its file.
import { after, before } from 'node:test'
import { Emulator, Workspace } from './harness.js'

export interface SuiteOptions {
  /** The key the emulator accepts (default the harness's). */
  readonly apiKey?: string
  /** How long the emulator's new objects stay provisioning (default the harness's, 100 ms). */
  readonly provisioningDelayMs?: number
  /** Whether the suite gets a workspace of its own (`ws`); default true. Without it, tests make theirs with workspace(). */
  readonly workspace?: boolean
  /** Destroy what the suite's workspace manages before removing it (errors ignored: the emulator goes next). */
  readonly destroy?: boolean
}

export interface E2eSuite {
  /** The suite's emulator: read it in hooks and tests, once the before hook ran, never while the suite is declared. */
  readonly emulator: Emulator
  /** The suite's workspace (options.workspace not false). */
  readonly ws: Workspace
  /** Another workspace against the suite's emulator (`cliConfig`, `client` as Workspace.create's), removed when the suite ends. */
  workspace(cliConfig?: string, client?: Workspace['client']): Promise<Workspace>
}

/** Registers the suite's before and after hooks; call it where a describe body or a file declares its hooks. */
export function useEmulatorWorkspace(options: SuiteOptions = {}): E2eSuite {
  let emulator: Emulator | undefined
  let ws: Workspace | undefined
  const workspaces: Workspace[] = []
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the suite's ${what} is read before its before hook made it`)
    return value
  }
  const suite: E2eSuite = {
    get emulator() {
      return started(emulator, 'emulator')
    },
    get ws() {
      return started(ws, 'workspace')
    },
    async workspace(cliConfig?: string, client?: Workspace['client']) {
      const made = await Workspace.create(suite.emulator, cliConfig, client)
      workspaces.push(made)
      return made
    },
  }
  before(async () => {
    emulator = await Emulator.start({ apiKey: options.apiKey, provisioningDelayMs: options.provisioningDelayMs })
    if (options.workspace !== false) ws = await suite.workspace()
  })
  after(async () => {
    if (options.destroy) await ws?.destroy().catch(() => undefined)
    for (const made of workspaces) await made.cleanup()
    await emulator?.stop()
  })
  return suite
}

// The Terraform provider in the serve mode (PROVIDER_DEBUG_REATTACH=1), as docs/guides/ci.md starts it:
// one process every command reattaches to through TF_REATTACH_PROVIDERS. The build's bundle is run by
// node, from the workspace it serves (its order journal is found from there).
import { type ChildProcess, spawn } from 'node:child_process'
import { BUNDLES } from '../artifacts.js'
import { type Emulator, stop } from '../e2e/harness.js'

export interface ServedProvider {
  readonly child: ChildProcess
  /** The TF_REATTACH_PROVIDERS value it printed. */
  readonly reattach: string
  stop(): Promise<void>
}

/**
 * Starts the served provider in the workspace `dir`, with the settings a workspace's commands have
 * (the emulator's key and URL, its state home as XDG_STATE_HOME): the process reads its own environment.
 */
export async function serveProvider(dir: string, emulator: Emulator): Promise<ServedProvider> {
  const child = spawn(process.execPath, [BUNDLES.terraform as string], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      PROVIDER_DEBUG_REATTACH: '1',
      PROVIDER_API_KEY: emulator.apiKey,
      PROVIDER_BASE_URL: emulator.baseUrl,
      XDG_STATE_HOME: emulator.stateHome,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const reattach = await new Promise<string>((resolve, reject) => {
    let stderr = ''
    const timer = setTimeout(() => reject(new Error(`no TF_REATTACH_PROVIDERS within 30 s: ${stderr}`)), 30_000)
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /TF_REATTACH_PROVIDERS='([^']+)'/.exec(stderr)
      if (found) {
        clearTimeout(timer)
        resolve(found[1] as string)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the served provider exited with ${code}: ${stderr}`))
    })
  })
  return { child, reattach, stop: () => stop(child, false) }
}

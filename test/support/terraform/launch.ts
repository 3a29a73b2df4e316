// Starts a plugin executable the way Terraform does, for the start-up tests of the Terraform front end:
// a bare environment, stdout and stderr captured, the handshake line handed back on its own.
import { spawn } from 'node:child_process'
import { once } from 'node:events'

/**
 * Starts a plugin the way Terraform does (node running `args`, only PATH and `env` in its environment),
 * capturing stdout and stderr; `firstLine` resolves with the first stdout line (the handshake).
 */
export function launchPlugin(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const firstLine = new Promise<string>((resolve, reject) => {
    const check = () => {
      const end = stdout.indexOf('\n')
      if (end >= 0) resolve(stdout.slice(0, end))
    }
    child.stdout.on('data', check)
    child.on('exit', () => (stdout.includes('\n') ? check() : reject(new Error(`no stdout line; stderr: ${stderr}`))))
  })
  firstLine.catch(() => {}) // tests that expect no line never await it
  return { child, firstLine, exited, output: () => ({ stdout, stderr }) }
}

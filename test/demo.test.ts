// `npm start -- --keep` (scripts/demo.mjs) as a newcomer runs it: the quickstart is applied against the
// embedded emulator, which then keeps running with the demo's objects at the addresses the demo prints,
// until Ctrl-C, which stops it, removes the temp dir and ends the demo with exit 0. Runs the demo under
// the newest pinned Terraform (put first on PATH), against this checkout's build.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { test } from 'node:test'
import { ROOT, terraformClient } from './support/e2e/harness.js'

/** The demo's steps take seconds; a loaded CI machine gets minutes before the wait gives up. */
const KEPT_WITHIN_MS = 300_000
const EXIT_WITHIN_MS = 30_000
const CALL_TIMEOUT_MS = 30_000

/** `promise`, or a rejection naming `what` after `ms`; the timer goes either way. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000}s`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** A GET with the key, bounded; the body as text. */
async function get(url: string, apiKey: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers: { 'x-token': apiKey }, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })
  return { status: response.status, text: await response.text() }
}

test('npm start -- --keep: the emulator keeps the demo objects at the printed address until Ctrl-C, which cleans up and exits 0', async () => {
  const terraform = terraformClient().tool
  const demo = spawn(process.execPath, [join(ROOT, 'scripts', 'demo.mjs'), '--keep'], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${terraform.dir}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  demo.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  demo.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | string | null>((resolve) => demo.once('exit', (code, signal) => resolve(signal ?? code)))
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`
  try {
    // The last lines the demo prints before it waits for Ctrl-C.
    const kept = new Promise<void>((resolve, reject) => {
      demo.stdout.on('data', () => {
        if (/Ctrl-C stops the emulator/.test(stdout)) resolve()
      })
      void exited.then((code) => reject(new Error(`the demo exited (${code}) instead of keeping the emulator\n${output()}`)))
    })
    await within(kept, KEPT_WITHIN_MS, `the demo kept nothing\n${output()}`)
    const api = /API: +(http:\/\/127\.0\.0\.1:\d+\/v1) +\(API key (\S+)\)/.exec(stdout)
    assert.ok(api, output())
    const [, baseUrl, apiKey] = api as unknown as [string, string, string]
    const origin = new URL(baseUrl).origin
    assert.match(stdout, new RegExp(`web console: +${origin}/\\n`), 'the console address is printed')
    assert.doesNotMatch(stdout, /terraform destroy/, 'a kept demo destroys nothing')
    const workDir = /copied to (\S+)\)/.exec(stdout)?.[1]
    assert.ok(workDir && existsSync(join(workDir, 'terraform.tfstate')), `the demo's state is kept in its temp dir\n${output()}`)
    assert.match(stdout, new RegExp(`cd ${workDir} && terraform plan`))

    // The quickstart's keypair and VM, through the API with the printed key.
    const keypairs = await get(`${baseUrl}/lites/keypairs/`, apiKey)
    assert.equal(keypairs.status, 200, keypairs.text)
    assert.match(keypairs.text, /"quickstart-key"/)
    const vms = await get(`${baseUrl}/lites/accounts`, apiKey)
    assert.equal(vms.status, 200, vms.text)
    assert.match(vms.text, /"quickstart-vm"/)

    demo.kill('SIGINT')
    const code = await within(exited, EXIT_WITHIN_MS, 'no exit after SIGINT')
    assert.equal(code, 0, output())
    assert.equal(existsSync(workDir), false, 'the temp dir is removed')
    await assert.rejects(get(`${baseUrl}/lites/keypairs/`, apiKey), 'the emulator is stopped')
  } finally {
    if (demo.exitCode === null && demo.signalCode === null) {
      demo.kill('SIGINT')
      await within(exited, EXIT_WITHIN_MS, 'no exit after SIGINT').catch(() => demo.kill('SIGKILL'))
    }
  }
})

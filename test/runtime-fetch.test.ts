// The API client under the runtime the release's executables run on (Bun, pinned in tools/runtimes.json):
// a change whose connection drops after the service processed it reaches the service once. Bun's fetch
// sends a request again by itself when a reused keep-alive connection closes before any answer, for the
// methods HTTP calls idempotent (PUT, DELETE); against a service that ignores Idempotency-Key a paid PUT
// (a +10 GB upgrade) would then be processed twice without the client knowing. Reads keep the pool.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { test } from 'node:test'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** A service that answers reads on a kept-alive connection and drops the connection of every change it processed. */
async function droppingService() {
  const changes: string[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    request.on('end', () => {
      if (request.method === 'GET') {
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ success: true, code: 200, data: [] }))
        return
      }
      changes.push(`${request.method} ${request.url}`)
      request.socket.destroy() // processed, then no answer: a lost response
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return { origin: `http://127.0.0.1:${port}`, changes, close: () => new Promise<void>((done) => server.close(() => done())) }
}

test('under the release runtime, a +10 GB upgrade whose answer is lost after a read on the same connection reaches the service once', async () => {
  const { runtimePackage } = (await import(pathToFileURL(join(ROOT, 'scripts', 'runtimes.mjs')).href)) as {
    runtimePackage(runtime: string): { bin: string; version: string }
  }
  const bun = runtimePackage('bun')
  const service = await droppingService()
  const dir = mkdtempSync(join(tmpdir(), 'runtime-fetch-'))
  try {
    const script = join(dir, 'client.mjs')
    writeFileSync(
      script,
      [
        `import { createClient } from ${JSON.stringify(pathToFileURL(join(ROOT, 'build', 'src', 'api', 'index.js')).href)}`,
        `const client = createClient({ baseUrl: ${JSON.stringify(`${service.origin}/v1`)}, apiKey: 'runtime-test-key', userAgent: 'runtime-test' })`,
        // A read first, so that the change's request could go out on a kept-alive connection.
        'await client.lites.listKeypairs()',
        "const outcome = await client.lites.upgradeDisk('100042', { additional_size: 10 }).then(() => 'answered', (e) => e.message)",
        'console.log(outcome)',
      ].join('\n'),
    )
    // Run without blocking this process, which serves the API.
    const run = await promisify(execFile)(bun.bin, [script], { encoding: 'utf8', timeout: 60_000 })
    // The client itself never sends it again: the service has not confirmed that it recognises keys.
    assert.match(run.stdout, /not sent again/, run.stdout)
    assert.deepEqual(service.changes, ['PUT /v1/lites/disks/accounts/100042'], `bun ${bun.version}: the change reached the service once`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await service.close()
  }
})

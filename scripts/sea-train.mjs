// Makes the V8 code cache the Terraform provider's Node.js single executable carries (scripts/sea-main.cjs, built by scripts/node-sea.mjs as a benchmark candidate), from
// a run rather than a compile: run by the platform's own runtime binary (the cache is specific to its V8
// build and flags), it compiles the wrapped bundle exactly as the executable will, starts it as Terraform
// does (mutual TLS), makes the first calls (GetProviderSchema, then GetMetadata, which loads the
// definitions and the provider service), and only then writes the cache, so that what those calls
// compiled lazily is in it. Nothing it does reaches an API.
//   <runtime node> scripts/sea-train.mjs <wrapped bundle> <cache out>
import { readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:http2'
import { createRequire } from 'node:module'
import { Script } from 'node:vm'
import { createCertificate } from '../build/src/terraform/certificate.js'

const [source, out] = process.argv.slice(2)
if (!source || !out) throw new Error('usage: sea-train.mjs <wrapped bundle> <cache out>')
const script = new Script(readFileSync(source, 'utf8'), { filename: 'provider.cjs' })

// The environment a launch by Terraform has (mutual TLS, so the TLS start-up code runs too).
const client = createCertificate()
for (const name of Object.keys(process.env)) if (/^(TF_|PLUGIN_|PROVIDER_)/.test(name)) delete process.env[name]
Object.assign(process.env, {
  TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2',
  PLUGIN_PROTOCOL_VERSIONS: '6',
  PLUGIN_CLIENT_CERT: client.cert,
})
process.argv = [process.execPath, 'provider']

// The first stdout line is the handshake; it is read, not printed.
const firstLine = new Promise((resolve) => {
  const write = process.stdout.write
  process.stdout.write = (chunk) => {
    process.stdout.write = write
    resolve(String(chunk).trim())
    return true
  }
})
const module = { exports: {} }
script.runInThisContext().call(module.exports, module.exports, createRequire(import.meta.url), module, source, '.')
const line = await Promise.race([
  firstLine,
  new Promise((_, reject) => setTimeout(() => reject(new Error('the bundle wrote no handshake line within 20 s')), 20_000).unref()),
])

/** One unary call with an empty message; rejects unless the status is 0. */
function call(session, path) {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' })
    let status
    const read = (headers) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status'])
    }
    stream.on('response', read)
    stream.on('trailers', read)
    stream.on('data', () => {})
    stream.on('error', reject)
    stream.on('close', () => (status === '0' ? resolve() : reject(new Error(`${path} answered grpc-status ${status}`))))
    stream.end(Buffer.alloc(5))
  })
}

const port = line.split('|')[3]?.split(':')[1]
// Training only: the server's certificate is the one the handshake line carries; it is not checked here.
const session = connect(`https://localhost:${port}`, { key: client.key, cert: client.cert, rejectUnauthorized: false })
await call(session, '/tfplugin6.Provider/GetProviderSchema')
await call(session, '/tfplugin6.Provider/GetMetadata') // the first call that loads the provider service
session.destroy()
writeFileSync(out, script.createCachedData())
process.exit(0)

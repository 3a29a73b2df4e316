// The main script of the Terraform provider's Node.js single executable, which the benchmark builds as a candidate (scripts/node-sea.mjs; the release compiles with Bun). The provider's bundle travels as a
// SEA asset, wrapped in a CommonJS function, and is compiled here with V8's code cache of a trained run
// (scripts/sea-train.mjs) when the executable carries one: that cache also holds the functions the
// first calls compile lazily (the definitions, the provider service), which the SEA's own code cache,
// made from a compile without a run, cannot hold. Without a cache (executables for other platforms, or
// a cache V8 rejects) the bundle is compiled as usual. Only built-in modules may be required here.
const { getAsset } = require('node:sea')
const { Script } = require('node:vm')

let cachedData
try {
  cachedData = Buffer.from(getAsset('provider.cache'))
} catch {
  cachedData = undefined // this platform's executable was built without a cache
}
const script = new Script(getAsset('provider.cjs', 'utf8'), { filename: 'provider.cjs', cachedData })
if (process.env.PROVIDER_TRACE_STARTUP === '1') {
  const state = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted'
  process.stderr.write(`provider-code-cache ${state}\n`)
}
script.runInThisContext().call(module.exports, module.exports, require, module, __filename, __dirname)

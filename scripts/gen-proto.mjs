// Regenerates src/terraform/gen/ from proto/ with buf + protoc-gen-es (offline: both come from node_modules).
// Usage: node scripts/gen-proto.mjs [outDir]; the freshness test passes a temp dir and diffs it with the
// committed output, so this script must stay deterministic (no timestamps, sorted inputs via buf).
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(process.argv[2] ?? join(root, 'src/terraform/gen'))
const bin = (name) => join(root, 'node_modules/.bin', name)

const template = {
  version: 'v2',
  plugins: [{ local: bin('protoc-gen-es'), out, opt: ['target=ts', 'import_extension=js'] }],
}

// Stale files from a renamed proto would otherwise linger and still compile.
rmSync(out, { recursive: true, force: true })
const result = spawnSync(bin('buf'), ['generate', 'proto', '--template', JSON.stringify(template)], {
  cwd: root,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)

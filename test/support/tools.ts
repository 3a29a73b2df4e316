// The real clients the end-to-end suites drive, as `node scripts/tools.mjs json` reports them (built
// from pinned Go modules into a cache outside the clone). The test runner passes that report in
// PROVIDER_TOOLS_JSON; a suite run on its own asks the script (which builds what is missing).
import { execFileSync } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Tool {
  readonly version: string
  /** The executable, absolute. */
  readonly bin: string
  /** Its directory, for PATH. */
  readonly dir: string
  readonly from: 'cache' | 'path'
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
let report: Readonly<Record<string, Tool>> | undefined

export function tools(): Readonly<Record<string, Tool>> {
  report ??= JSON.parse(
    process.env.PROVIDER_TOOLS_JSON ??
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'tools.mjs'), 'json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
  ) as Record<string, Tool>
  return report
}

/** One pinned tool by its key (`pulumi`, `sdkgen`, `terraform-1.16.4`, …); throws naming what is pinned. */
export function tool(key: string): Tool {
  const found = tools()[key]
  if (!found) throw new Error(`no tool ${key} in the pinned set (${Object.keys(tools()).join(', ')}); see tools/README.md`)
  return found
}

/** Every pinned Terraform-protocol client (each terraform version, then tofu), as `name version`. */
export function terraformClients(): { readonly name: string; readonly tool: Tool }[] {
  return Object.entries(tools())
    .filter(([key]) => /^(terraform|tofu)-\d/.test(key))
    .map(([key, found]) => ({ name: key.replace(/-(\d)/, ' $1'), tool: found }))
}

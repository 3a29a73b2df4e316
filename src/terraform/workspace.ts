// Which Terraform workspace a provider process serves: Terraform tells a provider nothing of it, but
// runs it in the working directory, where the data directory records the selected workspace.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * What sets this workspace's orders apart from the same configuration's in another workspace of the
 * same directory (they share one order journal): `terraform workspace <name>`, from `TF_WORKSPACE`
 * or `<TF_DATA_DIR>/environment`. Undefined for the default workspace, so that its orders keep the
 * identity they had before workspaces were told apart.
 */
export function workspaceScope(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  let name = env.TF_WORKSPACE?.trim()
  if (!name) {
    try {
      name = readFileSync(join(resolve(cwd, env.TF_DATA_DIR ?? '.terraform'), 'environment'), 'utf8').trim()
    } catch {
      name = undefined
    }
  }
  return name && name !== 'default' ? `terraform workspace ${name}` : undefined
}

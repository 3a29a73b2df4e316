// Which Terraform state a provider process serves: Terraform tells a provider nothing of it, but runs
// it in the working directory, where the data directory records the selected workspace and the
// backend that keeps the state.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** Backend settings that authenticate rather than locate: left out, so that runners with their own credentials agree. */
const CREDENTIAL = /pass|secret|token|conn_str|access_key|credential|private_key|certificate|sas_|client_id|client_secret/i

/**
 * What sets this state's orders apart from the same configuration's in another state sharing one
 * order journal: the workspace (`TF_WORKSPACE` or `<TF_DATA_DIR>/environment`) and the backend that
 * keeps the state (`<TF_DATA_DIR>/terraform.tfstate`: its type and the settings that locate it, never
 * a credential). A re-run of the same state, here or on another runner, has the same scope, so it
 * takes over what a killed run left; another state never does. A state kept by the local backend is
 * the working directory's own, so its scope is that directory (two directories sharing a journal, in a
 * database or a directory named by order_journal, are two states).
 */
export function stateScope(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const data = resolve(cwd, env.TF_DATA_DIR ?? '.terraform')
  let name = env.TF_WORKSPACE?.trim()
  if (!name) {
    try {
      name = readFileSync(join(data, 'environment'), 'utf8').trim()
    } catch {
      name = undefined
    }
  }
  const parts: string[] = []
  if (name && name !== 'default') parts.push(`terraform workspace ${name}`)
  parts.push(backendOf(data) ?? `terraform local state ${digest(resolve(cwd))}`)
  return parts.join(', ')
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/** The backend recorded by `terraform init`, as its type and a hash of where it keeps states; undefined for the local one. */
function backendOf(data: string): string | undefined {
  let backend: { type?: unknown; config?: unknown } | undefined
  try {
    backend = (JSON.parse(readFileSync(join(data, 'terraform.tfstate'), 'utf8')) as { backend?: typeof backend }).backend
  } catch {
    return undefined
  }
  if (backend === undefined || typeof backend.type !== 'string' || backend.type === 'local') return undefined
  const config = backend.config !== null && typeof backend.config === 'object' ? (backend.config as Record<string, unknown>) : {}
  const where = Object.keys(config)
    .filter((key) => !CREDENTIAL.test(key) && config[key] !== null && config[key] !== '')
    .sort()
    .map((key) => `${key}=${JSON.stringify(config[key])}`)
    .join('\n')
  return `terraform backend ${backend.type} ${digest(where)}`
}

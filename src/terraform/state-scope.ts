// Which Terraform state a provider process serves: Terraform tells a provider nothing of it, but runs
// it in the working directory, where the data directory records the selected workspace and the
// backend that keeps the state.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** Backend settings that authenticate rather than locate: left out, so that runners with their own credentials agree. */
const CREDENTIAL = /pass|secret|token|conn_str|access_key|credential|private_key|certificate|sas_|client_id|client_secret/i
/** Settings the credential pattern would catch that locate a state: the kubernetes backend's secret name suffix. */
const LOCATOR = new Set(['secret_suffix'])

/**
 * Settings that locate a state, that Terraform takes from the environment when the configuration
 * leaves them out (then `terraform init` records them as null), and that have no default a runner could
 * spell either way: GitLab's managed state (`TF_HTTP_ADDRESS`), Terraform Cloud's organization. Without
 * them every such state would look alike (staging and prod of one configuration).
 */
const FROM_ENVIRONMENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  http: { address: 'TF_HTTP_ADDRESS' },
  cloud: { organization: 'TF_CLOUD_ORGANIZATION' },
}

/** Settings whose default a runner may also spell out: the same state either way. */
const DEFAULTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  pg: { schema_name: 'terraform_remote_state' },
}

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
  const data = dataDirectory(env, cwd)
  const name = workspaceOf(env, data)
  const parts: string[] = []
  if (name !== 'default') parts.push(`terraform workspace ${name}`)
  parts.push(backendOf(data, env) ?? `terraform local state ${digest(resolve(cwd))}`)
  return parts.join(', ')
}

/**
 * The ids of the objects of `types` in the state the local backend keeps for this working directory
 * and workspace, as saved now; empty for a remote backend, or a state not where the backend keeps it
 * (`-state`). Terraform's local backend writes that file each time an object changes, before it
 * closes the provider: an id handed over and found in it was saved. (OpenTofu writes it after the
 * close, and Terraform on Windows holds it locked then: nothing is confirmed, as before.) Throws when
 * the file is unreadable.
 */
export function savedStateIds(types: ReadonlySet<string>, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Set<string> {
  const data = dataDirectory(env, cwd)
  const backend = recordedBackend(data)
  if (backend !== undefined && backend.type !== 'local') return new Set()
  const config = settingsOf(backend)
  const name = workspaceOf(env, data)
  const path =
    name === 'default'
      ? resolve(cwd, typeof config.path === 'string' && config.path !== '' ? config.path : 'terraform.tfstate')
      : resolve(
          cwd,
          typeof config.workspace_dir === 'string' && config.workspace_dir !== '' ? config.workspace_dir : 'terraform.tfstate.d',
          name,
          'terraform.tfstate',
        )
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Set()
    throw error
  }
  const ids = new Set<string>()
  const state = JSON.parse(text) as { resources?: { mode?: unknown; type?: unknown; instances?: { attributes?: { id?: unknown } }[] }[] }
  for (const resource of state.resources ?? []) {
    if (resource.mode !== 'managed' || typeof resource.type !== 'string' || !types.has(resource.type)) continue
    for (const instance of resource.instances ?? []) {
      const id = instance.attributes?.id
      if (typeof id === 'string' || typeof id === 'number') ids.add(String(id))
    }
  }
  return ids
}

const dataDirectory = (env: NodeJS.ProcessEnv, cwd: string) => resolve(cwd, env.TF_DATA_DIR ?? '.terraform')

/** The selected workspace: `TF_WORKSPACE`, else what `terraform workspace select` recorded, else default. */
function workspaceOf(env: NodeJS.ProcessEnv, data: string): string {
  const chosen = env.TF_WORKSPACE?.trim()
  if (chosen) return chosen
  try {
    return readFileSync(join(data, 'environment'), 'utf8').trim() || 'default'
  } catch {
    return 'default'
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/** The backend recorded by `terraform init`; undefined when none is (the implicit local one). */
function recordedBackend(data: string): { type?: unknown; config?: unknown } | undefined {
  try {
    const backend = (JSON.parse(readFileSync(join(data, 'terraform.tfstate'), 'utf8')) as { backend?: unknown }).backend
    return backend !== null && typeof backend === 'object' ? backend : undefined
  } catch {
    return undefined
  }
}

function settingsOf(backend: { config?: unknown } | undefined): Record<string, unknown> {
  const config = backend?.config
  return config !== null && typeof config === 'object' ? (config as Record<string, unknown>) : {}
}

/**
 * The backend recorded by `terraform init`, as its type and a hash of where it keeps states (its
 * settings, or the environment's where they are left out); undefined for the local one.
 */
function backendOf(data: string, env: NodeJS.ProcessEnv): string | undefined {
  const backend = recordedBackend(data)
  if (backend === undefined || typeof backend.type !== 'string' || backend.type === 'local') return undefined
  const config: Record<string, unknown> = { ...settingsOf(backend) }
  for (const [key, variable] of Object.entries(FROM_ENVIRONMENT[backend.type] ?? {})) {
    if ((config[key] ?? '') === '' && env[variable]) config[key] = env[variable]
  }
  for (const [key, value] of Object.entries(DEFAULTS[backend.type] ?? {})) if (config[key] === value) config[key] = null
  const where = Object.keys(config)
    .filter((key) => (LOCATOR.has(key) || !CREDENTIAL.test(key)) && config[key] !== null && config[key] !== '')
    .sort()
    .map((key) => `${key}=${JSON.stringify(config[key])}`)
    .join('\n')
  return `terraform backend ${backend.type} ${digest(where)}`
}

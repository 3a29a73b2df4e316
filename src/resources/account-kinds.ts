/**
 * The kinds of account the service sells, each read by its own call: every resource that manages an
 * account registers its kind where it is defined (an ordered account through orderedAccount), so an
 * import of an account id that one kind's call does not find can name the kind that has it, and the
 * resource type to import it as.
 */
import { type Account, type Client, statusIs } from '../api/index.js'

/** Whether a rejected call says the object in its path does not exist (404 or 410). */
export function isNotFound(thrown: unknown): boolean {
  return (thrown as { notFound?: unknown } | null)?.notFound === true
}

export interface AccountKind {
  /** The resource type to import such an account as. */
  readonly type: string
  /** What it is, completing "account N is a …" (`Lite disk`, `Metal server`). */
  readonly what: string
  /** The account's own read, which answers not found for an account of any other kind. */
  readonly get: (client: Client, id: string, signal: AbortSignal) => Promise<Account<unknown>>
  /** The type to import a given account as, when the kind holds more than one (a VM restored from a snapshot). */
  readonly importAs?: (account: Account<unknown>) => string
  /** Other resource types that read this kind with the same call (their imports find it themselves). */
  readonly alike?: readonly string[]
}

/** The kinds registered, by type: a definition made twice (the tests make many) registers once. */
const kinds = new Map<string, AccountKind>()

export function registerAccountKind(kind: AccountKind): void {
  kinds.set(kind.type, kind)
}

/**
 * For `elsewhere`: the kind of account other than `type`'s that has account `id`, said as what to
 * import it as; undefined when none has it (or only as terminated). One read per other kind, made
 * only after an import found nothing.
 */
export async function accountElsewhere(type: string, client: Client, id: string, signal: AbortSignal): Promise<string | undefined> {
  const found = await kindOf(client, id, signal, (kind) => kind.type === type || kind.alike?.includes(type) === true)
  if (found === undefined) return undefined
  return `account ${id} is ${found.what}: import it as ${found.type}`
}

/**
 * What account `id` is, for an input that names an account of a kind that does not have it (a disk's
 * VM given a Lite Pro VM's id): "a Lite Pro VM, managed as lite_pro_vm"; undefined when no kind has it
 * (or only as terminated). One read per kind, made only after the expected read found nothing.
 */
export async function accountIs(client: Client, id: string, signal: AbortSignal): Promise<string | undefined> {
  const found = await kindOf(client, id, signal, () => false)
  return found === undefined ? undefined : `${found.what}, managed as ${found.type}`
}

/** The first kind but those `skip` names that has a live account `id`: what it is (with its article) and its type. */
async function kindOf(
  client: Client,
  id: string,
  signal: AbortSignal,
  skip: (kind: AccountKind) => boolean,
): Promise<{ readonly what: string; readonly type: string } | undefined> {
  for (const kind of kinds.values()) {
    if (skip(kind)) continue
    let account: Account<unknown>
    try {
      account = await kind.get(client, id, signal)
    } catch (thrown) {
      if (isNotFound(thrown)) continue
      throw thrown
    }
    if (statusIs(account.status, 'Terminated')) continue
    const article = /^[aeiou]/i.test(kind.what) ? 'an' : 'a'
    return { what: `${article} ${kind.what}`, type: kind.importAs?.(account) ?? kind.type }
  }
  return undefined
}

/**
 * A keypair create refused because the name is taken (409): what a killed run leaves behind, since a
 * keypair's create returns at once and its id may never reach the state. The keypair of that name is
 * looked up; one whose public key is the configured one is adopted (nothing is lost), any other is
 * reported with its id and the commands that resolve it.
 */
import { ApiError, type Keypair, type KeypairApi } from '../api/index.js'
import { InputError } from '../core/index.js'

/** Creates through `create`; on a taken name, the existing keypair to adopt, or an InputError saying what to do. */
export async function createOrAdopt(
  api: KeypairApi,
  name: string,
  publicKey: string | undefined,
  create: () => Promise<Keypair>,
  what: { readonly resource: string; readonly signal: AbortSignal },
): Promise<Keypair> {
  try {
    return await create()
  } catch (thrown) {
    if (!(thrown instanceof ApiError) || thrown.status !== 409) throw thrown
    const existing = (await api.listKeypairs({ signal: what.signal })).find((k) => k.name === name)
    if (existing === undefined) throw thrown
    if (publicKey !== undefined && keyMaterial(existing.public_key) === keyMaterial(publicKey)) return existing
    const id = existing.keypair_id
    const why =
      publicKey === undefined
        ? 'Its private key was returned only once, when it was created, and cannot be read again, so it is not taken over silently.'
        : 'Its public key is not the configured one, so it is not taken over.'
    throw new InputError(
      ['name'],
      `A keypair named ${JSON.stringify(name)} already exists in the pool: keypair ${id}, probably left by an earlier run that ` +
        `was stopped before it saved the id. ${why} Either keep it: terraform import <address of this ${what.resource}> ${id} ` +
        `(or pulumi import <type> <name> ${id}), after which its private key is null in state; or delete keypair ${id} in the ` +
        'portal (or import it, then destroy it) and apply again to create a new one; or choose another name.',
    )
  }
}

/** The type and the base64 key of an OpenSSH public key line: the key itself, without its comment. */
function keyMaterial(line: string): string {
  return line.trim().split(/\s+/).slice(0, 2).join(' ')
}

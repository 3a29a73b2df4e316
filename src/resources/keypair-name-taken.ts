/**
 * A keypair create refused because the name is taken (409). The name is unique in the pool, so the
 * holder is usually another configuration or Pulumi stack using the same name, someone in the portal,
 * or a run of this configuration stopped before it saved the id (a keypair's create returns at once;
 * no order journal records keypairs, so the provider cannot tell which). The keypair of that name is
 * looked up; one whose public key is the configured one is adopted (nothing is lost), any other is
 * reported with its id, name, origin and key fingerprint (the API shows no creation date or owner) and
 * the commands that resolve it.
 */
import { createHash } from 'node:crypto'
import { ApiError, type Keypair, type KeypairApi } from '../api/index.js'
import { InputError } from '../core/index.js'

/**
 * Creates through `create`; on a taken name, the existing keypair to adopt, or an InputError saying
 * what to do. A keypair this same run is deleting (the old half of a renamed or replaced resource:
 * `takeOver` says no) is left to its delete, and once its name is free the create is sent again; so is
 * one whose name was freed between the refusal and the lookup. Bounded: three creates at most.
 */
export async function createOrAdopt(
  api: KeypairApi,
  name: string,
  publicKey: string | undefined,
  create: () => Promise<Keypair>,
  what: { readonly resource: string; readonly signal: AbortSignal; readonly takeOver: (id: string) => Promise<boolean> },
): Promise<Keypair> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create()
    } catch (thrown) {
      if (!(thrown instanceof ApiError) || thrown.status !== 409) throw thrown
      // A listing after this refused create: no answer kept from before it is reused (see keypairNamed).
      const existing = await api.keypairNamed(name, { signal: what.signal })
      const again = attempt < CREATES
      if (existing === null) {
        if (again) continue
        throw thrown
      }
      // A generated keypair's repeat refused after an attempt that may have been processed (no answer, a 5xx):
      // the service did not recognise the repeat by its key, and most likely the first attempt made this one.
      if (publicKey === undefined && thrown.unansweredBefore > 0) {
        throw new InputError(['name'], `${lostAnswer(existing, name, what.resource)}.`)
      }
      if (publicKey === undefined || keyMaterial(existing.public_key) !== keyMaterial(publicKey)) {
        throw new InputError(['name'], `${takenMessage(existing, name, publicKey, what.resource)}.`)
      }
      if (await what.takeOver(String(existing.keypair_id))) return existing
      if (again) continue
      throw new InputError(['name'], `${heldByDelete(existing, name)}.`)
    }
  }
}

/** How many times a keypair create is sent while its name is being freed by this run (see createOrAdopt). */
const CREATES = 3

/**
 * What to say of a configured name held by `existing` with the configured public key, not taken over
 * because a delete of it in this same run (the old half of a renamed or replaced resource) ran and the
 * name is still not free: most likely that delete failed, and the resource it was for still holds it.
 */
function heldByDelete(existing: Keypair, name: string): string {
  return (
    `A keypair named ${JSON.stringify(name)} already exists in the pool with the configured public key: ${describe(existing)}. ` +
    'It is not taken over because a delete of it in this same run (of the resource it was in before: a renamed address or a ' +
    'replacement) has not freed the name: that delete failed (see its error), so that resource still holds the keypair ' +
    'and the next apply deletes it again, or the service still lists it. Apply again once that delete has succeeded: ' +
    'the keypair is then imported anew'
  )
}

/**
 * What to say of a generated keypair's name held by `existing` when this create's own first request may
 * have made it: it got no answer (or a 5xx), and its repeat was refused as a taken name. The private key
 * was in the answer that never arrived and cannot be read again, so it is neither taken over silently
 * (a state without the key it asked for) nor deleted (the API cannot say whose it is).
 */
function lostAnswer(existing: Keypair, name: string, resource: string): string {
  const id = existing.keypair_id
  return (
    `A keypair named ${JSON.stringify(name)} already exists in the pool: ${describe(existing)}. This create's first request ` +
    'got no answer and was sent again, and the service refused the repeat as a taken name (it did not recognise it by its ' +
    `Idempotency-Key), so most likely that first request made keypair ${id}, and its private key was in the answer that ` +
    'never arrived: it cannot be read again. To keep that keypair without its private key: terraform import <address of ' +
    `this ${resource}> ${id} (or pulumi import <type> <name> ${id}). To have one with its private key instead: import it, ` +
    'destroy it alone (terraform destroy -target=<address>, or pulumi destroy --target <urn>) and apply again. ' +
    'If another configuration or stack made it under the same name at the same time, choose another name for this one instead'
  )
}

/**
 * What to say of a configured name held by `existing`, a keypair not taken over (see createOrAdopt);
 * `replacing`: the keypair this one would replace, which a replacement deletes before its create.
 */
function takenMessage(existing: Keypair, name: string, publicKey: string | undefined, resource: string, replacing?: string): string {
  const id = existing.keypair_id
  const why =
    publicKey === undefined
      ? 'Its private key was returned only once, when it was created, and cannot be read again, so it is not taken over silently.'
      : 'Its public key is not the configured one, so it is not taken over.'
  // A create cannot tell whose the keypair is: Terraform's create_before_destroy replaces a resource by creating
  // its new keypair while the old one, in this resource's state, still holds the name; the plan passed it, as a
  // replacement that deletes first (nameFree), since the provider is not told of that setting.
  const whose =
    replacing === undefined
      ? 'and this create is not of a replacement that deletes it first. If this resource holds it in its state and is ' +
        'being replaced (-replace, a taint, a changed argument) with lifecycle { create_before_destroy = true } (Terraform), ' +
        'that setting is the cause: it creates the new keypair while the old one still holds the name. Remove ' +
        'create_before_destroy from this resource, which then deletes the old keypair first, or give the new one another ' +
        'name. Otherwise most likely another configuration or stack (or someone in the portal) created it under the ' +
        'same name, or a run of this configuration was stopped before it saved the id.'
      : `so this replacement would delete keypair ${replacing}, the one in this resource's state, and then be refused.`
  return (
    `A keypair named ${JSON.stringify(name)} already exists in the pool: ${describe(existing)}. Keypair names are unique in ` +
    `a pool, ${whose} ${why} If it is this resource's and not in its state, keep it: terraform import <address of this ${resource}> ${id} ` +
    `(or pulumi import <type> <name> ${id}), after which its private key is null in state. If it belongs to something ` +
    `else, choose another name for this one (deleting keypair ${id} would take it from its owner)`
  )
}

/**
 * The plan-time check of the name of a keypair that replaces another (the new half of a replacement,
 * whose old keypair is deleted first): the name must be free in the pool, or held by the keypair this
 * one replaces, or by one the create would take over (createOrAdopt). Without it a taken name passed the
 * plan, and the replacement deleted the live keypair, whose private key cannot be read again, before
 * its create was refused. A plain create deletes nothing first: its create meets a taken name with the
 * same message, and it costs no listing at every plan (an apply of hundreds plans each again, between
 * creates that would each make the listing stale). Answers what is wrong, completing "name ...", or null.
 */
export async function nameFree(
  api: KeypairApi,
  input: { readonly name?: string | null; readonly public_key?: string | null },
  context: { readonly resource: string; readonly replacing?: string | undefined; readonly signal: AbortSignal },
): Promise<string | null> {
  if (context.replacing === undefined) return null
  const name = input.name ?? ''
  const existing = await api.keypairNamed(name, { signal: context.signal })
  if (existing === null || String(existing.keypair_id) === context.replacing) return null
  const publicKey = (input.public_key ?? '').trim() || undefined
  if (publicKey !== undefined && keyMaterial(existing.public_key) === keyMaterial(publicKey)) return null
  return `is taken. ${takenMessage(existing, name, publicKey, context.resource, context.replacing)}`
}

/** A keypair as a message names it: id, name, origin and the SHA256 fingerprint of its public key (as ssh-keygen -l shows it). */
function describe(keypair: Keypair): string {
  const origin = keypair.origin ? `, ${keypair.origin}` : ''
  const print = fingerprint(keypair.public_key)
  return `keypair ${keypair.keypair_id} ${JSON.stringify(keypair.name)}${origin}${print ? `, key ${print}` : ''}`
}

/** OpenSSH's SHA256 fingerprint of a public key line; undefined when its body is not base64. */
function fingerprint(line: string): string | undefined {
  const body = line.trim().split(/\s+/)[1]
  if (body === undefined || !/^[A-Za-z0-9+/]+=*$/.test(body)) return undefined
  return `SHA256:${createHash('sha256').update(Buffer.from(body, 'base64')).digest('base64').replace(/=+$/, '')}`
}

/** The type and the base64 key of an OpenSSH public key line: the key itself, without its comment. */
function keyMaterial(line: string): string {
  return line.trim().split(/\s+/).slice(0, 2).join(' ')
}

/** provider:index:BaremetalKeypair (provider_baremetal_keypair): a keypair of the Metal pool (the keypair calls). */
import { type Client, type Keypair, wireOf } from '../api/index.js'
import { custom, defineResource, int64, length, ownCall, string } from '../core/index.js'
import { digitsId, raw, rawAttribute, textRules } from './billing.js'
import { createOrAdopt, nameFree } from './keypair-name-taken.js'
import { keypairElsewhere } from './keypair-pools.js'

/**
 * The fields of an SSH public key blob (RFC 4253 section 6.6): length-prefixed strings, the first the
 * key type; null when the bytes are not such a sequence.
 */
function blobFields(blob: Buffer): Buffer[] | null {
  const fields: Buffer[] = []
  let at = 0
  while (at < blob.length) {
    if (at + 4 > blob.length) return null
    const size = blob.readUInt32BE(at)
    if (at + 4 + size > blob.length) return null
    fields.push(blob.subarray(at + 4, at + 4 + size))
    at += 4 + size
  }
  return fields
}

/** How many fields each key type's blob holds after its type name, and what the first of them must be. */
const KEY_SHAPES: Readonly<Record<string, { readonly fields: number; readonly first?: (field: Buffer) => boolean }>> = {
  'ssh-ed25519': { fields: 1, first: (key) => key.length === 32 },
  'ssh-rsa': { fields: 2 },
  'ecdsa-sha2-nistp256': { fields: 2, first: (curve) => curve.toString() === 'nistp256' },
  'ecdsa-sha2-nistp384': { fields: 2, first: (curve) => curve.toString() === 'nistp384' },
  'ecdsa-sha2-nistp521': { fields: 2, first: (curve) => curve.toString() === 'nistp521' },
}

/**
 * One OpenSSH public key line whose base64 body is a key of the type the line names: the service
 * decodes the body (K3), so a body of another type or cut short passes no plan (a replacement would
 * delete the old keypair first, then be refused).
 */
const openSshPublicKey = custom('one OpenSSH public key line (ssh-ed25519, ssh-rsa or ecdsa-sha2-nistp256/384/521)', (value) => {
  if (typeof value !== 'string') return null
  const line = /^(\S+) ([A-Za-z0-9+/]+={0,2})( [^\r\n]*)?$/.exec(value.trim())
  const shape = line ? KEY_SHAPES[line[1] as string] : undefined
  if (!line || !shape) return 'must be one OpenSSH public key line such as "ssh-ed25519 AAAA... comment"'
  const body = line[2] as string
  const fields = body.length % 4 === 0 ? blobFields(Buffer.from(body, 'base64')) : null
  const type = line[1] as string
  if (!fields || fields.length === 0) return 'must be one OpenSSH public key line: its body is not the base64 of an SSH public key'
  const named = fields[0]?.toString('latin1') ?? ''
  if (named !== type) {
    const held = /^[a-z0-9@.-]{1,64}$/.test(named) ? `a ${named} key` : 'no key type'
    return `must be one OpenSSH public key line: its body holds ${held}, not ${type}`
  }
  const rest = fields.slice(1)
  if (rest.length !== shape.fields || (shape.first && !shape.first(rest[0] as Buffer))) {
    return `must be one OpenSSH public key line: its ${type} key body is cut short or malformed`
  }
  return null
})

const attributes = {
  name: string({
    required: true,
    createOnly: true,
    validate: textRules.free,
    description: 'Name of the keypair, unique in the Metal pool. Changing it replaces the keypair.',
  }),
  public_key: string({
    optional: true,
    createOnly: true,
    // The API states no cap for a key line (K3); the emulator takes up to 16384 characters, room for the
    // largest RSA key, and so does the plan.
    validate: [length({ min: 1, max: 16_384 }), openSshPublicKey],
    normalize: (key) => key.trim(), // the service stores the key trimmed (K3)
    emptyIsUnset: true, // empty, the service generates the key pair, as unset
    description:
      'An existing OpenSSH public key to import. When empty, the service generates a key pair and the output `provider_baremetal_keypair.private_key` holds its private half. Compared without surrounding whitespace.',
  }),
  keypair_id: int64({
    computed: true,
    stable: true,
    description: 'Id of the keypair; use it as a server `provider_baremetal.keypair_id`.',
  }),
  private_key: string({
    computed: true,
    sensitive: true,
    stable: true,
    description:
      'The generated OpenSSH private key, returned once at creation and kept in state; null for imported keys and after an import.',
  }),
  raw: rawAttribute,
}

/** `raw` is the key as the pool lists it (K1), also right after K2, whose answer adds `private_key`. */
function observe(key: Keypair) {
  const { private_key: _secret, ...listed } = wireOf(key) as Record<string, unknown>
  return { id: String(key.keypair_id), keypair_id: key.keypair_id, name: key.name, raw: raw(listed) }
}

/**
 * The `public_key` input a read finds: the listed key when the service says the key was imported, null
 * when it says generated (or the empty value that asked for it, as the state has it). `origin` is optional (K1: clients tolerate its absence); without it the prior
 * value decides, so that a refresh never turns an imported key into a generated one or back (either
 * would replace the keypair, and every server made with it). An import without `origin` leaves it null.
 * The service trims what it stores: a prior value equal but for whitespace is no drift.
 */
function publicKeyInput(key: Keypair, prior: string | null): string | null {
  // Whether the prior value asked to import a key: empty asks for a generated one, as unset does.
  const asked = prior !== null && prior.trim() !== ''
  const imported = key.origin === undefined ? asked : key.origin === 'imported'
  if (!imported) return asked ? null : prior
  return prior !== null && prior.trim() === key.public_key.trim() ? prior : key.public_key
}

export const baremetalKeypair = defineResource<Client, typeof attributes>({
  name: 'baremetal_keypair',
  description:
    'An SSH keypair in the Metal pool: an existing public key imported, or a key pair generated by the service. ' +
    'There is no update: a change replaces it (the old keypair is deleted first, since names are unique). ' +
    'A keypair that already holds the name with the configured public key is taken over, not refused: one a stopped ' +
    'run imported, or this very keypair when the resource is moved to another address without a `moved` block (renamed ' +
    'without an alias in Pulumi). The old address then leaves the state without deleting it; if that delete was ' +
    'already under way, the key is imported again under a new id once it is done.',
  importId: digitsId('keypair id', '9'),
  timeouts: {},
  attributes,
  updates: [],
  deleteBeforeReplace: true,
  createChecks: [
    {
      attribute: 'name',
      check: ({ client, input, replacing, signal }) =>
        nameFree(client.baremetals, input, { resource: 'baremetal_keypair', replacing, signal }),
    },
  ],
  async create({ client, input, signal, takeOver }) {
    const publicKey = input.public_key?.trim() ?? ''
    const name = input.name ?? ''
    const api = client.baremetals
    const what = { resource: 'baremetal_keypair', signal, takeOver }
    if (publicKey !== '') {
      // A taken name holding this very public key is a killed run's import: taken over.
      const key = await createOrAdopt(api, name, publicKey, () => api.importKeypair({ name, public_key: publicKey }, { signal }), what)
      return { ...observe(key), private_key: null }
    }
    const key = await createOrAdopt(api, name, undefined, () => api.createKeypair({ name }, { signal }), what)
    return { ...observe(key), private_key: key.private_key ?? null }
  },
  async read({ client, id, prior, importing, signal }) {
    const key = await client.baremetals.findKeypair(Number(id), { signal })
    if (!key) return null
    return { ...observe(key), ...(importing || prior !== null ? { public_key: publicKeyInput(key, prior?.public_key ?? null) } : {}) }
  },
  elsewhere: ({ client, id, signal }) => keypairElsewhere('baremetal_keypair', client, id, signal),
  async delete({ client, id, signal }) {
    await ownCall(client.baremetals.deleteKeypair(Number(id), { signal }))
  },
  unrecoverable: ['private_key'],
  list: {
    ids: async ({ client, signal }) => (await client.baremetals.listKeypairs({ signal })).map((key) => key.keypair_id),
    filters: {
      name_prefix: { attribute: 'name', match: 'prefix', description: 'Only keypairs whose name starts with this.', example: 'deploy-' },
    },
    displayName: 'name',
  },
})

// Keypairs (the keypair calls): the same four calls in each of the three pools (`/lites`, `/lite-pros`, `/baremetals`).
import { idText } from './decode.js'
import { decodeKeypair, decodeList, type Keypair } from './models.js'
import type { CallOptions, Transport } from './transport.js'

export interface KeypairApi {
  /** K1. Items have no `private_key`. */
  listKeypairs(options?: CallOptions): Promise<Keypair[]>
  /** K1 then a search: the API has no read by id. `null` when the pool has no such keypair. */
  findKeypair(keypairId: number, options?: CallOptions): Promise<Keypair | null>
  /**
   * The keypair holding `name`, from a listing at most a moment old and never one from before this
   * client's latest change (a refused create included): a plan's checks of many keypairs share one
   * listing; `null` when none.
   */
  keypairNamed(name: string, options?: CallOptions): Promise<Keypair | null>
  /** K2: the server generates the pair; the answer is the only one carrying `private_key`. */
  createKeypair(body: { name: string }, options?: CallOptions): Promise<Keypair>
  /** K3: stores an existing OpenSSH public key (trimmed by the server). */
  importKeypair(body: { name: string; public_key: string }, options?: CallOptions): Promise<Keypair>
  /** K4. */
  deleteKeypair(keypairId: number, options?: CallOptions): Promise<void>
}

/**
 * How long one listing of a pool answers the reads of its keypairs by id (the API has none): a refresh
 * of hundreds of keypairs lists each pool a few times, and never after a change of this client's.
 */
const FIND_REUSE_MS = 2_000

export function keypairApi(transport: Transport, pool: string): KeypairApi {
  // Collection paths are canonical with the trailing slash (the API's path rules).
  const collection = `${pool}/keypairs/`
  const decode = decodeList(decodeKeypair)
  const listKeypairs = (options?: CallOptions) => transport.request({ method: 'GET', path: collection, signal: options?.signal, decode })
  /** The keypair in a listing at most `reuseForMs` old (0: a new one), as the caller's own copy. */
  const search = async (wanted: (keypair: Keypair) => boolean, reuseForMs: number, options?: CallOptions) => {
    const all = await transport.request({ method: 'GET', path: collection, signal: options?.signal, decode, reuseForMs })
    const found = all.find(wanted)
    return found === undefined ? undefined : structuredClone(found)
  }
  return {
    listKeypairs,
    async findKeypair(keypairId, options) {
      // Found in a recent listing: it exists (a delete since then shows at the next refresh). Missing
      // from it: maybe made since by another process, and "gone" drops a resource from its state, so
      // only a new listing says so.
      const byId = (k: Keypair) => k.keypair_id === keypairId
      return (await search(byId, FIND_REUSE_MS, options)) ?? (await search(byId, 0, options)) ?? null
    },
    keypairNamed: async (name, options) => (await search((k) => k.name === name, FIND_REUSE_MS, options)) ?? null,
    createKeypair: (body, options) =>
      transport.request({
        method: 'POST',
        path: collection,
        body: { name: body.name },
        signal: options?.signal,
        decode: (p) => decodeKeypair(p),
        // A taken name: createOrAdopt looks the holder up and says what to do.
        handles: [409],
        // Names are unique in a pool: sent again after a lost answer, the create is either answered from
        // the service's store of keys (with the private key, returned only then) or refused as a taken
        // name (the 409 above), never made twice.
        repeatable: true,
      }),
    importKeypair: (body, options) =>
      transport.request({
        method: 'POST',
        path: `${pool}/keypairs/import`,
        body: { name: body.name, public_key: body.public_key },
        signal: options?.signal,
        decode: (p) => decodeKeypair(p),
        // A taken name: createOrAdopt looks the holder up and says what to do.
        handles: [409],
        // Names are unique in a pool: sent again after a lost answer, the create is either answered from
        // the service's store of keys (with the private key, returned only then) or refused as a taken
        // name (the 409 above), never made twice.
        repeatable: true,
      }),
    deleteKeypair: (keypairId, options) =>
      transport.request({
        method: 'DELETE',
        path: `${pool}/keypairs/${idText(keypairId, 'keypair id')}`,
        signal: options?.signal,
        decode: () => undefined,
      }),
  }
}

// Keypairs (the keypair calls): the same four calls in each of the three pools (`/lites`, `/lite-pros`, `/baremetals`).
import { idText } from './decode.js'
import { decodeKeypair, decodeList, type Keypair } from './models.js'
import type { CallOptions, Transport } from './transport.js'

export interface KeypairApi {
  /** K1. Items have no `private_key`. */
  listKeypairs(options?: CallOptions): Promise<Keypair[]>
  /** K1 then a search: the API has no read by id. `null` when the pool has no such keypair. */
  findKeypair(keypairId: number, options?: CallOptions): Promise<Keypair | null>
  /** K2: the server generates the pair; the answer is the only one carrying `private_key`. */
  createKeypair(body: { name: string }, options?: CallOptions): Promise<Keypair>
  /** K3: stores an existing OpenSSH public key (trimmed by the server). */
  importKeypair(body: { name: string; public_key: string }, options?: CallOptions): Promise<Keypair>
  /** K4. */
  deleteKeypair(keypairId: number, options?: CallOptions): Promise<void>
}

export function keypairApi(transport: Transport, pool: string): KeypairApi {
  // Collection paths are canonical with the trailing slash (the API's path rules).
  const collection = `${pool}/keypairs/`
  const listKeypairs = (options?: CallOptions) =>
    transport.request({ method: 'GET', path: collection, signal: options?.signal, decode: decodeList(decodeKeypair) })
  return {
    listKeypairs,
    async findKeypair(keypairId, options) {
      const all = await listKeypairs(options)
      return all.find((k) => k.keypair_id === keypairId) ?? null
    },
    createKeypair: (body, options) =>
      transport.request({
        method: 'POST',
        path: collection,
        body: { name: body.name },
        signal: options?.signal,
        decode: (p) => decodeKeypair(p),
      }),
    importKeypair: (body, options) =>
      transport.request({
        method: 'POST',
        path: `${pool}/keypairs/import`,
        body: { name: body.name, public_key: body.public_key },
        signal: options?.signal,
        decode: (p) => decodeKeypair(p),
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

/**
 * The three keypair pools (Lite, Lite Pro, Metal): a keypair belongs to one, and a VM or server takes
 * only a keypair of its own pool. An import of a keypair id that one pool lacks names the pool that has it.
 */
import type { Client, KeypairApi } from '../api/index.js'
import { liteFamilies } from './lite-family.js'

interface Pool {
  /** The resource type of the pool's keypairs. */
  readonly type: string
  readonly title: string
  readonly keypairs: (client: Client) => KeypairApi
}

const POOLS: readonly Pool[] = [
  ...liteFamilies.map((family) => ({ type: `${family.prefix}_keypair`, title: family.title, keypairs: family.api })),
  { type: 'baremetal_keypair', title: 'Metal', keypairs: (client: Client) => client.baremetals },
]

/** For `elsewhere`: the pool other than `type`'s that has keypair `id`, said as what to import it as. */
export async function keypairElsewhere(type: string, client: Client, id: string, signal: AbortSignal): Promise<string | undefined> {
  for (const pool of POOLS) {
    if (pool.type === type || (await pool.keypairs(client).findKeypair(Number(id), { signal })) === null) continue
    return `keypair ${id} is in the ${pool.title} pool (a keypair belongs to one pool): import it as ${pool.type}`
  }
  return undefined
}

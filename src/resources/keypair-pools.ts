/**
 * The three keypair pools (Lite, Lite Pro, Metal): a keypair belongs to one, and a VM or server takes
 * only a keypair of its own pool. An import of a keypair id that one pool lacks names the pool that has it.
 */
import type { Client } from '../api/index.js'
import { lite, litePro } from './lite-family.js'

interface Pool {
  /** The resource type of the pool's keypairs. */
  readonly type: string
  readonly title: string
  has(client: Client, id: number, signal: AbortSignal): Promise<boolean>
}

const POOLS: readonly Pool[] = [
  ...[lite, litePro].map((family) => ({
    type: `${family.prefix}_keypair`,
    title: family.title,
    has: async (client: Client, id: number, signal: AbortSignal) => (await family.api(client).findKeypair(id, { signal })) !== null,
  })),
  {
    type: 'baremetal_keypair',
    title: 'Metal',
    has: async (client, id, signal) => (await client.baremetals.findKeypair(id, { signal })) !== null,
  },
]

/** For `elsewhere`: the pool other than `type`'s that has keypair `id`, said as what to import it as. */
export async function keypairElsewhere(type: string, client: Client, id: string, signal: AbortSignal): Promise<string | undefined> {
  for (const pool of POOLS) {
    if (pool.type === type || !(await pool.has(client, Number(id), signal))) continue
    return `keypair ${id} is in the ${pool.title} pool (a keypair belongs to one pool): import it as ${pool.type}`
  }
  return undefined
}

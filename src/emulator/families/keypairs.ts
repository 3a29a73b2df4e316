// SSH keypair pools (the keypair calls): the same four routes under /lites, /lite-pros and /baremetals,
// one pool each, one id sequence. A VM or server order names a keypair of its own pool.
import { conflict, notFound } from '../envelope.js'
import type { Family } from '../family.js'
import type { Keypair } from '../model.js'
import { generateEd25519, publicKeyProblem } from '../openssh.js'
import { paramId, type Route, type RouteContext } from '../router.js'

/** The three keypair pools: same routes, separate pools, one id sequence. */
const KEYPAIR_POOLS = ['/lites', '/lite-pros', '/baremetals'] as const

const view = (k: Keypair) => ({ keypair_id: k.keypair_id, name: k.name, public_key: k.public_key, origin: k.origin })

function keypairRoutes(pool: string): Route[] {
  const inPool = (ctx: RouteContext) => ctx.store.keypairs().filter((k) => k.pool === pool)
  const assertFreeName = (ctx: RouteContext, name: string) => {
    if (inPool(ctx).some((k) => k.name === name)) throw conflict(`a keypair named '${name}' already exists in ${pool}`)
  }
  const add = (ctx: RouteContext, name: string, publicKey: string, origin: Keypair['origin']): Keypair =>
    ctx.store.addKeypair({ keypair_id: ctx.store.next('keypair'), pool, name, public_key: publicKey, origin })
  return [
    {
      method: 'GET',
      pattern: `${pool}/keypairs`,
      handler: (ctx) =>
        inPool(ctx)
          .sort((a, b) => a.keypair_id - b.keypair_id)
          .map(view),
    },
    {
      method: 'POST',
      pattern: `${pool}/keypairs`,
      handler: (ctx) => {
        const v = ctx.reader(true)
        const name = v.string('name', { required: true })
        v.done()
        if (name === undefined) return null
        assertFreeName(ctx, name)
        const key = generateEd25519(name)
        return { ...view(add(ctx, name, key.publicKey, 'generated')), private_key: key.privateKey }
      },
    },
    {
      method: 'POST',
      pattern: `${pool}/keypairs/import`,
      handler: (ctx) => {
        const v = ctx.reader(true)
        const name = v.string('name', { required: true })
        const line = v.string('public_key', { required: true, max: 16_384 })
        const problem = line === undefined ? null : publicKeyProblem(line)
        if (problem) v.fail('public_key', problem)
        v.done()
        if (name === undefined || line === undefined) return null
        assertFreeName(ctx, name)
        return view(add(ctx, name, line.trim(), 'imported'))
      },
    },
    {
      method: 'DELETE',
      pattern: `${pool}/keypairs/:keypair_id`,
      handler: (ctx) => {
        const id = paramId(ctx, 'keypair_id')
        if (!inPool(ctx).some((k) => k.keypair_id === id)) throw notFound(`keypair ${id} not found in ${pool}`)
        ctx.reader(false).done()
        ctx.store.removeKeypair(id)
        return true
      },
    },
  ]
}

export const keypairs: Family = {
  name: 'keypairs',
  title: 'Keypairs',
  routes: KEYPAIR_POOLS.flatMap(keypairRoutes),
  sequences: { keypair: 1 },
}

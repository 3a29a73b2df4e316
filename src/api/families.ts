// The registry of API families. A family is one module (its calls, their request and response types,
// their decoders, and its factory, named as its member of the Client); it is registered here by its
// member in `connectFamilies`, from which the compiler derives the Client's members and their types,
// and its types reach index.ts through the `export type *` line. Nothing else names a family: not the
// Client interface, not createClient, not index.ts.
import { additionalIps } from './additional-ips.js'
import { baremetals } from './baremetal.js'
import { elasticStorages } from './elastic-storage.js'
import type { FamilyContext } from './family.js'
import { litePros, lites } from './lite.js'

export type * from './additional-ips.js'
export type * from './baremetal.js'
export type * from './elastic-storage.js'
export type * from './lite.js'

/** Every family's calls, built for one client. */
export function connectFamilies(context: FamilyContext) {
  return {
    lites: lites(context),
    litePros: litePros(context),
    baremetals: baremetals(context),
    additionalIps: additionalIps(context),
    elasticStorages: elasticStorages(context),
  }
}

/** The Client's family members (`client.lites`, `client.baremetals`, ...), as the registry builds them. */
export type Families = Readonly<ReturnType<typeof connectFamilies>>

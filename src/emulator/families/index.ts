// The registry of API families: one line each. The router, the account kinds (with their billing and
// status-model rules, and the control API's `kind` filter) and the sequences are all built from this list
// (family.ts); a new family is its module in this folder and one line here.
// The order is the router's order among equal matches and the control API's order of kinds.
import { type Family, type Registry, registryOf } from '../family.js'
import { additionalIp } from './additional-ip.js'
import { baremetal } from './baremetal.js'
import { elasticStorage } from './elastic-storage.js'
import { keypairs } from './keypairs.js'
import { lite, litePro } from './lite.js'

// biome-ignore format: one family a line
const FAMILIES: readonly Family[] = [
  keypairs,
  lite,
  litePro,
  baremetal,
  additionalIp,
  elasticStorage,
]

export const registry: Registry = registryOf(FAMILIES)

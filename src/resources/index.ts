// The resources and lookups: the only code that knows what a VM or a keypair is. Lite and Lite Pro
// share one definition per kind, parameterised by family. Handlers use the typed client of `api/`
// and the vocabulary of `core/`; they never speak a protocol and never do HTTP themselves.
import type { AnyDataSource, AnyResource } from '../core/index.js'
import { lite } from './lite-family.js'
import { liteKeypair } from './lite-keypair.js'
import { liteOsList } from './lite-os-list.js'
import { liteProducts } from './lite-products.js'
import { liteVm } from './lite-vm.js'

export { providerDefinition } from './provider.js'

/** Every resource the providers serve. */
export const resources: readonly AnyResource[] = [liteKeypair(lite), liteVm(lite)] as unknown as readonly AnyResource[]

/** Every lookup: Terraform data sources, Pulumi functions. */
export const dataSources: readonly AnyDataSource[] = [liteProducts(lite), liteOsList(lite)] as unknown as readonly AnyDataSource[]

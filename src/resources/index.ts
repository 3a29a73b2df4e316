// The resources and lookups: the only code that knows what a VM or a keypair is. Lite and Lite Pro
// share one definition per kind, parameterised by family. Handlers use the typed client of `api/`
// and the vocabulary of `core/`; they never speak a protocol and never do HTTP themselves.
import type { AnyDataSource, AnyResource } from '../core/index.js'
import { baremetal } from './baremetal.js'
import { baremetalAdditionalIp } from './baremetal-additional-ip.js'
import { baremetalAdditionalIpAssignment } from './baremetal-additional-ip-assignment.js'
import { baremetalElasticStorage } from './baremetal-elastic-storage.js'
import { baremetalKeypair } from './baremetal-keypair.js'
import {
  baremetalAdditionalIpProducts,
  baremetalAdditionalIpRegions,
  baremetalElasticStorageProducts,
  baremetalOpenvpn,
  baremetalProducts,
  baremetalRebuildOsList,
} from './baremetal-lookups.js'
import { liteDisk } from './lite-disk.js'
import { liteFamilies } from './lite-family.js'
import { liteKeypair } from './lite-keypair.js'
import { liteChangePackageOptions, liteDiskProducts, liteIpAvailability, liteStorageUpgradeOptions } from './lite-lookups.js'
import { liteOsList } from './lite-os-list.js'
import { liteProducts } from './lite-products.js'
import { liteSnapshot } from './lite-snapshot.js'
import { liteVm } from './lite-vm.js'
import { liteVmFromSnapshot } from './lite-vm-from-snapshot.js'

export { providerDefinition } from './provider.js'

/** The product families as users know them, each by the prefix of its type names (the docs' sidebar groups). */
export const productFamilies: readonly { readonly prefix: string; readonly title: string }[] = [
  { prefix: 'baremetal', title: 'Metal' },
  ...liteFamilies.map(({ prefix, title }) => ({ prefix, title })),
]

/** Every resource the providers serve. */
export const resources: readonly AnyResource[] = [
  baremetal,
  baremetalKeypair,
  baremetalAdditionalIp,
  baremetalAdditionalIpAssignment,
  baremetalElasticStorage,
  ...liteFamilies.flatMap((family) => [
    liteKeypair(family),
    liteVm(family),
    liteSnapshot(family),
    ...(family.restoresSnapshots ? [liteVmFromSnapshot(family)] : []),
    liteDisk(family),
  ]),
]

/** Every lookup: Terraform data sources, Pulumi functions. */
export const dataSources: readonly AnyDataSource[] = [
  baremetalProducts,
  baremetalRebuildOsList,
  baremetalOpenvpn,
  baremetalAdditionalIpProducts,
  baremetalAdditionalIpRegions,
  baremetalElasticStorageProducts,
  ...liteFamilies.flatMap((family) => [
    liteProducts(family),
    liteOsList(family),
    liteChangePackageOptions(family),
    liteStorageUpgradeOptions(family),
    liteIpAvailability(family),
    liteDiskProducts(family),
  ]),
]

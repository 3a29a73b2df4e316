/** What differs between Lite and Lite Pro; everything else is one shared definition per kind. */
import type { Client, LiteApi, LiteMigrationApi } from '../api/index.js'

export interface LiteFamily {
  /** `lite` or `lite_pro`: provider_lite_vm, provider_lite_pro_vm. */
  readonly prefix: 'lite' | 'lite_pro'
  readonly title: 'Lite' | 'Lite Pro'
  /** The `/lites` or `/lite-pros` group of the API. */
  api(client: Client): LiteApi
  /** Only Lite VMs can move to Lite Pro. */
  readonly migratesToPro: boolean
  /** The migration calls, for the family that has them. */
  readonly migration?: (client: Client) => LiteMigrationApi
  /** Default and minimum size of an extra disk, in GB. */
  readonly diskMinimum: number
  /** Whether the family offers restoring a snapshot into a new VM as a resource. */
  readonly restoresSnapshots: boolean
}

export const lite: LiteFamily = {
  prefix: 'lite',
  title: 'Lite',
  api: (c) => c.lites,
  migratesToPro: true,
  migration: (c) => c.lites,
  diskMinimum: 60,
  restoresSnapshots: true,
}
export const litePro: LiteFamily = {
  prefix: 'lite_pro',
  title: 'Lite Pro',
  api: (c) => c.litePros,
  migratesToPro: false,
  diskMinimum: 30,
  restoresSnapshots: false,
}

export const liteFamilies: readonly LiteFamily[] = [lite, litePro]

// The catalog and account rules of the Lite and Lite Pro families (the Lite calls, the Lite Pro group):
// one descriptor each for their products (VM, disk, snapshot), storage tiers and OS templates, their
// billing rules and what activation, suspension and cancellation do to a VM. Their routes and their
// registration are lite.ts. Nothing here compares family names: a third family is one more descriptor.
import { ALL_CYCLES, type Cycle, cycleOrMonthly, cyclePrice, priceList } from '../catalog.js'
import type { Json, JsonObject } from '../json.js'
import type { KindRules } from '../kinds.js'
import { diskSize } from '../accounts.js'
import type { Account, PendingChange } from '../model.js'

/** One tier of a per-unit add-on: units qtyMin..qtyMax (null = unbounded), monthly price per unit. */
interface Tier {
  readonly qtyMin: number
  readonly qtyMax: number | null
  readonly monthly: number
}

export interface VmProduct {
  readonly type: 'vps' | 'vps-pro'
  readonly product_id: number
  readonly name: string
  readonly cores: number
  readonly memory: number
  readonly disk: number
  readonly allow_downgrade: 0 | 1
  readonly monthly: number
}
interface DiskProduct {
  readonly type: 'disk'
  readonly product_id: number
  readonly name: string
  readonly min_size: number
  readonly max_size: number
  readonly monthly: number // per GB
}
interface SnapshotProduct {
  readonly type: 'snapshot'
  readonly product_id: number
  readonly name: string
  readonly monthly: number
}

export const OS_TEMPLATES = [
  { vmid: 9001, name: 'Ubuntu-22.04' },
  { vmid: 9002, name: 'Ubuntu-24.04' },
  { vmid: 9003, name: 'Debian-12' },
  { vmid: 9004, name: 'Rocky-9' },
] as const

type FamilyKey = 'lite' | 'lite_pro'

/**
 * Everything that differs between /lites and /lite-pros. Routes, validation and billing read these
 * fields and never compare family names, so a third family would be one more value.
 */
export interface LiteFamily {
  readonly key: FamilyKey
  readonly prefix: string
  readonly category: { readonly id: number; readonly name: string }
  readonly vmProducts: readonly VmProduct[]
  readonly diskProduct: DiskProduct
  readonly diskCategory: { readonly id: number; readonly name: string }
  readonly snapshotProduct: SnapshotProduct
  readonly snapshotCategory: { readonly id: number; readonly name: string }
  readonly storageTiers: readonly Tier[]
  readonly maxDiskSize: number
  readonly migrateTo: LiteFamily | null
}

const vm = (
  type: VmProduct['type'],
  product_id: number,
  name: string,
  cores: number,
  memory: number,
  disk: number,
  allow_downgrade: 0 | 1,
  monthly: number,
): VmProduct => ({ type, product_id, name, cores, memory, disk, allow_downgrade, monthly })

export const LITE_PRO: LiteFamily = {
  key: 'lite_pro',
  prefix: '/lite-pros',
  category: { id: 20, name: 'Lite Pro' },
  vmProducts: [
    vm('vps-pro', 201, 'Pro S 2.4', 2, 4096, 50, 1, 200_000),
    vm('vps-pro', 202, 'Pro M 4.8', 4, 8192, 100, 1, 400_000),
    vm('vps-pro', 203, 'Pro L 8.16', 8, 16384, 200, 0, 800_000),
  ],
  diskProduct: { type: 'disk', product_id: 61, name: 'Pro Extra Disk', min_size: 30, max_size: 2000, monthly: 900 },
  diskCategory: { id: 22, name: 'Lite Pro Disk' },
  snapshotProduct: { type: 'snapshot', product_id: 71, name: 'Pro Snapshot', monthly: 40_000 },
  snapshotCategory: { id: 23, name: 'Lite Pro Snapshot' },
  storageTiers: [
    { qtyMin: 1, qtyMax: 100, monthly: 2000 },
    { qtyMin: 101, qtyMax: null, monthly: 1600 },
  ],
  maxDiskSize: 1000,
  migrateTo: null,
}

export const LITE: LiteFamily = {
  key: 'lite',
  prefix: '/lites',
  category: { id: 10, name: 'Lite' },
  vmProducts: [
    vm('vps', 101, 'XS 1.1', 1, 1024, 20, 1, 60_000),
    vm('vps', 102, 'S 2.2', 2, 2048, 40, 1, 120_000),
    vm('vps', 103, 'M 4.4', 4, 4096, 80, 0, 240_000),
  ],
  diskProduct: { type: 'disk', product_id: 60, name: 'Lite Extra Disk', min_size: 60, max_size: 2000, monthly: 500 },
  diskCategory: { id: 12, name: 'Lite Disk' },
  snapshotProduct: { type: 'snapshot', product_id: 70, name: 'Lite Snapshot', monthly: 25_000 },
  snapshotCategory: { id: 13, name: 'Lite Snapshot' },
  storageTiers: [
    { qtyMin: 1, qtyMax: 100, monthly: 1000 },
    { qtyMin: 101, qtyMax: null, monthly: 800 },
  ],
  maxDiskSize: 500,
  migrateTo: LITE_PRO,
}

/** The account kinds of a family. */
export function kindsOf(family: LiteFamily) {
  return { vm: `${family.key}.vm`, snapshot: `${family.key}.snapshot`, disk: `${family.key}.disk` } as const
}

/** The changes a Lite account waits for, besides `create` and `migrate` (the status model). */
export type LiteChange =
  | { type: 'product'; product_id: number }
  | { type: 'vm_disk'; disk_size: number }
  | { type: 'disk_size'; size: number }
  | { type: 'os'; osname: string }

// Catalog

/** Tiered pricing (the catalog product object): each unit is priced by the step it falls in. */
export function tieredPrice(tiers: readonly Tier[], units: number, cycle: Cycle): number {
  let total = 0
  for (const tier of tiers) {
    const upper = tier.qtyMax === null ? units : Math.min(units, tier.qtyMax)
    if (upper >= tier.qtyMin) total += (upper - tier.qtyMin + 1) * tier.monthly * cycle.months
  }
  return total
}

export function tierOf(tiers: readonly Tier[], unit: number): Tier {
  const found = tiers.find((t) => unit >= t.qtyMin && (t.qtyMax === null || unit <= t.qtyMax))
  return found ?? tiers[tiers.length - 1]!
}

export function vmDescription(p: VmProduct): string {
  return `${p.cores} vCPU, ${p.memory / 1024} GB RAM, ${p.disk} GB SSD`
}

/** The plan object of a VM product. */
export function vmPlan(family: LiteFamily, p: VmProduct): JsonObject {
  return {
    product_id: p.product_id,
    name: p.name,
    description: vmDescription(p),
    category_id: family.category.id,
    category_name: family.category.name,
    options: { type: p.type, cores: p.cores, memory: p.memory, disk: p.disk, allow_downgrade: p.allow_downgrade },
    billing: ALL_CYCLES.map((code) => {
      const cycle = cycleOrMonthly(code)
      const prices: Json[] = family.storageTiers.map((t) => ({ qty_min: t.qtyMin, qty_max: t.qtyMax, price: t.monthly * cycle.months }))
      return {
        label: cycle.label,
        cycle: cycle.code,
        price: cyclePrice(p.monthly, cycle),
        components: [{ label: 'Additional storage', field: 'disk_size', prices }],
      }
    }),
  }
}

const simpleBilling = (monthly: number): Json[] => priceList(monthly, ALL_CYCLES).map((entry) => ({ ...entry, components: null }))

export function diskPlan(family: LiteFamily): JsonObject {
  const p = family.diskProduct
  return {
    product_id: p.product_id,
    name: p.name,
    description: 'Extra SSD volume',
    category_id: family.diskCategory.id,
    category_name: family.diskCategory.name,
    options: { type: 'disk', min_size: p.min_size, max_size: p.max_size },
    billing: simpleBilling(p.monthly),
  }
}

export function snapshotPlan(family: LiteFamily): JsonObject {
  const p = family.snapshotProduct
  return {
    product_id: p.product_id,
    name: p.name,
    description: 'Point-in-time copy of a VM disk',
    category_id: family.snapshotCategory.id,
    category_name: family.snapshotCategory.name,
    options: { type: 'snapshot' },
    billing: simpleBilling(p.monthly),
  }
}

export function osTemplates(p: VmProduct): Json[] {
  return OS_TEMPLATES.map((os) => ({
    vmid: os.vmid,
    node: 'node-01',
    name: os.name,
    maxmem: p.memory * 1024 * 1024,
    maxcpu: p.cores,
  }))
}

// Readers of an account

/** VM `disk_size` is a string of digits on the wire (the Lite VM account); drift may have made it anything. */
export function vmDiskSize(account: Account): number {
  const n = Number.parseInt(String(account.extra_details.disk_size ?? '0'), 10)
  return Number.isFinite(n) ? n : 0
}

// Rules: billing and the status model's transitions

/** A Lite change made visible on activation; a VM's product keeps at least the disk it had. */
function applyChange(family: LiteFamily, account: Account, change: PendingChange): void {
  switch (change.type) {
    case 'product': {
      const product = family.vmProducts.find((p) => p.product_id === change.product_id)
      if (!product) return
      account.product_id = product.product_id
      account.product_name = product.name
      account.extra_details.disk_size = String(Math.max(vmDiskSize(account), product.disk))
      return
    }
    case 'vm_disk':
      account.extra_details.disk_size = String(change.disk_size)
      return
    case 'disk_size':
      account.extra_details.size = change.size ?? null
      return
    case 'os':
      account.extra_details.osname = change.osname ?? null
      return
  }
}

/** A created, migrated or rebuilt VM runs from the moment it is Active. */
const POWER_ON_AT: readonly string[] = ['create', 'migrate', 'os']

function rules(family: LiteFamily, price: (account: Account, cycle: Cycle) => number | undefined): KindRules {
  return {
    recurringAmount: price,
    applyChange: (account, change) => applyChange(family, account, change),
    activated(account, change, at) {
      if (account.vm && change && POWER_ON_AT.includes(change.type)) {
        account.vm.power = 'running'
        account.vm.started_at = at
      }
    },
    suspended(account) {
      if (account.vm) account.vm.power = 'stopped'
    },
    unsuspended(account, now) {
      if (!account.vm) return
      account.vm.power = 'running'
      account.vm.started_at = now
    },
    terminated(account) {
      if (account.vm) account.vm.power = 'stopped'
    },
  }
}

/** A VM: its product's price plus its extra storage, by tier. */
function vmPrice(family: LiteFamily, account: Account, cycle: Cycle): number | undefined {
  const product = family.vmProducts.find((p) => p.product_id === account.product_id)
  if (!product) return undefined
  const extra = Math.max(0, vmDiskSize(account) - product.disk)
  return cyclePrice(product.monthly, cycle) + tieredPrice(family.storageTiers, extra, cycle)
}

/** The rules of a family's three account kinds (VM, snapshot, extra disk), keyed by kind. */
export function liteKinds(family: LiteFamily): Record<string, KindRules> {
  const kinds = kindsOf(family)
  return {
    [kinds.vm]: rules(family, (account, cycle) => vmPrice(family, account, cycle)),
    [kinds.snapshot]: rules(family, (_account, cycle) => cyclePrice(family.snapshotProduct.monthly, cycle)),
    [kinds.disk]: rules(family, (account, cycle) => diskSize(account) * cyclePrice(family.diskProduct.monthly, cycle)),
  }
}

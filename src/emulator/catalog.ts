import type { Json, JsonObject } from './json.js'

/** Billing cycles, in the order products list them. */
export const CYCLES = [
  { code: 'm', label: 'Monthly', months: 1 },
  { code: 'q', label: 'Quarterly', months: 3 },
  { code: 's', label: 'Semi-Annually', months: 6 },
  { code: 'a', label: 'Annually', months: 12 },
  { code: 'b', label: 'Biennially', months: 24 },
  { code: 't', label: 'Triennially', months: 36 },
  { code: 'p4', label: 'Quadrennially', months: 48 },
  { code: 'p5', label: 'Quinquennially', months: 60 },
] as const
export type Cycle = (typeof CYCLES)[number]
export type CycleCode = Cycle['code']
const METAL_CYCLES: readonly CycleCode[] = ['m', 'a']
const ALL_CYCLES: readonly CycleCode[] = CYCLES.map((c) => c.code)

export function cycleOf(code: string): Cycle | undefined {
  return CYCLES.find((c) => c.code === code)
}
export function cycleByLabel(label: string): Cycle | undefined {
  return CYCLES.find((c) => c.label === label)
}

/** One tier of a per-unit add-on: units qtyMin..qtyMax (null = unbounded), monthly price per unit. */
export interface Tier {
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
export interface DiskProduct {
  readonly type: 'disk'
  readonly product_id: number
  readonly name: string
  readonly min_size: number
  readonly max_size: number
  readonly monthly: number // per GB
}
export interface SnapshotProduct {
  readonly type: 'snapshot'
  readonly product_id: number
  readonly name: string
  readonly monthly: number
}
/** Metal-side products: servers (M11), additional IPs (I5) and elastic storage (E7). */
export interface BaremetalProduct {
  readonly type: 'baremetal' | 'additional_ip' | 'elastic_storage'
  readonly product_id: number
  readonly name: string
  readonly description: string
  readonly monthly: number
  readonly stock?: number
  readonly out_of_stock?: boolean
  readonly iops?: number
  readonly min_size?: number
  readonly max_size?: number
}

export const OS_TEMPLATES = [
  { vmid: 9001, name: 'Ubuntu-22.04' },
  { vmid: 9002, name: 'Ubuntu-24.04' },
  { vmid: 9003, name: 'Debian-12' },
  { vmid: 9004, name: 'Rocky-9' },
] as const
export const METAL_OS = ['ubuntu-22', 'ubuntu-24', 'debian-12', 'rocky-9'] as const
/** M12: every Metal OS value with its label, keyed by OS family. */
export const METAL_OS_FAMILIES = {
  linux: [
    { label: 'Ubuntu 22.04', value: 'ubuntu-22' },
    { label: 'Ubuntu 24.04', value: 'ubuntu-24' },
    { label: 'Debian 12', value: 'debian-12' },
    { label: 'Rocky Linux 9', value: 'rocky-9' },
  ],
} as const satisfies Record<string, readonly { label: string; value: (typeof METAL_OS)[number] }[]>

export const REGIONS = { 'wjv-1': 'West Java 1', 'cjv-1': 'Central Java 1' } as const
export const DEFAULT_REGION = 'wjv-1'
export const PROMOCODES: Readonly<Record<string, number>> = { PROMO10: 10 }

export type FamilyKey = 'lite' | 'lite_pro'

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

export const litePro: LiteFamily = {
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

export const lite: LiteFamily = {
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
  migrateTo: litePro,
}

export const liteFamilies: readonly LiteFamily[] = [lite, litePro]

export const baremetalProducts: readonly BaremetalProduct[] = [
  {
    type: 'baremetal',
    product_id: 301,
    name: 'Metal S',
    description: '4 cores, 32 GB RAM, 2x480 GB SSD',
    monthly: 1_500_000,
    stock: 5,
    out_of_stock: false,
  },
  {
    type: 'baremetal',
    product_id: 302,
    name: 'Metal M',
    description: '8 cores, 64 GB RAM, 2x960 GB SSD',
    monthly: 2_500_000,
    stock: 2,
    out_of_stock: false,
  },
  {
    type: 'baremetal',
    product_id: 303,
    name: 'Metal L',
    description: '16 cores, 128 GB RAM, 4x960 GB SSD',
    monthly: 4_000_000,
    stock: 0,
    out_of_stock: true,
  },
  { type: 'additional_ip', product_id: 401, name: 'Additional IPv4', description: 'One public IPv4 address', monthly: 75_000 },
  {
    type: 'elastic_storage',
    product_id: 501,
    name: 'Elastic Storage Standard',
    description: '5,000 IOPS',
    monthly: 1000,
    iops: 5000,
    min_size: 1,
    max_size: 10240,
  },
  {
    type: 'elastic_storage',
    product_id: 502,
    name: 'Elastic Storage UltraFast',
    description: '10,000 IOPS',
    monthly: 2000,
    iops: 10000,
    min_size: 1,
    max_size: 10240,
  },
]
export const baremetalCycles = METAL_CYCLES

export const baremetalProductsOf = (type: BaremetalProduct['type']) => baremetalProducts.filter((p) => p.type === type)

/** M11, I5 and E7 objects (the Metal calls): no category, `billing` for `m` and `a` without components. */
export function baremetalPlan(p: BaremetalProduct): JsonObject {
  const billing: Json[] = METAL_CYCLES.map((code) => {
    const cycle = cycleOf(code)!
    return { label: cycle.label, cycle: cycle.code, price: cyclePrice(p.monthly, cycle) }
  })
  const plan: JsonObject = { product_id: p.product_id, name: p.name, description: p.description }
  if (p.type === 'baremetal') {
    plan.out_of_stock = p.out_of_stock ?? false
    plan.stock = p.stock ?? 0
  }
  if (p.type === 'elastic_storage') {
    plan.options = { iops: p.iops ?? 0, min_size: p.min_size ?? 1, max_size: p.max_size ?? 1 }
  }
  plan.billing = billing
  return plan
}

/** M13: an invented but well-formed OpenVPN client profile (its text is left to us). */
export const OPENVPN_CONFIG = [
  'client',
  'dev tun',
  'proto udp',
  'remote vpn.example.invalid 1194',
  'resolv-retry infinite',
  'nobind',
  'persist-key',
  'persist-tun',
  'remote-cert-tls server',
  'cipher AES-256-GCM',
  'verb 3',
  '<ca>',
  '-----BEGIN CERTIFICATE-----',
  'MIIBszCCAVmgAwIBAgIUZW11bGF0b3Itb3BlbnZwbi1jYTAKBggqhkjOPQQDAjAf',
  'MR0wGwYDVQQDDBRlbXVsYXRvciBvcGVudnBuIGNhMB4XDTI1MDEwMTAwMDAwMFoX',
  '-----END CERTIFICATE-----',
  '</ca>',
  '',
].join('\n')

export function cyclePrice(monthly: number, cycle: Cycle): number {
  return monthly * cycle.months
}

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
      const cycle = cycleOf(code)!
      const prices: Json[] = family.storageTiers.map((t) => ({
        qty_min: t.qtyMin,
        qty_max: t.qtyMax,
        price: t.monthly * cycle.months,
      }))
      return {
        label: cycle.label,
        cycle: cycle.code,
        price: cyclePrice(p.monthly, cycle),
        components: [{ label: 'Additional storage', field: 'disk_size', prices }],
      }
    }),
  }
}

function simpleBilling(monthly: number, codes: readonly CycleCode[]): Json[] {
  return codes.map((code) => {
    const cycle = cycleOf(code)!
    return { label: cycle.label, cycle: cycle.code, price: cyclePrice(monthly, cycle), components: null }
  })
}

export function diskPlan(family: LiteFamily): JsonObject {
  const p = family.diskProduct
  return {
    product_id: p.product_id,
    name: p.name,
    description: 'Extra SSD volume',
    category_id: family.diskCategory.id,
    category_name: family.diskCategory.name,
    options: { type: 'disk', min_size: p.min_size, max_size: p.max_size },
    billing: simpleBilling(p.monthly, ALL_CYCLES),
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
    billing: simpleBilling(p.monthly, ALL_CYCLES),
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

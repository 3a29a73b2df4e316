// What every family's catalog shares: billing cycles and their prices, regions, promocodes, and the
// `billing` list of a plan object. Each family's own products, prices and OS lists live in its module
// under src/emulator/families/.

/** Billing cycles, in the order products list them. */
const CYCLES = [
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
export const ALL_CYCLES: readonly CycleCode[] = CYCLES.map((c) => c.code)
/** The Metal side (servers, additional IPs, elastic storage) offers monthly and annual terms only. */
export const METAL_CYCLES: readonly CycleCode[] = ['m', 'a']

export function cycleOf(code: string): Cycle | undefined {
  return CYCLES.find((c) => c.code === code)
}

/** Drift may leave a cycle code we do not know; pricing then falls back to one month. */
export function cycleOrMonthly(code: string): Cycle {
  return cycleOf(code) ?? CYCLES[0]
}

export function cyclePrice(monthly: number, cycle: Cycle): number {
  return monthly * cycle.months
}

/** A plan's `billing` list: label, code and price of each offered cycle. */
export function priceList(monthly: number, codes: readonly CycleCode[]): { label: string; cycle: string; price: number }[] {
  return codes.map((code) => {
    const cycle = cycleOrMonthly(code)
    return { label: cycle.label, cycle: cycle.code, price: cyclePrice(monthly, cycle) }
  })
}

export const REGIONS = { 'wjv-1': 'West Java 1', 'cjv-1': 'Central Java 1' } as const
export const DEFAULT_REGION = 'wjv-1'
/** The `region` and `region_label` an account in the default region shows. */
export const DEFAULT_REGION_FIELDS = { region: DEFAULT_REGION, region_label: REGIONS[DEFAULT_REGION] }
export const PROMOCODES: Readonly<Record<string, number>> = { PROMO10: 10 }

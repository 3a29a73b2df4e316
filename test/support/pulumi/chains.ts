// The chains program (examples/pulumi/<language>-chains): Metal, Lite and Lite Pro, each from a catalog
// lookup to its dependants, steered by stack configuration. What every language's run of it must show,
// and the YAML example with the edits of each step written in (a YAML program has no optional configuration).
// Must not: run anything; chains-scenario.ts drives it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './cli-harness.js'

/** The stack configuration of the chains program; an absent key leaves that input out. */
export interface ChainsConfig {
  readonly selectOs?: string
  readonly label?: string
  readonly powerState?: string
  readonly resetTrigger?: string
  readonly rebuildOs?: string
  readonly vmName?: string
  readonly proKeyName?: string
}

export const CONSOLE_PASSWORD = 'ChainsS3cretPass9'

/** Every resource of the program, by logical name, with its type. */
export const RESOURCES: Readonly<Record<string, string>> = {
  'metal-key': 'provider:index:BaremetalKeypair',
  server: 'provider:index:Baremetal',
  ip: 'provider:index:BaremetalAdditionalIp',
  'ip-to-server': 'provider:index:BaremetalAdditionalIpAssignment',
  storage: 'provider:index:BaremetalElasticStorage',
  'lite-key': 'provider:index:LiteKeypair',
  vm: 'provider:index:LiteVm',
  disk: 'provider:index:LiteDisk',
  snapshot: 'provider:index:LiteSnapshot',
  restored: 'provider:index:LiteVmFromSnapshot',
  'pro-key': 'provider:index:LiteProKeypair',
  'pro-vm': 'provider:index:LiteProVm',
  'pro-disk': 'provider:index:LiteProDisk',
  'pro-snapshot': 'provider:index:LiteProSnapshot',
}

/** The paid order each resource's create places (keypairs and assignments place none). */
export const CREATE_ORDER: Readonly<Record<string, string>> = {
  server: 'baremetal.create',
  ip: 'additional_ip.create',
  storage: 'elastic_storage.create',
  vm: 'lite.vm.create',
  disk: 'lite.disk.create',
  snapshot: 'lite.snapshot.create',
  restored: 'lite.snapshot.restore_vm',
  'pro-vm': 'lite_pro.vm.create',
  'pro-disk': 'lite_pro.disk.create',
  'pro-snapshot': 'lite_pro.snapshot.create',
}

/** [dependant, dependency]: a destroy deletes the first before the second. */
export const DEPENDS_ON: readonly (readonly [string, string])[] = [
  ['ip-to-server', 'server'],
  ['ip-to-server', 'ip'],
  ['storage', 'server'],
  ['server', 'metal-key'],
  ['disk', 'vm'],
  ['snapshot', 'vm'],
  ['restored', 'snapshot'],
  ['restored', 'lite-key'],
  ['vm', 'lite-key'],
  ['pro-disk', 'pro-vm'],
  ['pro-snapshot', 'pro-vm'],
  ['pro-vm', 'pro-key'],
]

/** The first configuration, and the edit that the update step applies. */
export const INITIAL: ChainsConfig = {}
export const EDITED: ChainsConfig = {
  label: 'chains-web-02',
  powerState: 'off',
  resetTrigger: 'reset-1',
  rebuildOs: 'debian-12',
  vmName: 'chains-vm-02',
  proKeyName: 'chains-pro-key-2',
}
/**
 * The program that adopts the imported resources: the edited one without the inputs the API cannot give
 * back (one-shot actions), and stating the OS the server runs since its rebuild.
 */
export const IMPORTED: ChainsConfig = { ...EDITED, resetTrigger: undefined, rebuildOs: undefined, selectOs: 'debian-12' }
/**
 * Two Limits of one resource broken at once: the preview names both fields and their rules. (The engine
 * stops at the first resource whose Check fails, so only one resource's failures are ever shown.)
 */
export const BAD: ChainsConfig = { label: 'x'.repeat(256), powerState: 'reboot' }

/** The YAML program of the examples, as a user writes it. */
export const YAML_EXAMPLE = join(ROOT, 'examples', 'pulumi', 'yaml-chains', 'Pulumi.yaml')

/**
 * The YAML example (examples/pulumi/yaml-chains) with the configuration written in, as a user edits the
 * program (a YAML program has no optional configuration): the lines the example marks `# server`,
 * `# vm` and `# pro-key` take the configured values, and the server's optional inputs follow its label.
 * Each link of the program takes the integer `accountId` output, with no conversion.
 */
export function yamlProgram(config: ChainsConfig): string {
  let text = readFileSync(YAML_EXAMPLE, 'utf8')
  const replace = (marked: RegExp, lines: string[]) => {
    const found = text.match(marked)
    if (!found || text.match(new RegExp(marked.source, 'gm'))?.length !== 1) throw new Error(`${YAML_EXAMPLE}: no one line ${marked}`)
    const indent = /^ */.exec(found[0])?.[0] ?? ''
    text = text.replace(marked, lines.map((line) => `${indent}${line}`).join('\n'))
  }
  const optional = Object.entries({
    selectOs: config.selectOs,
    powerState: config.powerState,
    resetTrigger: config.resetTrigger,
    rebuildOs: config.rebuildOs,
  }).flatMap(([key, value]) => (value === undefined ? [] : [`${key}: ${JSON.stringify(value)}`]))
  replace(/^ *label: chains-web-01 # server$/m, [`label: ${JSON.stringify(config.label ?? 'chains-web-01')}`, ...optional])
  replace(/^ *vmName: chains-vm-01 # vm$/m, [`vmName: ${JSON.stringify(config.vmName ?? 'chains-vm-01')}`])
  replace(/^ *name: chains-pro-key # pro-key$/m, [`name: ${JSON.stringify(config.proKeyName ?? 'chains-pro-key')}`])
  return text
}

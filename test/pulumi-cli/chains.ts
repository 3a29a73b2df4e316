// The chains program (examples/pulumi/<language>-chains): Metal, Lite and Lite Pro, each from a catalog
// lookup to its dependants, steered by stack configuration. What every language's run of it must show,
// and the YAML rendering of it (a YAML program has no optional configuration, so each step writes it).
// Must not: run anything; chains-scenario.ts drives it.

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

/**
 * The part of the program Pulumi YAML can express. YAML's type check refuses a resource id (a string)
 * for an integer input such as metalAccountId, and no resource has an integer output holding its own
 * account id, so a YAML program cannot attach anything to a server or VM it creates (a provider defect,
 * shown by engine.test.ts). These need no such reference.
 */
export const YAML_RESOURCES: readonly string[] = ['metal-key', 'server', 'ip', 'lite-key', 'vm', 'pro-key', 'pro-vm']

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

/** The program in Pulumi YAML (YAML_RESOURCES of it), with the configuration written in (JSON is YAML). */
export function yamlProgram(config: ChainsConfig, project = 'yaml-chains'): string {
  const ref = (path: string) => `\${${path}}`
  const optional = (values: Record<string, string | undefined>) =>
    Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined))
  // `return: products[0].productId` crashes pulumi-language-yaml 1.38.1's type check (a nil type in an
  // index path): return the list and index it where it is used.
  const list = (fn: string, args: Record<string, unknown>, field: string) => ({
    'fn::invoke': { function: `provider:index:${fn}`, arguments: args, return: field },
  })
  const program = {
    name: project,
    runtime: 'yaml',
    description: 'Metal, Lite and Lite Pro, each from a catalog lookup to its dependants.',
    config: { consolePassword: { type: 'string', secret: true } },
    variables: {
      metalProducts: list('baremetalProducts', {}, 'products'),
      ipProducts: list('baremetalAdditionalIpProducts', {}, 'products'),
      liteProducts: list('liteProducts', {}, 'products'),
      liteOss: list('liteOsList', { productId: ref('liteProducts[0].productId') }, 'oss'),
      proProducts: list('liteProProducts', {}, 'products'),
      proOss: list('liteProOsList', { productId: ref('proProducts[0].productId') }, 'oss'),
    },
    resources: {
      'metal-key': { type: RESOURCES['metal-key'], properties: { name: 'chains-metal-key' } },
      server: {
        type: RESOURCES.server,
        properties: {
          productId: ref('metalProducts[0].productId'),
          cycle: 'm',
          keypairId: ref('metal-key.keypairId'),
          label: config.label ?? 'chains-web-01',
          ...optional({
            selectOs: config.selectOs,
            powerState: config.powerState,
            resetTrigger: config.resetTrigger,
            rebuildOs: config.rebuildOs,
          }),
        },
      },
      ip: { type: RESOURCES.ip, properties: { productId: ref('ipProducts[0].productId'), cycle: 'm' } },
      'lite-key': { type: RESOURCES['lite-key'], properties: { name: 'chains-lite-key' } },
      vm: {
        type: RESOURCES.vm,
        properties: {
          productId: ref('liteProducts[0].productId'),
          selectOs: ref('liteOss[0].name'),
          keypairId: ref('lite-key.keypairId'),
          cycle: 'm',
          vmName: config.vmName ?? 'chains-vm-01',
          sshAndConsoleUser: 'deployer',
          consolePassword: ref('consolePassword'),
        },
      },
      'pro-key': { type: RESOURCES['pro-key'], properties: { name: config.proKeyName ?? 'chains-pro-key' } },
      'pro-vm': {
        type: RESOURCES['pro-vm'],
        properties: {
          productId: ref('proProducts[0].productId'),
          selectOs: ref('proOss[0].name'),
          keypairId: ref('pro-key.keypairId'),
          cycle: 'm',
          vmName: 'chains-pro-vm',
          sshAndConsoleUser: 'deployer',
          consolePassword: ref('consolePassword'),
        },
      },
    },
    outputs: {
      serverId: ref('server.id'),
      serverIp: ref('server.ipAddress'),
      vmId: ref('vm.id'),
      proVmId: ref('pro-vm.id'),
      metalPrivateKey: ref('metal-key.privateKey'),
      litePrivateKey: ref('lite-key.privateKey'),
      serverRaw: ref('server.raw'),
    },
  }
  return `${JSON.stringify(program, null, 2)}\n`
}

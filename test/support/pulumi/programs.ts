// Pulumi YAML programs the CLI tests start from: a keypair and a Lite VM chained to it (the keypair's
// id into the VM), with anything a test adds after them. The values are the emulator's catalog.

/** What varies between the tests' programs. */
export interface LiteVmProgram {
  /** The project's name (`name:` of Pulumi.yaml). */
  readonly project: string
  /** The keypair's `name` in the pool; unique per emulator. */
  readonly keyName: string
  readonly vmName: string
  /** The VM's console password as written, e.g. a literal or `${consolePassword}`; default a literal. */
  readonly consolePassword?: string
  /** Declares `consolePassword` as a secret string of the stack's config. */
  readonly secretPasswordConfig?: boolean
  /** More resources, as YAML under `resources:` (indented by two spaces), e.g. a disk on `${vm.accountId}`. */
  readonly more?: string
}

/** The config block that declares the console password as a secret, or nothing. */
function configOf(program: Pick<LiteVmProgram, 'secretPasswordConfig'>): string {
  return program.secretPasswordConfig ? 'config:\n  consolePassword:\n    type: string\n    secret: true\n' : ''
}

/** A program of no resource: where `pulumi import` writes its code. */
export function emptyProgram(program: Pick<LiteVmProgram, 'project' | 'secretPasswordConfig'>): string {
  return `name: ${program.project}\nruntime: yaml\n${configOf(program)}`
}

/** The keypair and the VM of `program`, then its other resources. */
export function liteVmProgram(program: LiteVmProgram): string {
  return `${emptyProgram(program)}resources:
  key:
    type: provider:index:LiteKeypair
    properties:
      name: ${program.keyName}
  vm:
    type: provider:index:LiteVm
    properties:
      productId: 101
      selectOs: Ubuntu-22.04
      cycle: m
      keypairId: \${key.keypairId}
      sshAndConsoleUser: deployer
      consolePassword: ${program.consolePassword ?? 'S3cretPass9'}
      vmName: ${program.vmName}
${program.more ?? ''}`
}

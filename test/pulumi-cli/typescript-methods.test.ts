// A resource method (vm.power) in TypeScript: the lite example (examples/pulumi/typescript-lite) as an
// Automation API inline program of the Node SDK, under the real CLI.
import { typescriptDriver } from '../support/pulumi/drivers.js'
import { methodsScenario } from '../support/pulumi/methods-scenario.js'

methodsScenario('typescript', (home) => typescriptDriver(home, 'typescript-lite'))

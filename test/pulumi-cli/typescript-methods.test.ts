// A resource method (vm.power) in TypeScript: the lite example (examples/pulumi/typescript-lite) as an
// Automation API inline program of the Node SDK, under the real CLI.
import { typescriptDriver } from './drivers.js'
import { methodsScenario } from './methods-scenario.js'

methodsScenario('typescript', (home) => typescriptDriver(home, 'typescript-lite'))

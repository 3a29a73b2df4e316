// The chains program in TypeScript (examples/pulumi/typescript-chains, compiled against sdk/nodejs) as an
// Automation API inline program of the Node SDK, under the real CLI.
import { chainsScenario } from './chains-scenario.js'
import { typescriptDriver } from './drivers.js'

chainsScenario('typescript', typescriptDriver)

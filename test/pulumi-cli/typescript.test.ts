// The chains program in TypeScript (examples/pulumi/typescript-chains, compiled against sdk/nodejs) as an
// Automation API inline program of the Node SDK, under the real CLI.
import { chainsScenario } from '../support/pulumi/chains-scenario.js'
import { typescriptDriver } from '../support/pulumi/drivers.js'

chainsScenario('typescript', typescriptDriver)

// The chains program in Pulumi YAML (chains.ts yamlProgram, the whole program: each link takes the integer
// `accountId` output, no conversion) under the real CLI and the real pulumi-language-yaml host.
import { chainsScenario } from '../support/pulumi/chains-scenario.js'
import { yamlDriver } from '../support/pulumi/drivers.js'

chainsScenario('yaml', yamlDriver)

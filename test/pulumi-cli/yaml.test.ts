// The chains program in Pulumi YAML (the part YAML can express, chains.ts YAML_RESOURCES) under the real
// CLI and the real pulumi-language-yaml host.
import { YAML_RESOURCES } from './chains.js'
import { chainsScenario } from './chains-scenario.js'
import { yamlDriver } from './drivers.js'

chainsScenario('yaml', yamlDriver, YAML_RESOURCES)

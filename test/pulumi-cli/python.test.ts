// The chains program in Python (examples/pulumi/python-chains, against the SDK in sdk/python) as an
// Automation API inline program of the Python SDK (test/pulumi-cli/python/chains_driver.py), under the
// real CLI. The Pulumi Python SDK comes from PyPI into a venv cached outside the clone (test/support/pulumi/drivers.ts).
import { chainsScenario } from '../support/pulumi/chains-scenario.js'
import { pythonDriver } from '../support/pulumi/drivers.js'

chainsScenario('python', pythonDriver)

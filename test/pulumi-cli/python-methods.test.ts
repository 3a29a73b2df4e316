// A resource method (vm.power) in Python: the lite example (examples/pulumi/python-lite) as an
// Automation API inline program of the Python SDK, under the real CLI.
import { pythonDriver } from '../support/pulumi/drivers.js'
import { methodsScenario } from '../support/pulumi/methods-scenario.js'

methodsScenario('python', (home) => pythonDriver(home, 'python-lite'))

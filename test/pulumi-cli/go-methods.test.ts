// A resource method (vm.Power) in Go: the lite example (examples/pulumi/go-lite) as an Automation API
// inline program of the Go SDK (test/pulumi-cli/go/driver.go), under the real CLI.
import { goDriver } from '../support/pulumi/drivers.js'
import { methodsScenario } from '../support/pulumi/methods-scenario.js'

methodsScenario('go', (home) => goDriver(home, 'go-lite'))

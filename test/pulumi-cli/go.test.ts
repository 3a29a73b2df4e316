// The chains program in Go (examples/pulumi/go-chains/chains.go, against the SDK in sdk/go through a
// `replace`) as an Automation API inline program of the Go SDK (test/pulumi-cli/go/driver.go), under the
// real CLI. `go build` fetches the Pulumi Go SDK (test/pulumi-cli/go/pulumi-sdk.version) from the module
// proxy into the module cache once; the build tags are the CLI's, so its build cache is reused.
import { chainsScenario } from '../support/pulumi/chains-scenario.js'
import { goDriver } from '../support/pulumi/drivers.js'

chainsScenario('go', goDriver)

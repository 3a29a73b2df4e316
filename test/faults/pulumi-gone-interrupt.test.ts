// The built Pulumi plugin over gRPC, every order-placing operation × faults efgh of the matrix (test/support/faults/matrix.ts).
import { faultsOf } from '../support/faults/matrix.js'
import { pulumiMatrix } from '../support/faults/pulumi-cells.js'

pulumiMatrix('pulumi-gone-interrupt', faultsOf('efgh'))

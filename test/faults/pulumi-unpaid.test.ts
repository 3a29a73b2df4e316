// Every order-placing operation with its invoice left unpaid, under the engine's rules (test/support/faults/pulumi-cells.ts).
import { pulumiUnpaidMatrix } from '../support/faults/pulumi-cells.js'

pulumiUnpaidMatrix()

// A test-only plugin executable for the Terraform front end: the real start-up path (cookie, mTLS,
// handshake line, Shutdown, Health) with no provider behind it. Never imported by production code,
// and nothing here may import core/, resources/ or the emulator.
import { servePlugin } from '../../../src/terraform/handshake.js'

await servePlugin({ services: [] })

// Reads where a Terraform command's time goes from Terraform's own log (TF_LOG=trace, 1 ms timestamps):
// the check of the installed provider package's hash, and per provider launch Terraform's mTLS set-up,
// start to handshake, the calls (with the provider's own "service loaded" figure) and Close to exit.
// Used by bench/run.ts; kept apart so that a test can hold it to the log lines it reads.

/** The log lines each phase starts or ends at, as Terraform 1.x and go-plugin write them. */
const TRACE = {
  packageCandidate: 'providercache.fillMetaCache: including',
  mtls: 'provider: configuring client automatic mTLS',
  starting: 'provider: starting plugin:',
  started: 'provider: plugin started:',
  handshake: 'provider: using plugin: version=',
  close: 'GRPCProvider.v6: Close',
  exited: 'provider: plugin process exited',
  serviceLoaded: /service loaded: .*\bms=(\d+)/,
} as const

export interface LaunchPhases {
  mtls: number
  startToHandshake: number
  calls: number
  serviceLoad: number
  closeToExit: number
}

export interface PlanTrace {
  total: number
  packageHash: number
  launches: LaunchPhases[]
}

/** Parses one TF_LOG=trace log of a command into its phases; throws if a launch's lines are missing. */
export function parsePlanTrace(log: string): PlanTrace {
  const lines = log.split('\n').filter((line) => /^\d{4}-\d\d-\d\dT/.test(line))
  const at = (line: string) => Date.parse(line.slice(0, 24))
  if (lines.length === 0) throw new Error('the Terraform log has no timestamped line')
  let packageHash = 0
  const launches: LaunchPhases[] = []
  let current: Partial<Record<'mtls' | 'starting' | 'started' | 'handshake' | 'close', number>> & { serviceLoad?: number } = {}
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const time = at(line)
    // The hash of the unpacked package is computed between this line and the next one.
    if (line.includes(TRACE.packageCandidate) && i + 1 < lines.length) packageHash += at(lines[i + 1]!) - time
    else if (line.includes(TRACE.mtls)) current = { mtls: time }
    else if (line.includes(TRACE.starting)) current.starting = time
    else if (line.includes(TRACE.started)) current.started = time
    else if (line.includes(TRACE.handshake)) current.handshake = time
    else if (line.includes(TRACE.close)) current.close = time
    else if (TRACE.serviceLoaded.test(line)) current.serviceLoad = Number(TRACE.serviceLoaded.exec(line)![1])
    else if (line.includes(TRACE.exited)) {
      const { mtls, starting, started, handshake, close } = current
      if (mtls === undefined || starting === undefined || started === undefined || handshake === undefined || close === undefined) {
        throw new Error(`a provider launch in the Terraform log lacks one of its lines: ${JSON.stringify(current)}`)
      }
      launches.push({
        mtls: starting - mtls,
        startToHandshake: handshake - started,
        calls: close - handshake,
        serviceLoad: current.serviceLoad ?? 0,
        closeToExit: time - close,
      })
      current = {}
    }
  }
  return { total: at(lines[lines.length - 1]!) - at(lines[0]!), packageHash, launches }
}

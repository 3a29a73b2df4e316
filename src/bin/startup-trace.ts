// Start-up marks for `npm run bench`'s per-phase breakdown: with PROVIDER_TRACE_STARTUP=1 an entry point
// writes one stderr line once it serves. Off by default; it never writes to stdout, which belongs to the
// handshake. The bundles' first statement stores PROVIDER_ENTRY_MS (see scripts/build.mjs).

declare global {
  /** performance.now() when the bundle's first statement ran, i.e. the runtime's own start-up. */
  var PROVIDER_ENTRY_MS: number | undefined
}

/** Call once every module is loaded (the first line of an entry point's body); `served` once the handshake is out. */
export function startupMarks(env: NodeJS.ProcessEnv = process.env): { served(): void } {
  const ready = performance.now()
  return {
    served() {
      if (env.PROVIDER_TRACE_STARTUP !== '1') return
      // CPU time (user + system, every thread) to this point: on a loaded machine it moves far less than the wall time.
      const cpu = process.cpuUsage()
      const marks = { entry: globalThis.PROVIDER_ENTRY_MS ?? null, ready, served: performance.now(), cpu: (cpu.user + cpu.system) / 1000 }
      process.stderr.write(`provider-startup ${JSON.stringify(marks)}\n`)
    },
  }
}

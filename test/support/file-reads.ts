// Counts what a piece of code does with the files under a directory, in this process: node:fs's
// readFileSync (a file read) and readdirSync (a listing of the directory) are wrapped for the duration,
// and the modules that imported them by name see the wrappers too (Node keeps built-in modules' named
// exports in step with syncBuiltinESMExports). For tests that hold a cost to a count, not a time (the
// order journal's reads per resource).
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'

/** Runs `action`, counting the calls of node:fs's `name` on paths under `dir`. */
async function calls(name: 'readFileSync' | 'readdirSync', dir: string, action: () => Promise<void>): Promise<number> {
  const original = fs[name] as (...args: unknown[]) => unknown
  let count = 0
  ;(fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (String(args[0]).startsWith(dir)) count++
    return original(...args)
  }
  syncBuiltinESMExports()
  try {
    await action()
  } finally {
    ;(fs as unknown as Record<string, unknown>)[name] = original
    syncBuiltinESMExports()
  }
  return count
}

/** Runs `action`, counting the files read under `dir`. */
export function fileReads(dir: string, action: () => Promise<void>): Promise<number> {
  return calls('readFileSync', dir, action)
}

/** Runs `action`, counting the listings of `dir` (or of a directory under it). */
export function directoryListings(dir: string, action: () => Promise<void>): Promise<number> {
  return calls('readdirSync', dir, action)
}

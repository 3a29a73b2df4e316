// Counts the files a piece of code reads under a directory, in this process: node:fs's readFileSync is
// wrapped for the duration, and the modules that imported it by name see the wrapper too (Node keeps
// built-in modules' named exports in step with syncBuiltinESMExports). For tests that hold a cost to a
// count, not a time (the order journal's reads per resource).
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'

/** Runs `action`, counting the calls of readFileSync on paths under `dir`. */
export async function fileReads(dir: string, action: () => Promise<void>): Promise<number> {
  const original = fs.readFileSync
  let reads = 0
  fs.readFileSync = ((...args: Parameters<typeof original>) => {
    if (String(args[0]).startsWith(dir)) reads++
    return original(...args)
  }) as typeof original
  syncBuiltinESMExports()
  try {
    await action()
  } finally {
    fs.readFileSync = original
    syncBuiltinESMExports()
  }
  return reads
}

// The web console's files, served by the emulator launcher at `/` on its own port: one HTML page, one
// stylesheet and one script (src/bin/emulator-console.ts and the modules under app/, bundled by
// scripts/build.mjs). Read once, at the first request for one of them, so that the emulator's start-up
// never pays for the console; a bundle of the launcher carries them as strings instead (stamped in at build
// time as EMULATOR_CONSOLE_ASSETS). The page talks to the control API (/_emulator) and nothing else.

/** The three files, as scripts/build.mjs writes them beside this module (assets/) or stamps them into a bundle. */
export interface ConsoleAssets {
  readonly html: string
  readonly css: string
  readonly js: string
}

declare const EMULATOR_CONSOLE_ASSETS: ConsoleAssets | undefined

const FILES = {
  '/': { asset: 'html', type: 'text/html; charset=utf-8' },
  '/index.html': { asset: 'html', type: 'text/html; charset=utf-8' },
  '/console.css': { asset: 'css', type: 'text/css; charset=utf-8' },
  '/console.js': { asset: 'js', type: 'text/javascript; charset=utf-8' },
} as const satisfies Record<string, { asset: keyof ConsoleAssets; type: string }>

/**
 * Nothing but these files, nothing inline, and requests to this origin only: a value that slipped into the
 * page as markup could still run nothing (the page itself writes every value as text, never as HTML).
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

let loaded: Promise<ConsoleAssets> | undefined

async function readAssets(): Promise<ConsoleAssets> {
  if (typeof EMULATOR_CONSOLE_ASSETS !== 'undefined') return EMULATOR_CONSOLE_ASSETS
  const { readFile } = await import('node:fs/promises')
  const read = (name: string) => readFile(new URL(`./assets/${name}`, import.meta.url), 'utf8')
  const [html, css, js] = await Promise.all([read('index.html'), read('console.css'), read('console.js')])
  return { html, css, js }
}

/** Whether `pathname` is one of the console's files (the launcher asks before the API and the control API). */
export function isConsolePath(pathname: string): boolean {
  return Object.hasOwn(FILES, pathname)
}

/** The console file at `pathname` (see isConsolePath); a build without the console's assets answers 500 saying so. */
export async function consoleResponse(method: string, pathname: string): Promise<Response> {
  const file = FILES[pathname as keyof typeof FILES]
  if (!file) return new Response('Not Found', { status: 404 })
  if (method !== 'GET' && method !== 'HEAD') return new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, HEAD' } })
  loaded ??= readAssets()
  let assets: ConsoleAssets
  try {
    assets = await loaded
  } catch (error) {
    loaded = undefined
    const why = error instanceof Error ? error.message : String(error)
    return new Response(`the console's files are missing from this build (run npm run build): ${why}`, { status: 500 })
  }
  const body = method === 'HEAD' ? null : assets[file.asset]
  return new Response(body, { status: 200, headers: { 'content-type': file.type, ...SECURITY_HEADERS } })
}

// The emulator's web console: the page's script, run in the browser. scripts/build.mjs bundles it (with
// src/emulator/console/app/) into the one file the emulator launcher serves at /console.js
// (src/emulator/console/serve.ts). Type-checked for the browser by src/emulator/console/app/tsconfig.json.
import { start } from '../emulator/console/app/main.js'

start(document.body)

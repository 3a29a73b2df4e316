// The version of this build, for the executables that say it: stamped by the bundler from package.json
// (PROVIDER_VERSION, scripts/build.mjs); the tsc output, which nothing stamps, says the development version.
declare const PROVIDER_VERSION: string | undefined

export const VERSION = typeof PROVIDER_VERSION === 'string' ? PROVIDER_VERSION : '0.1.0'

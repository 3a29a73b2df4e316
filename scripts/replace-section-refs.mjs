// Replaces the `§N.N` references to the backend API contract (and `DESIGN §N`) in comments and test
// titles by names a reader can follow: the contract is not in the repository, so a section number
// leads nowhere, while "the success envelope" or "the status model" names the thing itself.
//
//   node scripts/replace-section-refs.mjs           rewrite the files in place, listing each change
//   node scripts/replace-section-refs.mjs --check   change nothing; exit 1 while a `§` remains
//
// Idempotent: a rewritten file holds no `§`, so a second run finds nothing to do. A reference with no
// entry in the tables below is left as it is and reported, and the run exits 1.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const self = relative(root, fileURLToPath(import.meta.url))

/** Each section cited, by its number in the backend API contract, as the thing it specifies. */
const SECTIONS = {
  1: "the API's transport rules",
  1.1: "the API's path rules",
  1.2: "the API's header rules",
  1.3: "the API's authentication",
  1.4: "the API's request-body rules",
  1.5: "the API's success envelope",
  1.6: "the API's error envelope",
  1.7: "the API's status codes",
  1.8: "the API's list rules",
  1.9: "the API's id, number and date formats",
  '1.10': "the API's retry rules",
  1.11: "the service's Idempotency-Key extension",
  2: "the API's shared models",
  2.1: 'the order response',
  2.2: 'the invoice object',
  2.3: 'the account object',
  2.4: 'the status model',
  2.5: 'the billing cycles',
  2.6: 'the catalog product object',
  3: "the API's calls by family",
  3.1: 'the Lite VM calls',
  '3.1-3.5': 'the Lite calls',
  '3.1-3.6': 'the Lite and Lite Pro calls',
  '3.1.1': 'the Lite VM create body',
  '3.1.2': 'the Lite VM account',
  '3.1.3': 'the vm-details call',
  '3.1.4': 'the Lite option lookups',
  '3.1.5': 'the migration to Lite Pro',
  3.2: 'the snapshot calls',
  3.3: 'the extra-disk calls',
  3.4: 'the keypair calls',
  3.5: 'the Lite catalog',
  3.6: 'the Lite Pro group',
  3.7: 'the Metal server calls',
  '3.7.1': 'the Metal create body',
  '3.7-3.9': 'the Metal calls',
  3.8: 'the additional-IP calls',
  3.9: 'the elastic-storage calls',
  4: "the contract's calls for each operation",
  4.1: 'waiting for Active',
  4.2: "the Lite VM's calls",
  '4.2-4.3': 'the Lite calls of each operation',
  4.3: "the other Lite resources' calls",
  4.4: "the Metal resources' calls",
  4.5: "the lookups' calls",
  4.6: 'the import rules',
  5: "the emulator's control API",
  5.1: "the emulator's start-up options",
  5.2: 'the seed catalog',
  5.3: "the emulator's control endpoints",
  5.4: "the emulator's fault rules",
  5.5: 'the request log and order counters',
  5.6: "the emulator's request pipeline",
  6: "the contract's open points",
  7: "the contract's change log",
}

/** Sections of DESIGN.md (outside the repository), by the section of docs/design.md that carries them. */
const DESIGN = {
  1: 'docs/design.md, "What the repository ships"',
  3: 'docs/design.md, "Layers and the dependency rule"',
  4: 'docs/design.md, "How a resource is defined"',
  5: 'docs/design.md, "Front ends"',
  8: 'docs/design.md, "Tests"',
}

/**
 * Phrasings where a plain substitution would not read well, replaced first, as they stand. Where the
 * code already says what the section said, the reference is simply dropped.
 */
const PHRASES = [
  ['Wire types shared by every family (§2)', 'Wire types shared by every family'],
  ['retries (§1.5, §1.6, §1.10).', 'retries.'],
  ['Lenient readers for payloads (§1.9):', 'Lenient readers for payloads:'],
  ['Waiting for Active after an order (§4.1):', 'Waiting for Active after an order:'],
  ['a little after the order answered (§4.1).', 'a little after the order answered.'],
  ['until the account is Active (§4.1).', 'until the account is Active.'],
  ['/** §3.4: a keypair of any pool.', '/** A keypair of any pool.'],
  ['/** §5.2: recomputed whenever', '/** The recurring amount, recomputed whenever'],
  ['/** §3.1.3: applied at once;', '/** A power action (of the vm-details call) applies at once;'],
  ['once each power action is in effect (§3.1.3).', 'once each power action is in effect.'],
  ['Values come from the seed catalog of backend-api §5.2.', "Values come from the emulator's seed catalog."],
  [
    'the mutating API calls of backend-api §4.2-§4.3 (request log',
    'the mutating API calls the API contract lists for each Lite operation (request log',
  ],
  [
    'the mutating API calls of backend-api §4.4 (request',
    'the mutating API calls the API contract lists for each Metal operation (request',
  ],
  [
    'makes exactly the API\n// calls of backend-api §4.2 (request log',
    'makes exactly the API\n// calls the API contract lists for a VM update (request log',
  ],
  ['(servers) and 198.51.100.2 (additional IPs), §5.1.', "(servers) and 198.51.100.2 (additional IPs): the emulator's start-up options."],
  ['/** §2.2. */', '/** The invoice object. */'],
  ['/** The §1.5 success envelope. */', "/** The API's success envelope. */"],
  ["the contract's §5.5 rule", "the request log's rule"],
  ['Validates a §5.4 fault spec', 'Validates a fault rule'],
  ['Billing cycles of §2.5, in the order', 'Billing cycles, in the order'],
  ['OpenVPN client profile (§6.3)', 'OpenVPN client profile (its text is left to us)'],
  ['The §2.6 plan object of a VM product', 'The plan object of a VM product'],
  ['the request pipeline of §5.6 and', "the emulator's request pipeline and"],
  ['/** Steps 1 to 9 of §5.6;', "/** Steps 1 to 9 of the emulator's request pipeline;"],
  ['Handlers run steps 5 to 8 of §5.6 in that order', "Handlers run steps 5 to 8 of the emulator's request pipeline in that order"],
  ['Step 7 of §5.6:', "Step 7 of the emulator's request pipeline:"],
  ['Step 4 of §5.6, per API key (§1.11):', "Step 4 of the emulator's request pipeline, per API key:"],
  ['a service without the §1.11 extension (§6 point 4)', 'a service without the Idempotency-Key extension (the real one may lack it)'],
  ['at the first Active (§3.7, §3.8), from their own sequences (§5.1).', 'at the first Active, from their own sequences.'],
  ['(backend-api §6 point 4)', '(an open point of the API contract)'],
  ['with the §3.1.2 account shape', 'with the Lite VM account shape'],
  ['the §1.8 list and the §2.4 precondition table', "the API's list rules and the status model's precondition table"],
  ['/** The §2.3 account object. */', '/** The account object. */'],
  ['/** §5.5 redaction:', '/** Redaction in the request log:'],
  ['the pipeline turns it into the §1.6 error envelope', "the pipeline turns it into the API's error envelope"],
  [
    '/** The order kind of §5.5 this operation places once. */',
    '/** The order kind (as the order counters name it) this operation places once. */',
  ],
  ['(the re-read of §4.2 step 4, §4.3, §4.4)', "(such as the re-read of a Lite VM's disk size before its upgrade)"],
  ['(§4.2 create)', '(as the Lite VM create does)'],
  ['follows §2.4', 'follows the status model'],
  ['forced statuses follow §5.3', 'forced statuses follow the control API'],
  ['Order kinds (backend-api §5.5)', 'Order kinds (as the order counters name them)'],
  ['// Snapshots (§3.2)', '// Snapshots'],
  ['// Extra disks (§3.3)', '// Extra disks'],
  ['// Catalog (§3.5)', '// Catalog'],
  ["describe('success envelopes (§1.5)'", "describe('success envelopes'"],
  ["describe('error decoding (§1.6)'", "describe('error decoding'"],
  ["describe('retries (§1.10)'", "describe('retries'"],
  ["describe('waitForActive (§4.1)'", "describe('waitForActive'"],
  ["describe('lenient decoding (§1.9)'", "describe('lenient decoding'"],
]

const REFERENCE = /(?:backend-api |DESIGN(?:\.md)? )?§(\d+(?:\.\d+)*)(?:-§(\d+(?:\.\d+)*))?/g

/** The text with every reference replaced, and the references no table knows. */
export function replaceReferences(text) {
  const unknown = []
  let out = text
  for (const [from, to] of PHRASES) out = out.replaceAll(from, to)
  out = out.replace(REFERENCE, (match, first, last, offset, whole) => {
    const key = last === undefined ? first : `${first}-${last}`
    const name = match.startsWith('DESIGN') ? DESIGN[key] : SECTIONS[key]
    if (name === undefined) {
      unknown.push(match)
      return match
    }
    // A reference that opens a comment's sentence (`/** §2.1: what…`) starts with a capital.
    const opens = /(?:\/\*\*|\/\/|\*)\s*$/.test(whole.slice(Math.max(0, offset - 4), offset))
    return opens ? name[0].toUpperCase() + name.slice(1) : name
  })
  return { text: out, unknown }
}

/** Tracked text files that can hold a reference: sources, tests, scripts and the Markdown pages. */
function files() {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0')
  return listed.filter((f) => f !== self && /\.(ts|mts|cts|js|mjs|cjs|md)$/.test(f) && !f.startsWith('sdk/'))
}

/** Rewrites every file in place (or, with `check`, only lists the lines that still cite a section); the exit code. */
function main(check) {
  let remaining = 0
  let failed = false
  for (const file of files()) {
    const path = join(root, file)
    const before = readFileSync(path, 'utf8')
    if (!before.includes('§')) continue
    if (check) {
      before.split('\n').forEach((line, i) => {
        if (!line.includes('§')) return
        remaining++
        console.log(`${file}:${i + 1}: ${line.trim()}`)
      })
      continue
    }
    const { text, unknown } = replaceReferences(before)
    for (const ref of unknown) {
      failed = true
      console.error(`${file}: no replacement for ${ref}`)
    }
    if (text === before) continue
    writeFileSync(path, text)
    const old = before.split('\n')
    text.split('\n').forEach((line, i) => {
      if (line !== old[i]) console.log(`${file}:${i + 1}: ${line.trim()}`)
    })
  }
  if (remaining > 0) console.error(`${remaining} line(s) still cite a section by number; run node scripts/replace-section-refs.mjs`)
  return remaining > 0 || failed ? 1 : 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.includes('--check'))

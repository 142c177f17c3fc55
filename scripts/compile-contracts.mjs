#!/usr/bin/env node
/**
 * Compiles Predex's contracts (src/chain/contracts/*.sol) with solc-js and writes their artifacts
 * to src/chain/artifacts/: the ABI, the creation and the runtime bytecode. The Conditional Tokens
 * are Gnosis' sources (src/chain/contracts/conditional-tokens, one function added: its README)
 * compiled as Gnosis built them, with solc 0.5.10 (the `solc-0.5` package) and the optimizer at
 * 200 runs; the check also compiles the package's unchanged sources and requires the package's
 * own published bytecode, so the toolchain is known to be Gnosis'.
 *
 *   node scripts/compile-contracts.mjs           write the artifacts
 *   node scripts/compile-contracts.mjs --check   exit 1 when an artifact differs from its source
 *
 * The artifacts are committed, so that a server starts without a compiler; the check (run by
 * test/unit/chain/artifacts.test.ts) keeps them equal to what the sources compile to.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const sourcesDir = join(root, 'src/chain/contracts')
const artifactsDir = join(root, 'src/chain/artifacts')
const CTF_PACKAGE = '@gnosis.pm/conditional-tokens-contracts'
const ctfDir = join(sourcesDir, 'conditional-tokens')
/** The Conditional Tokens' sources, relative to their folder (the package's and ours alike). */
const CTF_FILES = ['ConditionalTokens.sol', 'CTHelpers.sol', 'ERC1155/ERC1155.sol', 'ERC1155/IERC1155.sol',
  'ERC1155/IERC1155TokenReceiver.sol']
/** Gnosis' build settings (its truffle-config.js: the optimizer on, at solc's default 200 runs). */
const CTF_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
}

/** Settings fixed here so that the same sources always give the same bytes. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
}

function findImport(path) {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') }
  } catch {
    return { error: `not found: ${path}` }
  }
}

/** Every contract defined in src/chain/contracts, compiled, as artifacts by name. */
export function compileSources() {
  const solc = require('solc')
  const files = readdirSync(sourcesDir).filter((name) => name.endsWith('.sol')).sort()
  const sources = Object.fromEntries(files.map((name) => [name, { content: readFileSync(join(sourcesDir, name), 'utf8') }]))
  const input = { language: 'Solidity', sources, settings: SETTINGS }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const artifacts = {}
  for (const file of files) {
    for (const [name, contract] of Object.entries(output.contracts[file] ?? {})) {
      artifacts[name] = {
        contractName: name,
        source: `src/chain/contracts/${file}`,
        compiler: `solc ${solc.version()}`,
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      }
    }
  }
  return artifacts
}

/** The Conditional Tokens in `dir` compiled with solc 0.5.10, without the metadata hash solc 0.5 appends. */
function compileConditionalTokens(dir) {
  const solc = require('solc-0.5')
  const sources = Object.fromEntries(CTF_FILES.map((file) => [file, { content: readFileSync(join(dir, file), 'utf8') }]))
  const input = { language: 'Solidity', sources, settings: CTF_SETTINGS }
  const output = JSON.parse(solc.compile(JSON.stringify(input), findImport))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const contract = output.contracts['ConditionalTokens.sol'].ConditionalTokens
  return { solc, abi: contract.abi, bytecode: withoutMetadata(contract.evm.bytecode.object),
    deployedBytecode: withoutMetadata(contract.evm.deployedBytecode.object) }
}

/** solc 0.5's metadata trailer (a swarm hash of the sources' paths and settings) names no behaviour. */
function withoutMetadata(hex) {
  return hex.replace(/a265627a7a72305820[0-9a-f]{64}64736f6c6343[0-9a-f]{6}0032$/, '')
}

/** The Conditional Tokens: Gnosis' sources with Predex's one addition, as Gnosis compiled them. */
export function conditionalTokensArtifact() {
  const compiled = compileConditionalTokens(ctfDir)
  return {
    contractName: 'ConditionalTokens',
    source: `src/chain/contracts/conditional-tokens (${CTF_PACKAGE}@1.0.3 and relayApprovalForAll)`,
    compiler: `solc ${compiled.solc.version()}`,
    abi: compiled.abi,
    bytecode: `0x${compiled.bytecode}`,
    deployedBytecode: `0x${compiled.deployedBytecode}`,
  }
}

/** Whether the package's unchanged sources compile here to the runtime code Gnosis published. */
function gnosisToolchainMatches() {
  const compiled = compileConditionalTokens(join(dirname(require.resolve(`${CTF_PACKAGE}/package.json`)), 'contracts'))
  const published = require(`${CTF_PACKAGE}/build/contracts/ConditionalTokens.json`).deployedBytecode.slice(2)
  return compiled.deployedBytecode === withoutMetadata(published)
}

/** Only the contracts Predex deploys: the sources' libraries and interfaces have no code of their own. */
function deployable(artifacts) {
  return Object.fromEntries(Object.entries(artifacts).filter(([, a]) => a.bytecode !== '0x'))
}

function artifactText(artifact) {
  return `${JSON.stringify(artifact, null, 2)}\n`
}

function main() {
  const check = process.argv.includes('--check')
  const artifacts = { ...deployable(compileSources()), ConditionalTokens: conditionalTokensArtifact() }
  const stale = []
  for (const [name, artifact] of Object.entries(artifacts)) {
    const file = join(artifactsDir, `${name}.json`)
    const text = artifactText(artifact)
    if (check) {
      let committed = ''
      try {
        committed = readFileSync(file, 'utf8')
      } catch {
        // missing: stale
      }
      if (committed !== text) stale.push(name)
    } else {
      writeFileSync(file, text)
      console.log(`wrote ${file} (${(artifact.deployedBytecode.length - 2) / 2} bytes of runtime code)`)
    }
  }
  if (check && !gnosisToolchainMatches()) {
    console.error('the package\'s Conditional Tokens sources no longer compile to its published bytecode here')
    process.exit(1)
  }
  if (check && stale.length > 0) {
    console.error(`stale artifacts (run node scripts/compile-contracts.mjs): ${stale.join(', ')}`)
    process.exit(1)
  }
  if (check) console.log(`artifacts match their sources: ${Object.keys(artifacts).join(', ')}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()

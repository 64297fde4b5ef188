'use strict';
// A certificate chain to sign Content Credentials with, made with the openssl command: a root CA and a signing
// certificate with the key usage C2PA asks of a claim signer. `npm run dev` makes one in its data directory on its
// first start and keeps it; each test run makes its own. Production brings its own chain (docs/provenance.md).

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const SIGNER_EXTENSIONS = [
  '[signer]',
  'basicConstraints = critical, CA:FALSE',
  'keyUsage = critical, digitalSignature',
  'extendedKeyUsage = emailProtection',
  'subjectKeyIdentifier = hash',
  'authorityKeyIdentifier = keyid:always',
  '',
].join('\n');

function keyArgs(algorithm) {
  return algorithm === 'ed25519' ? ['-algorithm', 'ed25519'] : ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];
}

/**
 * Makes root.pem, root.key, signer.pem, signer.key and chain.pem (signer then root) in `dir`; returns their paths.
 * `algorithm`: es256 (ECDSA P-256) or ed25519.
 */
function createChain(dir, { name = 'genmedia development', algorithm = 'es256', days = 3650 } = {}) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const digest = algorithm === 'ed25519' ? [] : ['-sha256'];
  fs.writeFileSync(path.join(dir, 'signer.cnf'), SIGNER_EXTENSIONS);
  openssl('genpkey', ...keyArgs(algorithm), '-out', 'root.key');
  openssl('req', '-x509', '-new', '-key', 'root.key', ...digest, '-days', String(days), '-subj', `/CN=${name} root CA/O=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'root.pem');
  openssl('genpkey', ...keyArgs(algorithm), '-out', 'signer.key');
  openssl('req', '-new', '-key', 'signer.key', '-subj', `/CN=${name} signer/O=${name}`, '-out', 'signer.csr');
  openssl('x509', '-req', '-in', 'signer.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-CAcreateserial', ...digest, '-days', String(days),
    '-extfile', 'signer.cnf', '-extensions', 'signer', '-out', 'signer.pem');
  fs.writeFileSync(path.join(dir, 'chain.pem'), fs.readFileSync(path.join(dir, 'signer.pem'), 'utf8') + fs.readFileSync(path.join(dir, 'root.pem'), 'utf8'));
  for (const file of ['root.key', 'signer.key']) fs.chmodSync(path.join(dir, file), 0o600);
  for (const file of ['signer.csr', 'signer.cnf', 'root.srl']) fs.rmSync(path.join(dir, file), { force: true });
  return chainFiles(dir);
}

function chainFiles(dir) {
  return { chainFile: path.join(dir, 'chain.pem'), keyFile: path.join(dir, 'signer.key'), rootFile: path.join(dir, 'root.pem') };
}

/** The variables that point the service at a chain's files (each takes a PEM or the path of a file of it). */
function provenanceEnv(files) {
  return { PROVENANCE_CERT_CHAIN: files.chainFile, PROVENANCE_PRIVATE_KEY: files.keyFile, PROVENANCE_TRUST_ANCHORS: files.rootFile };
}

/**
 * The variables of the development chain in `<dataDir>/provenance/`, made there on first use; none when the
 * environment configures a chain of its own or turns provenance off.
 */
function devProvenanceEnv(dataDir, env = process.env) {
  if (env.PROVENANCE_CERT_CHAIN || ['0', 'false'].includes(env.PROVENANCE_ENABLED ?? '')) return {};
  const dir = path.join(dataDir, 'provenance');
  const files = chainFiles(dir);
  if (!fs.existsSync(files.chainFile) || !fs.existsSync(files.keyFile)) createChain(dir);
  return provenanceEnv(files);
}

module.exports = { createChain, provenanceEnv, devProvenanceEnv };

'use strict';
// The native part of @contentauth/c2pa-node (the C2PA reference implementation, the Rust `c2pa` crate).
//
// By default it is the Linux x86-64 binary the npm package's tarball carries (glibc 2.34 or later): npm installs it
// from the registry like any other file. The package's install script, which would download a binary from GitHub, is
// denied in package.json (`allowScripts`). Building the same crate from crates.io with cargo takes most of an hour
// on a small machine, so it is opt-in: with GENMEDIA_C2PA_BUILD=1 the bootstrap builds it once per machine and version
// with the workspace in scripts/c2pa-node/ (the crate and features the release was built with, and a lock file),
// caches it outside the clone and copies it over the packaged binary. That is the way for a machine where the packaged
// binary does not load (another architecture, an older glibc).

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, binCacheDir, cacheRoot } = require('./paths');
const { capture, runVisible, which } = require('./proc');
const { SetupError } = require('./log');

const PACKAGE = '@contentauth/c2pa-node';
const WORKSPACE_DIR = path.join(REPO_ROOT, 'scripts', 'c2pa-node');
// TrustMark, which the crate links, would download ONNX Runtime at build time; it is loaded at run time instead, only
// if a TrustMark watermark is ever asked for (genmedia does not).
const ONNX_RUNTIME_AT_RUN_TIME = '\n# ONNX Runtime (TrustMark) loaded at run time, if ever used, instead of downloaded at build time.\n' +
  'ort = { version = "=2.0.0-rc.8", features = ["load-dynamic"] }\n';

function packageDir(root = REPO_ROOT) {
  return path.join(root, 'node_modules', ...PACKAGE.split('/'));
}

function installedVersion(root = REPO_ROOT) {
  try {
    return JSON.parse(fs.readFileSync(path.join(packageDir(root), 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

function cachedBinary(version) {
  return path.join(binCacheDir(`c2pa-node-${version}`), 'index.node');
}

function sha256File(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** True when Node loads the binary and it answers as the binding does (a Builder from an empty definition). */
function loads(binary) {
  if (!fs.existsSync(binary)) return false;
  const probe = `const n = require(${JSON.stringify(binary)}); if (typeof n.builderNew !== 'function') process.exit(2);`;
  return capture(process.execPath, ['-e', probe]).status === 0;
}

/** Lays out the workspace: scripts/c2pa-node/ as its root, the package's crate as its member. */
function prepareBuildDir(buildDir, root = REPO_ROOT) {
  const member = path.join(buildDir, 'c2pa-node');
  fs.rmSync(member, { recursive: true, force: true });
  fs.mkdirSync(member, { recursive: true });
  fs.cpSync(path.join(packageDir(root), 'src'), path.join(member, 'src'), { recursive: true });
  const manifest = fs.readFileSync(path.join(packageDir(root), 'Cargo.toml'), 'utf8');
  fs.writeFileSync(path.join(member, 'Cargo.toml'), manifest.trimEnd() + '\n' + ONNX_RUNTIME_AT_RUN_TIME);
  for (const file of ['Cargo.toml', 'Cargo.lock']) fs.copyFileSync(path.join(WORKSPACE_DIR, file), path.join(buildDir, file));
  const noOnnxRuntime = path.join(buildDir, 'no-onnxruntime');
  fs.mkdirSync(noOnnxRuntime, { recursive: true });
  return noOnnxRuntime;
}

/** Builds the crate into the cache; returns the cached binary. Minutes of compiling, once per machine and version. */
function buildIntoCache(version, root) {
  const buildDir = path.join(cacheRoot(), 'build', `c2pa-node-${version}`);
  const noOnnxRuntime = prepareBuildDir(buildDir, root);
  const targetDir = path.join(buildDir, 'target');
  const args = ['build', '--release', '--locked', '--lib', '-p', 'c2pa-node'];
  const code = runVisible('cargo', args, {
    cwd: buildDir,
    env: {
      ...process.env,
      CARGO_TARGET_DIR: targetDir,
      CARGO_BUILD_JOBS: process.env.CARGO_BUILD_JOBS || '2',
      ORT_LIB_LOCATION: noOnnxRuntime,
    },
  });
  const built = path.join(targetDir, 'release', 'libc2pa_node.so');
  if (code !== 0 || !fs.existsSync(built)) {
    throw new SetupError(
      `building ${PACKAGE} ${version} with cargo failed (exit ${code})`,
      `check that crates.io is reachable, then run in ${buildDir}: ORT_LIB_LOCATION=${noOnnxRuntime} cargo ${args.join(' ')}`,
    );
  }
  const binary = cachedBinary(version);
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  fs.copyFileSync(built, `${binary}.tmp`);
  fs.renameSync(`${binary}.tmp`, binary);
  if (!loads(binary)) throw new SetupError(`the ${PACKAGE} binary built at ${binary} does not load`, `delete ${path.dirname(binary)} and run this again`);
  // The target directory holds gigabytes of intermediate files; the cached binary is all that is needed.
  fs.rmSync(buildDir, { recursive: true, force: true });
  return binary;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Runs `build` while holding `lockFile`, so that two bootstraps on one machine (two clones, or tests started side by
 * side) do not build into the same directory at once; a lock whose process is gone is taken over.
 */
function withBuildLock(lockFile, build) {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const holder = Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10);
      if (!Number.isInteger(holder) || !alive(holder)) fs.rmSync(lockFile, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000);
    }
  }
  try {
    return build();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/** Puts `binary` where the package loads its native part from, unless it is there already. */
function installBinary(binary, root = REPO_ROOT) {
  const target = path.join(packageDir(root), 'dist', 'index.node');
  if (fs.existsSync(target) && fs.statSync(target).size === fs.statSync(binary).size && sha256File(target) === sha256File(binary)) return false;
  fs.copyFileSync(binary, `${target}.tmp`);
  fs.renameSync(`${target}.tmp`, target);
  return true;
}

function packagedBinary(root = REPO_ROOT) {
  return path.join(packageDir(root), 'dist', 'index.node');
}

/** True when the binary is a cached build from source (an earlier GENMEDIA_C2PA_BUILD=1 bootstrap copied it in). */
function isCachedBuild(binary, version) {
  const cached = cachedBinary(version);
  return fs.existsSync(cached) && fs.statSync(cached).size === fs.statSync(binary).size && sha256File(cached) === sha256File(binary);
}

/** Builds (once per machine and version) and installs the binary from crates.io; returns its cached path. */
function ensureBuiltFromSource(report, version, root) {
  const name = `${PACKAGE} native part`;
  const binary = cachedBinary(version);
  if (loads(binary)) {
    const copied = installBinary(binary, root);
    report.cached(name, `${version} built from crates.io at ${binary}${copied ? ', installed into node_modules' : ''} (GENMEDIA_C2PA_BUILD=1)`);
    return binary;
  }
  if (!which('cargo')) throw new SetupError('GENMEDIA_C2PA_BUILD=1 asks for a cargo build, and cargo is not installed', 'install Rust (rustup), or unset GENMEDIA_C2PA_BUILD to use the npm package\'s binary');
  report.installing(name, `cargo build of ${PACKAGE} ${version} from crates.io into ${path.dirname(binary)} (once per machine; most of an hour)`);
  withBuildLock(path.join(cacheRoot(), 'build', `c2pa-node-${version}.lock`), () => {
    if (!loads(binary)) buildIntoCache(version, root); // unless another bootstrap built it while this one waited
  });
  installBinary(binary, root);
  report.installed(name, binary);
  return binary;
}

/**
 * Returns the path of the binary the package loads: the packaged one, or with GENMEDIA_C2PA_BUILD=1 one built from
 * crates.io. Needs node_modules installed.
 */
function ensureC2paNode(report, root = REPO_ROOT, env = process.env) {
  const version = installedVersion(root);
  if (version === null) throw new SetupError(`${PACKAGE} is not installed`, 'run npm ci');
  if (env.GENMEDIA_C2PA_BUILD === '1') return ensureBuiltFromSource(report, version, root);
  const packaged = packagedBinary(root);
  if (!loads(packaged)) {
    throw new SetupError(
      `the binary ${PACKAGE} ${version} ships (Linux x86-64, glibc 2.34 or later) does not load on this machine`,
      'run the bootstrap again with GENMEDIA_C2PA_BUILD=1 to build it from crates.io with cargo (most of an hour, once per machine)',
    );
  }
  const origin = isCachedBuild(packaged, version) ? 'built from crates.io by an earlier GENMEDIA_C2PA_BUILD=1 bootstrap' : "the npm package's prebuilt binary";
  report.cached(`${PACKAGE} native part`, `${version}, ${origin} (${packaged})`);
  return packaged;
}

module.exports = { ensureC2paNode, cachedBinary, loads, prepareBuildDir, installBinary, packagedBinary };

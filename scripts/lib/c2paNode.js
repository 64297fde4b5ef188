'use strict';
// The native part of @contentauth/c2pa-node (the C2PA reference implementation, the Rust `c2pa` crate), built from
// crates.io with cargo once per machine and version, cached outside the clone, and put in place of the package's own.
//
// The package's install script would download a prebuilt binary from GitHub, so package.json denies it
// (`allowScripts`): npm installs the package as published, with the Linux x86-64 binary its tarball carries. The
// bootstrap then builds the same crate from source with the workspace in scripts/c2pa-node/ (the crate and features
// the release was built with, and a lock file), and copies the result over the packaged binary. Without cargo, or with
// GENMEDIA_C2PA_PREBUILT=1, the packaged binary stays where it loads (Linux x86-64 with glibc 2.34 or later).

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

/** Returns the path of the binary the package loads. Needs node_modules installed. */
function ensureC2paNode(report, root = REPO_ROOT) {
  const version = installedVersion(root);
  if (version === null) throw new SetupError(`${PACKAGE} is not installed`, 'run npm ci');
  const name = `${PACKAGE} native part`;
  const binary = cachedBinary(version);
  if (loads(binary)) {
    const copied = installBinary(binary, root);
    report.cached(name, `${version} built from crates.io at ${binary}${copied ? ', installed into node_modules' : ''}`);
    return binary;
  }
  const packaged = path.join(packageDir(root), 'dist', 'index.node');
  if (process.env.GENMEDIA_C2PA_PREBUILT === '1' && loads(packaged)) {
    report.cached(name, `${version}, the npm package's prebuilt binary (GENMEDIA_C2PA_PREBUILT=1)`);
    return packaged;
  }
  if (!which('cargo')) {
    if (loads(packaged)) {
      report.missing(name, `cargo is not installed: using the npm package's prebuilt binary (${packaged})`);
      return packaged;
    }
    throw new SetupError(`${PACKAGE} ${version} has no binary for this machine and cargo is not installed`, 'install Rust (rustup) and run this again');
  }
  report.installing(name, `cargo build of ${PACKAGE} ${version} from crates.io into ${path.dirname(binary)} (once per machine; many minutes)`);
  withBuildLock(path.join(cacheRoot(), 'build', `c2pa-node-${version}.lock`), () => {
    if (!loads(binary)) buildIntoCache(version, root); // unless another bootstrap built it while this one waited
  });
  installBinary(binary, root);
  report.installed(name, binary);
  return binary;
}

module.exports = { ensureC2paNode, cachedBinary, loads, prepareBuildDir, installBinary };

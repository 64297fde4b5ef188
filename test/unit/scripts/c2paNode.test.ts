import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const { prepareBuildDir, installBinary, ensureC2paNode } = require('../../../scripts/lib/c2paNode') as {
  prepareBuildDir(buildDir: string, root?: string): string;
  installBinary(binary: string, root?: string): boolean;
  ensureC2paNode(report: Report, root?: string, env?: Record<string, string | undefined>): string;
};

interface Report {
  cached(name: string, detail: string): void;
  missing(name: string, detail: string): void;
  installing(name: string, detail: string): void;
  installed(name: string, detail: string): void;
}

/** A report that records what the bootstrap said. */
function recordingReport(): Report & { lines: string[] } {
  const lines: string[] = [];
  const record = (kind: string) => (name: string, detail: string) => lines.push(`${kind} ${name}: ${detail}`);
  return { lines, cached: record('cached'), missing: record('missing'), installing: record('installing'), installed: record('installed') };
}

const REPO_ROOT = path.resolve(__dirname, '../../..');
const PACKAGE_DIR = path.join(REPO_ROOT, 'node_modules/@contentauth/c2pa-node');

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'c2pa-node-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The crates a manifest's [dependencies] table names. */
function dependencyNames(manifest: string): string[] {
  const table = manifest.split(/^\[dependencies\]$/m)[1].split(/^\[/m)[0];
  return [...table.matchAll(/^([A-Za-z0-9_-]+)\s*=/gm)].map((m) => m[1]).sort();
}

/** The dependencies the lock file records for the c2pa-node crate, without their versions. */
function lockedDependencies(lock: string): string[] {
  const entry = lock.split('[[package]]').find((block) => /^name = "c2pa-node"$/m.test(block))!;
  return [...entry.matchAll(/^ "([^" ]+)/gm)].map((m) => m[1]).sort();
}

describe('the C2PA binding by default', () => {
  it('loads the Linux x86-64 binary the npm package ships, with no build', () => {
    const report = recordingReport();

    const binary = ensureC2paNode(report, REPO_ROOT, {});

    expect(binary).toBe(path.join(PACKAGE_DIR, 'dist/index.node'));
    expect(report.lines).toHaveLength(1);
    expect(report.lines[0]).toMatch(/^cached @contentauth\/c2pa-node native part: 0\.8\.0, /);
  });

  it('stops with a hint to build from source when the packaged binary does not load here', () => {
    const root = path.join(dir, 'root');
    const pkg = path.join(root, 'node_modules/@contentauth/c2pa-node');
    fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ version: '0.8.0' }));
    fs.writeFileSync(path.join(pkg, 'dist/index.node'), 'a binary for another machine');
    const report = recordingReport();

    expect(() => ensureC2paNode(report, root, {})).toThrow(/does not load on this machine[\s\S]*GENMEDIA_C2PA_BUILD=1/);
    expect(report.lines.filter((line) => line.startsWith('installing'))).toEqual([]);
  });
});

describe('the C2PA binding built from crates.io (GENMEDIA_C2PA_BUILD=1)', () => {
  it('lays out a workspace whose member is the npm package crate, with ONNX Runtime loaded at run time', () => {
    const noOnnxRuntime = prepareBuildDir(dir);

    expect(fs.readFileSync(path.join(dir, 'Cargo.lock'), 'utf8')).toBe(fs.readFileSync(path.join(REPO_ROOT, 'scripts/c2pa-node/Cargo.lock'), 'utf8'));
    expect(fs.readFileSync(path.join(dir, 'Cargo.toml'), 'utf8')).toContain('members = ["c2pa-node"]');
    const member = fs.readFileSync(path.join(dir, 'c2pa-node/Cargo.toml'), 'utf8');
    expect(member.startsWith(fs.readFileSync(path.join(PACKAGE_DIR, 'Cargo.toml'), 'utf8').trimEnd())).toBe(true);
    expect(member).toMatch(/^ort = \{ version = "=2\.0\.0-rc\.8", features = \["load-dynamic"\] \}$/m);
    expect(fs.readdirSync(path.join(dir, 'c2pa-node/src'))).toEqual(fs.readdirSync(path.join(PACKAGE_DIR, 'src')));
    expect(fs.statSync(noOnnxRuntime).isDirectory()).toBe(true);
  });

  it('has a lock file for the installed version of the package (cargo build --locked)', () => {
    prepareBuildDir(dir);
    const member = fs.readFileSync(path.join(dir, 'c2pa-node/Cargo.toml'), 'utf8');
    const lock = fs.readFileSync(path.join(dir, 'Cargo.lock'), 'utf8');
    const locked = lockedDependencies(lock).map((name) => name.split(' ')[0]);

    expect(locked).toEqual(dependencyNames(member));
    const pinned = /c2pa = \{ version = "=([^"]+)"/.exec(fs.readFileSync(path.join(dir, 'Cargo.toml'), 'utf8'))![1];
    expect(lock).toContain(`name = "c2pa"\nversion = "${pinned}"`);
  });

  it('copies a binary over the packaged one only when they differ', () => {
    const root = path.join(dir, 'root');
    const packaged = path.join(root, 'node_modules/@contentauth/c2pa-node/dist/index.node');
    fs.mkdirSync(path.dirname(packaged), { recursive: true });
    fs.writeFileSync(packaged, 'prebuilt');
    const built = path.join(dir, 'index.node');
    fs.writeFileSync(built, 'built from source');

    expect(installBinary(built, root)).toBe(true);
    expect(fs.readFileSync(packaged, 'utf8')).toBe('built from source');
    expect(installBinary(built, root)).toBe(false);
  });
});

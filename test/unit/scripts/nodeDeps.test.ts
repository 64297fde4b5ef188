import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const { nodeModulesState } = require('../../../scripts/lib/node-deps') as {
  nodeModulesState(root: string, nodeMajor?: number): { install: boolean; adopt?: boolean; hash: string; reason: string };
};

let root: string;

function write(relative: string, content: string, mtime?: Date): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtime) fs.utimesSync(file, mtime, mtime);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'node-deps-'));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** What the bootstrap records after `npm ci` on Node 24: the lock file's hash and the Node major. */
function stampInstall(hash: string, nodeMajor = 24): void {
  write('node_modules/.cache/genmedia/package-lock.sha256', `${hash}\n`);
  write('node_modules/.cache/genmedia/node-major', `${nodeMajor}\n`);
}

describe('deciding whether npm ci must run', () => {
  it('installs when node_modules is missing', () => {
    write('package-lock.json', '{"v":1}');
    expect(nodeModulesState(root)).toMatchObject({ install: true, reason: 'node_modules is missing' });
  });

  it('does nothing when the stored hash matches the lock file', () => {
    write('package-lock.json', '{"v":1}');
    stampInstall(nodeModulesState(root, 24).hash);
    expect(nodeModulesState(root, 24)).toMatchObject({ install: false, reason: 'up to date' });
  });

  it('installs when the lock file changed since the last install', () => {
    const old = new Date(Date.now() - 60_000);
    write('package-lock.json', '{"v":1}');
    stampInstall(nodeModulesState(root, 24).hash);
    write('node_modules/.package-lock.json', '{}', old);
    write('package-lock.json', '{"v":2}');
    expect(nodeModulesState(root, 24)).toMatchObject({ install: true, reason: 'package-lock.json changed since the last install' });
  });

  it('adopts node_modules that npm itself installed from the current lock file', () => {
    write('package-lock.json', '{"v":1}', new Date(Date.now() - 60_000));
    stampInstall('an older lock file');
    write('node_modules/.package-lock.json', '{}');
    expect(nodeModulesState(root, 24)).toMatchObject({ install: false, adopt: true });
  });

  it('installs again under another Node major, even when npm installed the current lock file', () => {
    write('package-lock.json', '{"v":1}', new Date(Date.now() - 60_000));
    stampInstall(nodeModulesState(root, 24).hash, 20);
    write('node_modules/.package-lock.json', '{}');
    expect(nodeModulesState(root, 24)).toMatchObject({ install: true, reason: 'node_modules was installed under Node 20, this is Node 24' });
  });

  it('installs again when the Node major of the install was not recorded', () => {
    write('package-lock.json', '{"v":1}', new Date(Date.now() - 60_000));
    write('node_modules/.cache/genmedia/package-lock.sha256', `${nodeModulesState(root, 24).hash}\n`);
    write('node_modules/.package-lock.json', '{}');
    expect(nodeModulesState(root, 24)).toMatchObject({ install: true, reason: 'node_modules was installed under an unrecorded Node, this is Node 24' });
  });
});

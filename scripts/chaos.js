'use strict';
// `npm run chaos`: bootstrap, then chaos/run.ts, which builds its own stack (it must restart parts of it). The
// default topology is the production one of `npm run cluster`, whose Temporal server the bootstrap builds once.

const path = require('node:path');
const { spawn } = require('node:child_process');
const { bootstrap } = require('./lib/bootstrap');
const { REPO_ROOT } = require('./lib/paths');

function chaos(args) {
  const topology = args.includes('--topology') ? args[args.indexOf('--topology') + 1] : 'cluster';
  const binaries = bootstrap({ managedPostgres: true, withCluster: topology === 'cluster' });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('chaos', 'run.ts'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, CHAOS_BINARIES: JSON.stringify(binaries) },
      stdio: 'inherit',
    });
    child.on('close', (code) => resolve(code === null ? 1 : code));
  });
}

module.exports = { chaos };

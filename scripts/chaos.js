'use strict';
// `npm run chaos`: bootstrap, then chaos/run.ts, which builds its own stack (it must restart parts of it).

const path = require('node:path');
const { spawn } = require('node:child_process');
const { bootstrap } = require('./lib/bootstrap');
const { REPO_ROOT } = require('./lib/paths');

function chaos(args) {
  const binaries = bootstrap({ managedPostgres: true });
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

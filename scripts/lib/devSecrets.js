'use strict';
// Secrets the dev stack makes for itself on first start and keeps in its data directory, so that what they protect
// survives a restart: the key destination secrets are encrypted with (DESTINATION_SECRET_KEY).

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const DESTINATION_KEY_FILE = 'destination-secret-key';

/** DESTINATION_SECRET_KEY from the environment, else the data directory's, generated there (mode 0600) when missing. */
function destinationSecretKey(dataDir, env = process.env) {
  if (env.DESTINATION_SECRET_KEY) return env.DESTINATION_SECRET_KEY;
  const file = path.join(dataDir, DESTINATION_KEY_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const key = crypto.randomBytes(32).toString('base64');
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

module.exports = { destinationSecretKey, DESTINATION_KEY_FILE };

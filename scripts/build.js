#!/usr/bin/env node
'use strict';
// `npm run build`: dist/ from scratch (see scripts/lib/build.js). Needs node_modules only (`npm ci`), none of the
// services, so the Dockerfile runs it as it is.

const log = require('./lib/log');
const { build } = require('./lib/build');

build().catch((err) => {
  log.error(err.message);
  process.exit(1);
});

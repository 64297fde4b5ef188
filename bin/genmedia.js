#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI directly; no build step. The repository's tsconfig.json (its `paths` name the SDK in
// clients/typescript) applies from whatever directory the command is run in.
const path = require('node:path');
process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '..', 'tsconfig.json');
require('tsx/cjs');
require('../src/cli/main.ts');

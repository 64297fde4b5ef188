#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI directly; no build step.
require('tsx/cjs');
require('../src/cli/main.ts');

'use strict';
// promtool, only to check the Prometheus configuration and alerting rules in the tests (and unit-test the rules):
// built from the pinned Prometheus module with `go install` once and cached.

const path = require('node:path');
const { binCacheDir } = require('./paths');
const { ensureGoBinary } = require('./goInstall');

const MODULE = 'github.com/prometheus/prometheus';
const VERSION = 'v0.316.0';

function ensurePromtool(report) {
  return ensureGoBinary(report, {
    name: 'promtool',
    module: MODULE,
    pkg: `${MODULE}/cmd/promtool`,
    version: VERSION,
    binary: path.join(binCacheDir(`promtool-${VERSION}`), 'promtool'),
    probeArgs: ['--version'],
  });
}

module.exports = { VERSION, ensurePromtool };

'use strict';
// kubeconform, only to validate the chart's rendered manifests against the schemas of kubeSchemas.js in the tests:
// built from its pinned module with `go install` once and cached.

const path = require('node:path');
const { binCacheDir } = require('./paths');
const { ensureGoBinary } = require('./goInstall');

const MODULE = 'github.com/yannh/kubeconform';
const VERSION = 'v0.8.0';

function ensureKubeconform(report) {
  return ensureGoBinary(report, {
    name: 'kubeconform',
    module: MODULE,
    pkg: `${MODULE}/cmd/kubeconform`,
    version: VERSION,
    binary: path.join(binCacheDir(`kubeconform-${VERSION}`), 'kubeconform'),
    probeArgs: ['-v'],
  });
}

module.exports = { MODULE, VERSION, ensureKubeconform };

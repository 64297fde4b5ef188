'use strict';
// Helm 3 and Helm 4, only to lint and render the chart of deploy/helm in the tests: each built from its pinned module
// with `go install` once and cached. The chart must install with both.

const path = require('node:path');
const { binCacheDir } = require('./paths');
const { ensureGoBinary } = require('./goInstall');

const RELEASES = {
  helm3: { module: 'helm.sh/helm/v3', version: 'v3.22.0' },
  helm4: { module: 'helm.sh/helm/v4', version: 'v4.3.2' },
};

function ensureHelm(report, which) {
  const { module, version } = RELEASES[which];
  return ensureGoBinary(report, {
    name: which,
    module,
    pkg: `${module}/cmd/helm`,
    version,
    binary: path.join(binCacheDir(`helm-${version}`), 'helm'),
    probeArgs: ['version', '--short'],
  });
}

module.exports = { RELEASES, ensureHelm };

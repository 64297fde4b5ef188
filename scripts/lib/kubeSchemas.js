'use strict';
// The JSON schemas kubeconform validates the chart's manifests against, made once per machine from published sources
// and cached: the pinned Kubernetes release's OpenAPI document (in the k8s.io/kubernetes Go module) converted by
// openapi2jsonschema2 (PyPI), and the CRDs of KEDA and the Prometheus Operator (in their Go modules) converted by
// kubeconform's own openapi2jsonschema.py (in its module). kubeconform finds them with the locations of `locations`.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');
const kubeconform = require('./kubeconform');

const KUBERNETES = { module: 'k8s.io/kubernetes', version: 'v1.35.4' };
const KEDA = {
  module: 'github.com/kedacore/keda/v2',
  version: 'v2.20.2',
  group: 'keda.sh',
  crdDir: 'config/crd/bases',
  crds: ['keda.sh_scaledobjects.yaml', 'keda.sh_triggerauthentications.yaml'],
};
const PROMETHEUS_OPERATOR = {
  module: 'github.com/prometheus-operator/prometheus-operator',
  version: 'v0.85.0',
  group: 'monitoring.coreos.com',
  crdDir: 'example/prometheus-operator-crd',
  crds: ['monitoring.coreos.com_servicemonitors.yaml', 'monitoring.coreos.com_prometheusrules.yaml'],
};
const CONVERTER = { pkg: 'openapi2jsonschema2', version: '1.1.37' };

const DIR = binCacheDir(`kube-schemas-${KUBERNETES.version}-keda-${KEDA.version}-prometheus-operator-${PROMETHEUS_OPERATOR.version}`);
const DONE = path.join(DIR, '.complete');
/** kubeconform's own naming of a Kubernetes release's strict, dereferenced schemas. */
const KUBERNETES_DIR = path.join(DIR, 'kubernetes', `${KUBERNETES.version}-standalone-strict`);
const CRD_DIR = path.join(DIR, 'crds');

/** kubeconform -schema-location values: the Kubernetes schemas, then the CRDs by group, kind and version. */
function locations(dir = DIR) {
  return [
    path.join(dir, 'kubernetes', '{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}', '{{ .ResourceKind }}{{ .KindSuffix }}.json'),
    path.join(dir, 'crds', '{{ .Group }}', '{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'),
  ];
}

function run(command, args, options, what) {
  const result = capture(command, args, options);
  if (result.status !== 0) {
    throw new SetupError(`${what} failed:\n${(result.stderr || result.stdout).trim().split('\n').slice(-10).join('\n')}`, `run: ${command} ${args.join(' ')}`);
  }
  return result.stdout;
}

/** The directory of a module version in Go's module cache, downloaded from the module proxy when missing. */
function moduleDir(go, { module, version }) {
  // The module's own go line may ask for a newer Go than this one; its files are all that is read here.
  const out = run(go, ['mod', 'download', '-json', `${module}@${version}`], { env: { ...process.env, GOFLAGS: '-mod=mod' } }, `go mod download ${module}@${version}`);
  const { Dir: dir } = JSON.parse(out);
  if (!dir || !fs.existsSync(dir)) throw new SetupError(`go mod download ${module}@${version} gave no directory`, 'check that the Go module proxy is reachable');
  return dir;
}

function makeConverter(report, venv) {
  const python = which('python3');
  if (!python) throw new SetupError('the schema converters need python3', 'install python3 (with the venv module)');
  report.installing('openapi2jsonschema2', `${CONVERTER.pkg} ${CONVERTER.version} from PyPI into ${venv}`);
  fs.rmSync(venv, { recursive: true, force: true });
  run(python, ['-m', 'venv', venv], {}, 'python3 -m venv');
  run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `${CONVERTER.pkg}==${CONVERTER.version}`], {}, `pip install ${CONVERTER.pkg}`);
  return { python: path.join(venv, 'bin', 'python'), openapi2jsonschema: path.join(venv, 'bin', CONVERTER.pkg) };
}

/** Returns the schema locations for kubeconform, making the schemas first when this machine has none. */
function ensureKubeSchemas(report) {
  if (fs.existsSync(DONE)) {
    report.cached('kubernetes schemas', `Kubernetes ${KUBERNETES.version}, KEDA ${KEDA.version}, Prometheus Operator ${PROMETHEUS_OPERATOR.version} at ${DIR}`);
    return locations();
  }
  const go = which('go');
  if (!go) throw new SetupError('the Kubernetes schemas are made from Go modules and Go is not installed', 'install Go 1.24+, then run this again');
  report.installing('kubernetes schemas', `Kubernetes ${KUBERNETES.version}, KEDA ${KEDA.version}, Prometheus Operator ${PROMETHEUS_OPERATOR.version} into ${DIR}`);
  fs.rmSync(DIR, { recursive: true, force: true });
  const converter = makeConverter(report, path.join(DIR, 'venv'));

  const swagger = path.join(moduleDir(go, KUBERNETES), 'api', 'openapi-spec', 'swagger.json');
  fs.mkdirSync(KUBERNETES_DIR, { recursive: true });
  // Relative to its working directory: it resolves the references of the schemas it writes against that.
  run(converter.openapi2jsonschema, ['--kubernetes', '--expanded', '--stand-alone', '--strict', '-o', path.basename(KUBERNETES_DIR), swagger], {
    cwd: path.dirname(KUBERNETES_DIR),
  }, 'openapi2jsonschema2');

  const crdScript = path.join(moduleDir(go, { module: kubeconform.MODULE, version: kubeconform.VERSION }), 'scripts', 'openapi2jsonschema.py');
  for (const source of [KEDA, PROMETHEUS_OPERATOR]) {
    const base = path.join(moduleDir(go, source), source.crdDir);
    // The script writes into its working directory: one per API group.
    const out = path.join(CRD_DIR, source.group);
    fs.mkdirSync(out, { recursive: true });
    run(converter.python, [crdScript, ...source.crds.map((crd) => path.join(base, crd))], {
      cwd: out,
      env: { ...process.env, FILENAME_FORMAT: '{kind}_{version}', DENY_ROOT_ADDITIONAL_PROPERTIES: '1' },
    }, `openapi2jsonschema.py for ${source.module}`);
  }
  fs.writeFileSync(DONE, `${new Date().toISOString()}\n`);
  report.installed('kubernetes schemas', DIR);
  return locations();
}

module.exports = { KUBERNETES, KEDA, PROMETHEUS_OPERATOR, CONVERTER, ensureKubeSchemas, locations };

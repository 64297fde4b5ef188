import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const { WORKFLOW_WORKER_NODE_OPTIONS, API_NODE_OPTIONS } = require('../../../scripts/lib/app') as { WORKFLOW_WORKER_NODE_OPTIONS: string[]; API_NODE_OPTIONS: string[] };

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | null;
  healthcheck?: { test?: string[] };
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  volumes?: { source?: string; target: string }[];
  environment?: Record<string, string>;
  ports?: { target: number; published?: string; host_ip?: string }[];
  profiles?: string[];
  networks?: Record<string, unknown>;
}
interface ComposeConfig {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { internal?: boolean }>;
}

const hasDocker = spawnSync('docker', ['--version']).status === 0;

/** `docker compose` when the plugin is there, otherwise the standalone binary `npm test` bootstrapped. */
function composeCommand(): [string, string[]] {
  if (spawnSync('docker', ['compose', 'version']).status === 0) return ['docker', ['compose']];
  const standalone = process.env.DOCKER_COMPOSE_CLI;
  if (!standalone) throw new Error('the docker client has no compose plugin and DOCKER_COMPOSE_CLI is not set (run through npm test)');
  return [standalone, []];
}

const UPSTREAM_ADAPTERS = ['fal', 'replicate', 'runway', 'google', 'openai'];

function catalogProviders(): { id: string; isActive?: boolean; adapter?: string }[] {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'catalog', 'providers.json'), 'utf8'));
}

/** Providers that run jobs: active, and not a maker (whose models run on their routes' providers). */
function activeProviderIds(): string[] {
  return catalogProviders().filter((p) => p.isActive !== false && p.adapter !== 'maker').map((p) => p.id);
}

/** Providers on a real upstream: their workers sit in a profile named after the provider. */
function upstreamProviderIds(): string[] {
  return catalogProviders().filter((p) => UPSTREAM_ADAPTERS.includes(p.adapter ?? '')).map((p) => p.id);
}

describe.skipIf(!hasDocker)('docker-compose.yml', () => {
  if (!hasDocker) console.warn('compose test skipped: no docker client on this machine');

  const [command, prefix] = hasDocker ? composeCommand() : ['', []];
  const secrets = {
    JOBS_CURSOR_SECRET: 'cursor-secret-for-the-compose-test',
    DESTINATION_SECRET_KEY: 'ZGVzdGluYXRpb24ta2V5LWZvci1jb21wb3NlLXRlc3Q=',
    MINIO_ROOT_PASSWORD: 'minio-password-for-the-compose-test',
    MINIO_APP_PASSWORD: 'minio-app-password-for-the-compose-test',
    GRAFANA_ADMIN_PASSWORD: 'grafana-password-for-the-compose-test',
    POSTGRES_PASSWORD: 'postgrespasswordforthecomposetest',
    POSTGRES_OWNER_PASSWORD: 'ownerpasswordforthecomposetest',
    POSTGRES_APP_PASSWORD: 'apppasswordforthecomposetest',
    POSTGRES_TEMPORAL_PASSWORD: 'temporalpasswordforthecomposetest',
    JAEGER_UI_PASSWORD: 'jaeger-password-for-the-compose-test',
  };
  // Every profile: the real upstreams' workers and the Cog server on this host.
  const profiles = [...upstreamProviderIds(), 'cog'];
  const composeConfig = (env: NodeJS.ProcessEnv) =>
    spawnSync(command, [...prefix, '-f', 'docker-compose.yml', ...profiles.flatMap((id) => ['--profile', id]), 'config', '--format', 'json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env,
    });
  const run = hasDocker ? composeConfig({ ...process.env, ...secrets }) : null;

  it('is valid for docker compose', () => {
    expect(run!.status, run!.stderr).toBe(0);
  });

  it('refuses to be configured without its secrets', () => {
    const withoutSecrets = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in secrets)));
    const refused = composeConfig(withoutSecrets);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(new RegExp(Object.keys(secrets).join('|')));
    // Each secret alone missing is refused too: none has a built-in default.
    for (const name of Object.keys(secrets)) {
      const without = composeConfig({ ...process.env, ...secrets, [name]: undefined });
      expect(without.status, name).not.toBe(0);
      expect(without.stderr).toMatch(new RegExp(`\\b${name}\\b`));
    }
    const { services } = config();
    expect(services.api.environment?.JOBS_CURSOR_SECRET).toBe(secrets.JOBS_CURSOR_SECRET);
    expect(services.minio.environment?.MINIO_ROOT_PASSWORD).toBe(secrets.MINIO_ROOT_PASSWORD);
    expect(services.postgres.environment?.POSTGRES_PASSWORD).toBe(secrets.POSTGRES_PASSWORD);
    expect(services['jaeger-ui'].environment?.JAEGER_UI_PASSWORD).toBe(secrets.JAEGER_UI_PASSWORD);
  });

  it('gives the migrations, the application and Temporal each a database role of its own, none the superuser', () => {
    const { services } = config();
    const postgres = services.postgres;
    expect(postgres.environment).toMatchObject({
      POSTGRES_USER: 'postgres',
      POSTGRES_DB: 'genmedia',
      POSTGRES_OWNER_PASSWORD: secrets.POSTGRES_OWNER_PASSWORD,
      POSTGRES_APP_PASSWORD: secrets.POSTGRES_APP_PASSWORD,
      POSTGRES_TEMPORAL_PASSWORD: secrets.POSTGRES_TEMPORAL_PASSWORD,
    });
    // The init script runs once on an empty volume and applies roles.sql where it looks for it (test/integration/db/
    // roles.test.ts applies the same file to a real PostgreSQL).
    const mounts = (postgres.volumes ?? []).map((v) => `${path.relative(REPO_ROOT, v.source ?? '')}:${v.target}`);
    expect(mounts).toContain('deploy/postgres/init-roles.sh:/docker-entrypoint-initdb.d/10-genmedia-roles.sh');
    const sqlMount = mounts.find((m) => m.startsWith('deploy/postgres/roles.sql:'));
    expect(sqlMount).toBeDefined();
    const initScript = fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'postgres', 'init-roles.sh'), 'utf8');
    expect(initScript).toContain(`-f ${sqlMount!.split(':')[1]}`);
    expect(initScript).toMatch(/-v owner_role=genmedia_owner\b/);
    expect(initScript).toMatch(/-v app_role=genmedia_app\b/);
    expect(initScript).toMatch(/-v temporal_role=temporal\b/);

    // Only the one-shot migrate service logs in as the schema's owner; every other service is the application's role.
    const withDatabase = Object.entries(services).filter(([, s]) => s.environment?.DATABASE_URL !== undefined);
    expect(withDatabase.map(([name]) => name)).toEqual(expect.arrayContaining(['api', 'migrate', 'worker-workflows', 'worker-pixelforge', 'worker-cog']));
    for (const [name, service] of withDatabase) {
      const expected = name === 'migrate' ? `genmedia_owner:${secrets.POSTGRES_OWNER_PASSWORD}` : `genmedia_app:${secrets.POSTGRES_APP_PASSWORD}`;
      expect(service.environment!.DATABASE_URL, name).toBe(`postgresql://${expected}@postgres:5432/genmedia`);
    }
    // Temporal logs in as its own role into the databases the init script gave it.
    expect(services.temporal.environment).toMatchObject({
      POSTGRES_USER: 'temporal',
      POSTGRES_PWD: secrets.POSTGRES_TEMPORAL_PASSWORD,
      SKIP_DB_CREATE: 'true',
    });
    // The superuser's password is the image's alone.
    for (const [name, service] of Object.entries(services)) {
      if (name === 'postgres') continue;
      expect(Object.values(service.environment ?? {}).join(' '), name).not.toContain(secrets.POSTGRES_PASSWORD);
    }
  });

  const config = (): ComposeConfig => JSON.parse(run!.stdout) as ComposeConfig;

  it('has the infrastructure with health checks and persistent volumes', () => {
    const { services, volumes } = config();
    for (const name of ['postgres', 'temporal', 'temporal-ui', 'minio']) {
      expect(services[name], name).toBeDefined();
      expect(services[name].healthcheck?.test, `${name} health check`).toBeTruthy();
    }
    expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:/);
    expect(services.temporal.environment?.DB).toMatch(/^postgres/);
    expect(services.postgres.volumes?.map((v) => v.source)).toContain('postgres-data');
    expect(services.minio.volumes?.map((v) => v.source)).toContain('minio-data');
    expect(Object.keys(volumes ?? {})).toEqual(expect.arrayContaining(['postgres-data', 'minio-data']));
  });

  it('runs the API and the workflow worker from the image, after migrations and healthy dependencies', () => {
    const { services } = config();
    expect(services.api.build).toBeDefined();
    // Each with the V8 options every other start of it gives it (scripts/lib/app.js).
    expect(services.api.command).toEqual(['node', ...API_NODE_OPTIONS, 'dist/src/api/server.js']);
    expect(services.api.healthcheck?.test?.join(' ')).toContain('/readyz');
    expect(services.api.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(services.api.depends_on?.postgres?.condition).toBe('service_healthy');
    // With the V8 options every other start of the workflow worker gives it (scripts/lib/app.js).
    expect(services['worker-workflows'].command).toEqual(['node', ...WORKFLOW_WORKER_NODE_OPTIONS, 'dist/src/workers/main.js', '--workflows']);
  });

  it('runs the built JavaScript of the image with plain node, never tsx, from files the build makes', () => {
    const { services } = config();
    const application = Object.entries(services).filter(([, s]) => s.build !== undefined);
    for (const [name, service] of application) {
      const command = (service.command ?? []).join(' ');
      expect(command, name).not.toMatch(/tsx|\.ts\b/);
      // Each dist/….js named is the build of a source file here (tsconfig.build.json keeps the layout).
      for (const built of command.match(/dist\/\S+\.js/g) ?? []) {
        const source = built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
        expect(fs.existsSync(path.join(REPO_ROOT, source)), `${name}: ${built} from ${source}`).toBe(true);
      }
    }
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toContain(`CMD ${JSON.stringify(['node', ...API_NODE_OPTIONS, 'dist/src/api/server.js']).replaceAll('","', '", "')}`);
  });

  it('runs Prometheus with the rules, Grafana with the provisioned dashboard, and Jaeger for traces', () => {
    const { services } = config();
    const mounts = (name: string) => (services[name].volumes ?? []).map((v) => `${path.relative(REPO_ROOT, v.source ?? '')}:${v.target}`);
    expect(mounts('prometheus')).toEqual(
      expect.arrayContaining(['deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml', 'deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml']),
    );
    expect(mounts('grafana')).toEqual(
      expect.arrayContaining(['deploy/grafana/provisioning:/etc/grafana/provisioning', 'deploy/grafana/dashboards:/var/lib/grafana/dashboards']),
    );
    expect(services.grafana.environment?.GF_SECURITY_ADMIN_PASSWORD).toBe(secrets.GRAFANA_ADMIN_PASSWORD);
    expect(services.jaeger.image).toMatch(/^jaegertracing\/jaeger:/);
    expect(services['jaeger-ui'].image).toMatch(/^caddy:/);
    // The API and the workers serve /metrics to Prometheus on an unpublished port; every service exports traces to Jaeger.
    expect(services['worker-workflows'].environment).toMatchObject({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9464' });
    expect(services.api.environment).toMatchObject({ NODE_ENV: 'production', METRICS_HOST: '0.0.0.0', METRICS_PORT: '9464' });
    expect((services.api.ports ?? []).map((p) => p.target)).toEqual([3000]);
    expect(services.api.environment?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
  });

  it('runs every application service, and the image, with NODE_ENV=production (no failure injection, no development secrets)', () => {
    const { services } = config();
    const application = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(application.map(([name]) => name)).toEqual(expect.arrayContaining(['api', 'migrate', 'worker-workflows', 'worker-pixelforge']));
    for (const [name, service] of application) expect(service.environment?.NODE_ENV, name).toBe('production');
    expect(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENV NODE_ENV=production$/m);
  });

  it('gives the signing key to the provider workers alone, which sign, and its chain to every application service', () => {
    const signing = { PROVENANCE_CERT_CHAIN: 'chain-pem-for-the-compose-test', PROVENANCE_PRIVATE_KEY: 'key-pem-for-the-compose-test' };
    const withKey = composeConfig({ ...process.env, ...secrets, ...signing });
    expect(withKey.status, withKey.stderr).toBe(0);
    const { services } = JSON.parse(withKey.stdout) as ComposeConfig;
    const application = Object.entries(services).filter(([, s]) => s.build !== undefined);
    for (const [name, service] of application) expect(service.environment?.PROVENANCE_CERT_CHAIN, name).toBe(signing.PROVENANCE_CERT_CHAIN);
    const signers = application.filter(([, s]) => (s.command ?? []).some((arg) => arg === '--provider' || arg === '--cog-providers')).map(([name]) => name);
    expect(signers).toEqual(expect.arrayContaining(['worker-pixelforge', 'worker-cog', 'worker-replicate']));
    const holders = Object.entries(services)
      .filter(([, s]) => JSON.stringify(s).includes(signing.PROVENANCE_PRIVATE_KEY))
      .map(([name]) => name);
    expect(holders.sort()).toEqual(signers.sort());
    for (const name of signers) expect(services[name].environment?.PROVENANCE_PRIVATE_KEY, name).toBe(signing.PROVENANCE_PRIVATE_KEY);
    for (const name of ['api', 'worker-workflows', 'migrate']) expect(Object.keys(services[name].environment ?? {}), name).not.toContain('PROVENANCE_PRIVATE_KEY');
  });

  it('has a replicated worker service for every active provider in the catalog', () => {
    const { services } = config();
    for (const id of activeProviderIds()) {
      const worker = services[`worker-${id}`];
      expect(worker, `worker-${id}`).toBeDefined();
      expect(worker.command).toEqual(expect.arrayContaining(['--provider', id]));
      expect(worker.deploy?.replicas).toBeGreaterThanOrEqual(1);
      expect(worker.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
      if (upstreamProviderIds().includes(id)) expect(worker.profiles, `worker-${id} profile`).toEqual([id]);
    }
    // Self-hosted Cog providers are imported at run time: one service serves them all.
    expect(services['worker-cog'].command).toEqual(['node', 'dist/src/workers/main.js', '--cog-providers']);
    expect(services['worker-cog'].profiles).toBeUndefined();
  });

  it('publishes nothing on all interfaces, and gives the application its own MinIO user and endpoints', () => {
    const { services } = config();
    const published = Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((p) => ({ name, ...p })));
    expect(published.map((p) => `${p.name}:${p.target}`).sort()).toEqual([
      'api:3000',
      'grafana:3000',
      'jaeger-ui:16686',
      'minio:9000',
      'minio:9001',
      'prometheus:9090',
      'temporal-ui:8080',
    ]);
    for (const port of published) expect(port.host_ip, `${port.name}:${port.target}`).toBe('127.0.0.1');
    for (const name of ['postgres', 'temporal']) expect(services[name].ports ?? []).toEqual([]);

    const env = services.api.environment ?? {};
    expect(env.MINIO_ENDPOINT).toBe('http://minio:9000');
    expect(env.MINIO_PUBLIC_ENDPOINT).toBe('http://localhost:9000');
    expect(env.MINIO_ACCESS_KEY).toBe('genmedia-app');
    expect(env.MINIO_SECRET_KEY).toBe(secrets.MINIO_APP_PASSWORD);
    expect(env.MINIO_ROOT_PASSWORD).toBeUndefined();
    const setup = services['minio-setup'];
    expect(setup.command?.join('\n')).toMatch(/mc admin user add root genmedia-app/);
    // The application user's policy (checked against a real MinIO in test/integration/storage/appPolicy.test.ts).
    expect(setup.volumes?.map((v) => `${path.relative(REPO_ROOT, v.source ?? '')}:${v.target}`)).toContain(
      'deploy/minio/genmedia-app-policy.json:/etc/genmedia/genmedia-app-policy.json',
    );
    expect(setup.command?.join('\n')).toMatch(/mc admin policy create root genmedia-app \/etc\/genmedia\/genmedia-app-policy\.json/);
    expect(services.api.depends_on?.['minio-setup']?.condition).toBe('service_completed_successfully');
    expect(services['worker-pixelforge'].depends_on?.['minio-setup']?.condition).toBe('service_completed_successfully');
  });

  const networksOf = (service: ComposeService) => Object.keys(service.networks ?? {}).sort();
  const internal = (name: string) => config().networks?.[name]?.internal === true;
  const sharesNetwork = (a: ComposeService, b: ComposeService) => networksOf(a).some((n) => networksOf(b).includes(n));

  it('publishes Jaeger only through a login, and receives traces on an internal network', () => {
    const { services } = config();
    const jaeger = services.jaeger;
    expect(jaeger.ports ?? []).toEqual([]);
    expect(networksOf(jaeger)).toEqual(['telemetry']);
    expect(internal('telemetry')).toBe(true);

    const front = services['jaeger-ui'];
    expect((front.ports ?? []).map((p) => `${p.host_ip}:${p.published}:${p.target}`)).toEqual(['127.0.0.1:16686:16686']);
    expect(sharesNetwork(front, jaeger)).toBe(true);
    expect(front.depends_on?.jaeger?.condition).toBe('service_healthy');
    const mounts = (front.volumes ?? []).map((v) => `${path.relative(REPO_ROOT, v.source ?? '')}:${v.target}`);
    expect(mounts).toContain('deploy/jaeger/Caddyfile:/etc/caddy/Caddyfile');
    const caddyfile = fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'jaeger', 'Caddyfile'), 'utf8');
    // Every request is asked for the password (one site, basic_auth before the proxy), and the hash comes from the
    // password compose requires.
    expect(caddyfile).toMatch(/^:16686 \{\s*basic_auth \{\s*operator \{\$JAEGER_UI_PASSWORD_HASH\}\s*\}\s*reverse_proxy jaeger:16686\s*\}/m);
    expect(front.command?.join('\n')).toMatch(/JAEGER_UI_PASSWORD_HASH="\$\$\(caddy hash-password --plaintext "\$\$JAEGER_UI_PASSWORD"\)"/);
    expect(front.healthcheck?.test?.join(' ')).toContain('401 Unauthorized');

    // Every service that exports traces reaches Jaeger's OTLP receiver.
    const exporters = Object.entries(services).filter(([, s]) => s.environment?.OTEL_EXPORTER_OTLP_ENDPOINT === 'http://jaeger:4318');
    expect(exporters.map(([name]) => name)).toEqual(expect.arrayContaining(['api', 'worker-workflows', 'worker-cog']));
    for (const [name, service] of exporters) {
      if (name !== 'migrate') expect(sharesNetwork(service, jaeger), name).toBe(true);
    }
  });

  it('keeps Cog servers off the data network: only worker-cog and the API are on both', () => {
    const { services } = config();
    expect(internal('data')).toBe(true);
    for (const name of ['postgres', 'temporal', 'minio']) {
      expect(networksOf(services[name]!), name).toContain('data');
      expect(networksOf(services[name]!), name).not.toContain('cog');
    }
    expect(networksOf(services['worker-cog']!)).toEqual(expect.arrayContaining(['data', 'cog']));
    expect(services['cog-server']!.profiles).toEqual(['cog']);
    expect(networksOf(services['cog-server']!)).toEqual(['cog']);
    const onCog = Object.entries(services).filter(([, s]) => networksOf(s).includes('cog')).map(([name]) => name);
    expect(onCog.sort()).toEqual(['api', 'cog-server', 'worker-cog']);
    // Nothing else on the cog network shares a network with PostgreSQL, MinIO or Temporal.
    for (const name of onCog.filter((n) => n !== 'api' && n !== 'worker-cog')) {
      for (const data of ['postgres', 'temporal', 'minio']) expect(sharesNetwork(services[name]!, services[data]!), `${name} and ${data}`).toBe(false);
    }
    // Cog servers on this host post their webhooks to the API over that network.
    expect(services['worker-cog']!.environment?.COG_CALLBACK_BASE_URL).toBe('http://api:3000');
  });

  it('connects every service to what it talks to, and publishes ports only from a network with a way out', () => {
    const { services } = config();
    const application = Object.entries(services).filter(([, s]) => s.build !== undefined);
    for (const [name, service] of application) {
      for (const data of ['postgres', 'temporal', 'minio']) expect(sharesNetwork(service, services[data]!), `${name} and ${data}`).toBe(true);
    }
    for (const [from, to] of [['temporal', 'postgres'], ['temporal-setup', 'temporal'], ['temporal-ui', 'temporal'], ['minio-setup', 'minio'], ['grafana', 'prometheus']]) {
      expect(sharesNetwork(services[from]!, services[to]!), `${from} and ${to}`).toBe(true);
    }
    // Prometheus scrapes every service its configuration names.
    const scrape = parse(fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { dns_sd_configs?: { names: string[] }[] }[];
    };
    const targets = scrape.scrape_configs.flatMap((job) => (job.dns_sd_configs ?? []).flatMap((sd) => sd.names));
    expect(targets).toEqual(expect.arrayContaining(['api', 'worker-workflows', 'worker-cog']));
    for (const target of targets) expect(sharesNetwork(services.prometheus!, services[target]!), `prometheus and ${target}`).toBe(true);
    for (const [name, service] of Object.entries(services)) {
      if ((service.ports ?? []).length > 0) expect(networksOf(service).some((n) => !internal(n)), name).toBe(true);
    }
  });

  it('builds the image with every npm workspace in place before npm ci', () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const workspaces = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    const npmCi = dockerfile.search(/^RUN (?:\w+=\S+ )*npm ci/m);
    expect(npmCi).toBeGreaterThan(0);
    for (const workspace of workspaces) {
      const copy = dockerfile.indexOf(`COPY ${workspace}/package.json ${workspace}/`);
      expect(copy, workspace).toBeGreaterThan(0);
      expect(copy, workspace).toBeLessThan(npmCi);
    }
  });
});

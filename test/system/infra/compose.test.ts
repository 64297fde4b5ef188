import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const { WORKFLOW_WORKER_NODE_OPTIONS } = require('../../../scripts/lib/app') as { WORKFLOW_WORKER_NODE_OPTIONS: string[] };

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
}
interface ComposeConfig {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
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
    MINIO_ROOT_PASSWORD: 'minio-password-for-the-compose-test',
    MINIO_APP_PASSWORD: 'minio-app-password-for-the-compose-test',
    GRAFANA_ADMIN_PASSWORD: 'grafana-password-for-the-compose-test',
    POSTGRES_PASSWORD: 'postgrespasswordforthecomposetest',
  };
  const composeConfig = (env: NodeJS.ProcessEnv) =>
    spawnSync(
      command,
      [...prefix, '-f', 'docker-compose.yml', ...upstreamProviderIds().flatMap((id) => ['--profile', id]), 'config', '--format', 'json'],
      { cwd: REPO_ROOT, encoding: 'utf8', env },
    );
  const run = hasDocker ? composeConfig({ ...process.env, ...secrets }) : null;

  it('is valid for docker compose', () => {
    expect(run!.status, run!.stderr).toBe(0);
  });

  it('refuses to be configured without its secrets', () => {
    const { JOBS_CURSOR_SECRET: _cursor, MINIO_ROOT_PASSWORD: _minio, MINIO_APP_PASSWORD: _app, GRAFANA_ADMIN_PASSWORD: _grafana, POSTGRES_PASSWORD: _pg, ...withoutSecrets } = process.env;
    const refused = composeConfig(withoutSecrets);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/(JOBS_CURSOR_SECRET|MINIO_ROOT_PASSWORD|MINIO_APP_PASSWORD|POSTGRES_PASSWORD)/);
    // The database password alone missing is refused too: no built-in default.
    const withoutDatabasePassword = composeConfig({ ...process.env, ...secrets, POSTGRES_PASSWORD: undefined });
    expect(withoutDatabasePassword.status).not.toBe(0);
    expect(withoutDatabasePassword.stderr).toMatch(/POSTGRES_PASSWORD/);
    const { services } = config();
    expect(services.api.environment?.JOBS_CURSOR_SECRET).toBe(secrets.JOBS_CURSOR_SECRET);
    expect(services.minio.environment?.MINIO_ROOT_PASSWORD).toBe(secrets.MINIO_ROOT_PASSWORD);
    expect(services.postgres.environment?.POSTGRES_PASSWORD).toBe(secrets.POSTGRES_PASSWORD);
    expect(services.temporal.environment?.POSTGRES_PWD).toBe(secrets.POSTGRES_PASSWORD);
    for (const name of ['api', 'migrate', 'worker-workflows', 'worker-pixelforge']) {
      expect(services[name].environment?.DATABASE_URL, name).toBe(`postgresql://genmedia:${secrets.POSTGRES_PASSWORD}@postgres:5432/genmedia`);
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
    expect(services.api.command).toEqual(['node', 'dist/src/api/server.js']);
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
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/src\/api\/server\.js"\]$/m);
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
    // The API and the workers serve /metrics to Prometheus on an unpublished port; every service exports traces to Jaeger.
    expect(services['worker-workflows'].environment).toMatchObject({ WORKER_METRICS_HOST: '0.0.0.0', WORKER_METRICS_PORT: '9464' });
    expect(services.api.environment).toMatchObject({ NODE_ENV: 'production', API_METRICS_HOST: '0.0.0.0', API_METRICS_PORT: '9464' });
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
      'jaeger:16686',
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
});

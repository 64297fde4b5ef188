/**
 * The Helm chart (deploy/helm/genmedia), checked without a cluster: linted by Helm 3 and Helm 4 and rendered by both
 * for each values file of its ci/ folder, every manifest validated by kubeconform against the schemas of the pinned
 * Kubernetes release and of KEDA's and the Prometheus Operator's CRDs (made by the test bootstrap), and the rendering
 * held to what a deployment needs: a worker and a scaler per provider, no root and no unbounded container, no secret
 * value, the signing key only where outputs are signed, policies that deny by default, and long enough drains.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS, SIGNING_KEY_SETTINGS } from '../../../src/config';
import { listSettings } from '../../../src/lib/envSettings';
import { UPSTREAM_CALLBACK_ENV, UPSTREAM_ENV } from '../../../src/providers/upstreams/credentials';
import { PROVIDER_HEARTBEAT_TIMEOUT_SECONDS } from '../../../src/shared/jobs';
import { DEFAULT_BATCH_ROUND_HEARTBEAT_MS } from '../../../src/shared/batches';
import { SHUTDOWN_GRACE_TIME } from '../../../src/workers/connections';
import { binary, CHART, ciValuesFiles, ofKind, pods, render, run, valuesOf, type Manifest, type PodOf, type Rendering } from './helmChart';

const { KUBERNETES } = require('../../../scripts/lib/kubeSchemas') as { KUBERNETES: { version: string } };
const KUBE_VERSION = KUBERNETES.version.replace(/^v/, '');
const REPO = path.resolve(__dirname, '../../..');

const FILES = ciValuesFiles();
const rendered: Record<string, Rendering> = {};
const values: Record<string, any> = {};

beforeAll(() => {
  for (const [name, file] of Object.entries(FILES)) {
    rendered[name] = render(binary('HELM3_CLI'), file, KUBE_VERSION);
    values[name] = valuesOf(file);
  }
});

const argsOf = (pod: PodOf) => pod.containers.flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]) as string[];
const envOf = (pod: PodOf) => pod.containers.flatMap((c) => c.env ?? []) as { name: string; value?: string; valueFrom?: any }[];
const signs = (pod: PodOf) => argsOf(pod).includes('--provider') || argsOf(pod).includes('--cog-providers');
const seconds = (duration: string) => Number(/^(\d+) seconds?$/.exec(duration)?.[1] ?? NaN);
const named = (manifests: Manifest[], kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);

describe('Helm chart', () => {
  it('has the three values files the checks need', () => {
    expect(Object.keys(FILES).sort()).toEqual(['everything-off', 'production', 'smallest']);
  });

  it.each(['HELM3_CLI', 'HELM4_CLI'])('passes %s lint --strict with every values file', (variable) => {
    for (const file of Object.values(FILES)) {
      const lint = run(binary(variable), ['lint', '--strict', CHART, '--kube-version', KUBE_VERSION, '-f', file]);
      expect(lint.status, lint.output).toBe(0);
    }
  });

  it.each([
    ['a misspelt provider field', 'providers[0].concurency=4', "additional properties 'concurency' not allowed"],
    ['the latest tag', 'image.tag=latest', '/image/tag'],
    ['an unknown upstream', 'providers[0].upstream=midjourney', '/providers/0/upstream'],
  ])('refuses %s (values.schema.json)', (_, set, message) => {
    for (const variable of ['HELM3_CLI', 'HELM4_CLI']) {
      const result = run(binary(variable), ['template', 'genmedia', CHART, '--kube-version', KUBE_VERSION, '-f', FILES.smallest!, '--set', set]);
      expect(result.status, variable).not.toBe(0);
      expect(result.output, variable).toContain(message);
    }
  });

  it('renders the same manifests with Helm 4 as with Helm 3', () => {
    for (const [name, file] of Object.entries(FILES)) {
      expect(render(binary('HELM4_CLI'), file, KUBE_VERSION).manifests, name).toEqual(rendered[name]!.manifests);
    }
  });

  it('renders only manifests valid against the pinned Kubernetes, KEDA and Prometheus Operator schemas (kubeconform, strict)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-chart-'));
    const files = Object.entries(rendered).map(([name, r]) => {
      const file = path.join(dir, `${name}.yaml`);
      fs.writeFileSync(file, r.text);
      return file;
    });
    const locations = JSON.parse(binary('KUBE_SCHEMA_LOCATIONS')) as string[];
    const check = run(binary('KUBECONFORM_CLI'), [
      '-strict',
      '-summary',
      '-output',
      'json',
      '-kubernetes-version',
      KUBE_VERSION,
      ...locations.flatMap((l) => ['-schema-location', l]),
      ...files,
    ]);
    expect(check.status, check.output).toBe(0);
    const { summary } = JSON.parse(check.stdout) as { summary: Record<string, number> };
    const total = Object.values(rendered).reduce((n, r) => n + r.manifests.length, 0);
    // Every kind the chart ships has its schema: nothing is skipped.
    expect(summary).toEqual({ valid: total, invalid: 0, errors: 0, skipped: 0 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives every provider of the values its own Deployment on its own task queue, with its concurrency', () => {
    for (const [name, r] of Object.entries(rendered)) {
      const workers = pods(r.manifests).filter((p) => argsOf(p).includes('--provider'));
      const ids = workers.map((p) => argsOf(p)[argsOf(p).indexOf('--provider') + 1]);
      expect(ids.sort(), name).toEqual(values[name].providers.map((p: any) => p.id).sort());
      for (const provider of values[name].providers) {
        const pod = workers.find((p) => argsOf(p).includes(provider.id))!;
        expect(envOf(pod).find((e) => e.name === 'PROVIDER_CONCURRENCY')?.value, provider.id).toBe(String(provider.concurrency));
      }
    }
  });

  it("scales each provider's worker on its own queue's backlog with the target of docs/scaling.md's formula", () => {
    const r = rendered.production!;
    const v = values.production;
    expect(v.autoscaling.enabled).toBe(true);
    const scalers = ofKind(r.manifests, 'ScaledObject');
    for (const provider of v.providers) {
      const deployment = pods(r.manifests).find((p) => argsOf(p).includes('--provider') && argsOf(p).includes(provider.id))!.owner;
      const scaler = scalers.find((s) => s.spec.scaleTargetRef.name === deployment.metadata.name);
      expect(scaler, provider.id).toBeDefined();
      const [trigger] = scaler!.spec.triggers;
      expect(trigger.type).toBe('temporal');
      expect(trigger.metadata.taskQueue).toBe(`${v.temporal.taskQueuePrefix}provider.${provider.id}`);
      expect(trigger.metadata.queueTypes).toBe('activity');
      // replicas = backlog × mean job seconds / (concurrency × target wait): each replica takes this much backlog.
      const target = Math.max(1, Math.floor((provider.concurrency * provider.targetWaitSeconds) / provider.meanJobSeconds));
      expect(trigger.metadata.targetQueueSize, provider.id).toBe(String(target));
      expect(scaler!.spec.minReplicaCount).toBe(provider.minReplicas);
      expect(scaler!.spec.maxReplicaCount).toBe(provider.maxReplicas);
      // KEDA owns the replica count.
      expect(deployment.spec.replicas).toBeUndefined();
    }
    expect(v.providers.some((p: any) => p.minReplicas === 0)).toBe(true);
    expect(scalers.filter((s) => s.spec.triggers[0].metadata.queueTypes === 'activity')).toHaveLength(v.providers.length);
  });

  it('scales the API on CPU and the current build of the workflow worker on its workflow task backlog', () => {
    const r = rendered.production!;
    const hpa = ofKind(r.manifests, 'HorizontalPodAutoscaler');
    expect(hpa).toHaveLength(1);
    expect(hpa[0]!.spec.scaleTargetRef.name).toBe('genmedia-api');
    expect(hpa[0]!.spec.metrics[0].resource.name).toBe('cpu');
    const workflows = ofKind(r.manifests, 'ScaledObject').find((s) => s.spec.triggers[0].metadata.queueTypes === 'workflow')!;
    expect(workflows.spec.triggers[0].metadata).toMatchObject({ taskQueue: 'jobs', workerDeploymentName: 'genmedia', workerDeploymentBuildId: '0.2.0' });
    const target = pods(r.manifests).find((p) => p.owner.metadata.name === workflows.spec.scaleTargetRef.name)!;
    expect(envOf(target).find((e) => e.name === 'WORKER_BUILD_ID')?.value).toBe('0.2.0');
  });

  it("keeps a draining build's workflow worker on its own image and build id beside the new one", () => {
    const builds = pods(rendered.production!.manifests).filter((p) => argsOf(p).includes('--workflows'));
    const byBuild = Object.fromEntries(builds.map((p) => [envOf(p).find((e) => e.name === 'WORKER_BUILD_ID')?.value, p.containers[0].image]));
    expect(byBuild).toEqual({
      '0.2.0': `registry.example.com/genmedia@${values.production.image.digest}`,
      '0.1.0': 'registry.example.com/genmedia:0.1.0',
    });
  });

  it('runs no container as root, with privileges, with a writable root file system or without requests and limits', () => {
    for (const [name, r] of Object.entries(rendered)) {
      for (const pod of pods(r.manifests)) {
        const where = `${name}: ${pod.owner.kind} ${pod.owner.metadata.name}`;
        expect(pod.spec.automountServiceAccountToken, where).toBe(false);
        for (const c of pod.containers) {
          const user = c.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser;
          expect(c.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot, where).toBe(true);
          expect(user, where).toBeGreaterThan(0);
          expect(c.securityContext?.privileged ?? false, where).toBe(false);
          expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
          expect(c.securityContext?.readOnlyRootFilesystem, where).toBe(true);
          expect(c.securityContext?.capabilities?.drop, where).toContain('ALL');
          expect(c.securityContext?.capabilities?.add ?? [], where).toEqual([]);
          for (const kind of ['requests', 'limits']) {
            expect(c.resources?.[kind]?.cpu, `${where} ${kind}.cpu`).toBeDefined();
            expect(c.resources?.[kind]?.memory, `${where} ${kind}.memory`).toBeDefined();
          }
        }
      }
    }
  });

  it('renders no secret value: no Secret, every credential from a Secret by reference or a mounted file', () => {
    const credential = /KEY|SECRET|TOKEN|PASSWORD|DATABASE_URL|PRIVATE/;
    for (const [name, r] of Object.entries(rendered)) {
      expect(ofKind(r.manifests, 'Secret'), name).toEqual([]);
      // A URL with a password in it, or a PEM.
      expect(r.text, name).not.toMatch(/:\/\/[^/\s:@]+:[^/\s@]+@|-----BEGIN/);
      for (const pod of pods(r.manifests)) {
        for (const e of envOf(pod).filter((e) => credential.test(e.name))) {
          const where = `${name}: ${pod.owner.metadata.name} ${e.name}`;
          if (e.valueFrom) expect(Object.keys(e.valueFrom), where).toEqual(['secretKeyRef']);
          else expect(e.value, where).toMatch(/^\/etc\/genmedia\//);
        }
      }
      for (const config of ofKind(r.manifests, 'ConfigMap').filter((m) => !m.metadata.name.endsWith('-dashboard'))) {
        for (const [key, value] of Object.entries(config.data ?? {}).filter(([key]) => credential.test(key))) {
          expect(value, `${name}: ConfigMap ${key}`).toMatch(/^\/etc\/genmedia\//);
        }
      }
    }
  });

  it('mounts the signing key only into the pods that sign (the provider and Cog workers), and the chain everywhere', () => {
    for (const name of ['smallest', 'production']) {
      const all = pods(rendered[name]!.manifests);
      expect(all.filter(signs).length, name).toBeGreaterThan(0);
      for (const pod of all) {
        const where = `${name}: ${pod.owner.metadata.name}`;
        const keyVolumes = (pod.spec.volumes ?? []).filter((v: any) => v.secret?.secretName === values[name].provenance.signingKey.existingSecret);
        const hasKey = keyVolumes.length > 0 || envOf(pod).some((e) => e.name === 'PROVENANCE_PRIVATE_KEY');
        expect(hasKey, where).toBe(signs(pod));
        expect(pod.spec.volumes.some((v: any) => v.secret?.secretName === values[name].provenance.chain.existingSecret), where).toBe(true);
      }
    }
    for (const pod of pods(rendered['everything-off']!.manifests)) {
      expect(envOf(pod).some((e) => e.name.startsWith('PROVENANCE_')), pod.owner.metadata.name).toBe(false);
    }
  });

  it("gives an upstream's API key to the API and that provider's workers only", () => {
    const all = pods(rendered.production!.manifests);
    const withKey = (variable: string) => all.filter((p) => envOf(p).some((e) => e.name === variable)).map((p) => p.owner.metadata.name).sort();
    expect(withKey(UPSTREAM_ENV.fal.credential)).toEqual(['genmedia-api', 'genmedia-provider-fal']);
    expect(withKey(UPSTREAM_ENV.replicate.credential)).toEqual(['genmedia-api', 'genmedia-provider-replicate']);
    expect(withKey(UPSTREAM_CALLBACK_ENV.replicateWebhookSecret)).toEqual(['genmedia-api']);
  });

  it('sets only environment variables the code declares', () => {
    const declared = new Set([
      ...listSettings(SETTINGS).map((s) => s.setting.variable),
      ...listSettings(SIGNING_KEY_SETTINGS).map((s) => s.setting.variable),
      ...Object.values(UPSTREAM_ENV).flatMap((u) => [u.credential, u.origin]),
      ...Object.values(UPSTREAM_CALLBACK_ENV),
    ]);
    for (const [name, r] of Object.entries(rendered)) {
      const configKeys = ofKind(r.manifests, 'ConfigMap')
        .filter((m) => !m.metadata.name.endsWith('-dashboard'))
        .flatMap((m) => Object.keys(m.data ?? {}));
      const envNames = pods(r.manifests).flatMap((p) => envOf(p).map((e) => e.name));
      expect([...new Set([...configKeys, ...envNames])].filter((v) => !declared.has(v)), name).toEqual([]);
      for (const pod of pods(r.manifests)) {
        const names = envOf(pod).map((e) => e.name);
        expect(names.length, pod.owner.metadata.name).toBe(new Set(names).size);
      }
    }
  });

  it('denies all traffic by default to every pod of the release, then allows the compose networks', () => {
    for (const name of ['smallest', 'production']) {
      const policies = ofKind(rendered[name]!.manifests, 'NetworkPolicy');
      const deny = policies.find((p) => p.spec.policyTypes.includes('Ingress') && p.spec.policyTypes.includes('Egress') && !p.spec.ingress && !p.spec.egress);
      expect(deny, name).toBeDefined();
      expect(deny!.spec.podSelector.matchExpressions, name).toBeUndefined();
      for (const pod of pods(rendered[name]!.manifests)) {
        expect(pod.labels, `${name}: ${pod.owner.metadata.name}`).toMatchObject(deny!.spec.podSelector.matchLabels);
      }
      // The way out excludes private addresses: the data stores are reached only by the rules that name them.
      const edge = policies.find((p) => p.metadata.name.endsWith('-edge'))!;
      expect(edge.spec.egress[0].to[0].ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
      // The Jobs (only the data stores) are not on the edge.
      expect(edge.spec.podSelector.matchLabels['genmedia.io/metrics']).toBe('true');
      for (const job of pods(rendered[name]!.manifests).filter((p) => p.owner.kind === 'Job')) expect(job.labels['genmedia.io/metrics']).toBeUndefined();
      // Only Prometheus reaches the metrics port.
      const telemetry = policies.find((p) => p.metadata.name.endsWith('-telemetry'))!;
      expect(telemetry.spec.ingress[0].from).toEqual(values[name].networkPolicy.prometheusFrom);
    }
    // Cog servers: asked only by the Cog worker and the API.
    const cogServers = ofKind(rendered.production!.manifests, 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-cog-servers'))!;
    expect(cogServers.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(cogServers.spec.ingress[0].from[0].podSelector.matchExpressions).toContainEqual({
      key: 'app.kubernetes.io/component',
      operator: 'In',
      values: ['api', 'cog-worker'],
    });
  });

  it("gives each worker a termination grace period covering its drain and its longest activity's heartbeat", () => {
    const drain = seconds(SHUTDOWN_GRACE_TIME);
    expect(drain).toBeGreaterThan(0);
    // Closing the Temporal connections waits for the gRPC retries already scheduled: 5 s at most.
    const closing = 5;
    const needed = (pod: PodOf) =>
      drain + closing + (argsOf(pod).includes('--workflows') ? DEFAULT_BATCH_ROUND_HEARTBEAT_MS / 1000 : PROVIDER_HEARTBEAT_TIMEOUT_SECONDS);
    for (const [name, r] of Object.entries(rendered)) {
      for (const pod of pods(r.manifests).filter((p) => signs(p) || argsOf(p).includes('--workflows'))) {
        expect(pod.spec.terminationGracePeriodSeconds, `${name}: ${pod.owner.metadata.name}`).toBeGreaterThanOrEqual(needed(pod));
      }
    }
  });

  it('probes the API on /healthz and /readyz and each worker on its own port', () => {
    for (const pod of pods(rendered.production!.manifests).filter((p) => p.owner.kind === 'Deployment')) {
      const [c] = pod.containers;
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(c[probe], `${pod.owner.metadata.name} ${probe}`).toBeDefined();
      if (pod.owner.metadata.name === 'genmedia-api') {
        expect(c.livenessProbe.httpGet.path).toBe('/healthz');
        expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      } else {
        expect(c.readinessProbe.tcpSocket.port).toBe('metrics');
      }
    }
  });

  it('gives every Deployment a PodDisruptionBudget selecting its pods alone', () => {
    for (const [name, r] of Object.entries(rendered)) {
      const budgets = ofKind(r.manifests, 'PodDisruptionBudget');
      const deployments = pods(r.manifests).filter((p) => p.owner.kind === 'Deployment');
      const selects = (pdb: Manifest, pod: PodOf) =>
        Object.entries(pdb.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => pod.labels[k] === v);
      for (const pod of deployments) {
        expect(budgets.filter((b) => selects(b, pod)).length, `${name}: ${pod.owner.metadata.name}`).toBe(1);
      }
      for (const pdb of budgets) expect(deployments.filter((pod) => selects(pdb, pod)).length, `${name}: ${pdb.metadata.name}`).toBe(1);
    }
  });

  it('runs the migrations, then the catalog seed, as hooks before an install or upgrade, as the schema owner', () => {
    for (const r of Object.values(rendered)) {
      const hook = (m: Manifest | undefined) => ({ on: m?.metadata.annotations?.['helm.sh/hook'], weight: Number(m?.metadata.annotations?.['helm.sh/hook-weight']) });
      const migrate = named(r.manifests, 'Job', 'genmedia-migrate');
      const seed = named(r.manifests, 'Job', 'genmedia-seed');
      const config = named(r.manifests, 'ConfigMap', 'genmedia-hooks');
      expect(hook(migrate).on).toBe('pre-install,pre-upgrade');
      expect(hook(seed).on).toBe('pre-install,pre-upgrade');
      expect(hook(config).weight).toBeLessThan(hook(migrate).weight);
      expect(hook(migrate).weight).toBeLessThan(hook(seed).weight);
      const url = migrate!.spec.template.spec.containers[0].env.find((e: any) => e.name === 'DATABASE_URL');
      expect(url.valueFrom.secretKeyRef.key).toBe('owner-url');
    }
  });

  it('pins every container to the image of the values, never :latest', () => {
    for (const [name, r] of Object.entries(rendered)) {
      const { repository, tag, digest } = values[name].image;
      const current = digest ? `${repository}@${digest}` : `${repository}:${tag}`;
      const draining = (values[name].workflowWorker.drainingBuilds as any[]).map((b) => (b.digest ? `${repository}@${b.digest}` : `${repository}:${b.tag}`));
      for (const c of pods(r.manifests).flatMap((p) => p.containers)) {
        expect([current, ...draining], name).toContain(c.image);
        expect(c.image).not.toMatch(/:latest$/);
      }
    }
  });

  it('ships the alerting rules and the dashboard of deploy/ unchanged', () => {
    for (const [copy, original] of [
      ['files/alerts.yml', 'deploy/prometheus/alerts.yml'],
      ['files/genmedia-dashboard.json', 'deploy/grafana/dashboards/genmedia.json'],
    ]) {
      expect(fs.readFileSync(path.join(CHART, copy!), 'utf8'), copy).toBe(fs.readFileSync(path.join(REPO, original!), 'utf8'));
    }
    const r = rendered.production!;
    const rules = ofKind(r.manifests, 'PrometheusRule');
    expect(rules).toHaveLength(1);
    expect(rules[0]!.spec.groups).toEqual(parse(fs.readFileSync(path.join(REPO, 'deploy/prometheus/alerts.yml'), 'utf8')).groups);
    const dashboard = named(r.manifests, 'ConfigMap', 'genmedia-dashboard')!;
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data!['genmedia.json']!)).toEqual(JSON.parse(fs.readFileSync(path.join(REPO, 'deploy/grafana/dashboards/genmedia.json'), 'utf8')));
    expect(ofKind(r.manifests, 'ServiceMonitor')).toHaveLength(1);
  });

  it('renders none of the optional parts when everything is off', () => {
    const r = rendered['everything-off']!;
    const kinds = new Set(r.manifests.map((m) => m.kind));
    for (const kind of ['ScaledObject', 'TriggerAuthentication', 'HorizontalPodAutoscaler', 'Ingress', 'ServiceMonitor', 'PrometheusRule', 'NetworkPolicy']) {
      expect(kinds.has(kind), kind).toBe(false);
    }
    const commands = pods(r.manifests).map((p) => argsOf(p).join(' '));
    expect(commands.filter((c) => c.includes('--provider') || c.includes('--cog-providers'))).toEqual([]);
    expect(commands.some((c) => c.includes('--workflows'))).toBe(true);
  });
});

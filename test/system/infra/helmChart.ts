/**
 * The chart of deploy/helm/genmedia as the tests see it: its values files, rendered by a Helm binary of the test
 * bootstrap into parsed manifests, and the pod templates of those manifests.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const CHART = path.resolve(__dirname, '../../../deploy/helm/genmedia');
export const RELEASE = 'genmedia';

/** The values files of the chart's ci/ folder, by name (`smallest`, `production`, `everything-off`). */
export function ciValuesFiles(): Record<string, string> {
  const dir = path.join(CHART, 'ci');
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('-values.yaml'))
      .map((f) => [f.replace(/-values\.yaml$/, ''), path.join(dir, f)]),
  );
}

export function binary(variable: string): string {
  const value = process.env[variable];
  if (!value) throw new Error(`${variable} is not set (run through npm test, whose bootstrap builds it)`);
  return value;
}

export function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

export interface Rendering {
  text: string;
  manifests: Manifest[];
}

export function render(helm: string, valuesFile: string, kubeVersion: string): Rendering {
  const result = run(helm, ['template', RELEASE, CHART, '--namespace', RELEASE, '--kube-version', kubeVersion, '-f', valuesFile]);
  if (result.status !== 0) throw new Error(`helm template -f ${valuesFile} failed:\n${result.output}`);
  const manifests = parseAllDocuments(result.stdout)
    .map((doc) => doc.toJSON() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  return { text: result.stdout, manifests };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Helm's merge of a values file over the chart's defaults: maps merge, anything else (lists too) is replaced. */
function merge(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
  return out;
}

export function valuesOf(valuesFile: string): any {
  const defaults = parse(fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8'));
  return merge(defaults, parse(fs.readFileSync(valuesFile, 'utf8')) ?? {});
}

export interface PodOf {
  owner: Manifest;
  spec: any;
  labels: Record<string, string>;
  containers: any[];
}

/** The pod template of every Deployment and Job. */
export function pods(manifests: Manifest[]): PodOf[] {
  return manifests
    .filter((m) => m.kind === 'Deployment' || m.kind === 'Job')
    .map((m) => ({
      owner: m,
      spec: m.spec.template.spec,
      labels: m.spec.template.metadata.labels ?? {},
      containers: [...(m.spec.template.spec.initContainers ?? []), ...m.spec.template.spec.containers],
    }));
}

export function ofKind(manifests: Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

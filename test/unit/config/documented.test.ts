/**
 * The README's configuration table and the declarations of src/config.ts name the same variables, and where the table
 * gives a default as a value (`3000`, `` `100`, `5000` ``, `unset`, `empty`), it is the default the declaration holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SETTINGS, SIGNING_KEY_SETTINGS } from '../../../src/config';
import { listSettings, type Setting } from '../../../src/lib/envSettings';

/** Variables the table documents that the scripts read, not src/config.ts: each with the file that reads it. */
const READ_BY_SCRIPTS: Record<string, string> = { TEMPORAL_NAMESPACE_RETENTION: 'scripts/lib/temporalRetention.js' };

interface Row {
  variables: string[];
  defaults: string;
}

function configurationTable(): Row[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (section === undefined) throw new Error('README.md has no "## Configuration" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names, defaults] = line.split(' | ');
      return { variables: [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]), defaults };
    });
}

// The signing key is declared apart, for the processes that sign (src/config.ts loadSigningKey).
const declared = new Map([...listSettings(SETTINGS), ...listSettings(SIGNING_KEY_SETTINGS)].map(({ setting }) => [setting.variable, setting]));
const rows = configurationTable();

/** What the setting holds when its variable is `raw`; undefined when `raw` is refused. */
function valueOf(declaration: Setting, raw: string | undefined): { value: unknown } | undefined {
  const parsed = declaration.schema.safeParse(raw);
  return parsed.success ? { value: parsed.data } : undefined;
}

/**
 * The defaults a table cell gives as values, one per variable of the row (undefined: unset); none when it says them in
 * words, as another variable's value or with a placeholder (`http://127.0.0.1:<MINIO_PORT>`).
 */
function documentedDefaults(row: Row): (string | undefined)[] | undefined {
  if (row.defaults === 'empty') return row.variables.map(() => '');
  const literals = /^(`[^`<]*`|unset)(, (`[^`<]*`|unset))*(?= \(|$)/.exec(row.defaults)?.[0];
  if (literals === undefined) return /^unset\b/.test(row.defaults) ? row.variables.map(() => undefined) : undefined;
  const values = literals.split(', ').map((cell) => (cell === 'unset' ? undefined : cell.slice(1, -1)));
  if (values.some((value) => value !== undefined && /^[A-Z][A-Z0-9_]*$/.test(value))) return undefined;
  return values.length === row.variables.length ? values : undefined;
}

describe('the README configuration table', () => {
  it('documents every variable src/config.ts declares', () => {
    const documented = new Set(rows.flatMap((row) => row.variables));
    expect([...declared.keys()].filter((variable) => !documented.has(variable))).toEqual([]);
  });

  it('documents only variables src/config.ts declares, or the scripts read', () => {
    const others = rows.flatMap((row) => row.variables).filter((variable) => !declared.has(variable));
    expect(others.sort()).toEqual(Object.keys(READ_BY_SCRIPTS).sort());
    for (const [variable, file] of Object.entries(READ_BY_SCRIPTS)) {
      expect(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')).toContain(variable);
    }
  });

  it('gives the declared default wherever it gives the default as a value', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const row of rows) {
      const defaults = documentedDefaults(row);
      row.variables.forEach((variable, i) => {
        const declaration = declared.get(variable);
        if (!declaration || !defaults) return;
        checked++;
        const documented = valueOf(declaration, defaults[i]);
        const actual = valueOf(declaration, undefined);
        if (!documented || !isDeepStrictEqual(documented, actual)) {
          wrong.push(`${variable}: the table says ${defaults[i] ?? 'unset'}, the default is ${JSON.stringify(actual?.value)}`);
        }
      });
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    // Most rows give their default as a value; a table that stopped being read would check none.
    expect(checked).toBeGreaterThan(declared.size / 2);
  });
});

describe('the declarations', () => {
  it('read each variable once', () => {
    const variables = listSettings(SETTINGS).map(({ setting }) => setting.variable);
    expect(variables.filter((variable, i) => variables.indexOf(variable) !== i)).toEqual([]);
  });
});

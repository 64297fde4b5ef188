/**
 * docs/configuration.md is what scripts/docs/configuration.ts writes from the declarations of src/config.ts, so it names
 * every declared variable and nothing else; and where it gives a default as a value (`3000`, `unset`, `empty`), the
 * value is the default the declaration holds, so a default said in a declaration's own words cannot drift either.
 */
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SETTINGS } from '../../../src/config';
import { listSettings, type Setting } from '../../../src/lib/envSettings';
import { CONFIGURATION_DOC, declaredSettings, FORMER_VARIABLES, REPLACED_VARIABLES, renderConfigurationDoc, SCRIPT_SETTINGS, TUNED_VARIABLES, TUNING_FILES, tuningDefault } from '../../../scripts/docs/configuration';
import path from 'node:path';

interface Row {
  variable: string;
  defaults: string;
}

const doc = fs.readFileSync(CONFIGURATION_DOC, 'utf8');
/** The page's tables of variables; the tables of former variables (the tuning's, the replaced) come after them. */
const [variablesPart, tuningPart = ''] = doc.split('\n## Tuning\n');

function configurationTables(): Row[] {
  return variablesPart
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name, defaults] = line.slice(2).split(' | ');
      return { variable: /^`([A-Z][A-Z0-9_]*)`$/.exec(name)?.[1] ?? name, defaults };
    });
}

const declared = new Map(declaredSettings().map((setting) => [setting.variable, setting]));
const rows = configurationTables();

/** What the setting holds when its variable is `raw`; undefined when `raw` is refused. */
function valueOf(declaration: Setting, raw: string | undefined): { value: unknown } | undefined {
  const parsed = declaration.schema.safeParse(raw);
  return parsed.success ? { value: parsed.data } : undefined;
}

/**
 * The default a cell gives as a value (undefined: unset); none when it says it in words, as another variable's value
 * or with a placeholder (`http://127.0.0.1:<MINIO_PORT>`).
 */
function documentedDefault(cell: string): { raw: string | undefined } | undefined {
  if (cell === 'empty') return { raw: '' };
  if (/^unset\b/.test(cell)) return { raw: undefined };
  const literal = /^`([^`<]*)`(?= \(|$)/.exec(cell)?.[1];
  if (literal === undefined || /^[A-Z][A-Z0-9_]*$/.test(literal)) return undefined;
  return { raw: literal };
}

describe('docs/configuration.md', () => {
  it('is what npm run docs:config writes from the declarations', () => {
    // A difference here: run `npm run docs:config`, and change a setting's description in src/config.ts, not the page.
    expect(doc).toBe(renderConfigurationDoc());
  });

  it('documents every variable src/config.ts declares, once', () => {
    const documented = rows.map((row) => row.variable);
    expect([...declared.keys()].filter((variable) => !documented.includes(variable))).toEqual([]);
    expect(documented.filter((variable, i) => documented.indexOf(variable) !== i)).toEqual([]);
  });

  it('documents only variables src/config.ts declares, or the scripts read', () => {
    const others = rows.map((row) => row.variable).filter((variable) => !declared.has(variable));
    expect(others.sort()).toEqual(SCRIPT_SETTINGS.map((s) => s.variable).sort());
    for (const { variable, file } of SCRIPT_SETTINGS) {
      expect(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')).toContain(variable);
    }
  });

  it('gives the declared default wherever it gives the default as a value', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const row of rows) {
      const declaration = declared.get(row.variable);
      const documented = documentedDefault(row.defaults);
      if (!declaration || !documented) continue;
      checked++;
      const given = valueOf(declaration, documented.raw);
      const actual = valueOf(declaration, undefined);
      if (!given || !isDeepStrictEqual(given, actual)) {
        wrong.push(`${row.variable}: the page says ${row.defaults}, the default is ${JSON.stringify(actual?.value)}`);
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    // Most rows give their default as a value; a table that stopped being read would check none.
    expect(checked).toBeGreaterThan(declared.size / 2);
  });
});

/** The files a former variable must no longer appear in: everything that sets or reads variables, and the docs. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist'].includes(entry.name) ? [] : filesUnder(relative);
    return /\.(ts|js|mjs|cjs|ya?ml|json|md|sh|env|example)$|^Dockerfile$|^run$/.test(entry.name) ? [relative] : [];
  });
}

describe('the tuning', () => {
  it('lists each former variable once, with a tuning value its file declares', () => {
    const variables = FORMER_VARIABLES.map(({ variable }) => variable);
    expect(variables.filter((variable, i) => variables.indexOf(variable) !== i)).toEqual([]);
    for (const { variable, tuning: field } of TUNED_VARIABLES) {
      expect(tuningDefault(field), `${variable} → ${field}`).not.toBeUndefined();
      const file = TUNING_FILES[field.split('.')[0] as keyof typeof TUNING_FILES];
      expect(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), `${field} in ${file}`).toContain(`${field.split('.').pop()}:`);
      expect(tuningPart).toContain(`| \`${variable}\` | \`${field}\` |`);
    }
  });

  it('lists each replaced variable with what replaced it, each variable it names declared or read by the scripts', () => {
    const known = new Set([...declared.keys(), ...SCRIPT_SETTINGS.map((s) => s.variable)]);
    for (const { variable, replacedBy } of REPLACED_VARIABLES) {
      const named = [...replacedBy.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]);
      expect(named.filter((name) => !known.has(name)), `${variable} → ${replacedBy}`).toEqual([]);
      expect(tuningPart).toContain(`| \`${variable}\` | `);
    }
  });

  it("keeps a name that is another program's own variable only where that program is set up, outside the application", () => {
    for (const { variable, stillNamedIn = [] } of REPLACED_VARIABLES) {
      for (const file of stillNamedIn) {
        expect(file, `${variable} in ${file}`).not.toMatch(/^(src|activities|workflows)\//);
        expect(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), `${variable} in ${file}`).toMatch(new RegExp(`\\b${variable}\\b`));
      }
    }
  });

  it('leaves no former variable declared, set or named anywhere but the table', () => {
    expect(FORMER_VARIABLES.filter(({ variable }) => declared.has(variable) || SCRIPT_SETTINGS.some((s) => s.variable === variable))).toEqual([]);
    const files = [...['src', 'activities', 'workflows', 'test', 'scripts', 'bench', 'chaos', 'deploy', 'docs', '.ci', 'examples', 'clients'].flatMap(filesUnder), 'docker-compose.yml', 'Dockerfile', 'README.md'];
    const named: string[] = [];
    for (const file of files) {
      if (file === path.join('docs', 'configuration.md') || file === path.join('scripts', 'docs', 'configuration.ts') || file === path.join('test', 'unit', 'config', 'documented.test.ts') || file === path.join('test', 'unit', 'config', 'tuning.test.ts')) continue;
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const former of FORMER_VARIABLES) {
        const stillNamed = 'stillNamedIn' in former && former.stillNamedIn?.includes(file);
        if (!stillNamed && new RegExp(`\\b${former.variable}\\b`).test(text)) named.push(`${former.variable} in ${file}`);
      }
    }
    expect(named, named.join('\n')).toEqual([]);
  });
});

describe('the declarations', () => {
  it('read each variable once', () => {
    const variables = listSettings(SETTINGS).map(({ setting }) => setting.variable);
    expect(variables.filter((variable, i) => variables.indexOf(variable) !== i)).toEqual([]);
  });

  it('describe each variable', () => {
    expect(declaredSettings().filter((setting) => setting.description.trim().length < 8).map((s) => s.variable)).toEqual([]);
  });
});

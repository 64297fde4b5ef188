/**
 * The regular expression engine of every input schema's `pattern` and `patternProperties`: RE2 (re2js, a pure
 * JavaScript port), whose matching takes time linear in the input, instead of V8's backtracking engine, where a
 * pattern such as `^(a+)+$` takes exponential time on a few dozen characters and blocks the process meanwhile. Schemas
 * come from Cog servers we do not control as well as from our catalog.
 *
 * A pattern RE2 cannot run (backreferences, lookahead and lookbehind, a repetition count over 1000) is refused as the
 * schema compiles (`UnsupportedPatternError`), never handed to the backtracking engine instead. RE2 differs from
 * JavaScript in small ways the schemas here do not rely on: `\s` is ASCII whitespace only, `.` also matches `\r`, U+2028
 * and U+2029.
 */
import { RE2JS } from 're2js';

export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)} cannot be checked in linear time (${reason}): backreferences, lookahead, lookbehind and repetition counts over 1000 are not supported`);
    this.name = 'UnsupportedPatternError';
  }
}

/** What Ajv needs of a compiled pattern: `test`, and a `toString` that tells patterns apart (Ajv shares equal ones). */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/**
 * A backreference (`\1`, `\k<name>`): RE2 has none, and re2js's translation of JavaScript syntax would read `\k<name>`
 * and `\8` as the letters and digits they escape, so they are found here first.
 */
function hasBackreference(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    const escaped = pattern[i + 1] ?? '';
    if (escaped === 'k' || (escaped >= '1' && escaped <= '9')) return true;
    i++;
  }
  return false;
}

/** Compiles a JSON Schema pattern (ECMAScript syntax) for RE2; `flags` is Ajv's (`u`, which RE2 always is). */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  let compiled: RE2JS;
  try {
    // Only what JavaScript itself takes is translated (building a RegExp parses it; nothing is matched).
    new RegExp(pattern, flags);
    if (hasBackreference(pattern)) throw new Error('a backreference');
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new UnsupportedPatternError(pattern, error instanceof Error ? error.message : String(error));
  }
  return {
    test: (text: string) => compiled.test(text),
    toString: () => `/${pattern}/${flags}`,
  };
}

/** Ajv's `code.regExp` option: the engine, and how a standalone validator's code would name it (none is generated here). */
export const linearRegExpEngine = Object.assign(linearRegExp, { code: 'require("./linearRegExp").linearRegExp' });

import { isMap, isScalar, isSeq, parseDocument, stringify, type Document } from 'yaml';
import { ordered, type Draft } from './draft';

/**
 * The editor's YAML, with the `yaml` package: the editor loads this module on first use (its own
 * chunk), so the parser adds nothing to the console's first load. A routine reads as it does in a
 * policy file (`routines:` of `drover apply` / `drover validate`), parsed with the same package
 * and options, so what validates there validates here.
 */

/** A routine as YAML: block style, the common fields first (as `draftText`), no line folding. */
export const routineYaml = (d: Draft | undefined) => (d === undefined ? '' : stringify(ordered(d), { lineWidth: 0 }));

/** Where a YAML problem is: 1-based line and column, and the offset to put the caret at. */
export interface YamlSpot {
  line: number;
  col: number;
  offset: number;
}

export type YamlParse =
  { ok: true; draft: Draft; at: (string | number)[] } | { ok: false; error: string; spot?: YamlSpot };

const isObject = (v: unknown): v is Draft => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The routine a pasted text holds, and the path to it in the document: a routine itself
 * (`name: …`), one item of a policy file's `routines:` list (`- name: …`), a bundle with one
 * routine (`routines: [ … ]`), or what `drover routines get -o yaml` prints (`definition: …`).
 */
function routineIn(value: unknown): { draft: Draft; at: (string | number)[] } | string {
  if (Array.isArray(value)) {
    if (value.length === 1 && isObject(value[0])) return { draft: value[0], at: [0] };
    return `a list of ${value.length} items: paste one routine (one item of a policy file's routines list)`;
  }
  if (!isObject(value)) return 'not a routine: a routine is a mapping (name: …, jobType: …, queue: …, trigger: …)';
  if (value.name === undefined && Array.isArray(value.routines)) {
    const list = value.routines as unknown[];
    if (list.length === 1 && isObject(list[0])) return { draft: list[0], at: ['routines', 0] };
    return `a policy bundle with ${list.length} routines: paste one routine from its routines list`;
  }
  if (value.name === undefined && isObject(value.definition)) return { draft: value.definition, at: ['definition'] };
  return { draft: value, at: [] };
}

/** The first error of a document, in words without the position (given apart) nor the snippet. */
function firstError(doc: Document): { error: string; spot: YamlSpot } | undefined {
  const e = doc.errors[0];
  if (!e) return undefined;
  const start = e.linePos?.[0] ?? { line: 1, col: 1 };
  const words = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return { error: words, spot: { line: start.line, col: start.col, offset: e.pos[0] } };
}

/**
 * A copy whose first line is indented as the ones after it: a routine selected from a policy
 * file often starts at its `- name:` (or `name:`) while the lines under it keep their indent,
 * which YAML reads as something else. Undefined when the first line needs no such help.
 */
function alignedFirstLine(text: string): string | undefined {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  const firstKey = /^(\s*(?:-\s+)?)\S/.exec(first)?.[1]?.length;
  const rest = lines.slice(1).filter((l) => l.trim() && !l.trimStart().startsWith('#'));
  if (firstKey === undefined || !rest.length) return undefined;
  const indent = Math.min(...rest.map((l) => /^ */.exec(l)![0].length));
  if (indent <= firstKey) return undefined;
  return [' '.repeat(indent - firstKey) + first, ...lines.slice(1)].join('\n');
}

/** The YAML text as a routine, or the parser's first error with its line and column. */
export function parseRoutineYaml(text: string): YamlParse {
  let doc = parseDocument(text);
  const error = firstError(doc);
  if (error) {
    const aligned = alignedFirstLine(text);
    const retry = aligned === undefined ? undefined : parseDocument(aligned);
    if (!retry || retry.errors.length) return { ok: false, ...error };
    doc = retry;
  }
  let value: unknown;
  try {
    // As the policy files are read (libs/config): the core schema, aliases bounded.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const found = routineIn(value);
  return typeof found === 'string' ? { ok: false, error: found } : { ok: true, ...found };
}

/**
 * The line of the YAML text that holds an api field error's field (`trigger.cron`,
 * `triggers[1].kind`, `triggers.1.kind`), or of its nearest parent there; undefined when the
 * text does not parse or names none of it.
 */
export function lineOfField(text: string, field: string): number | undefined {
  const parsed = parseRoutineYaml(text);
  if (!parsed.ok) return undefined;
  const source = parseDocument(text).errors.length ? (alignedFirstLine(text) ?? text) : text;
  const doc = parseDocument(source);
  const keys = field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
    .map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  for (let n = keys.length; n >= 1; n--) {
    const path = [...parsed.at, ...keys.slice(0, n)];
    const last = path.at(-1)!;
    const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
    const node = isMap(parent)
      ? parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(last))?.key
      : isSeq(parent)
        ? parent.items[Number(last)]
        : undefined;
    const offset = (node as { range?: [number, number] } | undefined)?.range?.[0];
    if (offset !== undefined) return source.slice(0, offset).split('\n').length;
  }
  return undefined;
}

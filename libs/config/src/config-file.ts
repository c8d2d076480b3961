import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseBundle, type Bundle, type BundleIssue } from '@drover/core';
import { ConfigError } from './config-error';

/** Largest policy file we read; a bigger one is almost surely a mistake (or an attack). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

export type BundleFormat = 'yaml' | 'json';

/**
 * A policy bundle checked: the bundle, or every problem. A syntax error is one issue with an
 * empty path (it is about the whole text).
 */
export type BundleCheck = { ok: true; bundle: Bundle } | { ok: false; issues: BundleIssue[] };

/** `json` for a `.json` path, else `yaml`: JSON files get JSON's stricter syntax errors. */
export function bundleFormatOf(path: string): BundleFormat {
  return extname(path).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/** The text of a policy file; throws a plain Error saying why it cannot be read. */
export function readBundleFile(path: string): string {
  const buf = readFileSync(path);
  if (buf.byteLength > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
  return buf.toString('utf8');
}

/** Parses and validates YAML or JSON text of a policy bundle (docs/core.md). Never throws. */
export function checkBundleText(text: string, format: BundleFormat = 'yaml'): BundleCheck {
  let raw: unknown;
  try {
    // YAML is a superset of JSON, but JSON files get JSON's stricter errors.
    raw = format === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    const message = `is not valid ${format.toUpperCase()}: ${(err as Error).message.split('\n')[0]}`;
    return { ok: false, issues: [{ path: '', message }] };
  }
  const result = parseBundle(raw ?? {});
  return result.ok ? result : { ok: false, issues: result.issues };
}

/** Parses YAML or JSON text of a policy bundle (docs/core.md). Throws {@link ConfigError} naming the field. */
export function parseBundleText(text: string, source: string, format: BundleFormat = 'yaml'): Bundle {
  const result = checkBundleText(text, format);
  if (result.ok) return result.bundle;
  // One line for a process that cannot start: the first problem and a few more.
  const [first, ...rest] = result.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const more = rest.length > 0 ? ` (and ${rest.length} more: ${rest.slice(0, 3).join('; ')})` : '';
  throw new ConfigError(source, `${first}${more}`);
}

/** Reads the file named by DROVER_CONFIG. The error names the variable and the file's field. */
export function loadBundleFile(path: string): Bundle {
  let text: string;
  try {
    text = readBundleFile(path);
  } catch (err) {
    throw new ConfigError(
      'DROVER_CONFIG',
      `cannot read "${path}": ${(err as Error).message}`,
      './examples/drover.yaml',
    );
  }
  return parseBundleText(text, `DROVER_CONFIG (${path})`, bundleFormatOf(path));
}

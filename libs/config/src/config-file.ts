import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseBundle, type Bundle } from '@drover/core';
import { ConfigError } from './config-error';

/** Largest policy file we read; a bigger one is almost surely a mistake (or an attack). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Parses YAML or JSON text of a policy bundle (spec §5). Throws {@link ConfigError} naming the field. */
export function parseBundleText(text: string, source: string, format: 'yaml' | 'json' = 'yaml'): Bundle {
  let raw: unknown;
  try {
    // YAML is a superset of JSON, but JSON files get JSON's stricter errors.
    raw = format === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new ConfigError(source, `is not valid ${format.toUpperCase()}: ${(err as Error).message.split('\n')[0]}`);
  }
  const result = parseBundle(raw ?? {});
  if (!result.ok) {
    const more =
      result.errors.length > 1
        ? ` (and ${result.errors.length - 1} more: ${result.errors.slice(1, 4).join('; ')})`
        : '';
    throw new ConfigError(source, `${result.errors[0]}${more}`);
  }
  return result.bundle;
}

/** Reads the file named by DROVER_CONFIG. The error names the variable and the file's field. */
export function loadBundleFile(path: string): Bundle {
  let text: string;
  try {
    const buf = readFileSync(path);
    if (buf.byteLength > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
    text = buf.toString('utf8');
  } catch (err) {
    throw new ConfigError(
      'DROVER_CONFIG',
      `cannot read "${path}": ${(err as Error).message}`,
      './examples/drover.yaml',
    );
  }
  const format = extname(path).toLowerCase() === '.json' ? 'json' : 'yaml';
  return parseBundleText(text, `DROVER_CONFIG (${path})`, format);
}

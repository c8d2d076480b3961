import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { CliError } from './cli-error';

export interface InputFile {
  text: string;
  /** How to send it: by the file's extension; stdin is taken as YAML (a superset of JSON). */
  format: 'json' | 'yaml';
  name: string;
}

/** A file named on the command line, or stdin for `-`. */
export function readInput(path: string): InputFile {
  if (path === '-') return { text: readFileSync(0, 'utf8'), format: 'yaml', name: 'stdin' };
  try {
    const text = readFileSync(path, 'utf8');
    return { text, format: extname(path).toLowerCase() === '.json' ? 'json' : 'yaml', name: path };
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

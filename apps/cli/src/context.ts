import { createDroverApiCalls, readEventStream, type DroverApiCalls, type SseEvent } from '@drover/api-client';
import { UsageError } from './cli-error';
import { resolveTarget, type ApiTarget } from './config/profiles';
import { nodeFetch } from './http/node-fetch';
import type { CliIo } from './io';
import { colorWanted, palette, type Palette } from './output/color';
import { relativeTime } from './output/time';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The global options every command sees (program-level flags). */
export interface GlobalOptions {
  apiUrl?: string;
  token?: string;
  profile?: string;
  output: string;
  color: boolean;
}

/**
 * What a command needs: the API (resolved on first use, so offline commands never read a
 * profile), the output format and a printer. One per invocation.
 */
export class CliContext {
  private target?: ApiTarget;
  private client?: DroverApiCalls;

  constructor(
    readonly io: CliIo,
    private readonly options: () => GlobalOptions,
  ) {}

  get format(): OutputFormat {
    const o = this.options().output;
    if (!(OUTPUT_FORMATS as readonly string[]).includes(o)) {
      throw new UsageError(`-o/--output must be one of ${OUTPUT_FORMATS.join(', ')} (got "${o}")`);
    }
    return o as OutputFormat;
  }

  /** For people (table output): colours and widths; machines get neither. */
  get human(): boolean {
    return this.format === 'table';
  }

  get colors(): Palette {
    return palette(this.human && colorWanted(this.options().color, this.io.env, this.io.isTty));
  }

  /** The terminal's width for tables; undefined (nothing cut) when stdout is not a terminal. */
  get width(): number | undefined {
    return this.io.isTty ? (this.io.columns ?? 100) : undefined;
  }

  /** The typed client, on node:http: see http/node-fetch.ts for why not Node's fetch. */
  get api(): DroverApiCalls {
    this.client ??= createDroverApiCalls({ ...this.apiTarget, fetch: (url, init) => nodeFetch(url, init) });
    return this.client;
  }

  get apiTarget(): ApiTarget {
    this.target ??= resolveTarget(this.options(), this.io.env);
    return this.target;
  }

  /** One of the api's event streams (`/api/v1/...`), closed when `signal` aborts. */
  events(path: string, signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<SseEvent> {
    const { baseUrl, token } = this.apiTarget;
    return readEventStream({
      baseUrl,
      ...(token && { token }),
      path,
      fetch: (url, init) => nodeFetch(url, init),
      ...(signal && { signal }),
      ...(onOpen && { onOpen }),
    });
  }

  /** `data` as JSON or YAML for machines, or what `human` renders for people. */
  emit(data: unknown, human: () => string): void {
    const format = this.format;
    if (format === 'json') this.io.out(JSON.stringify(data, null, 2) + '\n');
    // yaml is required here, not imported at the top: it takes a start tens of ms to load, and
    // only `-o yaml` and the files it reads need it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    else if (format === 'yaml') this.io.out((require('yaml') as typeof import('yaml')).stringify(data));
    else this.io.out(human());
  }

  /**
   * One event of a live command (watch, bulk progress) for machines: a JSON line
   * `{"event", "data"}` as it happens, in both json and yaml output; nothing for people.
   */
  stream(event: string, data: unknown): void {
    if (!this.human) this.io.out(JSON.stringify({ event, data }) + '\n');
  }

  /** A status line for people only (progress, confirmations): stderr, so stdout stays data. */
  note(text: string): void {
    this.io.err(text + '\n');
  }

  ago(iso: string | null | undefined): string {
    return relativeTime(iso, this.io.now());
  }
}

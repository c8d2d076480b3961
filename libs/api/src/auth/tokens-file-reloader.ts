import { readFile } from 'node:fs/promises';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig, parseApiTokens } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { ApiAuth } from './api-auth.service';

/** How often the tokens file is re-read (a Kubernetes Secret update swaps a symlink: watching misses it). */
export const TOKENS_RELOAD_MS = 2_000;

/**
 * Re-reads DROVER_API_TOKENS_FILE while the api runs — every TOKENS_RELOAD_MS and at once on
 * SIGHUP — so removing or replacing a token revokes it (bearer calls, console sessions and their
 * event streams) without a restart. A file that no longer parses, or that cannot be read (deleted,
 * unmounted), is logged and ignored: the api keeps the tokens it has rather than locking everybody
 * out or letting everybody in.
 */
@Injectable()
export class TokensFileReloader implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private lastText?: string;
  private lastProblem?: string;
  private readonly onHup = () => void this.reload('SIGHUP');

  constructor(
    private readonly config: AppConfig,
    private readonly auth: ApiAuth,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const file = this.config.env.apiTokensFile;
    if (!file || this.auth.developmentMode) return;
    // Read again now: a token removed between the config's read and this point is revoked at once.
    await this.reload('start');
    this.timer = setInterval(() => void this.reload(), TOKENS_RELOAD_MS).unref();
    process.on('SIGHUP', this.onHup);
  }

  /** Reads the file; replaces the tokens when its text changed and it parses. */
  async reload(why?: string): Promise<void> {
    const file = this.config.env.apiTokensFile!;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      return this.problem(`cannot read "${file}": ${(err as Error).message}`);
    }
    if (text === this.lastText && why === undefined) return;
    try {
      const tokens = parseApiTokens(text, file);
      this.lastText = text;
      this.lastProblem = undefined;
      this.auth.replaceTokens(tokens);
      this.log.info({ file, tokens: tokens.length, why }, `reloaded ${tokens.length} token(s) from ${file}`);
    } catch (err) {
      this.lastText = text;
      this.problem((err as Error).message);
    }
  }

  /** Logs a bad file once (not every poll) and keeps the current tokens. */
  private problem(message: string): void {
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.log.error(`tokens file not reloaded, the previous tokens stay in force: ${message}`);
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    process.off('SIGHUP', this.onHup);
  }
}

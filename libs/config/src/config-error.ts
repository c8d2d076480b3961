import { DroverError } from '@drover/core';

/**
 * A configuration problem the process cannot start with. The message is one line that names
 * the variable (or file field), says what is wrong and shows a valid example.
 */
export class ConfigError extends DroverError {
  get code() {
    return 'invalid-config' as const;
  }

  constructor(
    readonly variable: string,
    readonly problem: string,
    readonly example?: string,
  ) {
    super(`${variable}: ${problem}${example ? ` (e.g. ${example})` : ''}`);
    this.name = 'ConfigError';
  }
}

/** Exit code for "started with invalid configuration", distinct from crashes (1). */
export const CONFIG_EXIT_CODE = 2;

/** The service's own settings: where Drover's Redis is and which prefix the cluster uses. */
export interface Settings {
  redisUrl: string;
  droverPrefix: string;
}

export const SETTINGS = Symbol('settings');

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    droverPrefix: env.DROVER_PREFIX ?? 'drover',
  };
}

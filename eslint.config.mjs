import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const RANDOM_MESSAGE = 'Use the injected Random (`@Inject(RANDOM)`, libs/platform/src/random.ts).';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.drover/**',
      'examples/**/dist/**',
      'examples/**/node_modules/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { disallowTypeAnnotations: false, fixStyle: 'inline-type-imports' },
      ],
      'no-console': 'off',
    },
  },
  {
    // NestJS DI reads constructor parameter types at runtime: a type-only import would erase the token.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'examples/**/*.ts'],
    ignores: ['libs/core/**'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    // One clock and one random source: every service takes `Clock` (the cluster clock,
    // libs/redis/src/clock) and `Random` (`@Inject(RANDOM)`, libs/platform/src/random.ts); tests may
    // read time and draw numbers themselves.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: [
      'libs/redis/src/clock/**',
      'libs/testing/**',
      'libs/*/src/testing/**',
      'libs/*/test/**',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the injected Clock (libs/redis/src/clock).' },
        { object: 'Math', property: 'random', message: RANDOM_MESSAGE },
      ],
    },
  },
  {
    // One registry of keys: every Redis key and channel is built by name through DroverKeys from
    // libs/redis/src/key-registry.ts, where it is documented; a key spelled by hand can drift from it.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/redis/src/keys.ts', '**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/\\{core\\}/], TemplateElement[value.raw=/\\{core\\}|^:de:|^:drover:/]',
          message: 'Build Redis keys by name through DroverKeys (libs/redis/src/key-registry.ts).',
        },
        {
          selector: "TemplateLiteral > MemberExpression[property.name='bullPrefix']",
          message: "Build a queue's keys by name through DroverKeys (libs/redis/src/key-registry.ts).",
        },
      ],
    },
  },
  {
    // The clock's own files read the wall clock, but draw nothing.
    files: ['libs/redis/src/clock/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: RANDOM_MESSAGE }] },
  },
  {
    // The core is pure: no framework, queue or Redis client may leak into it.
    files: ['libs/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'bullmq', 'ioredis', 'prom-client', 'pino', '@drover/*'],
              message: 'libs/core is pure: import only zod, cron-parser and local files.',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Take `now` as a parameter.' },
        { object: 'Math', property: 'random', message: 'Take `random` as a parameter.' },
      ],
    },
  },
  {
    // The web console runs in browsers.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

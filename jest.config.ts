/** @jest-config-loader-options {"transpileOnly": true} */
import type { Config } from 'jest';

// One swc transform for every project: decorators + metadata so NestJS DI works in tests.
const transform: Config['transform'] = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      swcrc: false,
      sourceMaps: 'inline',
      module: { type: 'commonjs' },
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        keepClassNames: true,
      },
    },
  ],
};

// @nestjs/bullmq ships ES modules only; Node loads them from CommonJS (require of ESM), Jest's
// module runtime does not on this Node, so they are compiled to CommonJS like our sources.
const ESM_PACKAGES = '@nestjs/(bullmq|bull-shared)';
transform[`node_modules/${ESM_PACKAGES}/.+\\.js$`] = [
  '@swc/jest',
  { swcrc: false, module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } },
];

const shared = {
  transform,
  transformIgnorePatterns: [`/node_modules/(?!${ESM_PACKAGES}/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@drover/core/words$': '<rootDir>/libs/core/src/words',
    '^@drover/core/human-time$': '<rootDir>/libs/core/src/human-time',
    '^@drover/config/config-file$': '<rootDir>/libs/config/src/config-file',
    '^@drover/([^/]+)$': '<rootDir>/libs/$1/src',
  },
  testEnvironment: 'node',
  rootDir: '.',
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/examples/'],
};

const config: Config = {
  // Two suites at a time: e2e suites spend most of their time waiting on real processes and timers,
  // so a second worker roughly halves a full run on a 2-core machine (jest's default there is one).
  maxWorkers: 2,
  // The real redis-server for int and e2e projects: started once, on a free loopback port.
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  collectCoverageFrom: ['libs/core/src/**/*.ts', '!libs/core/src/**/*.spec.ts', '!libs/core/src/**/index.ts'],
  coverageThreshold: { global: {}, 'libs/core/src/': { lines: 95 } },
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,console}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,observability,test}/**/*.int-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/int-timeout.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest/e2e-timeout.ts'],
    },
  ],
};

export default config;

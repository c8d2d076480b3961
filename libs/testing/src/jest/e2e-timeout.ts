// Jest reads `testTimeout` only from the root config, not from a project's: a project sets its
// own default per test file here instead (a test that names its own timeout keeps it).
jest.setTimeout(120_000);

import { readPath, segmentsStartWith } from './path-segments';

/** The pathname WHATWG URL makes of `path`, read into segments. */
const read = (path: string) => readPath(new URL(`http://h${path}`).pathname);

describe('readPath', () => {
  it.each([
    ['/', ['']],
    ['/allowed', ['allowed']],
    ['/allowed/', ['allowed', '']],
    ['/allowed/x/y', ['allowed', 'x', 'y']],
    // Unreserved characters decoded, other escapes in one spelling.
    ['/%61llowed/%7euser', ['allowed', '~user']],
    ['/a%2a/b%c3%a9', ['a%2A', 'b%C3%A9']],
    // WHATWG URL resolves dot segments, spelt plainly or as %2e, and `\` before this ever runs.
    ['/allowed/../admin', ['admin']],
    ['/allowed/%2e%2E/admin', ['admin']],
    ['/allowed\\..\\admin', ['admin']],
    ['/a;b/c', ['a;b', 'c']],
  ])('%s reads as %j', (path, segments) => {
    expect(read(path)).toEqual({ segments });
  });

  it.each([
    ['/allowed%2F..%2Fadmin', 'encodes a "/" or "\\"'],
    ['/allowed%2f..%2fadmin', 'encodes a "/" or "\\"'],
    ['/allowed%5C..%5Cadmin', 'encodes a "/" or "\\"'],
    ['/allowed%252F..%252Fadmin', 'encodes a "/" or "\\"'],
    ['/allowed%25252F..', 'encodes a "/" or "\\"'],
    ['/allowed/..;/admin', 'is a "." or ".." segment'],
    ['/allowed/.;x/admin', 'is a "." or ".." segment'],
    ['/allowed/%252e%252e/admin', 'is a "." or ".." segment'],
    ['/allowed/%2e%2e;/admin', 'is a "." or ".." segment'],
    ['/allowed%00/x', 'encodes a NUL'],
    ['/a%2525252525252F', 'percent-encoded more than 4 times'],
  ])('%s is refused: %s', (path, problem) => {
    const reading = read(path);
    expect('problem' in reading && reading.problem).toContain(problem);
  });
});

describe('segmentsStartWith', () => {
  const seg = (path: string) => (read(path) as { segments: string[] }).segments;

  it.each([
    ['/allowed', '/allowed', true],
    ['/allowed/', '/allowed', true],
    ['/allowed/x', '/allowed', true],
    ['/allowed', '/allowed/', true],
    ['/allowed/x', '/allowed/', true],
    ['/%61llowed/x', '/allowed', true],
    ['/anything', '/', true],
    ['/allowed-admin', '/allowed', false],
    ['/allowedx/y', '/allowed/', false],
    ['/admin', '/allowed', false],
    ['/', '/allowed', false],
    ['/Allowed', '/allowed', false],
    ['/a/b', '/a/b/c', false],
  ])('%s under %s: %s', (path, prefix, expected) => {
    expect(segmentsStartWith(seg(path), seg(prefix))).toBe(expected);
  });
});

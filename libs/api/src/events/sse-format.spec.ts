import { formatSse, sseComment } from './sse-format';

describe('SSE formatting', () => {
  it('writes retry, id, event and JSON data in that order, ending with a blank line', () => {
    expect(formatSse({ retry: 3000, id: 7, event: 'status', data: { a: 1 } })).toBe(
      'retry: 3000\nid: 7\nevent: status\ndata: {"a":1}\n\n',
    );
  });

  it('splits multi-line string data into one data line per line', () => {
    expect(formatSse({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n');
  });

  it('keeps JSON data on one line even when its strings hold line breaks', () => {
    const text = formatSse({ event: 'progress', data: { note: 'a\nb' } });
    expect(text).toBe('event: progress\ndata: {"note":"a\\nb"}\n\n');
  });

  it('cannot be made to carry a forged field through a line break in id or event', () => {
    expect(formatSse({ id: '1\nevent: evil', event: 'x\r\ndata: y' })).toBe('id: 1 event: evil\nevent: x data: y\n\n');
  });

  it('writes comments that clients ignore', () => {
    expect(sseComment('keep-alive')).toBe(': keep-alive\n\n');
  });
});

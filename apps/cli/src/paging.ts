/** One page of a cursor-paged list (`next_page_token`, docs/api.md). */
export interface Page<T> {
  items: T[];
  next_page_token?: string;
}

/** Up to `limit` items, following `next_page_token` page by page. */
export async function collect<T>(
  fetchPage: (pageToken: string | undefined, pageSize: number) => Promise<Page<T>>,
  limit: number,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let token: string | undefined;
  for (;;) {
    const page = await fetchPage(token, Math.min(500, limit - items.length));
    items.push(...page.items);
    token = page.next_page_token;
    if (!token || items.length >= limit) return { items: items.slice(0, limit), more: token !== undefined };
  }
}

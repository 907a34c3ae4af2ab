// The API's lists are pages linked by an opaque cursor: `{ <items>: [...], nextCursor }`, where a null
// nextCursor is the last page; the events log adds `hasMore`, since its cursor is never null (it is where
// the next call resumes, even when nothing new has happened yet). A Paginator walks the pages lazily
// as it is iterated and remembers the last cursor, so a reconciliation loop can store it and resume.

export type Page<K extends string, T> = { [key in K]: T[] } & { nextCursor: string | null; hasMore?: boolean };

export class Paginator<T> implements AsyncIterable<T> {
  #cursor: string | null;

  constructor(
    private readonly fetchPage: (
      cursor: string | null,
    ) => Promise<{ items: T[]; nextCursor: string | null; hasMore?: boolean }>,
    start: string | null = null,
  ) {
    this.#cursor = start;
  }

  /** The last cursor the API handed out while iterating (null before the first page): for the events log, where to resume next time. */
  get cursor(): string | null {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      for (const item of page.items) yield item;
      if (page.nextCursor !== null) this.#cursor = page.nextCursor;
      const more = page.hasMore ?? page.nextCursor !== null;
      if (!more || page.nextCursor === null || page.nextCursor === cursor) return;
      cursor = page.nextCursor;
    }
  }

  /** Every item, read into an array (bounded lists only: a merchant's events grow without end). */
  async toArray(limit = Infinity): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= limit) break;
      out.push(item);
    }
    return out;
  }
}

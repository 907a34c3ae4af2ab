// A Response whose body is a string we already hold, and whose headers are a plain record until
// someone asks for them. Node's Response turns a string body into a web ReadableStream as it is
// constructed (~15 µs, a tenth of an API request's CPU under load), and filling its Headers validates
// and copies every field again (~4 µs a response), though the fast path only ever needs the string
// and the fields back. This subclass keeps both and builds the stream or the Headers only when
// something asks for them (Next's router, a test reading .text()), so it is a complete Response to
// every reader.

const TEXT = Symbol.for("payments.jsonResponseText");
const FIELDS = Symbol.for("payments.jsonResponseFields");

/** Header fields by lower-case name. */
export type HeaderFields = Record<string, string>;

export class JsonResponse extends Response {
  readonly [TEXT]: string;
  /** The header fields, until `headers` is first read; from then on the Headers object is the truth. */
  [FIELDS]: HeaderFields | undefined;
  #headers: Headers | undefined;
  #materialised: Response | undefined;

  /** `fields` must have lower-case names; the response takes ownership of the object. */
  constructor(text: string, status: number, fields: HeaderFields) {
    super(null, { status });
    this[TEXT] = text;
    this[FIELDS] = fields;
  }

  override get headers(): Headers {
    if (!this.#headers) {
      this.#headers = new Headers(this[FIELDS]);
      this[FIELDS] = undefined;
    }
    return this.#headers;
  }

  #real(): Response {
    return (this.#materialised ??= new Response(this[TEXT], {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    }));
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#real().body;
  }
  override get bodyUsed(): boolean {
    return this.#materialised?.bodyUsed ?? false;
  }
  override text(): Promise<string> {
    return this.#real().text();
  }
  override json(): Promise<unknown> {
    return this.#real().json();
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#real().arrayBuffer();
  }
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#real().bytes();
  }
  override blob(): Promise<Blob> {
    return this.#real().blob();
  }
  override formData(): Promise<FormData> {
    return this.#real().formData();
  }
  override clone(): JsonResponse {
    if (this.bodyUsed) throw new TypeError("Response body is already used");
    // The copy gets its own fields; this response keeps its own unread.
    const fields = this[FIELDS];
    return new JsonResponse(this[TEXT], this.status, fields ? { ...fields } : Object.fromEntries(this.headers));
  }
}

/**
 * The body text of a JsonResponse without touching streams; undefined for any other Response.
 * Checked by symbol, not instanceof: Next's bundle and the server each load their own copy of lib/.
 */
export function jsonResponseText(res: Response): string | undefined {
  const text = (res as Partial<Record<typeof TEXT, unknown>>)[TEXT];
  return typeof text === "string" ? text : undefined;
}

/** A JsonResponse's header fields while no Headers object has been made of them; otherwise undefined. */
export function jsonResponseFields(res: Response): HeaderFields | undefined {
  return (res as Partial<Record<typeof FIELDS, HeaderFields>>)[FIELDS];
}

/** Sets one header field on any Response, without making a Headers object for a JsonResponse. */
export function setResponseHeader(res: Response, name: string, value: string): void {
  const fields = jsonResponseFields(res);
  if (fields) fields[name.toLowerCase()] = value;
  else res.headers.set(name, value);
}

// A Response whose body is a string we already hold. Node's Response turns a string body into a web
// ReadableStream as it is constructed (~15 µs, a tenth of an API request's CPU under load), though
// the fast path only ever needs the string back. This subclass keeps the string and builds the
// stream only when something asks for the body (Next's router, a test reading .text()), so it is
// a complete Response to every reader.

const TEXT = Symbol.for("payments.jsonResponseText");

export class JsonResponse extends Response {
  readonly [TEXT]: string;
  #materialised: Response | undefined;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this[TEXT] = text;
  }

  #real(): Response {
    return (this.#materialised ??= new Response(this[TEXT], { status: this.status, statusText: this.statusText, headers: this.headers }));
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
    return new JsonResponse(this[TEXT], { status: this.status, statusText: this.statusText, headers: new Headers(this.headers) });
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

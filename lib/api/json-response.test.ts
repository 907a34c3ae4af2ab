import { describe, expect, it } from "vitest";
import { JsonResponse, jsonResponseText } from "./json-response";

const TEXT = JSON.stringify({ success: true, valor: "R$ 10,50 — ação" });

describe("JsonResponse", () => {
  it("is a complete Response to every reader: text, json, bytes, a stream, and a clone", async () => {
    const res = new JsonResponse(TEXT, { status: 201, headers: { "content-type": "application/json" } });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.clone().json()).toEqual(JSON.parse(TEXT));
    expect(new TextDecoder().decode(await res.clone().bytes())).toBe(TEXT);
    expect(await new Response(res.clone().body).text()).toBe(TEXT);
    expect(res.bodyUsed).toBe(false);
    expect(await res.text()).toBe(TEXT);
    expect(res.bodyUsed).toBe(true);
    expect(() => res.clone()).toThrow(TypeError);
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it("hands its text to the fast path without building a stream; other responses have none", () => {
    expect(jsonResponseText(new JsonResponse(TEXT, { status: 200 }))).toBe(TEXT);
    expect(jsonResponseText(new Response(TEXT))).toBeUndefined();
  });
});

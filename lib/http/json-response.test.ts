import { describe, expect, it } from "vitest";
import { JsonResponse, jsonResponseFields, jsonResponseText, setResponseHeader } from "./json-response";
import { json } from "./respond";

const TEXT = JSON.stringify({ success: true, valor: "R$ 10,50 — ação" });

describe("JsonResponse", () => {
  it("is a complete Response to every reader: text, json, bytes, a stream, and a clone", async () => {
    const res = new JsonResponse(TEXT, 201, { "content-type": "application/json" });
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
    expect(jsonResponseText(new JsonResponse(TEXT, 200, {}))).toBe(TEXT);
    expect(jsonResponseText(new Response(TEXT))).toBeUndefined();
  });

  it("keeps its header fields plain until they are read, and then Headers is the only truth", () => {
    const res = new JsonResponse(TEXT, 200, { "content-type": "application/json" });
    setResponseHeader(res, "X-Request-Id", "req_1");
    expect(jsonResponseFields(res)).toEqual({ "content-type": "application/json", "x-request-id": "req_1" });
    expect(res.headers.get("x-request-id")).toBe("req_1");
    expect(jsonResponseFields(res)).toBeUndefined();
    setResponseHeader(res, "x-request-id", "req_2");
    expect(res.headers.get("x-request-id")).toBe("req_2");
    const plain = new Response("{}");
    setResponseHeader(plain, "x-request-id", "req_3");
    expect(plain.headers.get("x-request-id")).toBe("req_3");
  });

  it("carries status, headers and body through what Next does with a route's answer", async () => {
    const res = json(201, { ok: "sim" }, { "Retry-After": "3" });
    setResponseHeader(res, "x-request-id", "req_9");
    const copy = new Response(res.body, res);
    expect(copy.status).toBe(201);
    expect(Object.fromEntries(copy.headers)).toEqual({
      "cache-control": "no-store",
      "content-type": "application/json; charset=utf-8",
      "retry-after": "3",
      "x-content-type-options": "nosniff",
      "x-request-id": "req_9",
    });
    expect(await copy.json()).toEqual({ ok: "sim" });
    const original = json(200, { a: 1 });
    const clone = original.clone();
    expect(jsonResponseFields(original)).toBeDefined();
    expect(clone.headers.get("cache-control")).toBe("no-store");
    expect(await clone.json()).toEqual({ a: 1 });
  });
});

import { AsyncLocalStorage } from "node:async_hooks";
import { processSingleton } from "@/lib/singleton";

// Carries the request id through everything a request causes (services, queries, provider calls),
// so every log line it produces names it without passing it by hand.
type RequestContext = { requestId: string };

const storage = processSingleton("request-context", () => new AsyncLocalStorage<RequestContext>());

export function withRequestContext<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(ctx, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

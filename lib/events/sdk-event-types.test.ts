import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "@/sdk/src/webhooks";
import { EVENT_TYPES } from "./outbox";

// The SDK types each event's `data` by its type (sdk/src/webhooks.ts, from docs/webhooks.md): an event
// type the server writes and the SDK does not know would reach an integrator's handler untyped.
describe("the SDK's webhook event types", () => {
  it("are exactly the types the outbox writes", () => {
    expect(
      [...WEBHOOK_EVENT_TYPES].sort(),
      "add the new type and its data to WebhookEventData in sdk/src/webhooks.ts (and CHANGELOG.md)",
    ).toEqual([...EVENT_TYPES].sort());
  });
});

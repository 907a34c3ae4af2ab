// The event as merchants see it: the webhook body and each item of GET /api/v1/events are the same
// object, so a reconciliation run and a webhook handler can share code.

export type EventRow = { id: string; type: string; createdAt: Date; data: Record<string, unknown> };

export function eventPayload(e: EventRow) {
  return { id: e.id, type: e.type, createdAt: e.createdAt.toISOString(), data: e.data };
}

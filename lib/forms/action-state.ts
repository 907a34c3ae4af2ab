import type { MessageKey } from "@/lib/i18n";

// What a dashboard server action answers to useActionState. Kept apart from action.ts so client
// components can import the type and the initial state without pulling server code in.

export type ActionState<D = undefined> =
  | { status: "idle" }
  | { status: "error"; error?: string; fieldErrors?: Record<string, string[]>; values?: Record<string, string> }
  | { status: "success"; data: D; message?: MessageKey; at: number };

export const idle = { status: "idle" } as const;

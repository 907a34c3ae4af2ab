import postgres from "postgres";
import { connectionOptions, type Pool } from "./index";

// LISTEN for the process, on one connection of its own per pool. postgres.js's sql.listen re-listens
// after a reconnect but tells nobody that the connection was lost, and notifications sent meanwhile
// are gone: a cache that trusts them must stop serving the moment it may have missed one. Here every
// subscriber hears `lost` when the connection closes and `listening` once LISTEN is back.

export type Subscription = {
  notify: (payload: string) => void;
  /** After the first LISTEN and after every re-LISTEN that follows a lost connection. */
  listening?: () => void;
  /** The connection closed: notifications may be missed until `listening` runs again. */
  lost?: () => void;
};

type Listener = {
  sql: postgres.Sql;
  channels: Map<string, Set<Subscription>>;
  ended: boolean;
};

const listeners = new WeakMap<Pool, Listener>();

const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

function listenerFor(pool: Pool): Listener {
  const l = listeners.get(pool);
  if (l) return l;
  // PostgreSQL itself, never a transaction pooler: notifications go to the session that listened.
  const url = pool.listenUrl;
  const channels = new Map<string, Set<Subscription>>();
  const listener: Listener = { channels, ended: false, sql: undefined as unknown as postgres.Sql };
  // onnotify is how postgres.js's own listen receives notifications; its type declarations omit it.
  const onnotify = (channel: string, payload: string) => {
    for (const s of channels.get(channel) ?? []) s.notify(payload);
  };
  listener.sql = postgres(url, {
    ...connectionOptions(url, { applicationName: pool.applicationName, pooled: false }),
    max: 1,
    max_lifetime: null,
    fetch_types: false,
    ...({ onnotify } as object),
    onclose: () => {
      if (listener.ended) return;
      for (const subs of channels.values()) for (const s of subs) s.lost?.();
      // The next query reconnects (with the pool's backoff, retrying until it is back).
      for (const channel of channels.keys()) relisten(listener, channel);
    },
  });
  pool.closeWith.push(() => {
    listener.ended = true;
    return listener.sql.end({ timeout: 5 });
  });
  listeners.set(pool, listener);
  return listener;
}

function relisten(l: Listener, channel: string) {
  l.sql.unsafe(`listen ${quoted(channel)}`).then(
    () => {
      for (const s of l.channels.get(channel) ?? []) s.listening?.();
    },
    // A failed LISTEN closed the connection, whose onclose tries again.
    () => {},
  );
}

/** Subscribes to a channel; rejects if the first LISTEN fails (the subscriber then hears nothing). */
export async function listen(
  pool: Pool,
  channel: string,
  sub: Subscription,
): Promise<{ unlisten: () => Promise<void> }> {
  const l = listenerFor(pool);
  let subs = l.channels.get(channel);
  if (!subs) {
    subs = new Set();
    l.channels.set(channel, subs);
  }
  subs.add(sub);
  try {
    await l.sql.unsafe(`listen ${quoted(channel)}`);
  } catch (err) {
    subs.delete(sub);
    throw err;
  }
  sub.listening?.();
  return {
    unlisten: async () => {
      subs.delete(sub);
      if (subs.size === 0 && l.channels.get(channel) === subs) {
        l.channels.delete(channel);
        if (!l.ended) await l.sql.unsafe(`unlisten ${quoted(channel)}`);
      }
    },
  };
}

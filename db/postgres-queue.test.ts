import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// postgres.js 3.4.9's connection queues searched every slot ever shifted out on each remove, so a pool
// whose idle queue never empties slowed down by one slot per query, without end (see
// patches/postgres+3.4.9.patch and scripts/bench/pg-queue.ts). These tests check the patched queue
// still behaves as a queue, in both builds Node can load, and that the patch is installed.

type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
const require = createRequire(import.meta.url);
// The package's exports hide its internals: find them from its CommonJS entry (cjs/src/index.js).
const root = path.resolve(path.dirname(require.resolve("postgres")), "../..");
const builds = {
  cjs: path.join(root, "cjs/src/queue.js"),
  esm: path.join(root, "src/queue.js"),
};

async function load(file: string): Promise<(initial?: unknown[]) => Queue<unknown>> {
  const mod = await import(file);
  return mod.default ?? mod;
}

// A small deterministic generator: the same sequence of operations on every run.
function lcg(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe.each(Object.entries(builds))("postgres.js connection queue (%s build)", (_name, file) => {
  it("is installed with the fix", () => {
    expect(fs.readFileSync(file, "utf8")).toContain("xs.indexOf(x, index)");
  });

  it("matches a plain array through 50,000 random pushes, shifts and removes, including long runs that never empty", async () => {
    const Queue = await load(file);
    const q = Queue();
    const model: number[] = [];
    const random = lcg(42);
    let next = 0;
    for (let i = 0; i < 50_000; i++) {
      const r = random();
      if (r < 0.45 || model.length === 0) {
        q.push(next);
        model.push(next++);
      } else if (r < 0.85) {
        expect(q.shift()).toBe(model.shift());
      } else {
        // Half the time an item that is queued, half the time one that already left.
        const x =
          random() < 0.5 && model.length
            ? model[Math.floor(random() * model.length)]
            : next - 1 - Math.floor(random() * 100);
        const at = model.indexOf(x);
        expect(q.remove(x)).toBe(at === -1 ? null : x);
        if (at !== -1) model.splice(at, 1);
      }
      expect(q.length).toBe(model.length);
    }
    while (model.length) expect(q.shift()).toBe(model.shift());
    expect(q.length).toBe(0);
    // CPU-bound: 150,000 expects, about a second idle; the budget holds at a load of 30 on 2 cores.
  }, 60_000);

  it("cycles ten connections through the idle queue the way the pool does, in order", async () => {
    const Queue = await load(file);
    const connections = Array.from({ length: 10 }, (_, i) => ({ i }));
    const open = Queue(connections);
    for (let n = 0; n < 10_000; n++) {
      const c = open.shift()!;
      expect(c).toBe(connections[n % 10]);
      expect(open.remove(c)).toBeNull();
      open.push(c);
    }
    expect(open.length).toBe(10);
  });
});

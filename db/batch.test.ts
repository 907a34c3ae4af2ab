import { describe, expect, it } from "vitest";
import { batched } from "./batch";

/** A `run` whose batches stay open until released, recording what each carried. */
function gatedRun(fail?: (input: number) => boolean) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = (inputs: number[]) => {
    batches.push(inputs);
    return new Promise<number[]>((resolve, reject) => {
      gates.push(() =>
        fail && inputs.some(fail)
          ? reject(new Error(`bad input in ${inputs.join(",")}`))
          : resolve(inputs.map((i) => i * 10)),
      );
    });
  };
  const releaseAll = async () => {
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { run, batches, releaseAll };
}

describe("batched", () => {
  it("sends a call at once, alone, while a slot is free", async () => {
    const g = gatedRun();
    const call = batched(g.run, { concurrency: 2, maxBatch: 8 });
    const a = call(1);
    const b = call(2);
    expect(g.batches).toEqual([[1], [2]]);
    await g.releaseAll();
    expect(await Promise.all([a, b])).toEqual([10, 20]);
  });

  it("gathers the calls made while every slot is busy into the next batch, each answered with its own output", async () => {
    const g = gatedRun();
    const call = batched(g.run, { concurrency: 1, maxBatch: 8 });
    const results = [1, 2, 3, 4].map((i) => call(i));
    expect(g.batches).toEqual([[1]]);
    await g.releaseAll();
    expect(g.batches).toEqual([[1], [2, 3, 4]]);
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40]);
  });

  it("never puts more than maxBatch calls in one batch", async () => {
    const g = gatedRun();
    const call = batched(g.run, { concurrency: 1, maxBatch: 3 });
    const results = Array.from({ length: 8 }, (_, i) => call(i));
    await g.releaseAll();
    expect(g.batches.map((b) => b.length)).toEqual([1, 3, 3, 1]);
    expect(await Promise.all(results)).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
  });

  it("retries each call of a failed batch alone: only the bad one fails, every other is answered once", async () => {
    const g = gatedRun((i) => i === 3);
    const call = batched(g.run, { concurrency: 1, maxBatch: 8 });
    const results = [1, 2, 3, 4].map((i) =>
      call(i).then(
        (v) => ({ v }),
        (e: Error) => ({ e: e.message }),
      ),
    );
    await g.releaseAll();
    expect(await Promise.all(results)).toEqual([{ v: 10 }, { v: 20 }, { e: "bad input in 3" }, { v: 40 }]);
    // [1] alone, then [2,3,4] together (failed), then 2, 3 and 4 alone.
    expect(g.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("rejects every call of a batch whose answer does not match its inputs", async () => {
    const call = batched(async (inputs: number[]) => inputs.slice(1), { concurrency: 1, maxBatch: 8 });
    await expect(call(1)).rejects.toThrow(/0 results for 1 inputs/);
  });

  it("frees its slot after a failure, so later calls still run", async () => {
    let fail = true;
    const call = batched(
      async (inputs: number[]) => {
        if (fail) throw new Error("down");
        return inputs;
      },
      { concurrency: 1, maxBatch: 8 },
    );
    await expect(call(1)).rejects.toThrow("down");
    fail = false;
    await expect(call(2)).resolves.toBe(2);
  });
});

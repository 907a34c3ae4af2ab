import { execFileSync } from "node:child_process";
import { createServer } from "node:net";

// Ports the system picks (listening on port 0), so two runs on one machine never share one. A port is
// free when returned; the server that takes it starts right after.

const PICK = `const net = require("node:net");
const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", r)))).then(() => {
  process.stdout.write(servers.map((s) => s.address().port).join(" "));
  servers.forEach((s) => s.close());
});`;

/** `count` distinct free ports, synchronously (playwright.config.ts is not async). */
export function freePortsSync(count: number): number[] {
  return execFileSync(process.execPath, ["-e", PICK, String(count)], { encoding: "utf8" })
    .split(" ")
    .map(Number);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

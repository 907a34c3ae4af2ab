import fs from "node:fs";
import os from "node:os";

// What the benchmark reads off Linux's /proc beside each run: how busy the machine was, how much of it
// the hypervisor took, and the CPU time and memory of the processes measured.

/**
 * The whole machine while one server was measured: % of all cores busy, and % stolen by the hypervisor;
 * and per request, the CPU time of the server's process and of PostgreSQL's processes (µs).
 */
export type MachineLoad = { busyPct: number; stealPct: number; serverCpuUs: number; dbCpuUs: number };

/** The machine's cpu line of /proc/stat: [busy, steal, total] jiffies since boot. */
export function cpuTimes(): [number, number, number] {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
    return [user + nice + system + irq + softirq, steal, user + nice + system + idle + iowait + irq + softirq + steal];
  } catch {
    return [0, 0, 0];
  }
}

export function machineLoadSince(before: [number, number, number]): Pick<MachineLoad, "busyPct" | "stealPct"> {
  const after = cpuTimes();
  const total = after[2] - before[2];
  if (total <= 0) return { busyPct: 0, stealPct: 0 };
  const cores = os.cpus().length;
  return { busyPct: Math.round(((after[0] - before[0]) / total) * 100 * cores), stealPct: Math.round(((after[1] - before[1]) / total) * 100 * cores) };
}

export const TICK_US = 1_000_000 / 100; // USER_HZ: /proc reports CPU time in hundredths of a second on Linux

/** utime + stime of one process, in ticks (0 if it is gone). */
export function processTicks(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** CPU ticks of every PostgreSQL process now running (backends come and go; a run's are counted while they live). */
export function postgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") ticks.set(Number(entry), processTicks(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

export function postgresTicksSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, now] of postgresTicks()) sum += now - (before.get(pid) ?? 0);
  return sum;
}

export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

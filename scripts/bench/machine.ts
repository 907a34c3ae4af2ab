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
function cpuTimes(): [number, number, number] {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
    return [user + nice + system + irq + softirq, steal, user + nice + system + idle + iowait + irq + softirq + steal];
  } catch {
    return [0, 0, 0];
  }
}

const TICK_US = 1_000_000 / 100; // USER_HZ: /proc reports CPU time in hundredths of a second on Linux

/** utime + stime of one process, in ticks (0 if it is gone). */
function processTicks(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The data directory of the PostgreSQL the bench started: only its processes are counted (countPostgresOf). */
let postgresDataDir: string | null = null;

/**
 * Counts only the PostgreSQL that runs on `dataDir` (its postmaster and the processes it started): on a
 * machine shared with other test databases, every process named postgres included theirs.
 */
export function countPostgresOf(dataDir: string) {
  postgresDataDir = dataDir;
}

/** Parent pid of one process (0 if it is gone). */
function parentOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

/** CPU ticks of the bench's PostgreSQL processes now running (backends come and go; a run's are counted while they live). */
function postgresTicks(): Map<number, number> {
  const named: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") named.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  let counted = named;
  if (postgresDataDir) {
    const dir = postgresDataDir;
    const postmasters = new Set(
      named.filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dir);
        } catch {
          return false;
        }
      }),
    );
    counted = named.filter((pid) => postmasters.has(pid) || postmasters.has(parentOf(pid)));
  }
  return new Map(counted.map((pid) => [pid, processTicks(pid)]));
}

/** What a run is measured from: the machine's CPU times, the server's, and every PostgreSQL process's. */
export type MachineSnapshot = { pid: number; cpu: [number, number, number]; server: number; db: Map<number, number> };

export function machineSnapshot(pid: number): MachineSnapshot {
  return { pid, cpu: cpuTimes(), server: processTicks(pid), db: postgresTicks() };
}

/** The machine's load since `before`, with the CPU time per request of the `requests` answered meanwhile. */
export function machineLoadSince(before: MachineSnapshot, requests: number): MachineLoad {
  const cpu = cpuTimes();
  let db = 0;
  for (const [pid, now] of postgresTicks()) db += now - (before.db.get(pid) ?? 0);
  const perRequest = (ticks: number) => Math.round((ticks * TICK_US) / Math.max(1, requests));
  const total = cpu[2] - before.cpu[2];
  const cores = os.cpus().length;
  const share = (jiffies: number) => (total > 0 ? Math.round((jiffies / total) * 100 * cores) : 0);
  return {
    busyPct: share(cpu[0] - before.cpu[0]),
    stealPct: share(cpu[1] - before.cpu[1]),
    serverCpuUs: perRequest(processTicks(before.pid) - before.server),
    dbCpuUs: perRequest(db),
  };
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

/**
 * Resident memory of the servers, read every 250 ms from start to end of the run (between measurements
 * too: start-up, seeding, the large-data mode), so the peak is the run's, not only the measurements'.
 */
export class RssSampler {
  private readonly watched = new Map<number, string>();
  private readonly peakByName = new Map<string, number>();
  private readonly sinceReset = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 250) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  /** Follows `pid` under `name` (several processes may share a name: the peak is of any of them). */
  watch(name: string, pid: number) {
    this.watched.set(pid, name);
    this.sample();
  }

  private sample() {
    for (const [pid, name] of this.watched) {
      const mb = rssMb(pid);
      if (mb === 0) continue;
      this.peakByName.set(name, Math.max(this.peakByName.get(name) ?? 0, mb));
      if (this.sinceReset.has(pid)) this.sinceReset.set(pid, Math.max(this.sinceReset.get(pid)!, mb));
    }
  }

  /** Starts a measurement's own peak for `pid`; returns its RSS now. */
  reset(pid: number): number {
    const now = rssMb(pid);
    this.sinceReset.set(pid, now);
    return now;
  }

  peakSinceReset(pid: number): number {
    this.sample();
    return this.sinceReset.get(pid) ?? 0;
  }

  peak(name: string): number {
    return this.peakByName.get(name) ?? 0;
  }

  peaks(): Record<string, number> {
    return Object.fromEntries(this.peakByName);
  }

  stop() {
    clearInterval(this.timer);
  }
}
